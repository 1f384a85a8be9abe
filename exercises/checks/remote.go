package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The exercises across the grader's trust boundary (grading.Serve): in the
// child, each exercise's Serve calls the student's functions on the inputs
// it receives and sends back what they return; in the grader, Remote builds
// the same exercise on functions that make those calls, so that the checks,
// the expected values and the tolerances never leave the grader.

// knownErrors are the errors whose identity the checks test with
// errors.Is on what a student's function returned.
var knownErrors = grading.KnownErrors{
	"hazard": sim.ErrHazard, "barrier": sim.ErrBarrier, "limit": sim.ErrLimit, "fault": sim.ErrFault,
	"size": lab.ErrSize, "mismatch": lab.ErrMismatch, "unknown": lab.ErrUnknown,
}

// Remote returns the exercise id with every student function replaced by a
// call through c to the exercise's test binary running as the grader's
// child. The checks (hidden ones included when built with the tag) run
// here.
func Remote(id string, c *grading.Client) (grading.Exercise, error) {
	switch id {
	case "01_sine":
		return sineExercise(remoteSine(c)), nil
	case "02_derivative":
		return Derivative(remoteDerivative(c)), nil
	case "03_five_point":
		return FivePoint(remoteFivePoint(c)), nil
	case "04_intensity":
		return Intensity(remoteIntensity(c)), nil
	case findTheBugID:
		return findTheBug(submitted{remote: c}), nil
	case warpsID:
		return Warps(remoteWarps(c)), nil
	}
	for _, s := range kernelSteps() {
		if s.id() == id {
			return s.exercise(submitted{remote: c}), nil
		}
	}
	return grading.Exercise{}, fmt.Errorf("checks: no exercise %q", id)
}

// call makes a call and returns the decoded result; a failure of the
// channel stops the check (grading.Client.Call).
func call[R any](c *grading.Client, method string, args any) R {
	var r R
	c.Call(method, args, &r)
	return r
}

// serve returns a handler from methods, each decoding its arguments into A
// and returning its result.
type method func(args []byte) (any, error)

func handler(ms map[string]method) grading.Handler {
	return func(name string, args []byte) ([]byte, error) {
		m, ok := ms[name]
		if !ok {
			return nil, fmt.Errorf("no method %q", name)
		}
		res, err := m(args)
		if err != nil {
			return nil, err
		}
		return grading.Encode(res)
	}
}

// decoded is a method that decodes its arguments into A first.
func decoded[A any](f func(a A) any) method {
	return func(b []byte) (any, error) {
		var a A
		if err := grading.Decode(b, &a); err != nil {
			return nil, err
		}
		return f(a), nil
	}
}

// copyBack copies what the child left in a slice argument into the
// grader's, as if the student's function had run here.
func copyBack[F any](dst, src []F) {
	if len(dst) == len(src) {
		copy(dst, src)
	}
}

// --- 01_sine

type sineArgs struct {
	F    fnSpec
	A, B float64
	N    int
}

type sineResult struct {
	Xs, Ys []float64
	Err    *grading.WireError
}

func serveSine(d SineFunc) grading.Handler {
	return handler(map[string]method{
		"discretize": decoded(func(a sineArgs) any {
			xs, ys, err := d(a.F.fn(), a.A, a.B, a.N)
			return sineResult{xs, ys, knownErrors.Wire(err)}
		}),
	})
}

func remoteSine(c *grading.Client) discretizer {
	return func(f fnSpec, a, b float64, n int) ([]float64, []float64, error) {
		r := call[sineResult](c, "discretize", sineArgs{f, a, b, n})
		return r.Xs, r.Ys, knownErrors.Err(r.Err)
	}
}

// --- 02_derivative

type weightsArgs struct{ D, R int }

type applyArgs struct {
	F []float64
	H float64
	D int
	W []float64
}

type orderArgs struct{ H, E []float64 }

type sliceResult struct {
	Out  []float64
	V    float64
	A, B []float64 // the slice arguments after the call
	Err  *grading.WireError
}

func serveDerivative(fn DerivativeFuncs) grading.Handler {
	return handler(map[string]method{
		"weights": decoded(func(a weightsArgs) any {
			w, err := fn.Weights(a.D, a.R)
			return sliceResult{Out: w, Err: knownErrors.Wire(err)}
		}),
		"apply": decoded(func(a applyArgs) any {
			out, err := fn.Apply(a.F, a.H, a.D, a.W)
			return sliceResult{Out: out, A: a.F, B: a.W, Err: knownErrors.Wire(err)}
		}),
		"order": decoded(func(a orderArgs) any {
			p, err := fn.Order(a.H, a.E)
			return sliceResult{V: p, A: a.H, B: a.E, Err: knownErrors.Wire(err)}
		}),
	})
}

func remoteDerivative(c *grading.Client) DerivativeFuncs {
	return DerivativeFuncs{
		Weights: func(d, r int) ([]float64, error) {
			res := call[sliceResult](c, "weights", weightsArgs{d, r})
			return res.Out, knownErrors.Err(res.Err)
		},
		Apply: func(f []float64, h float64, d int, w []float64) ([]float64, error) {
			res := call[sliceResult](c, "apply", applyArgs{f, h, d, w})
			copyBack(f, res.A)
			copyBack(w, res.B)
			return res.Out, knownErrors.Err(res.Err)
		},
		Order: func(h, e []float64) (float64, error) {
			res := call[sliceResult](c, "order", orderArgs{h, e})
			copyBack(h, res.A)
			copyBack(e, res.B)
			return res.V, knownErrors.Err(res.Err)
		},
	}
}

