// Package sine is an attack on the grader, for its tests: a file that
// go/parser gives up on, which an old static check reported as having no
// violation.
package sine

import "math"

// Discretize is cut short.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	h := (b - a) / float64(n
	return nil, nil, math.ErrUnsupported
}
