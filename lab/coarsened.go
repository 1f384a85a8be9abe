package lab

import "fmt"

// CoarsenedDefaultTile is the default IN_TILE_DIM of the kernels coarsened
// in z: 32, giving blocks of 32×32 = 1024 threads.
const CoarsenedDefaultTile = 32

// CoarsenedKernel is the kernel of Fig. 8.10, coarsened in z. A block of
// IN_TILE_DIM×IN_TILE_DIM threads (IN_TILE_DIM = a.Tile, default 32)
// marches through OUT_TILE_DIM = IN_TILE_DIM−2 output planes, keeping the
// three input planes it needs in the shared arrays inPrev_s, inCurr_s and
// inNext_s. The grid has (N−2)/OUT_TILE_DIM + 1 blocks along each axis,
// z included.
//
// Two departures from the figure. The coefficients follow the lab's
// mapping (c3 for j−1, c4 for j+1), which Fig. 8.10 swaps. And the planes
// are rotated (the figure's lines 32–33) only by threads whose (j, k) lies
// in the grid: the others never loaded anything, and copying an element
// no thread wrote is what the simulator reports as an uninitialised read.
// On a GPU copying that garbage is harmless, since no output uses it.
func CoarsenedKernel(a StencilArgs) (Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	N := a.N
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	blocks := tiledBlocks(N, OUT_TILE_DIM)
	return Kernel{
		Name:  KernelCoarsened,
		Grid:  Dim3{X: blocks, Y: blocks, Z: blocks},
		Block: Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			if iStart-1 >= 0 && iStart-1 < N && j >= 0 && j < N && k >= 0 && k < N {
				inPrev_s.Store(ty, tx, t.Load(in, (iStart-1)*N*N+j*N+k))
			}
			if iStart >= 0 && iStart < N && j >= 0 && j < N && k >= 0 && k < N {
				inCurr_s.Store(ty, tx, t.Load(in, iStart*N*N+j*N+k))
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < N && j >= 0 && j < N && k >= 0 && k < N {
					inNext_s.Store(ty, tx, t.Load(in, (i+1)*N*N+j*N+k))
				}
				t.Sync()
				if i >= 1 && i < N-1 && j >= 1 && j < N-1 && k >= 1 && k < N-1 {
					if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
						t.Store(out, i*N*N+j*N+k, c0*inCurr_s.Load(ty, tx)+
							c1*inCurr_s.Load(ty, tx-1)+
							c2*inCurr_s.Load(ty, tx+1)+
							c3*inCurr_s.Load(ty-1, tx)+
							c4*inCurr_s.Load(ty+1, tx)+
							c5*inPrev_s.Load(ty, tx)+
							c6*inNext_s.Load(ty, tx))
						t.Flops(Flops7)
					}
				}
				t.Sync()
				if j >= 0 && j < N && k >= 0 && k < N {
					inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
			}
		},
	}, nil
}
