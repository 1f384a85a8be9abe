// Package findthebug is exercise 9 of Stencil Lab: a thirteen-point
// kernel with mistakes to find and fix.
//
// # Your task
//
// Coarsened below applies thread coarsening in z (Fig. 8.10, exercise 7)
// to the thirteen-point star of radius 2 (Fig. 8.3D, exercise 5): blocks
// of IN_TILE_DIM×IN_TILE_DIM threads (a.Tile, or star.CoarsenedDefaultTile
// when it is 0) march in z through their output planes, with five input
// planes in shared memory. A student wrote it from the chapter and from
// study notes on the seven-point kernels. It compiles and it runs, yet it
// is wrong in four independent ways. Find the four mistakes and fix them,
// changing as little as you can.
//
// Some help:
//
//   - Run `go test ./exercises/09_find_the_bug` or
//     `go run ./cmd/grade 09`: each check looks at one symptom of the
//     output (which points are written, which are right, what the
//     simulator reports), and says what it sees.
//   - star.Coeffs is the truth about which coefficient multiplies which
//     neighbour; the reference is lab.Sweep3 with lab.ThirteenPoint.
//   - The guards on the plane moves at the end (a thread copies only
//     elements that it loaded) are not mistakes: the simulator reports a
//     copy of an element that no thread loaded (see exercise 7).
//
// # How it is graded
//
// The whole sweep on random grids is the correctness part (the values
// check): any correct kernel earns it. The other points are for the
// given kernel fixed, its structure kept: its plane of threads marching
// in z, its five shared planes read back for every output, its barriers.
// The structure check measures that with the simulator, as exercise 7's
// method check does (global loads, shared loads and stores, barriers per
// block, threads per output, and an audit run that rounds what shared
// memory returns). The checks of one symptom pay only on a run of such a
// kernel whose points written are right and cover at least a twelfth of
// the interior. A kernel written anew (one thread per point, say) earns
// the correctness part only, and the messages say why.
package findthebug

