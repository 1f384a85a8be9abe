package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The kernel exercises, 05 to 09, across the channel (see remote.go):
// the checks call kernelFuncs.Run with a case (sides, tile,
// coefficients, input and output); in the grader's child it runs the
// student's kernel on the child's own simulator and returns the output,
// the counters (the launch's grid and block among them) and the error,
// which the grader judges. kernelFuncs crosses by the generic binding.

// kernelFuncs is a kernel exercise's student kernel as the checks call
// it.
type kernelFuncs struct {
	// Run runs the kernel on the case a and returns the output, the
	// launch's counters and its error.
	Run func(a kernelArgs) (out []float32, st sim.Stats, err error)
}

// submitted is a student's kernel as the checks reach it: in this process
// (local), in the grader's child (remote), or as the declaration hands it
// to the checks (funcs).
type submitted struct {
	local  star.Kernel
	remote *grading.Client
	funcs  kernelFuncs
}

// kernelFuncs returns what runs k: its funcs, calls to the child, or
// the kernel run here.
func (k submitted) kernelFuncs() kernelFuncs {
	switch {
	case k.funcs.Run != nil:
		return k.funcs
	case k.remote != nil:
		return remoteFuncs[kernelFuncs](k.remote)
	}
	return runner(k.local)
}

// runner returns the kernelFuncs that run k in this process, on a case
// checked first (caseOf).
func runner(k star.Kernel) kernelFuncs {
	return kernelFuncs{Run: func(a kernelArgs) ([]float32, sim.Stats, error) {
		sc, err := caseOf(a)
		if err != nil {
			return nil, sim.Stats{}, err
		}
		out, st, err := sc.runLocal(k)
		return out.Data, st, err
	}}
}

// maxWireSide bounds each side of a case received by the child: the
// checks' grids are far smaller.
const maxWireSide = 1 << 10

type kernelArgs struct {
	NZ, NY, NX, Tile int
	C                star.Coeffs
	Src, Dst         []float32
	Audit            bool // round what shared memory returns (method.go)
}

func argsOf(sc *simCase) kernelArgs {
	return kernelArgs{NZ: sc.NZ, NY: sc.NY, NX: sc.NX, Tile: sc.Tile, C: sc.C, Src: sc.src.Data, Dst: sc.dst.Data, Audit: sc.audit}
}

// caseOf rebuilds in the child the case the grader sent.
func caseOf(a kernelArgs) (*simCase, error) {
	for _, n := range []int{a.NZ, a.NY, a.NX} {
		if n < 1 || n > maxWireSide {
			return nil, fmt.Errorf("a case of %d×%d×%d: each side must be 1 … %d", a.NZ, a.NY, a.NX, maxWireSide)
		}
	}
	if a.Tile < 0 || a.Tile > maxWireSide {
		return nil, fmt.Errorf("a case with tile %d: the tile must be 0 … %d", a.Tile, maxWireSide)
	}
	n := a.NZ * a.NY * a.NX
	if len(a.Src) != n || len(a.Dst) != n {
		return nil, fmt.Errorf("a case of %d×%d×%d = %d points with %d and %d values", a.NZ, a.NY, a.NX, n, len(a.Src), len(a.Dst))
	}
	return &simCase{NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile, C: a.C, audit: a.Audit,
		src: &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: a.Src},
		dst: &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: a.Dst}}, nil
}

// runFuncs runs the kernel through fn on the case's inputs. An output of
// the wrong length is the kernel's fault, and the case's untouched output
// stands for it.
func (sc *simCase) runFuncs(fn kernelFuncs) (*lab.Grid3[float32], sim.Stats, error) {
	r, st, err := fn.Run(argsOf(sc))
	err = recorded(err, st)
	out := &lab.Grid3[float32]{NZ: sc.NZ, NY: sc.NY, NX: sc.NX, Data: r}
	if len(r) != len(sc.dst.Data) {
		out.Data = sc.dst.Clone().Data
		if err == nil {
			err = fmt.Errorf("the kernel's run returned %d values for a grid of %d: %w", len(r), len(sc.dst.Data), sim.ErrFault)
		}
	}
	return out, st, err
}

// recorded returns err, or, when the launch returned none, an error for
// the faults and hazards the simulator recorded: the grader reads the
// record after every call, so a fault that the kernel's code (or a
// library it called, as fmt does in a String method) recovered still
// fails the run.
func recorded(err error, st sim.Stats) error {
	switch {
	case err != nil:
		return err
	case st.FaultCount > 0:
		return fmt.Errorf("the simulator recorded %d failed threads or barriers that the launch did not report: %w", st.FaultCount, sim.ErrFault)
	case st.HazardCounts.Total() > 0:
		return fmt.Errorf("the simulator recorded %d hazards that the launch did not report: %w", st.HazardCounts.Total(), sim.ErrHazard)
	}
	return nil
}
