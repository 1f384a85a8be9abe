package lab

import (
	"fmt"

	"stencillab.dev/lab/sim"
)

// CoarsenedDefaultTile is the default IN_TILE_DIM of the kernels coarsened
// in z: 32, giving blocks of 32×32 = 1024 threads.
const CoarsenedDefaultTile = 32

// The kernel of Fig. 8.10, coarsened in z.
var _ = mustRegister3(Step3{
	Step: Step{Name: "coarsened", Title: "Thread coarsening in z", Figure: "8.10",
		Runs:     "a T×T block marches in z keeping three input planes in shared memory",
		Notebook: "05_thread_coarsening"},
	DefaultTile: CoarsenedDefaultTile,
	MinTile:     3,
	TileName:    "IN_TILE_DIM",
	Geometry:    coarsenedGeometry,
	Cost:        func(T int) (outputs, loads int) { return (T - 2) * (T - 2) * (T - 2), T * T * T },
	LaunchLoads: haloLoads,
	Explain: Explain{
		Outputs: "T−2 output planes of (T−2)²",
		Loads:   "T planes of T² inputs, the T−2 output planes and one halo plane on each side: each thread loads its (j, k) column once, plane iStart−1, plane iStart, then plane i+1 in each step of the z loop, only where they are in the grid",
		Threads: "a coarsened block is one IN_TILE_DIM×IN_TILE_DIM plane of threads (blockDim.z = 1) marching in z",
		Shared:  "three IN_TILE_DIM×IN_TILE_DIM planes of float32, inPrev_s, inCurr_s and inNext_s, 4 bytes each",
	},
	Kernel: CoarsenedKernel,
	CUDA:   CUDA{File: "coarsened.cu", Entry: "coarsened", TileDefine: "IN_TILE_DIM"},
	Broken: []Broken{
		{Name: "coarsened_c3_c4_swapped", From: "Fig. 8.10 (and 8.12) against Fig. 8.6",
			Bug:    "c3 multiplies the j+1 neighbour and c4 the j−1 one, the opposite of the basic kernel",
			Caught: "a wrong result whenever c3 ≠ c4",
			Kernel: BrokenCoarsenedSwappedC3C4},
		{Name: "coarsened_loop_closes_early", From: "study notes, day 22 (thread coarsening)",
			Bug:    "the z loop closes right after loading inNext_s, so the block computes one plane, iStart, with the wrong next plane",
			Caught: "a wrong result: OUT_TILE_DIM−1 planes of every output tile are never written, and plane iStart uses plane iStart+OUT_TILE_DIM",
			Kernel: BrokenCoarsenedLoopClosesEarly},
		{Name: "coarsened_block_34x34", From: "study notes, day 22 (run summary: tile 32×32, block 34×34)",
			Bug:    "taking OUT_TILE_DIM = 32 makes IN_TILE_DIM = 34 and blocks of 34×34 = 1156 threads",
			Caught: "the launch is refused: block 34×34 = 1156 threads exceeds 1024 threads per block",
			Kernel: BrokenCoarsenedBlock34},
	},
})

// coarsenedGeometry is the coarsened kernel's launch: three shared planes.
var coarsenedGeometry = planeGeometry(3)

// CoarsenedKernel is the kernel of Fig. 8.10, coarsened in z. A block of
// IN_TILE_DIM×IN_TILE_DIM threads (IN_TILE_DIM = a.Tile, default 32)
// marches through OUT_TILE_DIM = IN_TILE_DIM−2 output planes, keeping the
// three input planes it needs in the shared arrays inPrev_s, inCurr_s and
// inNext_s. The grid has (n−2)/OUT_TILE_DIM + 1 blocks along each axis of n points,
// z included.
//
// Two departures from the figure. The coefficients follow the lab's
// mapping (c3 for j−1, c4 for j+1), which Fig. 8.10 swaps. And the planes
// are rotated (the figure's lines 32–33) only by threads whose (j, k) lies
// in the grid: the others never loaded anything, and copying an element
// no thread wrote is what the simulator reports as an uninitialised read.
// On a GPU copying that garbage is harmless, since no output uses it.
func CoarsenedKernel(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("coarsened: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := coarsenedGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "coarsened",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			if iStart-1 >= 0 && iStart-1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inPrev_s.Store(ty, tx, t.Load(in, ((iStart-1)*ny+j)*nx+k))
			}
			if iStart >= 0 && iStart < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inCurr_s.Store(ty, tx, t.Load(in, (iStart*ny+j)*nx+k))
			}
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
						t.Flops(Flops7)
					}
				}
				t.Sync()
				if j >= 0 && j < ny && k >= 0 && k < nx {
					inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
			}
		},
	}, nil
}

