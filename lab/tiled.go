package lab

import "fmt"

// TiledDefaultTile is the default IN_TILE_DIM of the shared-memory tiled
// kernel: 8, the slides' BLOCK_DIM, giving 512 threads per block.
const TiledDefaultTile = 8

// tiledBlocks returns the number of blocks along one axis for output tiles
// of side out: (N−2)/out + 1, the fewest whose tiles, starting at 0,
// cover the interior points 1…N−2.
func tiledBlocks(N, out int) int { return max(N-2, 0)/out + 1 }

// TiledKernel is the shared-memory tiled kernel of Fig. 8.8. A block of
// IN_TILE_DIM³ threads (IN_TILE_DIM = a.Tile, default 8) loads the input
// tile, one element per thread, into the shared array in_s; after the
// barrier, the threads of the inner (IN_TILE_DIM−2)³ output tile whose
// point is interior compute from in_s. The grid has (N−2)/OUT_TILE_DIM + 1
// blocks along each axis, so N need not be a multiple of the output tile:
// threads outside the grid load nothing and compute nothing.
func TiledKernel(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(TiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("tiled: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  KernelTiled,
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: IN_TILE_DIM},
		Body: func(t *Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT_TILE_DIM + tz - 1
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			in_s := t.Shared3("in_s", IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)
			if i >= 0 && i < N && j >= 0 && j < N && k >= 0 && k < N {
				in_s.Store(tz, ty, tx, t.Load(in, i*N*N+j*N+k))
			}
			t.Sync()
			if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
				if tz >= 1 && tz < IN_TILE_DIM-1 && ty >= 1 && ty < IN_TILE_DIM-1 &&
					tx >= 1 && tx < IN_TILE_DIM-1 {
					t.Store(out, i*N*N+j*N+k, c0*in_s.Load(tz, ty, tx)+
						c1*in_s.Load(tz, ty, tx-1)+
						c2*in_s.Load(tz, ty, tx+1)+
						c3*in_s.Load(tz, ty-1, tx)+
						c4*in_s.Load(tz, ty+1, tx)+
						c5*in_s.Load(tz-1, ty, tx)+
						c6*in_s.Load(tz+1, ty, tx))
					t.Flops(Flops7)
				}
			}
		},
	}, nil
}
