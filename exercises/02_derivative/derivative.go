// Package derivative is exercise 2 of Stencil Lab: the 1D stencils of
// Fig. 8.2 as finite differences, and how fast they converge.
//
// # Your task
//
// A central difference of radius r approximates the d-th derivative at x_k
// from the 2r+1 points x_{k−r} … x_{k+r}:
//
//	f⁽ᵈ⁾(x_k) ≈ Σ_{m=−r…r} w_m · f(x_{k+m}) / h^d
//
// The chapter's three-, five- and seven-point stencils are r = 1, 2, 3.
//
//  1. Weights(d, r) returns w_{−r} … w_r for d = 1 or 2 and r = 1, 2 or 3,
//     on unit spacing (h = 1). One way: the stencil must be exact for
//     every polynomial of degree up to 2r, which gives the moment
//     conditions Σ_m w_m·m^p = p!·[p = d] for p = 0 … 2r, a small linear
//     system (gonum's mat package solves it). The three-point first
//     derivative is (−1/2, 0, 1/2), the second (1, −2, 1).
//  2. Apply(f, h, d, w) applies the weights to the samples f of spacing h:
//     the result has len(f) values, Σ w_m·f[k+m] / h^d at every k with a
//     full neighbourhood (r ≤ k < len(f)−r), and 0 at the r points at each
//     end, which have none. r is (len(w)−1)/2. f is left as it is.
//  3. Order(h, err) estimates the order of convergence p from errors
//     measured at several spacings, err ≈ C·h^p: the least-squares slope
//     of log err against log h, over every point.
//
// With these, the check "convergence" measures the error of your stencils
// on sin at shrinking spacings and expects orders 2, 4 and 6: a central
// difference of radius r has order 2r. (The chapter calls the stencils of
// radius 1, 2, 3 "order 1, 2, 3" stencils after their reach; that is not
// their order of accuracy.)
//
// Return an error, never panic, for: d not 1 or 2, r not 1 to 3, h not
// positive (or NaN), an even or empty w, fewer than 2r+1 samples, and for
// Order fewer than 2 points, lengths that differ, a spacing or error that
// is not positive, or spacings all equal.
//
// Check your work with `go test ./exercises/02_derivative` or
// `go run ./cmd/grade 02`.
package derivative

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"stencillab.dev/exercises/grading"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Weights returns the weights w[m+r], m = −r…r, of the central difference
// of radius r (1 to 3) for the d-th derivative (1 or 2) on unit spacing.
func Weights(d, r int) ([]float64, error) {
	// BEGIN SOLUTION
	if d < 1 || d > 2 {
		return nil, fmt.Errorf("derivative: weights for derivative %d: only the first and second are supported", d)
	}
	if r < 1 || r > 3 {
		return nil, fmt.Errorf("derivative: weights of radius %d: the radius must be 1, 2 or 3", r)
	}
	n := 2*r + 1
	v := mat.NewDense(n, n, nil)
	for p := 0; p < n; p++ {
		for m := -r; m <= r; m++ {
			v.Set(p, m+r, math.Pow(float64(m), float64(p)))
		}
	}
	rhs := mat.NewVecDense(n, nil)
	fact := 1.0
	for i := 2; i <= d; i++ {
		fact *= float64(i)
	}
	rhs.SetVec(d, fact)
	var w mat.VecDense
	if err := w.SolveVec(v, rhs); err != nil {
		return nil, fmt.Errorf("derivative: solving the moment conditions: %w", err)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = w.AtVec(i)
	}
	return out, nil
	// END SOLUTION
	// BEGIN STUB
	// return nil, errNotImplemented
	// END STUB
}

// Apply returns Σ w[m+r]·f[k+m] / h^d at every point k with a full
// neighbourhood, r ≤ k < len(f)−r, and 0 at the r points at each end;
// r = (len(w)−1)/2.
func Apply(f []float64, h float64, d int, w []float64) ([]float64, error) {
	// BEGIN SOLUTION
	if len(w) == 0 || len(w)%2 == 0 {
		return nil, fmt.Errorf("derivative: apply %d weights: a central stencil has an odd number of them", len(w))
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("derivative: apply with spacing h = %g: it must be positive and finite", h)
	}
	if d < 1 || d > 2 {
		return nil, fmt.Errorf("derivative: apply for derivative %d: only the first and second are supported", d)
	}
	r := (len(w) - 1) / 2
	if len(f) < len(w) {
		return nil, fmt.Errorf("derivative: apply a %d-point stencil to %d points: too few", len(w), len(f))
	}
	scale := 1 / math.Pow(h, float64(d))
	out := make([]float64, len(f))
	for k := r; k < len(f)-r; k++ {
		var sum float64
		for m := -r; m <= r; m++ {
			sum += w[m+r] * f[k+m]
		}
		out[k] = sum * scale
	}
	return out, nil
	// END SOLUTION
	// BEGIN STUB
	// return nil, errNotImplemented
	// END STUB
}

// Order returns the order of convergence p of errors err measured at
// spacings h, err ≈ C·h^p: the least-squares slope of log err against
// log h.
func Order(h, err []float64) (float64, error) {
	// BEGIN SOLUTION
	if len(h) != len(err) {
		return 0, fmt.Errorf("derivative: order from %d spacings and %d errors: the lengths differ", len(h), len(err))
	}
	if len(h) < 2 {
		return 0, fmt.Errorf("derivative: order from %d points: a slope needs at least 2", len(h))
	}
	n := float64(len(h))
	var sx, sy float64
	xs, ys := make([]float64, len(h)), make([]float64, len(h))
	for i := range h {
		if !(h[i] > 0) || !(err[i] > 0) {
			return 0, fmt.Errorf("derivative: order: point %d has spacing %g and error %g; both must be positive", i, h[i], err[i])
		}
		xs[i], ys[i] = math.Log(h[i]), math.Log(err[i])
		sx += xs[i]
		sy += ys[i]
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return 0, fmt.Errorf("derivative: order: every spacing is %g; a slope needs at least two", h[0])
	}
	return sxy / sxx, nil
	// END SOLUTION
	// BEGIN STUB
	// return 0, errNotImplemented
	// END STUB
}
