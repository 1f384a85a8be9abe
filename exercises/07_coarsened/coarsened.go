// Package coarsened is exercise 7 of Stencil Lab: thread coarsening in z,
// the technique of Fig. 8.10, applied to the 3D thirteen-point star of
// radius 2 (Fig. 8.3D), on the lab's simulated CUDA device.
//
// # Your task
//
// Write Coarsened. The stencil, its coefficients c0…c12 (a.C, in the order
// of star.Coeffs), its interior (2 ≤ i ≤ NZ−3, and likewise j and k) and
// the simulator are those of exercise 5; the halo of two, IN_TILE_DIM =
// OUT_TILE_DIM + 4, and the grid, (n−3)/OUT_TILE_DIM + 1 blocks along each
// axis of n points, z included, are those of exercise 6. A tile of fewer
// than 5 points leaves no output: return an error for it.
//
// A block is one IN_TILE_DIM×IN_TILE_DIM plane of threads (blockDim.z =
// 1; IN_TILE_DIM = a.Tile, or star.CoarsenedDefaultTile, 32, when a.Tile
// is 0). It marches in z through the OUT_TILE_DIM output planes
// i = iStart … iStart+OUT_TILE_DIM−1 of its tile, iStart =
// blockIdx.z*OUT_TILE_DIM. An output plane needs five input planes, i−2
// to i+2, and the block keeps all five in shared memory, each an
// IN_TILE_DIM×IN_TILE_DIM array made with t.Shared2 (five names of your
// choice). Thread (tx, ty) stands for the column
//
//	j = blockIdx.y*OUT_TILE_DIM + ty − 2,  k = blockIdx.x*OUT_TILE_DIM + tx − 2
//
// The steps:
//
//  1. Load planes iStart−2, iStart−1, iStart and iStart+1, each element
//     only where the point is in the grid.
//  2. For each output plane i: load plane i+2 (where in the grid);
//     t.Sync(); the inner threads (2 ≤ tx, ty ≤ IN_TILE_DIM−3) whose point
//     (i, j, k) is interior compute the update, store it and report
//     t.Flops(star.Flops); t.Sync(); then move every plane down by one,
//     each thread its own element: the plane of i−1 takes the place of
//     i−2, that of i the place of i−1, and so on.
//
// Every input is loaded from global memory once per block. The simulator
// is stricter than a GPU in one place: an element that no thread loaded
// (its point is outside the grid) must not be read, not even to be copied
// in the move, or it reports an "uninitialised read" hazard; copy a plane
// only where it lies in the grid.
//
// # How it is graded
//
// The values on small and random grids are the correctness part (the
// checks small and values). The rest pays for the technique, measured
// by the simulator on a run whose values are right: global loads per output point at most
// the tile's count (each column's planes loaded once per block), the 13
// inputs of every output read back from the five shared planes, one or
// two barriers per output plane, and a thread per column writing its
// planes. An audit run rounds every value read back from shared memory:
// the outputs must change exactly as they would if every neighbour came
// from the shared planes, so shared memory declared and never read, or
// read only for show, scores nothing for the method. The hazard, launch,
// traffic and default-tile checks pay only on such a run.
//
// Check your work with `go test ./exercises/07_coarsened` or
// `go run ./cmd/grade 07`.
package coarsened

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Coarsened prepares the thirteen-point kernel coarsened in z, with its
// five planes in shared memory, for the arguments a.
func Coarsened(a star.Args) (sim.Kernel, error) {
	// BEGIN SOLUTION
	IN_TILE_DIM := a.Tile
	if IN_TILE_DIM == 0 {
		IN_TILE_DIM = star.CoarsenedDefaultTile
	}
	const R = star.Radius
	if IN_TILE_DIM < 2*R+1 {
		return sim.Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile (at least %d)", IN_TILE_DIM, 2*R+1)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2*R
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	var c [star.Points]float32
	for q := range c {
		c[q] = float32(a.C[q])
	}
	blocks := func(n int) int { return (n-1-R)/OUT_TILE_DIM + 1 }
	return sim.Kernel{
		Name:  "coarsened13",
		Grid:  sim.Dim3{X: blocks(nx), Y: blocks(ny), Z: blocks(nz)},
		Block: sim.Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - R
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - R
			// planes[d] holds plane i−2+d of the current output plane i.
			planes := [2*R + 1]sim.Shared2{
				t.Shared2("inPrev2_s", IN_TILE_DIM, IN_TILE_DIM),
				t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM),
				t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM),
				t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM),
				t.Shared2("inNext2_s", IN_TILE_DIM, IN_TILE_DIM),
			}
			column := j >= 0 && j < ny && k >= 0 && k < nx
			inGrid := func(p int) bool { return column && p >= 0 && p < nz }
			for d := range 2 * R {
				if p := iStart - R + d; inGrid(p) {
					planes[d].Store(ty, tx, t.Load(in, (p*ny+j)*nx+k))
				}
			}
			inner := ty >= R && ty < IN_TILE_DIM-R && tx >= R && tx < IN_TILE_DIM-R
			interiorColumn := j >= R && j < ny-R && k >= R && k < nx-R
			cur := planes[R]
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if inGrid(i + R) {
					planes[2*R].Store(ty, tx, t.Load(in, ((i+R)*ny+j)*nx+k))
				}
				t.Sync()
				if inner && interiorColumn && i >= R && i < nz-R {
					t.Store(out, (i*ny+j)*nx+k, c[0]*cur.Load(ty, tx)+
						c[1]*cur.Load(ty, tx-1)+c[2]*cur.Load(ty, tx+1)+
						c[3]*cur.Load(ty-1, tx)+c[4]*cur.Load(ty+1, tx)+
						c[5]*planes[R-1].Load(ty, tx)+c[6]*planes[R+1].Load(ty, tx)+
						c[7]*cur.Load(ty, tx-2)+c[8]*cur.Load(ty, tx+2)+
						c[9]*cur.Load(ty-2, tx)+c[10]*cur.Load(ty+2, tx)+
						c[11]*planes[R-2].Load(ty, tx)+c[12]*planes[R+2].Load(ty, tx))
					t.Flops(star.Flops)
				}
				t.Sync()
				for d := range 2 * R {
					if inGrid(i - R + d + 1) {
						planes[d].Store(ty, tx, planes[d+1].Load(ty, tx))
					}
				}
			}
		},
	}, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Kernel{}, errNotImplemented
	// END STUB
}
