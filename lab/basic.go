package lab

import (
	"fmt"

	"stencillab.dev/lab/sim"
)

// BasicBlockDim is the default block edge of the basic kernel: blocks of
// 8×8×8 threads, the slides' BLOCK_DIM.
const BasicBlockDim = 8

// The basic kernel of Fig. 8.6: one thread per grid point.
var _ = mustRegister3(Step3{
	Step: Step{Name: "basic", Title: "Basic kernel: one thread per output point", Figure: "8.6",
		Runs:     "each thread reads its seven inputs from global memory and writes one output",
		Notebook: "03_basic_kernel"},
	DefaultTile: BasicBlockDim,
	MinTile:     1,
	TileName:    "block edge",
	BlockShape:  true,
	Geometry:    basicGeometry,
	Cost: func(T int) (outputs, loads int) {
		n := T * T * T
		return n, 7 * n
	},
	LaunchLoads: func(nz, ny, nx, T int) int64 { return 7 * interior(nz, ny, nx) },
	Explain: Explain{
		Outputs: "every thread of a T×T×T block computes one output",
		Loads:   "each of the T³ threads loads its 7 inputs from global memory",
		Threads: "one thread per grid point: T³ in a T×T×T block",
		Shared:  "the basic kernel uses no shared memory",
	},
	Kernel: BasicKernel,
	CUDA:   CUDA{File: "basic.cu", Entry: "basic"},
})

// basicGeometry is the basic kernel's launch: blocks of cfg.Block, or
// T×T×T threads, and ⌈n/b⌉ blocks along each axis of n points.
func basicGeometry(nz, ny, nx int, cfg Config) Geometry {
	b := cfg.Block
	if b == (sim.Dim3{}) {
		b = sim.Dim3{X: cfg.Tile, Y: cfg.Tile, Z: cfg.Tile}
	}
	return Geometry{Block: b, Grid: sim.Dim3{X: ceilDiv(nx, b.X), Y: ceilDiv(ny, b.Y), Z: ceilDiv(nz, b.Z)}, Planes: b.Z}
}

// BasicKernel is the basic kernel of Fig. 8.6: one thread per grid point,
// in blocks of B×B×B threads (B = a.Tile, default BasicBlockDim) or of
// a.Block. A thread whose point is interior loads its seven inputs from
// global memory and writes its output; the others do nothing. The grid
// covers all nz×ny×nx points with ⌈n/b⌉ blocks along each axis of n
// points.
func BasicKernel(a StencilArgs) (sim.Kernel, error) {
	B := a.tile(BasicBlockDim)
	if B < 1 {
		return sim.Kernel{}, fmt.Errorf("basic: block edge %d must be at least 1", B)
	}
	if b := a.Block; b != (sim.Dim3{}) && (b.X < 1 || b.Y < 1 || b.Z < 1) {
		return sim.Kernel{}, fmt.Errorf("basic: block %d×%d×%d: every side must be at least 1", b.X, b.Y, b.Z)
	}
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3, c4, c5, c6 := a.coeffs()
	g := basicGeometry(nz, ny, nx, Config{Tile: B, Block: a.Block})
	return sim.Kernel{
		Name:  "basic",
		Grid:  g.Grid,
		Block: g.Block,
		Body: func(t *sim.Thread) {
			i := t.BlockIdx.Z*t.BlockDim.Z + t.ThreadIdx.Z
			j := t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y
			k := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
			if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
				t.Store(out, (i*ny+j)*nx+k, c0*t.Load(in, (i*ny+j)*nx+k)+
					c1*t.Load(in, (i*ny+j)*nx+(k-1))+
					c2*t.Load(in, (i*ny+j)*nx+(k+1))+
					c3*t.Load(in, (i*ny+(j-1))*nx+k)+
					c4*t.Load(in, (i*ny+(j+1))*nx+k)+
					c5*t.Load(in, ((i-1)*ny+j)*nx+k)+
					c6*t.Load(in, ((i+1)*ny+j)*nx+k))
				t.Flops(Flops7)
			}
		},
	}, nil
}
