// Package sine is an attack on the grader, for its tests: Discretize
// calls a function of a _test.go file handed in beside it, which would be
// compiled into the exercise's test binary.
package sine

// Discretize is the test file's.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	return discretizeFromTest(f, a, b, n)
}
