//go:build hidden

package checks

import (
	"fmt"

	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// The kernel of exercise 09 with each of its mistakes alone, and with all
// four as the exercise hands it out, made from the text of
// exercises/09_find_the_bug/fix.go (TestBugKernelsAreTheExerciseWithOneMistake
// derives each from it again). Instructor-only: each is nearly the
// exercise's answer.

// bugHalo has an output tile of IN_TILE_DIM − 2: a halo of one.
func bugHalo(a star.Args) (sim.Kernel, error) {
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
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
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
}

// bugSwap has c9 and c10 swapped.
func bugSwap(a star.Args) (sim.Kernel, error) {
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
						c[9]*inCurr_s.Load(ty+2, tx)+c[10]*inCurr_s.Load(ty-2, tx)+
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
}

// bugLoop has the z loop closes right after the load of plane i+2.
func bugLoop(a star.Args) (sim.Kernel, error) {
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
			}
			t.Sync()
			if iStart >= 2 && iStart < nz-2 && j >= 2 && j < ny-2 && k >= 2 && k < nx-2 &&
				ty >= 2 && ty < IN_TILE_DIM-2 && tx >= 2 && tx < IN_TILE_DIM-2 {
				t.Store(out, (iStart*ny+j)*nx+k, c[0]*inCurr_s.Load(ty, tx)+
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
				if iStart-1 >= 0 {
					inPrev2_s.Store(ty, tx, inPrev_s.Load(ty, tx))
				}
				inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
				if iStart+1 < nz {
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
				if iStart+2 < nz {
					inNext_s.Store(ty, tx, inNext2_s.Load(ty, tx))
				}
			}
		},
	}, nil
}

// bugBarrier has no barrier between the computation and the moves of the planes.
func bugBarrier(a star.Args) (sim.Kernel, error) {
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
}

// bugAll has all four mistakes, the exercise as handed out.
func bugAll(a star.Args) (sim.Kernel, error) {
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
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
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
			}
			t.Sync()
			if iStart >= 2 && iStart < nz-2 && j >= 2 && j < ny-2 && k >= 2 && k < nx-2 &&
				ty >= 2 && ty < IN_TILE_DIM-2 && tx >= 2 && tx < IN_TILE_DIM-2 {
				t.Store(out, (iStart*ny+j)*nx+k, c[0]*inCurr_s.Load(ty, tx)+
					c[1]*inCurr_s.Load(ty, tx-1)+c[2]*inCurr_s.Load(ty, tx+1)+
					c[3]*inCurr_s.Load(ty-1, tx)+c[4]*inCurr_s.Load(ty+1, tx)+
					c[5]*inPrev_s.Load(ty, tx)+c[6]*inNext_s.Load(ty, tx)+
					c[7]*inCurr_s.Load(ty, tx-2)+c[8]*inCurr_s.Load(ty, tx+2)+
					c[9]*inCurr_s.Load(ty+2, tx)+c[10]*inCurr_s.Load(ty-2, tx)+
					c[11]*inPrev2_s.Load(ty, tx)+c[12]*inNext2_s.Load(ty, tx))
				t.Flops(star.Flops)
			}
			if column {
				if iStart-1 >= 0 {
					inPrev2_s.Store(ty, tx, inPrev_s.Load(ty, tx))
				}
				inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
				if iStart+1 < nz {
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
				if iStart+2 < nz {
					inNext_s.Store(ty, tx, inNext2_s.Load(ty, tx))
				}
			}
		},
	}, nil
}
