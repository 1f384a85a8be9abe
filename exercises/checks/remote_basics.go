package checks

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// The wire code of exercises 01 and 03 (see remote.go), whose functions
// take what the generic binding cannot send: a function (01, sent as its
// fnSpec), grids that may be one grid passed twice and are written in
// place (03).

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

func serveSine(d discretizer) grading.Handler {
	return handler(map[string]method{
		"discretize": decoded(func(a sineArgs) any {
			xs, ys, err := d(a.F, a.A, a.B, a.N)
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