// --- 03_five_point

// wireGrid2 is a grid as it crosses the channel; Nil stands for a nil
// grid.
type wireGrid2 struct {
	Nil    bool
	NY, NX int
	Data   []float64
}

func toWire2(g *lab.Grid2[float64]) wireGrid2 {
	if g == nil {
		return wireGrid2{Nil: true}
	}
	return wireGrid2{NY: g.NY, NX: g.NX, Data: g.Data}
}

func (w wireGrid2) grid() *lab.Grid2[float64] {
	if w.Nil {
		return nil
	}
	return &lab.Grid2[float64]{NY: w.NY, NX: w.NX, Data: w.Data}
}

// back copies the child's grid into g, as if the student's function had
// written g here.
func (w wireGrid2) back(g *lab.Grid2[float64]) {
	if g != nil && !w.Nil {
		copyBack(g.Data, w.Data)
	}
}

type sweepArgs struct {
	Dst, Src wireGrid2
	C        [5]float64
	Steps    int
}

type sweepResult struct {
	Out, Dst, Src wireGrid2
	Err           *grading.WireError
}

func serveFivePoint(fn FivePointFuncs) grading.Handler {
	return handler(map[string]method{
		"sweep": decoded(func(a sweepArgs) any {
			dst, src := a.Dst.grid(), a.Src.grid()
			err := fn.Sweep(dst, src, a.C)
			return sweepResult{Dst: toWire2(dst), Src: toWire2(src), Err: knownErrors.Wire(err)}
		}),
		"iterate": decoded(func(a sweepArgs) any {
			g := a.Src.grid()
			out, err := fn.Iterate(g, a.C, a.Steps)
			return sweepResult{Out: toWire2(out), Src: toWire2(g), Err: knownErrors.Wire(err)}
		}),
	})
}

func remoteFivePoint(c *grading.Client) FivePointFuncs {
	return FivePointFuncs{
		Sweep: func(dst, src *lab.Grid2[float64], k [5]float64) error {
			r := call[sweepResult](c, "sweep", sweepArgs{Dst: toWire2(dst), Src: toWire2(src), C: k})
			r.Dst.back(dst)
			r.Src.back(src)
			return knownErrors.Err(r.Err)
		},
		Iterate: func(g *lab.Grid2[float64], k [5]float64, steps int) (*lab.Grid2[float64], error) {
			r := call[sweepResult](c, "iterate", sweepArgs{Src: toWire2(g), C: k, Steps: steps})
			r.Src.back(g)
			return r.Out.grid(), knownErrors.Err(r.Err)
		},
	}
}

// --- 04_intensity

type intensityArgs struct {
	Kernel string
	T      int
	Lim    sim.Limits
}

type intensityResult struct {
	Cost  lab.BlockCost
	V     float64
	T     int
	Limit string
	Err   *grading.WireError
}

func serveIntensity(fn IntensityFuncs) grading.Handler {
	return handler(map[string]method{
		"cost": decoded(func(a intensityArgs) any {
			c, err := fn.Cost(a.Kernel, a.T)
			return intensityResult{Cost: c, Err: knownErrors.Wire(err)}
		}),
		"intensity": decoded(func(a intensityArgs) any {
			v, err := fn.Intensity(a.Kernel, a.T)
			return intensityResult{V: v, Err: knownErrors.Wire(err)}
		}),
		"maxtile": decoded(func(a intensityArgs) any {
			t, lim, err := fn.MaxTile(a.Kernel, a.Lim)
			return intensityResult{T: t, Limit: lim, Err: knownErrors.Wire(err)}
		}),
	})
}

func remoteIntensity(c *grading.Client) IntensityFuncs {
	return IntensityFuncs{
		Cost: func(kernel string, T int) (lab.BlockCost, error) {
			r := call[intensityResult](c, "cost", intensityArgs{Kernel: kernel, T: T})
			return r.Cost, knownErrors.Err(r.Err)
		},
		Intensity: func(kernel string, T int) (float64, error) {
			r := call[intensityResult](c, "intensity", intensityArgs{Kernel: kernel, T: T})
			return r.V, knownErrors.Err(r.Err)
		},
		MaxTile: func(kernel string, lim sim.Limits) (int, string, error) {
			r := call[intensityResult](c, "maxtile", intensityArgs{Kernel: kernel, Lim: lim})
			return r.T, r.Limit, knownErrors.Err(r.Err)
		},
	}
}

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

// --- 10_warps

type warpsArgs struct{ T int }

type warpsResult struct {
	Block sim.Dim3
	Pitch int
	Err   *grading.WireError
}

func serveWarps(fn WarpsFuncs) grading.Handler {
	return handler(map[string]method{
		"block": decoded(func(warpsArgs) any {
			b, err := fn.Block()
			return warpsResult{Block: b, Err: knownErrors.Wire(err)}
		}),
		"pitch": decoded(func(a warpsArgs) any {
			p, err := fn.Pitch(a.T)
			return warpsResult{Pitch: p, Err: knownErrors.Wire(err)}
		}),
	})
}

func remoteWarps(c *grading.Client) WarpsFuncs {
	return WarpsFuncs{
		Block: func() (sim.Dim3, error) {
			r := call[warpsResult](c, "block", warpsArgs{})
			return r.Block, knownErrors.Err(r.Err)
		},
		Pitch: func(T int) (int, error) {
			r := call[warpsResult](c, "pitch", warpsArgs{T: T})
			return r.Pitch, knownErrors.Err(r.Err)
		},
	}
}
