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
	hiddenSine = func(d discretizer) []grading.Check {
		return []grading.Check{
			{ID: "hidden-grid", Title: "more intervals, up to 5000 points", Points: 1, Hidden: true,
				Run: func(t *grading.T) { sineGrid(t, d, 200, 5000) }},
			{ID: "hidden-values", Title: "more functions, up to 5000 points", Points: 1, Hidden: true,
				Run: func(t *grading.T) { sineValues(t, d, 200, 5000) }},
		}
	}
	hiddenDerivative = func(fn DerivativeFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-apply", Title: "more data, up to 400 points", Points: 1, Hidden: true,
				Run: func(t *grading.T) { derivApply(t, fn, 200, 400) }},
			{ID: "hidden-order", Title: "more exact and noisy errors", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					derivOrderExact(t, fn, 100)
					if !t.Failed() {
						derivOrderFit(t, fn, 100)
					}
				}},
		}
	}
	hiddenFivePoint = func(fn FivePointFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-interior", Title: "more grids, sides up to 120", Points: 1, Hidden: true,
				Run: func(t *grading.T) { fiveInterior(t, fn, 40, 120) }},
			{ID: "hidden-iterate", Title: "more sweeps on larger grids", Points: 1, Hidden: true,
				Run: func(t *grading.T) { fiveIterate(t, fn, 30, 60) }},
		}
	}
	hiddenIntensity = func(fn IntensityFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-tiles", Title: "tiles up to 1000 for every kernel", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					for _, k := range modelKernels() {
						if blockDepth(mustStep(k)) > 1 && figureStep("8.8") != k {
							continue // a thread per point: no tile to vary
						}
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
