package lab

import "fmt"

// RegisterTiledKernel is the kernel of Fig. 8.12: coarsened in z as
// CoarsenedKernel, with the previous and next input planes in each
// thread's registers inPrev and inNext and only the current plane in the
// shared array inCurr_s, which the neighbours in x and y read. The thread
// keeps its own current element in the register inCurr too. The tile
// (a.Tile, default 32) and the grid are those of CoarsenedKernel.
//
// The coefficients follow the lab's mapping (c3 for j−1, c4 for j+1),
// which Fig. 8.12 swaps, and the plane moved into shared memory at the end
// of an iteration is the register inNext (the figure's line 36 names an
// inNext_s that the kernel does not declare).
func RegisterTiledKernel(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("register_tiled: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  KernelRegisterTiled,
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			var inPrev float32
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			var inCurr float32
			var inNext float32
			if iStart-1 >= 0 && iStart-1 < N && j >= 0 && j < N && k >= 0 && k < N {
				inPrev = t.Load(in, (iStart-1)*N*N+j*N+k)
			}
			if iStart >= 0 && iStart < N && j >= 0 && j < N && k >= 0 && k < N {
				inCurr = t.Load(in, iStart*N*N+j*N+k)
				inCurr_s.Store(ty, tx, inCurr)
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < N && j >= 0 && j < N && k >= 0 && k < N {
					inNext = t.Load(in, (i+1)*N*N+j*N+k)
				}
				t.Sync()
				if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
					if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
						t.Store(out, i*N*N+j*N+k, c0*inCurr+
							c1*inCurr_s.Load(ty, tx-1)+
							c2*inCurr_s.Load(ty, tx+1)+
							c3*inCurr_s.Load(ty-1, tx)+
							c4*inCurr_s.Load(ty+1, tx)+
							c5*inPrev+
							c6*inNext)
						t.Flops(Flops7)
					}
				}
				t.Sync()
				inPrev = inCurr
				inCurr = inNext
				inCurr_s.Store(ty, tx, inNext)
			}
		},
	}, nil
}
