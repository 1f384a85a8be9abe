// Package sine is exercise 1 of Stencil Lab: discretizing a function on a
// cell-centred grid, the grid of finite-volume codes, where each sample
// stands for a cell rather than for a point on its edge (compare the
// vertex grid of Fig. 8.1 of chapter 8).
//
// # Your task
//
// Write Discretize. It splits [a, b] into n cells of equal width h and
// samples a function f at the centre of each cell; it returns the centres
// and the values there. With f = sin, a = 0, b = π and n = 6 the cells are
// π/6 wide, the centres are π/12, 3π/12, …, 11π/12 and the values are
// sin 15°, sin 45°, sin 75°, sin 75°, sin 45°, sin 15°: 0.26, 0.71, 0.97,
// 0.97, 0.71, 0.26. Neither a nor b is a sample.
//
//   - n cells on [a, b]: what is h? (Not the spacing of Fig. 8.1's n
//     points, which include both ends.)
//   - Cell k spans [a + k·h, a + (k+1)·h]; where is its centre?
//   - Reject bad input with an error: fewer than 1 cell, or an interval
//     that is not a finite a < b (a NaN or infinite bound, or a width
//     b − a too large for a float64, included). Never panic.
//
// Check your work with `go test ./exercises/01_sine` or
// `go run ./cmd/grade 01_sine`; the notebook notebooks/09_exercises.ipynb
// has the same exercise and the same checks.
package sine

import (
	"fmt"
	"math"

	"stencillab.dev/exercises/grading"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Discretize samples f at the centres of n ≥ 1 cells of equal width h on
// [a, b]: xs[k] is the centre of cell k and ys[k] = f(xs[k]). It returns
// an error when n < 1 or when [a, b] is not a finite interval with a < b.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	// BEGIN SOLUTION
	if n < 1 {
		return nil, nil, fmt.Errorf("sine: discretize into n = %d cells: at least 1 is needed", n)
	}
	if !(a < b) || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(b-a, 0) {
		return nil, nil, fmt.Errorf("sine: discretize on [%g, %g]: need finite bounds with a < b", a, b)
	}
	width := (b - a) / float64(n)
	xs = make([]float64, n)
	ys = make([]float64, n)
	for cell := 0; cell < n; cell++ {
		xs[cell] = a + (float64(cell)+0.5)*width
		ys[cell] = f(xs[cell])
	}
	return xs, ys, nil
	// END SOLUTION
	// BEGIN STUB
	// return nil, nil, errNotImplemented
	// END STUB
}
