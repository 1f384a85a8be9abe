package checks

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The wire code of exercises 01 to 04 (see remote.go).

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

type weightsArgs struct{ D, Lo, Hi int }

type applyArgs struct {
	F    []float64
	H    float64
	D, R int
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
			w, err := fn.Weights(a.D, a.Lo, a.Hi)
			return sliceResult{Out: w, Err: knownErrors.Wire(err)}
		}),
		"apply": decoded(func(a applyArgs) any {
			out, err := fn.Apply(a.F, a.H, a.D, a.R)
			return sliceResult{Out: out, A: a.F, Err: knownErrors.Wire(err)}
		}),
		"order": decoded(func(a orderArgs) any {
			p, err := fn.Order(a.H, a.E)
			return sliceResult{V: p, A: a.H, B: a.E, Err: knownErrors.Wire(err)}
		}),
	})
}

func remoteDerivative(c *grading.Client) DerivativeFuncs {
	return DerivativeFuncs{
		Weights: func(d, lo, hi int) ([]float64, error) {
			res := call[sliceResult](c, "weights", weightsArgs{d, lo, hi})
			return res.Out, knownErrors.Err(res.Err)
		},
		Apply: func(f []float64, h float64, d, r int) ([]float64, error) {
			res := call[sliceResult](c, "apply", applyArgs{f, h, d, r})
			copyBack(f, res.A)
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
	Same     bool // dst and src are one grid: the child passes one grid twice
	C        [9]float64
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
			if a.Same {
				src = dst
			}
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
		Sweep: func(dst, src *lab.Grid2[float64], k [9]float64) error {
			same := dst != nil && dst == src
			r := call[sweepResult](c, "sweep", sweepArgs{Dst: toWire2(dst), Src: toWire2(src), Same: same, C: k})
			r.Dst.back(dst)
			r.Src.back(src)
			return knownErrors.Err(r.Err)
		},
		Iterate: func(g *lab.Grid2[float64], k [9]float64, steps int) (*lab.Grid2[float64], error) {
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
