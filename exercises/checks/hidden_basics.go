//go:build hidden

package checks

import (
	"stencillab.dev/exercises/grading"
)

// The instructor-only checks of exercises 01 to 04: the public checks again
// on larger sizes, more trials and other seeds. They are built
// with the tag "hidden", which the grader sets; the student release leaves
// this file out.

func init() {
	sineDecl.Hidden = func(fn sineFuncs) []grading.Check {
		d := fn.Discretize
		return []grading.Check{
			{ID: "hidden-grid", Title: "more intervals, up to 5000 cells", Points: 1, Hidden: true,
				Run: func(t *grading.T) { sineGrid(t, d, 200, 5000) }},
			{ID: "hidden-values", Title: "more functions, up to 5000 cells", Points: 1, Hidden: true,
				Run: func(t *grading.T) { sineValues(t, d, 200, 5000) }},
		}
	}
	derivativeDecl.Hidden = func(fn DerivativeFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-apply", Title: "more data, up to 400 points, ends included", Points: 1, Hidden: true,
				Run: func(t *grading.T) { derivApply(t, fn, 200, 400) }},
			{ID: "hidden-order", Title: "more exact and noisy errors, and every weight again", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					derivOrderExact(t, fn, 100)
					if !t.Failed() {
						derivOrderFit(t, fn, 100)
					}
					for d := 1; d <= 2 && !t.Failed(); d++ {
						derivWeights(t, fn, d)
					}
				}},
		}
	}
	fivePointDecl.Hidden = func(fn FivePointFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-periodic", Title: "more grids, sides up to 124, and more plane waves", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					fivePeriodic(t, fn, 40, 120)
					if !t.Failed() {
						fivePlaneWave(t, fn, 20, 60)
					}
				}},
			{ID: "hidden-iterate", Title: "more sweeps on larger grids", Points: 1, Hidden: true,
				Run: func(t *grading.T) { fiveIterate(t, fn, 30, 60) }},
		}
	}
	intensityDecl.Hidden = func(fn IntensityFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-tiles", Title: "tiles up to 1000 for the tiled, coarsened and register-tiled kernels", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					for _, k := range []string{kTiled, kCoarsened, kRegister} {
						if intensityTiled(t, fn, k, 100, 1000); t.Failed() {
							return
						}
					}
				}},
			{ID: "hidden-limits", Title: "more costs and limits", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					intensityCost(t, fn, 300)
					if !t.Failed() {
						intensityMaxTile(t, fn, 200)
					}
				}},
		}
	}
}
