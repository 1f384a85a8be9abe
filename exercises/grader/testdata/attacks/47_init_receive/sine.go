// Package sine is an attack on the grader, for its tests: a package-level
// variable initialised by a receive from a channel nobody sends on, so the
// child never finishes its initialisation (no function is called).
package sine

import "errors"

var never chan float64

var start = <-never

// Discretize is never reached.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	return []float64{start}, nil, errors.New("unreachable")
}
