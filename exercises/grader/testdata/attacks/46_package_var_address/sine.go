// Package sine is an attack on the grader, for its tests: it takes the
// address of grading's ErrNotImplemented and clears it, so that a stub
// would no longer be told apart from an answer in its process.
package sine

import "stencillab.dev/exercises/grading"

// Discretize clears the sentinel and returns nothing.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	p := &grading.ErrNotImplemented
	*p = nil
	return nil, nil, nil
}