import (
	"fmt"

	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// Coarsened prepares the thirteen-point kernel coarsened in z for the
// arguments a: blocks of IN_TILE_DIM×IN_TILE_DIM threads marching in z,
// with the five planes an output plane needs in shared memory.
//
//exercise:notebook-name FixedCoarsened
func Coarsened(a star.Args) (sim.Kernel, error) {
	IN_TILE_DIM := a.Tile
	if IN_TILE_DIM == 0 {
		IN_TILE_DIM = star.CoarsenedDefaultTile
	}
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	var c [star.Points]float32
	for q := range c {
		c[q] = float32(a.C[q])
	}
	// BEGIN SOLUTION
	if IN_TILE_DIM < 5 {
		return sim.Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 4
	return sim.Kernel{
		Name:  "coarsened13",
		Grid:  sim.Dim3{X: (nx-3)/OUT_TILE_DIM + 1, Y: (ny-3)/OUT_TILE_DIM + 1, Z: (nz-3)/OUT_TILE_DIM + 1},
		Block: sim.Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
		Body: func(t *sim.Thread) {
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + t.ThreadIdx.Y - 2
			k := t.BlockIdx.X*OUT_TILE_DIM + t.ThreadIdx.X - 2
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			inPrev2_s := t.Shared2("inPrev2_s", IN_TILE_DIM, IN_TILE_DIM)
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext2_s := t.Shared2("inNext2_s", IN_TILE_DIM, IN_TILE_DIM)
			column := j >= 0 && j < ny && k >= 0 && k < nx
			if column && iStart-2 >= 0 {
				inPrev2_s.Store(ty, tx, t.Load(in, ((iStart-2)*ny+j)*nx+k))
			}
			if column && iStart-1 >= 0 {
				inPrev_s.Store(ty, tx, t.Load(in, ((iStart-1)*ny+j)*nx+k))
			}
			if column && iStart < nz {
				inCurr_s.Store(ty, tx, t.Load(in, ((iStart)*ny+j)*nx+k))
			}
			if column && iStart+1 < nz {
				inNext_s.Store(ty, tx, t.Load(in, ((iStart+1)*ny+j)*nx+k))
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if column && i+2 < nz {
					inNext2_s.Store(ty, tx, t.Load(in, ((i+2)*ny+j)*nx+k))
				}
				t.Sync()
				if i >= 2 && i < nz-2 && j >= 2 && j < ny-2 && k >= 2 && k < nx-2 &&
					ty >= 2 && ty < IN_TILE_DIM-2 && tx >= 2 && tx < IN_TILE_DIM-2 {
					t.Store(out, (i*ny+j)*nx+k, c[0]*inCurr_s.Load(ty, tx)+
						c[1]*inCurr_s.Load(ty, tx-1)+c[2]*inCurr_s.Load(ty, tx+1)+
						c[3]*inCurr_s.Load(ty-1, tx)+c[4]*inCurr_s.Load(ty+1, tx)+
						c[5]*inPrev_s.Load(ty, tx)+c[6]*inNext_s.Load(ty, tx)+
						c[7]*inCurr_s.Load(ty, tx-2)+c[8]*inCurr_s.Load(ty, tx+2)+
						c[9]*inCurr_s.Load(ty-2, tx)+c[10]*inCurr_s.Load(ty+2, tx)+
						c[11]*inPrev2_s.Load(ty, tx)+c[12]*inNext2_s.Load(ty, tx))
					t.Flops(star.Flops)
				}
				t.Sync()
				if column {
					if i-1 >= 0 {
						inPrev2_s.Store(ty, tx, inPrev_s.Load(ty, tx))
					}
					inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
					if i+1 < nz {
						inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
					}
					if i+2 < nz {
						inNext_s.Store(ty, tx, inNext2_s.Load(ty, tx))
					}
				}
			}
		},
	}, nil
	// END SOLUTION
	// BEGIN STUB: this kernel has four mistakes; find them and fix them.
	// if IN_TILE_DIM < 3 {
	// 	return sim.Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile", IN_TILE_DIM)
	// }
	// OUT_TILE_DIM := IN_TILE_DIM - 2
	// return sim.Kernel{
	// 	Name:  "coarsened13",
	// 	Grid:  sim.Dim3{X: (nx-3)/OUT_TILE_DIM + 1, Y: (ny-3)/OUT_TILE_DIM + 1, Z: (nz-3)/OUT_TILE_DIM + 1},
	// 	Block: sim.Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: 1},
	// 	Body: func(t *sim.Thread) {
	// 		iStart := t.BlockIdx.Z * OUT_TILE_DIM
	// 		j := t.BlockIdx.Y*OUT_TILE_DIM + t.ThreadIdx.Y - 2
	// 		k := t.BlockIdx.X*OUT_TILE_DIM + t.ThreadIdx.X - 2
	// 		ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
	// 		inPrev2_s := t.Shared2("inPrev2_s", IN_TILE_DIM, IN_TILE_DIM)
	// 		inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
	// 		inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
	// 		inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
	// 		inNext2_s := t.Shared2("inNext2_s", IN_TILE_DIM, IN_TILE_DIM)
	// 		column := j >= 0 && j < ny && k >= 0 && k < nx
	// 		if column && iStart-2 >= 0 {
	// 			inPrev2_s.Store(ty, tx, t.Load(in, ((iStart-2)*ny+j)*nx+k))
	// 		}
	// 		if column && iStart-1 >= 0 {
	// 			inPrev_s.Store(ty, tx, t.Load(in, ((iStart-1)*ny+j)*nx+k))
	// 		}
	// 		if column && iStart < nz {
	// 			inCurr_s.Store(ty, tx, t.Load(in, ((iStart)*ny+j)*nx+k))
	// 		}
	// 		if column && iStart+1 < nz {
	// 			inNext_s.Store(ty, tx, t.Load(in, ((iStart+1)*ny+j)*nx+k))
	// 		}
	// 		for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
	// 			if column && i+2 < nz {
	// 				inNext2_s.Store(ty, tx, t.Load(in, ((i+2)*ny+j)*nx+k))
	// 			}
	// 		}
	// 		t.Sync()
	// 		if iStart >= 2 && iStart < nz-2 && j >= 2 && j < ny-2 && k >= 2 && k < nx-2 &&
	// 			ty >= 2 && ty < IN_TILE_DIM-2 && tx >= 2 && tx < IN_TILE_DIM-2 {
	// 			t.Store(out, (iStart*ny+j)*nx+k, c[0]*inCurr_s.Load(ty, tx)+
	// 				c[1]*inCurr_s.Load(ty, tx-1)+c[2]*inCurr_s.Load(ty, tx+1)+
	// 				c[3]*inCurr_s.Load(ty-1, tx)+c[4]*inCurr_s.Load(ty+1, tx)+
	// 				c[5]*inPrev_s.Load(ty, tx)+c[6]*inNext_s.Load(ty, tx)+
	// 				c[7]*inCurr_s.Load(ty, tx-2)+c[8]*inCurr_s.Load(ty, tx+2)+
	// 				c[9]*inCurr_s.Load(ty+2, tx)+c[10]*inCurr_s.Load(ty-2, tx)+
	// 				c[11]*inPrev2_s.Load(ty, tx)+c[12]*inNext2_s.Load(ty, tx))
	// 			t.Flops(star.Flops)
	// 		}
	// 		if column {
	// 			if iStart-1 >= 0 {
	// 				inPrev2_s.Store(ty, tx, inPrev_s.Load(ty, tx))
	// 			}
	// 			inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
	// 			if iStart+1 < nz {
	// 				inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
	// 			}
	// 			if iStart+2 < nz {
	// 				inNext_s.Store(ty, tx, inNext2_s.Load(ty, tx))
	// 			}
	// 		}
	// 	},
	// }, nil
	// END STUB
}
