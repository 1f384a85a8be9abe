package lab

import (
	"fmt"

	"stencillab.dev/lab/sim"
)

// RegisterTiledDefaultTile is the default IN_TILE_DIM of the register-tiled
// kernel: 32, blocks of 32×32 = 1024 threads, as coarsening.
const RegisterTiledDefaultTile = 32

// The register-tiled kernel of Fig. 8.12.
var _ = mustRegister3(Step3{
	Step: Step{Name: "register_tiled", Aliases: []string{"register"}, Title: "Register tiling", Figure: "8.12",
		Runs:     "as coarsening, with the previous and next planes in registers and only the current plane shared",
		Notebook: "06_register_tiling"},
	DefaultTile: RegisterTiledDefaultTile,
	MinTile:     3,
	TileName:    "IN_TILE_DIM",
	Geometry:    registerTiledGeometry,
	Cost:        func(T int) (outputs, loads int) { return (T - 2) * (T - 2) * (T - 2), T * T * T },
	LaunchLoads: haloLoads,
	Explain: Explain{
		Outputs: "T−2 output planes of (T−2)²",
		Loads:   "T planes of T² inputs, as the coarsened kernel: each thread loads its (j, k) column once",
		Threads: "one IN_TILE_DIM×IN_TILE_DIM plane of threads, as the coarsened kernel",
		Shared:  "only the current plane, inCurr_s, is shared (T² floats); inPrev, inCurr and inNext are registers (local variables of Body)",
	},
	Kernel: RegisterTiledKernel,
	CUDA:   CUDA{File: "register_tiled.cu", Entry: "register_tiled", TileDefine: "IN_TILE_DIM"},
	Broken: []Broken{
		{Name: "register_tiled_no_second_barrier", From: "Fig. 8.12 with the __syncthreads() of line 33 removed",
			Bug:    "a thread overwrites its element of inCurr_s with the next plane while its neighbours may still read it",
			Caught: "race reports: writes of inCurr_s elements read by another thread, and reads of elements written by another thread, in the same barrier interval",
			Kernel: BrokenRegisterTiledNoSecondBarrier},
	},
})

// registerTiledGeometry is the register-tiled kernel's launch: one
// shared plane.
var registerTiledGeometry = planeGeometry(1)

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
func RegisterTiledKernel(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(RegisterTiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("register_tiled: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := registerTiledGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "register_tiled",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			var inPrev float32
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			var inCurr float32
			var inNext float32
			if iStart-1 >= 0 && iStart-1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inPrev = t.Load(in, ((iStart-1)*ny+j)*nx+k)
			}
			if iStart >= 0 && iStart < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inCurr = t.Load(in, (iStart*ny+j)*nx+k)
				inCurr_s.Store(ty, tx, inCurr)
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
					inNext = t.Load(in, ((i+1)*ny+j)*nx+k)
				}
				t.Sync()
				if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
					if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
						t.Store(out, (i*ny+j)*nx+k, c0*inCurr+
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

// BrokenRegisterTiledNoSecondBarrier is RegisterTiledKernel without the
// __syncthreads() that ends each iteration (line 33 of Fig. 8.12): a thread
// overwrites its element of inCurr_s with the next plane while its
// neighbours in x and y may still be reading the current one.
func BrokenRegisterTiledNoSecondBarrier(a StencilArgs) (sim.Kernel, error) {
	IN_TILE_DIM := a.tile(RegisterTiledDefaultTile)
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("register_tiled_no_second_barrier: IN_TILE_DIM = %d leaves no output tile; it must be at least 3", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := registerTiledGeometry(nz, ny, nx, Config{Tile: IN_TILE_DIM})
	return sim.Kernel{
		Name:  "register_tiled_no_second_barrier",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			ty, tx := t.ThreadIdx.Y, t.ThreadIdx.X
			iStart := t.BlockIdx.Z * OUT_TILE_DIM
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			var inPrev float32
			inCurr_s := t.Shared2("inCurr_s", IN_TILE_DIM, IN_TILE_DIM)
			var inCurr float32
			var inNext float32
			if iStart-1 >= 0 && iStart-1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inPrev = t.Load(in, ((iStart-1)*ny+j)*nx+k)
			}
			if iStart >= 0 && iStart < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				inCurr = t.Load(in, (iStart*ny+j)*nx+k)
				inCurr_s.Store(ty, tx, inCurr)
			}
			for i := iStart; i < iStart+OUT_TILE_DIM; i++ {
				if i+1 >= 0 && i+1 < nz && j >= 0 && j < ny && k >= 0 && k < nx {
					inNext = t.Load(in, ((i+1)*ny+j)*nx+k)
				}
				t.Sync()
				if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
					if ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1 {
						t.Store(out, (i*ny+j)*nx+k, c0*inCurr+
							c1*inCurr_s.Load(ty, tx-1)+
							c2*inCurr_s.Load(ty, tx+1)+
							c3*inCurr_s.Load(ty-1, tx)+
							c4*inCurr_s.Load(ty+1, tx)+
							c5*inPrev+
							c6*inNext)
						t.Flops(Flops7)
					}
				}
				// Missing: __syncthreads().
				inPrev = inCurr
				inCurr = inNext
				inCurr_s.Store(ty, tx, inNext)
			}
		},
	}, nil
}
