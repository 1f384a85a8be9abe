// Package coarsened is exercise 7 of Stencil Lab: thread coarsening in z,
// the kernel of Fig. 8.10, on the lab's simulated CUDA device.
//
// # Your task
//
// Write Coarsened. A block is one IN_TILE_DIM×IN_TILE_DIM plane of threads
// (blockDim.z = 1; IN_TILE_DIM = a.Tile, or lab.CoarsenedDefaultTile, 32,
// when a.Tile is 0), so a 32×32 tile takes 1024 threads instead of 32768.
// The block marches in z through the OUT_TILE_DIM = IN_TILE_DIM − 2 output
// planes i = iStart … iStart+OUT_TILE_DIM−1 of its tile, iStart =
// blockIdx.z*OUT_TILE_DIM, keeping the three input planes an output plane
// needs in shared memory:
//
//	inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)   // plane i−1
//	inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)   // plane i
//	inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)   // plane i+1
//
// Thread (tx, ty) stands for the column j = blockIdx.y*OUT_TILE_DIM + ty −
// 1, k = blockIdx.x*OUT_TILE_DIM + tx − 1. The grid has (n−2)/OUT_TILE_DIM
// + 1 blocks along each axis of n points, z included.
//
//  1. Load planes iStart−1 and iStart into inPrev_s and inCurr_s, each
//     element only where the point is in the grid.
//  2. For each output plane i: load plane i+1 into inNext_s (if in the
//     grid); t.Sync(); the inner threads (1 ≤ tx, ty ≤ IN_TILE_DIM−2)
//     whose point (i, j, k) is interior compute and store the update and
//     report t.Flops(lab.Flops7); t.Sync(); then rotate: inPrev_s takes
//     inCurr_s and inCurr_s takes inNext_s (each thread its own element).
//
// Mind the coefficients: c3 multiplies (i, j−1, k), which is
// inCurr_s[ty−1][tx], and c4 (i, j+1, k); Fig. 8.10 prints them the other
// way round. The simulator is stricter than a GPU in one place: a thread
// whose (j, k) lies outside the grid never loaded its elements, so it
// must not copy them in the rotation either (reading them is an
// "uninitialised read", reported as a hazard).
//
// Check your work with `go test ./exercises/07_coarsened` or
// `go run ./cmd/grade 07`.
package coarsened

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Coarsened prepares the seven-point kernel coarsened in z of Fig. 8.10 for
// the arguments a.
func Coarsened(a lab.StencilArgs) (sim.Kernel, error) {
	// BEGIN SOLUTION
	IN_TILE_DIM := a.Tile
	if IN_TILE_DIM == 0 {
		IN_TILE_DIM = lab.CoarsenedDefaultTile
	}
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3 := float32(a.C[0]), float32(a.C[1]), float32(a.C[2]), float32(a.C[3])
	c4, c5, c6 := float32(a.C[4]), float32(a.C[5]), float32(a.C[6])
	return sim.Kernel{
		Name:  "coarsened",
		Grid:  sim.Dim3{X: (nx-2)/OUT_TILE_DIM + 1, Y: (ny-2)/OUT_TILE_DIM + 1, Z: (nz-2)/OUT_TILE_DIM + 1},
		Block: sim.Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			column := j >= 0 && j < ny && k >= 0 && k < nx
			if column && iStart-1 >= 0 && iStart-1 < nz {
				inPrev_s.Store(ty, tx, t.Load(in, ((iStart-1)*ny+j)*nx+k))
			}
			if column && iStart < nz {
				inCurr_s.Store(ty, tx, t.Load(in, (iStart*ny+j)*nx+k))
			}
			inner := ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if column && i+1 < nz {
					inNext_s.Store(ty, tx, t.Load(in, ((i+1)*ny+j)*nx+k))
				}
				t.Sync()
				if inner && i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
					t.Store(out, (i*ny+j)*nx+k, c0*inCurr_s.Load(ty, tx)+
						c1*inCurr_s.Load(ty, tx-1)+
						c2*inCurr_s.Load(ty, tx+1)+
						c3*inCurr_s.Load(ty-1, tx)+
						c4*inCurr_s.Load(ty+1, tx)+
						c5*inPrev_s.Load(ty, tx)+
						c6*inNext_s.Load(ty, tx))
					t.Flops(lab.Flops7)
				}
				t.Sync()
				if column {
					inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
			}
		},
	}, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Kernel{}, errNotImplemented
	// END STUB
}
