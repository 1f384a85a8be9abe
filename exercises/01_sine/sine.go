// Package sine is exercise 1 of Stencil Lab: discretizing a function on a
// regular grid, the first step of every stencil computation (Fig. 8.1 of
// chapter 8).
//
// # Your task
//
// Write Discretize. It samples a function f at n points of constant
// spacing on [a, b], both ends included, and returns the points and the
// values there. With f = sin, a = 0, b = π and n = 7 the spacing is π/6
// and the values are those of Fig. 8.1C: 0, 0.50, 0.87, 1.00, 0.87, 0.50,
// 0.
//
//   - Point k sits at x_k = a + k·h. How many gaps are there between n
//     points, and so what is h?
//   - The first point is a, the last is b.
//   - Reject bad input with an error: fewer than 2 points, or an interval
//     that is not a < b (a NaN bound included). Never panic.
//
// Check your work with `go test ./exercises/01_sine` or
// `go run ./cmd/grade 01_sine`; the notebook notebooks/09_exercises.ipynb
// has the same exercise and the same checks.
package sine

import (
	"fmt"

	"stencillab.dev/exercises/grading"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Discretize samples f at n ≥ 2 points of constant spacing on [a, b], both
// ends included: xs[k] = a + k·h and ys[k] = f(xs[k]). It returns an error
// when n < 2 or when a < b does not hold.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	// BEGIN SOLUTION
	if n < 2 {
		return nil, nil, fmt.Errorf("sine: discretize with n = %d points: at least 2 are needed to span [a, b]", n)
	}
	if !(a < b) {
		return nil, nil, fmt.Errorf("sine: discretize on [%g, %g]: need a < b", a, b)
	}
	h := (b - a) / float64(n-1)
	xs = make([]float64, n)
	ys = make([]float64, n)
	for k := range xs {
		xs[k] = a + float64(k)*h
		ys[k] = f(xs[k])
	}
	return xs, ys, nil
	// END SOLUTION
	// BEGIN STUB
	// return nil, nil, errNotImplemented
	// END STUB
}
