// Package findthebug is exercise 9 of Stencil Lab: a kernel with mistakes
// to find and fix.
//
// # Your task
//
// Coarsened below is the kernel coarsened in z of Fig. 8.10 (see exercise
// 7 for how it works), typed in from the figure and from a student's
// study notes on it, and carried over to the simulator. It compiles and
// it runs without a single race, yet its output is wrong, in two
// independent ways. Find both mistakes and fix them, changing as little as
// you can.
//
// Some help:
//
//   - Run `go test ./exercises/09_find_the_bug` or
//     `go run ./cmd/grade 09`: each check looks at one symptom.
//   - The lab's Coeffs are the truth about which coefficient multiplies
//     which neighbour: c1/c2 for x−1/x+1 (k), c3/c4 for y−1/y+1 (j),
//     c5/c6 for z−1/z+1 (i). The reference is lab.SevenPoint.
//   - Fig. 8.11 shows where the three shared planes sit after the first
//     step of the z loop. Which statements must run once for every output
//     plane?
//   - The guard on the plane rotation at the end (only threads whose
//     (j, k) is in the grid copy) is not a mistake: the simulator reports
//     a copy of an element no thread loaded (see exercise 7).
package findthebug

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Coarsened prepares the seven-point kernel coarsened in z of Fig. 8.10 for
// the arguments a: blocks of IN_TILE_DIM×IN_TILE_DIM threads (a.Tile, or
// 32 when it is 0) marching in z through OUT_TILE_DIM = IN_TILE_DIM − 2
// output planes.
func Coarsened(a lab.StencilArgs) (sim.Kernel, error) {
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
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + t.ThreadIdx.Y - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + t.ThreadIdx.X - 1
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			if iStart-1 >= 0 && iStart-1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inPrev_s.Store(ty, tx, t.Load(in, ((iStart-1)*ny+j)*nx+k))
			}
			if iStart >= 0 && iStart < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inCurr_s.Store(ty, tx, t.Load(in, (iStart*ny+j)*nx+k))
			}
			// BEGIN SOLUTION
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
					inNext_s.Store(ty, tx, t.Load(in, ((i+1)*ny+j)*nx+k))
				}
				t.Sync()
				if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
					if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
						t.Store(out, (i*ny+j)*nx+k, c0*inCurr_s.Load(ty, tx)+
							c1*inCurr_s.Load(ty, tx-1)+
							c2*inCurr_s.Load(ty, tx+1)+
							c3*inCurr_s.Load(ty-1, tx)+
							c4*inCurr_s.Load(ty+1, tx)+
							c5*inPrev_s.Load(ty, tx)+
							c6*inNext_s.Load(ty, tx))
						t.Flops(lab.Flops7)
					}
				}
				t.Sync()
				if j >= 0 && j < ny && k >= 0 && k < nx {
					inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
			}
			// END SOLUTION
			// BEGIN STUB: this kernel has two mistakes; find them and fix them.
			// for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
			// 	if i+1 >= 0 && i+1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
			// 		inNext_s.Store(ty, tx, t.Load(in, ((i+1)*ny+j)*nx+k))
			// 	}
			// }
			// t.Sync()
			// if iStart >= 1 && iStart < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
			// 	if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
			// 		t.Store(out, (iStart*ny+j)*nx+k, c0*inCurr_s.Load(ty, tx)+
			// 			c1*inCurr_s.Load(ty, tx-1)+
			// 			c2*inCurr_s.Load(ty, tx+1)+
			// 			c3*inCurr_s.Load(ty+1, tx)+
			// 			c4*inCurr_s.Load(ty-1, tx)+
			// 			c5*inPrev_s.Load(ty, tx)+
			// 			c6*inNext_s.Load(ty, tx))
			// 		t.Flops(lab.Flops7)
			// 	}
			// }
			// t.Sync()
			// if j >= 0 && j < ny && k >= 0 && k < nx {
			// 	inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
			// 	inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
			// }
			// END STUB
		},
	}, nil
}
