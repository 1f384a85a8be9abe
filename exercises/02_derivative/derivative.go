// Package derivative is exercise 2 of Stencil Lab: finite differences that
// reach the ends of a grid. The 1D stencils of Fig. 8.2 are centred, so
// the chapter leaves the points near the ends alone; here they get an
// off-centre stencil of their own, and you measure what that costs in
// accuracy.
//
// # Your task
//
// A finite difference approximates the d-th derivative at x_k from the
// samples at x_{k+m}, m = lo … hi (lo ≤ 0 ≤ hi):
//
//	f⁽ᵈ⁾(x_k) ≈ Σ_{m=lo…hi} w_m · f(x_{k+m}) / h^d
//
// lo = −r, hi = r is the centred stencil of radius r; lo = 0 is one-sided
// (forward), hi = 0 one-sided backward, anything between off-centre.
//
//  1. Weights(d, lo, hi) returns w_lo … w_hi on unit spacing (h = 1), for
//     d = 1 or 2 and 2 to 7 points (d < hi−lo+1 ≤ 7). The stencil must be
//     exact for every polynomial of degree up to hi−lo, which gives the
//     moment conditions Σ_m w_m·m^p = p!·[p = d] for p = 0 … hi−lo, a
//     small linear system (gonum's mat package solves it). The forward
//     first derivative on three points (lo = 0, hi = 2) is (−3/2, 2, −1/2).
//  2. Apply(f, h, d, r) returns the d-th derivative at every one of the
//     len(f) samples f of spacing h, each from 2r+1 samples: the centred
//     stencil (−r … r) where it fits, and at the r points at each end the
//     off-centre stencil of the same 2r+1 points that stays inside the
//     grid (at k = 0: 0 … 2r; at k = 1: −1 … 2r−1; at the last point:
//     −2r … 0). f is left as it is.
//  3. Order(h, err) estimates the order of convergence p from errors
//     measured at several spacings, err ≈ C·h^p: the least-squares slope
//     of log err against log h, over every point.
//
// With these, the check "convergence" measures the error of your stencils
// on sin at shrinking spacings, at the centre and at the first point of a
// grid. A stencil of n points for the d-th derivative has order n − d; a
// centred one gains one more by symmetry. So the centre converges at
// order 2r, and the end at 2r+1−d: one order less for the first
// derivative, two for the second.
//
// Return an error, never panic, for: d not 1 or 2, lo > 0 or hi < 0, too
// few points (hi−lo+1 ≤ d) or more than 7, r not 1 to 3, h not positive
// and finite, fewer than 2r+1 samples, and for Order fewer than 2 points,
// lengths that differ, a spacing or error that is not positive, or
// spacings all equal.
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

// Weights returns the weights w[m−lo], m = lo…hi, of the finite difference
// for the d-th derivative (1 or 2) at offset 0 from the samples at offsets
// lo ≤ 0 ≤ hi, on unit spacing: exact for every polynomial of degree up to
// hi−lo.
func Weights(d, lo, hi int) ([]float64, error) {
	// BEGIN SOLUTION
	if d < 1 || d > 2 {
		return nil, fmt.Errorf("derivative: weights for derivative %d: only the first and second are supported", d)
	}
	if lo > 0 || hi < 0 {
		return nil, fmt.Errorf("derivative: weights on offsets %d…%d: the point itself (offset 0) must be among them", lo, hi)
	}
	n := hi - lo + 1
	if n <= d || n > 7 {
		return nil, fmt.Errorf("derivative: weights on %d points for derivative %d: need %d to 7 points", n, d, d+1)
	}
	// Column c of the system holds the powers m^0, m^1, … of offset
	// m = lo + c; the right-hand side is d! in row d.
	system := make([]float64, n*n)
	for c := 0; c < n; c++ {
		power := 1.0
		for row := 0; row < n; row++ {
			system[row*n+c] = power
			power *= float64(lo + c)
		}
	}
	target := make([]float64, n)
	target[d] = float64(d) // d! for d = 1 or 2
	var x mat.Dense
	if err := x.Solve(mat.NewDense(n, n, system), mat.NewDense(n, 1, target)); err != nil {
		return nil, fmt.Errorf("derivative: the moment conditions on offsets %d…%d have no solution: %w", lo, hi, err)
	}
	return mat.Col(nil, 0, &x), nil
	// END SOLUTION
	// BEGIN STUB
	// return nil, errNotImplemented
	// END STUB
}

// Apply returns the d-th derivative at every point of the samples f of
// spacing h, each from 2r+1 samples: centred where the stencil fits, and
// off-centre, inside the grid, at the r points at each end.
func Apply(f []float64, h float64, d, r int) ([]float64, error) {
	// BEGIN SOLUTION
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("derivative: apply with spacing h = %g: it must be positive and finite", h)
	}
	if r < 1 || r > 3 {
		return nil, fmt.Errorf("derivative: apply with radius %d: the radius must be 1, 2 or 3", r)
	}
	if len(f) < 2*r+1 {
		return nil, fmt.Errorf("derivative: apply a %d-point stencil to %d samples: too few", 2*r+1, len(f))
	}
	stencils := map[int][]float64{} // by lo
	scale := 1 / math.Pow(h, float64(d))
	out := make([]float64, len(f))
	for k := range f {
		lo := -r
		if k < r {
			lo = -k
		} else if last := len(f) - 1; k > last-r {
			lo = last - k - 2*r
		}
		w, ok := stencils[lo]
		if !ok {
			var err error
			if w, err = Weights(d, lo, lo+2*r); err != nil {
				return nil, fmt.Errorf("derivative: apply at point %d: %w", k, err)
			}
			stencils[lo] = w
		}
		var sum float64
		for i, wi := range w {
			sum += wi * f[k+lo+i]
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
