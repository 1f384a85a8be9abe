// Package registertiled is exercise 8 of Stencil Lab: register tiling, the
// kernel of Fig. 8.12, on the lab's simulated CUDA device.
//
// # Your task
//
// Write RegisterTiled. It is the coarsened kernel of exercise 7 (blocks of
// IN_TILE_DIM×IN_TILE_DIM threads marching in z through OUT_TILE_DIM =
// IN_TILE_DIM − 2 output planes; IN_TILE_DIM = a.Tile, or
// lab.RegisterTiledDefaultTile, 32, when a.Tile is 0; the same grid), with one
// change: a thread is the only one that reads its element of the previous
// and of the next plane, so those live in its registers — local variables
// of Body — and only the current plane, which its x and y neighbours read,
// stays in shared memory:
//
//	var inPrev, inCurr, inNext float32
//	inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
//
// Shared memory per block drops from three planes to one. Per output
// plane i: load inNext from plane i+1 (if in the grid); t.Sync(); the
// inner threads whose point (i, j, k) is interior compute
//
//	c0·inCurr + c1·inCurr_s[ty][tx−1] + c2·inCurr_s[ty][tx+1]
//	+ c3·inCurr_s[ty−1][tx] + c4·inCurr_s[ty+1][tx] + c5·inPrev + c6·inNext
//
// store it and report t.Flops(lab.Flops7); t.Sync(); then inPrev =
// inCurr, inCurr = inNext, and the thread stores inNext into its element
// of inCurr_s. The coefficients are lab.Coeffs' (c3 for j−1); Fig. 8.12
// swaps c3 and c4, and its last line names an inNext_s that the kernel
// does not declare: the value to store is the register inNext.
//
// As in exercise 7, a thread whose (j, k) is outside the grid loads
// nothing; the simulator reports any read of a shared element that no
// thread wrote.
//
// Check your work with `go test ./exercises/08_register_tiled` or
// `go run ./cmd/grade 08`.
package registertiled

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// RegisterTiled prepares the register-tiled seven-point kernel of Fig.
// 8.12 for the arguments a.
func RegisterTiled(a lab.StencilArgs) (sim.Kernel, error) {
	// BEGIN SOLUTION
	IN_TILE_DIM := a.Tile
	if IN_TILE_DIM == 0 {
		IN_TILE_DIM = lab.RegisterTiledDefaultTile
	}
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("register_tiled: IN_TILE_DIM = %d leaves no output tile", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3 := float32(a.C[0]), float32(a.C[1]), float32(a.C[2]), float32(a.C[3])
	c4, c5, c6 := float32(a.C[4]), float32(a.C[5]), float32(a.C[6])
	return sim.Kernel{
		Name:  "register_tiled",
		Grid:  sim.Dim3{X: (nx-2)/OUT_TILE_DIM + 1, Y: (ny-2)/OUT_TILE_DIM + 1, Z: (nz-2)/OUT_TILE_DIM + 1},
		Block: sim.Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			var inPrev, inCurr, inNext float32
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			column := j >= 0 && j < ny && k >= 0 && k < nx
			if column && iStart-1 >= 0 && iStart-1 < nz {
				inPrev = t.Load(in, ((iStart-1)*ny+j)*nx+k)
			}
			if column && iStart < nz {
				inCurr = t.Load(in, (iStart*ny+j)*nx+k)
				inCurr_s.Store(ty, tx, inCurr)
			}
			inner := ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if column && i+1 < nz {
					inNext = t.Load(in, ((i+1)*ny+j)*nx+k)
				}
				t.Sync()
				if inner && i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
					t.Store(out, (i*ny+j)*nx+k, c0*inCurr+
						c1*inCurr_s.Load(ty, tx-1)+
						c2*inCurr_s.Load(ty, tx+1)+
						c3*inCurr_s.Load(ty-1, tx)+
						c4*inCurr_s.Load(ty+1, tx)+
						c5*inPrev+
						c6*inNext)
					t.Flops(lab.Flops7)
				}
				t.Sync()
				inPrev = inCurr
				inCurr = inNext
				if column {
					inCurr_s.Store(ty, tx, inNext)
				}
			}
		},
	}, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Kernel{}, errNotImplemented
	// END STUB
}
