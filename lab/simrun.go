package lab

import (
	"errors"
	"fmt"

	"stencillab.dev/lab/sim"
)

// StencilArgs are the arguments of a seven-point kernel on the simulator:
// the input and output grids in global memory, their sides, the
// coefficients and the configuration. A kernel reads them as a CUDA kernel
// reads its parameters, and picks its grid and block from them as the host
// code around a CUDA kernel does.
type StencilArgs struct {
	In, Out    *sim.Global // in and out of the kernel, NZ·NY·NX elements each
	NZ, NY, NX int         // the sides of the grid, x fastest in memory
	C          Coeffs      // c0…c6 in the lab's mapping
	Tile       int         // the step's tile (IN_TILE_DIM, or the basic kernel's block edge); 0 takes the kernel's default
	Block      sim.Dim3    // for a kernel whose block is free (basic): the block; zero takes Tile×Tile×Tile
}

// tile returns a.Tile, or def when it is 0.
func (a StencilArgs) tile(def int) int {
	if a.Tile == 0 {
		return def
	}
	return a.Tile
}

// coeffs returns the coefficients as float32, the type of the kernels'
// arithmetic.
func (a StencilArgs) coeffs() (c0, c1, c2, c3, c4, c5, c6 float32) {
	c := a.C
	return float32(c[0]), float32(c[1]), float32(c[2]), float32(c[3]), float32(c[4]), float32(c[5]), float32(c[6])
}

// StencilKernel prepares one launch of a seven-point kernel on the
// simulator: like the host code around a CUDA kernel, it picks the grid
// and block for the grid's sides and the tile, and binds the arguments
// into the thread code. A tile that leaves no output is an error; one that
// is too large for the device is left for the launch to reject.
type StencilKernel func(a StencilArgs) (sim.Kernel, error)

// Prepare binds the arguments of a seven-point kernel for a sweep of src
// into dst: the launch that Simulate runs, not yet run. dst and src must be
// a valid sweep (CheckSweep).
func Prepare(k StencilKernel, cfg Config, dst, src *Grid3[float32], c Coeffs) (sim.Kernel, error) {
	if k == nil {
		return sim.Kernel{}, fmt.Errorf("lab: sim: nil kernel: %w", sim.ErrLimit)
	}
	if err := CheckSweep(dst, src); err != nil {
		return sim.Kernel{}, fmt.Errorf("lab: sim: %w", err)
	}
	kern, err := construct(k, StencilArgs{
		In:    &sim.Global{Name: "in", Data: src.Data},
		Out:   &sim.Global{Name: "out", Data: dst.Data},
		NZ:    src.NZ,
		NY:    src.NY,
		NX:    src.NX,
		C:     c,
		Tile:  cfg.Tile,
		Block: cfg.Block,
	})
	if err != nil {
		return sim.Kernel{}, fmt.Errorf("lab: sim: %w", refused(err))
	}
	return kern, nil
}

// construct calls the kernel's constructor, turning a panic in it (a
// student's set-up code indexing past a slice, say) into an error wrapping
// sim.ErrFault, as a panic in a thread is.
func construct(k StencilKernel, a StencilArgs) (kern sim.Kernel, err error) {
	defer func() {
		if p := recover(); p != nil {
			kern, err = sim.Kernel{}, fmt.Errorf("the kernel's set-up panicked before its launch: %v: %w", p, sim.ErrFault)
		}
	}()
	return k(a)
}

// refused makes a kernel's own refusal of its arguments (a tile that
// leaves no output, say) match sim.ErrLimit, as a launch over the limits
// does, unless it already matches a sentinel of the simulator or the lab.
func refused(err error) error {
	for _, s := range []error{sim.ErrLimit, sim.ErrHazard, sim.ErrBarrier, sim.ErrFault, ErrSize, ErrMismatch, ErrMemory, ErrUnknown} {
		if errors.Is(err, s) {
			return err
		}
	}
	return refusal{err}
}

