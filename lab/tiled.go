package lab

import (
	"fmt"

	"stencillab.dev/lab/sim"
)

// TiledDefaultTile is the default IN_TILE_DIM of the shared-memory tiled
// kernel: 8, the slides' BLOCK_DIM, giving 512 threads per block.
const TiledDefaultTile = 8

// The shared-memory tiled kernel of Fig. 8.8.
var _ = mustRegister3(Step3{
	Step: Step{Name: "tiled", Title: "Shared-memory tiling", Figure: "8.8",
		Runs:     "a block loads a T³ input tile into shared memory and computes the (T−2)³ output tile",
		Notebook: "04_shared_memory_tiling"},
	DefaultTile: TiledDefaultTile,
	MinTile:     3,
	TileName:    "IN_TILE_DIM",
	Geometry:    tiledGeometry,
	Cost:        func(T int) (outputs, loads int) { return (T - 2) * (T - 2) * (T - 2), T * T * T },
	LaunchLoads: haloLoads,
	Explain: Explain{
		Outputs: "the output tile is (T−2)³",
		Loads:   "the block loads its T³ input tile once, each thread its own element if it is in the grid; the neighbours come from shared memory",
		Threads: "one thread per input-tile element: IN_TILE_DIM³ threads",
		Shared:  "one IN_TILE_DIM³ shared array of float32, 4 bytes each",
	},
	Kernel: TiledKernel,
	CUDA:   CUDA{File: "tiled.cu", Entry: "tiled", TileDefine: "IN_TILE_DIM"},
	Broken: []Broken{
		{Name: "tiled_no_interior_check", From: "study notes, day 21 (tiled kernel)",
			Bug:    "the tiled kernel tests only that the thread is inside the output tile, not that its point is interior to the grid",
			Caught: "threads at the grid's faces write boundary cells and read in_s elements no thread loaded (uninitialised reads); past the far faces they store outside the output",
			Kernel: BrokenTiledNoInteriorCheck},
		{Name: "tiled_no_barrier", From: "Fig. 8.8 with its __syncthreads() removed",
			Bug:    "threads read their neighbours' elements of in_s without waiting for them to be loaded",
			Caught: "race reports: reads of in_s elements written by another thread with no barrier between",
			Kernel: BrokenTiledNoBarrier},
	},
})

// tiledGeometry is the launch of the tiled kernel: T×T×T blocks with a
// T³ shared tile, tiledBlocks along each axis.
func tiledGeometry(nz, ny, nx int, cfg Config) Geometry {
	T := cfg.Tile
	return Geometry{Grid: tiledGrid(nz, ny, nx, T-2), Block: sim.Dim3{X: T, Y: T, Z: T},
		SharedBytes: Float32Bytes * T * T * T, Planes: T}
}

// TiledKernel is the shared-memory tiled kernel of Fig. 8.8. A block of
// IN_TILE_DIM³ threads (IN_TILE_DIM = a.Tile, default 8) loads the input
// tile, one element per thread, into the shared array in_s; after the
// barrier, the threads of the inner (IN_TILE_DIM−2)³ output tile whose
// point is interior compute from in_s. The grid has (n−2)/OUT_TILE_DIM + 1
// blocks along each axis of n points, so n need not be a multiple of the output tile:
// threads outside the grid load nothing and compute nothing.
func TiledKernel(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(TiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("tiled: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := tiledGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "tiled",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT_TILE_DIM + tz - 1
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			in_s := t.Shared3("in_s", IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)
			if i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				in_s.Store(tz, ty, tx, t.Load(in, (i*ny+j)*nx+k))
			}
			t.Sync()
			if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
				if tz >= 1 && tz < IN_TILE_DIM-1 && ty >= 1 && ty < IN_TILE_DIM-1 &&
					tx >= 1 && tx < IN_TILE_DIM-1 {
					t.Store(out, (i*ny+j)*nx+k, c0*in_s.Load(tz, ty, tx)+
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

// BrokenTiledNoInteriorCheck is the tiled kernel of the day-21 study notes:
// Fig. 8.8 without the test that the thread's point (i, j, k) is interior
// to the grid (line 10). A thread of the inner output tile computes even
// when its point is a boundary cell or lies outside the grid, reading in_s
// elements that no thread loaded.
func BrokenTiledNoInteriorCheck(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(TiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("tiled_no_interior_check: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := tiledGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "tiled_no_interior_check",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT_TILE_DIM + tz - 1
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			in_s := t.Shared3("in_s", IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)
			if i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				in_s.Store(tz, ty, tx, t.Load(in, (i*ny+j)*nx+k))
			}
			t.Sync()
			// Missing: if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1.
			if tz >= 1 && tz < IN_TILE_DIM-1 && ty >= 1 && ty < IN_TILE_DIM-1 &&
				tx >= 1 && tx < IN_TILE_DIM-1 {
				t.Store(out, (i*ny+j)*nx+k, c0*in_s.Load(tz, ty, tx)+
					c1*in_s.Load(tz, ty, tx-1)+
					c2*in_s.Load(tz, ty, tx+1)+
					c3*in_s.Load(tz, ty-1, tx)+
					c4*in_s.Load(tz, ty+1, tx)+
					c5*in_s.Load(tz-1, ty, tx)+
					c6*in_s.Load(tz+1, ty, tx))
				t.Flops(Flops7)
			}
		},
	}, nil
}

// BrokenTiledNoBarrier is Fig. 8.8 with its __syncthreads() removed: a
// thread reads the elements of in_s that its neighbours load, whether they
// have loaded them yet or not.
func BrokenTiledNoBarrier(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(TiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("tiled_no_barrier: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := tiledGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "tiled_no_barrier",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT_TILE_DIM + tz - 1
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			in_s := t.Shared3("in_s", IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)
			if i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				in_s.Store(tz, ty, tx, t.Load(in, (i*ny+j)*nx+k))
			}
			// Missing: __syncthreads().
			if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
				if tz >= 1 && tz < IN_TILE_DIM-1 && ty >= 1 && ty < IN_TILE_DIM-1 &&
					tx >= 1 && tx < IN_TILE_DIM-1 {
					t.Store(out, (i*ny+j)*nx+k, c0*in_s.Load(tz, ty, tx)+
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