// BrokenCoarsenedSwappedC3C4 is CoarsenedKernel with the coefficients as
// Fig. 8.10 prints them: c3 multiplies inCurr_s[ty+1][tx], the j+1
// neighbour, and c4 the j−1 neighbour, while Fig. 8.6 and the lab's Coeffs
// give c3 to j−1 and c4 to j+1. With c3 = c4 nobody notices.
func BrokenCoarsenedSwappedC3C4(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("coarsened_c3_c4_swapped: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := coarsenedGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "coarsened_c3_c4_swapped",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			if iStart-1 >= 0 && iStart-1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inPrev_s.Store(ty, tx, t.Load(in, ((iStart-1)*ny+j)*nx+k))
			}
			if iStart >= 0 && iStart < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inCurr_s.Store(ty, tx, t.Load(in, (iStart*ny+j)*nx+k))
			}
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
							c3*inCurr_s.Load(ty+1, tx)+ // Fig. 8.10: c3 on j+1
							c4*inCurr_s.Load(ty-1, tx)+ // and c4 on j−1
							c5*inPrev_s.Load(ty, tx)+
							c6*inNext_s.Load(ty, tx))
						t.Flops(Flops7)
					}
				}
				t.Sync()
				if j >= 0 && j < ny && k >= 0 && k < nx {
					inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
					inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
				}
			}
		},
	}, nil
}

// BrokenCoarsenedLoopClosesEarly is the coarsened kernel of the day-22
// study notes: the z loop closes right after loading inNext_s, before the
// barrier and the computation, so each block loads all its planes into the
// same inNext_s and then computes the single plane iStart, with the last
// plane loaded standing in for plane iStart+1. The rest of the kernel is
// CoarsenedKernel's, with the lab's coefficient mapping.
func BrokenCoarsenedLoopClosesEarly(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(CoarsenedDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("coarsened_loop_closes_early: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := coarsenedGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "coarsened_loop_closes_early",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			inPrev_s := t.Shared2("inPrev_s", IN_TILE_DIM, IN_TILE_DIM)
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			inNext_s := t.Shared2("inNext_s", IN_TILE_DIM, IN_TILE_DIM)
			if iStart-1 >= 0 && iStart-1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inPrev_s.Store(ty, tx, t.Load(in, ((iStart-1)*ny+j)*nx+k))
			}
			if iStart >= 0 && iStart < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inCurr_s.Store(ty, tx, t.Load(in, (iStart*ny+j)*nx+k))
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
					inNext_s.Store(ty, tx, t.Load(in, ((i+1)*ny+j)*nx+k))
				}
			} // the loop closes here, too early
			t.Sync()
			if iStart >= 1 && iStart < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
				if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
					t.Store(out, (iStart*ny+j)*nx+k, c0*inCurr_s.Load(ty, tx)+
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
			if j >= 0 && j < ny && k >= 0 && k < nx {
				inPrev_s.Store(ty, tx, inCurr_s.Load(ty, tx))
				inCurr_s.Store(ty, tx, inNext_s.Load(ty, tx))
			}
		},
	}, nil
}

// BrokenCoarsenedBlock34 is the launch of the day-22 study notes:
// CoarsenedKernel with OUT_TILE_DIM = 32, so IN_TILE_DIM = 34 whatever the
// simulator's Tile, and blocks of 34×34 = 1156 threads, more than the 1024
// a block may have. The launch is refused.
func BrokenCoarsenedBlock34(a StencilArgs) (sim.Kernel, error) {
	a.Tile = 34
	k, err := CoarsenedKernel(a)
	k.Name = "coarsened_block_34x34"
	return k, err
}
