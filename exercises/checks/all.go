package checks

import "stencillab.dev/exercises/grading"

// All returns every exercise in teaching order, with their checks but
// without student code: running a check of these reports "not implemented
// yet". The grader uses it to list the exercises and their points.
func All() []grading.Exercise {
	return []grading.Exercise{
		Sine(func(func(float64) float64, float64, float64, int) ([]float64, []float64, error) {
			return nil, nil, grading.ErrNotImplemented
		}),
	}
}
