package checks

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
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
		Derivative(DerivativeFuncs{
			Weights: func(int, int, int) ([]float64, error) { return nil, nyi },
			Apply:   func([]float64, float64, int, int) ([]float64, error) { return nil, nyi },
			Order:   func([]float64, []float64) (float64, error) { return 0, nyi },
		}),
		FivePoint(FivePointFuncs{
			Sweep:   func(_, _ *lab.Grid2[float64], _ [9]float64) error { return nyi },
			Iterate: func(*lab.Grid2[float64], [9]float64, int) (*lab.Grid2[float64], error) { return nil, nyi },
		}),
		Intensity(IntensityFuncs{
			Cost:      func(string, int) (lab.BlockCost, error) { return lab.BlockCost{}, nyi },
			Intensity: func(string, int) (float64, error) { return 0, nyi },
			MaxTile:   func(string, sim.Limits) (int, string, error) { return 0, "", nyi },
		}),
	}
	for _, s := range kernelSteps() {
		all = append(all, s.exercise(submitted{local: stubKernel}))
	}
	all = append(all, FindTheBug(stubKernel), Warps(WarpsFuncs{
		Block: func() (sim.Dim3, error) { return sim.Dim3{}, nyi },
		Pitch: func(int) (int, error) { return 0, nyi },
	}))
	// The declared exercises' stubs are made from their declarations.
	return append(all, declaredStubs()...)
}

// stubKernel is a kernel that is not written yet.
func stubKernel(star.Args) (sim.Kernel, error) { return sim.Kernel{}, grading.ErrNotImplemented }

// HiddenIncluded reports whether this program was built with the
// instructor-only checks (the tag "hidden").
func HiddenIncluded() bool { return hiddenSine != nil }