// refusal is a kernel's refusal of its arguments: its message, matching
// sim.ErrLimit with errors.Is.
type refusal struct{ err error }

func (r refusal) Error() string   { return r.err.Error() }
func (r refusal) Unwrap() []error { return []error{r.err, sim.ErrLimit} }

// Simulate runs a seven-point kernel on the simulator s: dst gets the
// interior points of the sweep of src, its boundary points are left as they
// were. dst and src must have the same shape, every side at least 3, and
// must not overlap. It returns the launch's counters, also for a launch
// that failed (zero for one that was refused before it ran).
func Simulate(s *sim.Simulator, k StencilKernel, cfg Config, dst, src *Grid3[float32], c Coeffs) (sim.Stats, error) {
	if s == nil {
		return sim.Stats{}, fmt.Errorf("lab: sim: nil simulator (the zero sim.Simulator is ready to use): %w", sim.ErrLimit)
	}
	if cfg.Tile < 0 {
		return sim.Stats{}, fmt.Errorf("lab: sim: tile %d must be positive (or 0 for the default): %w", cfg.Tile, sim.ErrLimit)
	}
	kern, err := Prepare(k, cfg, dst, src, c)
	if err != nil {
		return sim.Stats{}, err
	}
	return s.Launch(kern)
}

// CheckKernel prepares k for a small grid and validates its launch against
// the limits of s, so that an impossible tile is refused before any grid
// is allocated.
func CheckKernel(s *sim.Simulator, k StencilKernel, cfg Config) error {
	if s == nil {
		return fmt.Errorf("lab: sim: nil simulator (the zero sim.Simulator is ready to use): %w", sim.ErrLimit)
	}
	g, _ := NewGrid3[float32](3, 3, 3)
	h, _ := NewGrid3[float32](3, 3, 3)
	kern, err := Prepare(k, cfg, g, h, DistinctCoeffs())
	if err != nil {
		return err
	}
	return s.Validate(kern)
}

// simBackend runs the steps that have a simulated kernel.
type simBackend struct{}

func (simBackend) Supports(s Step3) bool { return s.Kernel != nil }

func (simBackend) Device() string { return "CPU simulator" }

func (simBackend) Runner(s Step3, cfg Config) (Runner, error) {
	r := newSimRunner(s.Kernel, cfg)
	if err := CheckKernel(r.m, r.k, cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// newSimRunner returns a runner of k on a fresh simulator. Its launches
// check themselves: a launch over the limits is refused when it runs,
// with the counters of a launch that ran nothing.
func newSimRunner(k StencilKernel, cfg Config) *simRunner {
	return &simRunner{m: &sim.Simulator{}, k: k, cfg: cfg}
}

type simRunner struct {
	m   *sim.Simulator
	k   StencilKernel
	cfg Config
}

func (r *simRunner) Sweep(dst, src *Grid3[float32], c Coeffs) (Launch, error) {
	kern, err := Prepare(r.k, r.cfg, dst, src, c)
	if err != nil {
		return Launch{}, err
	}
	st, err := r.m.Launch(kern)
	l := Launch{Geometry: Geometry{Grid: kern.Grid, Block: kern.Block, SharedBytes: st.SharedBytesPerBlock}, Stats: &st}
	return l, err
}

func (r *simRunner) Close() error { return nil }

// cpuBackend runs the steps that have a CPU sweep.
type cpuBackend struct{}

func (cpuBackend) Supports(s Step3) bool { return s.Sweep != nil }

func (cpuBackend) Device() string { return "CPU" }

func (cpuBackend) Runner(s Step3, _ Config) (Runner, error) { return cpuRunner{s.Sweep}, nil }

type cpuRunner struct{ sweep SweepFunc }

func (r cpuRunner) Sweep(dst, src *Grid3[float32], c Coeffs) (Launch, error) {
	return Launch{}, r.sweep(dst, src, c)
}

func (cpuRunner) Close() error { return nil }

func init() {
	RegisterBackend(CPU, cpuBackend{})
	RegisterBackend(Sim, simBackend{})
}
