// Package sine is a planted solution of exercise 1 that never returns, for
// the grader's tests.
package sine

// Discretize loops for ever.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	x := a
	for {
		x = f(x)
	}
}
