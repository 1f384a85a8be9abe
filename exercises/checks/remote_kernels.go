package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The wire code of the kernel exercises, 05 to 09 (see remote.go).

// --- the kernels (05 to 09)

// submitted is a student's kernel as the checks reach it: in this process
// (local), or in the grader's child (remote).
type submitted struct {
	local  lab.StencilKernel
	remote *grading.Client
}

type kernelArgs struct {
	NZ, NY, NX, Tile int
	C                lab.Coeffs
	Src, Dst         []float32
}

type kernelResult struct {
	Out         []float32
	Stats       sim.Stats
	Grid, Block sim.Dim3
	Err         *grading.WireError
}

func argsOf(sc *simCase) kernelArgs {
	return kernelArgs{NZ: sc.NZ, NY: sc.NY, NX: sc.NX, Tile: sc.Tile, C: sc.C, Src: sc.src.Data, Dst: sc.dst.Data}
}

// caseOf rebuilds in the child the case the grader sent.
func caseOf(a kernelArgs) (*simCase, error) {
	n := a.NZ * a.NY * a.NX
	if a.NZ < 0 || a.NY < 0 || a.NX < 0 || len(a.Src) != n || len(a.Dst) != n {
		return nil, fmt.Errorf("a case of %d×%d×%d with %d and %d values", a.NZ, a.NY, a.NX, len(a.Src), len(a.Dst))
	}
	return &simCase{NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile, C: a.C,
		src: &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: a.Src},
		dst: &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: a.Dst}}, nil
}

func serveKernel(k lab.StencilKernel) grading.Handler {
	return func(name string, b []byte) ([]byte, error) {
		var a kernelArgs
		if err := grading.Decode(b, &a); err != nil {
			return nil, err
		}
		sc, err := caseOf(a)
		if err != nil {
			return nil, err
		}
		var r kernelResult
		switch name {
		case "run":
			out, st, err := sc.runRef(k)
			r = kernelResult{Out: out.Data, Stats: st, Err: knownErrors.Wire(err)}
		case "launch":
			kern, err := sc.launchRef(k)
			r = kernelResult{Grid: kern.Grid, Block: kern.Block, Err: knownErrors.Wire(err)}
		default:
			return nil, fmt.Errorf("no method %q", name)
		}
		return grading.Encode(r)
	}
}

// runRemote runs the kernel in the child on the case's inputs.
func (k submitted) runRemote(sc *simCase) (*lab.Grid3[float32], sim.Stats, error) {
	r := call[kernelResult](k.remote, "run", argsOf(sc))
	out := &lab.Grid3[float32]{NZ: sc.NZ, NY: sc.NY, NX: sc.NX, Data: r.Out}
	if len(r.Out) != len(sc.dst.Data) {
		out.Data = sc.dst.Clone().Data
		return out, r.Stats, fmt.Errorf("the kernel's run returned %d values for a grid of %d: %w", len(r.Out), len(sc.dst.Data), sim.ErrFault)
	}
	return out, r.Stats, knownErrors.Err(r.Err)
}

// launchRemote prepares the kernel in the child and returns its launch
// dimensions (Body is nil).
func (k submitted) launchRemote(sc *simCase) (sim.Kernel, error) {
	r := call[kernelResult](k.remote, "launch", argsOf(sc))
	return sim.Kernel{Grid: r.Grid, Block: r.Block}, knownErrors.Err(r.Err)
}
