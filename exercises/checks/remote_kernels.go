package checks

import (
	"errors"
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The wire code of the kernel exercises, 05 to 09 (see remote.go): the
// grader sends a case (sides, tile, coefficients, input and output), the
// child runs the student's kernel on its own simulator and sends back the
// output, the counters and the error; the grader judges them.

// submitted is a student's kernel as the checks reach it: in this process
// (local), or in the grader's child (remote).
type submitted struct {
	local  star.Kernel
	remote *grading.Client
}

// maxWireSide bounds each side of a case received by the child: the
// checks' grids are far smaller.
const maxWireSide = 1 << 10

type kernelArgs struct {
	NZ, NY, NX, Tile int
	C                star.Coeffs
	Src, Dst         []float32
}

type kernelResult struct {
	Out   []float32
	Stats sim.Stats
	Err   *grading.WireError
}

func argsOf(sc *simCase) kernelArgs {
	return kernelArgs{NZ: sc.NZ, NY: sc.NY, NX: sc.NX, Tile: sc.Tile, C: sc.C, Src: sc.src.Data, Dst: sc.dst.Data}
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
	return &simCase{NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile, C: a.C,
		src: &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: a.Src},
		dst: &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: a.Dst}}, nil
}

// kernelWire is the channel of the kernel exercises, which their
// declarations name: the grader's one call, "run", sends a case, and the
// child runs the kernel on its own simulator.
var kernelWire = &Wire[submitted]{
	Methods: []string{"run"},
	Serve:   func(k submitted) grading.Handler { return serveKernel(k.local) },
	Remote:  func(c *grading.Client) submitted { return submitted{remote: c} },
	Stub:    submitted{local: stubKernel},
}

// serveKernel answers the grader's one call, "run", in the child.
func serveKernel(k star.Kernel) grading.Handler {
	return func(name string, b []byte) ([]byte, error) {
		if name != "run" {
			return nil, fmt.Errorf("no method %q", name)
		}
		if k == nil {
			return nil, errors.New("no kernel to run in this process")
		}
		var a kernelArgs
		if err := grading.Decode(b, &a); err != nil {
			return nil, err
		}
		sc, err := caseOf(a)
		if err != nil {
			return nil, err
		}
		out, st, err := sc.runLocal(k)
		return grading.Encode(kernelResult{Out: out.Data, Stats: st, Err: knownErrors.Wire(err)})
	}
}

// runRemote runs the kernel in the child on the case's inputs. An output
// of the wrong length is the kernel's fault, and the case's untouched
// output stands for it.
func (k submitted) runRemote(sc *simCase) (*lab.Grid3[float32], sim.Stats, error) {
	r := call[kernelResult](k.remote, "run", argsOf(sc))
	out := &lab.Grid3[float32]{NZ: sc.NZ, NY: sc.NY, NX: sc.NX, Data: r.Out}
	if len(r.Out) != len(sc.dst.Data) {
		out.Data = sc.dst.Clone().Data
		return out, r.Stats, fmt.Errorf("the kernel's run returned %d values for a grid of %d: %w", len(r.Out), len(sc.dst.Data), sim.ErrFault)
	}
	return out, r.Stats, knownErrors.Err(r.Err)
}
