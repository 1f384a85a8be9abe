package checks

import (
	"stencillab.dev/exercises/grading"
)

// The wire code of exercise 01 (see remote.go), whose function takes
// what the generic binding cannot send: a function, sent as its fnSpec.

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
