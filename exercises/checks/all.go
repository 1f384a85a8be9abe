package checks

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// All returns every exercise in teaching order, with their checks but
// without student code: running a check of these reports "not implemented
// yet". The grader uses it to list the exercises and their points.
func All() []grading.Exercise {
	nyi := grading.ErrNotImplemented
	all := []grading.Exercise{
		Sine(func(func(float64) float64, float64, float64, int) ([]float64, []float64, error) {
			return nil, nil, nyi
		}),
		Derivative(stubFuncs[DerivativeFuncs]()),
		FivePoint(stubFuncs[FivePointFuncs]()),
		Intensity(stubFuncs[IntensityFuncs]()),
	}
	for _, s := range kernelSteps() {
		all = append(all, s.exercise(submitted{local: stubKernel}))
	}
	all = append(all, FindTheBug(stubKernel), Warps(stubFuncs[WarpsFuncs]()))
	// The declared exercises' stubs are made from their declarations.
	return append(all, declaredStubs()...)
}

// stubKernel is a kernel that is not written yet.
func stubKernel(star.Args) (sim.Kernel, error) { return sim.Kernel{}, grading.ErrNotImplemented }

// HiddenIncluded reports whether this program was built with the
// instructor-only checks (the tag "hidden").
func HiddenIncluded() bool { return hiddenSine != nil }
