package checks

import (
	"fmt"
	"math"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// SineFunc is the signature of Discretize in exercises/01_sine.
type SineFunc func(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error)

// fnSpec is a function the checks hand to Discretize, given by its form so
// that the grader's child can build the same function: sin, cos, or
// p·sin(w·x + φ) + q·x² + c.
type fnSpec struct {
	Form                int // fnSin, fnCos or fnFormula
	P, W, Phi, Q, Const float64
}

const (
	fnSin = iota
	fnCos
	fnFormula
)

// fn returns the function spec stands for.
func (spec fnSpec) fn() func(float64) float64 {
	switch spec.Form {
	case fnSin:
		return math.Sin
	case fnCos:
		return math.Cos
	}
	p, w, phi, q, c := spec.P, spec.W, spec.Phi, spec.Q, spec.Const
	return func(x float64) float64 { return p*math.Sin(w*x+phi) + q*x*x + c }
}

// discretizer is Discretize as the checks call it: here, or in the
// grader's child.
type discretizer func(f fnSpec, a, b float64, n int) (xs, ys []float64, err error)

// sineFuncs is the function of exercise 1 as the checks call it.
// Discretize takes a function, which cannot cross the channel: the checks
// give it by its form (fnSpec), a value that crosses it, and the child
// builds the function from the form before it calls the student's
// Discretize.
type sineFuncs struct {
	Discretize discretizer
}

// Sine returns exercise 1, sampling a function on a cell-centred grid,
// checking d.
func Sine(d SineFunc) grading.Exercise {
	return sineDecl.Exercise(sineFuncs{Discretize: func(f fnSpec, a, b float64, n int) ([]float64, []float64, error) {
		return d(f.fn(), a, b, n)
	}})
}

// sineDecl declares exercise 1.
var sineDecl = declare(&Decl[sineFuncs]{
	ID:    "01_sine",
	Title: "Sine on a cell-centred grid (Fig. 8.1, cell centres)",
	Files: []string{"sine.go"},
	Checks: func(fn sineFuncs) []grading.Check {
		discretize := fn.Discretize
		return []grading.Check{
			{ID: "fig-8.1", Title: "sine on [0, π] in 6 cells gives sin 15°, 45°, 75°, 75°, 45°, 15°", Points: 2,
				Run: func(t *grading.T) { sineFigure(t, discretize) }},
			{ID: "grid", Title: "the centres a + h/2, a + 3h/2, …, b − h/2 with h = (b−a)/n on random intervals", Points: 1,
				Run: func(t *grading.T) { sineGrid(t, discretize, 20, 200) }},
			{ID: "values", Title: "the values are f at the centres, for random functions", Points: 2,
				Run: func(t *grading.T) { sineValues(t, discretize, 20, 200) }},
			{ID: "bad-input", Title: "n < 1, b ≤ a and bounds that are not finite are errors, not panics", Points: 1,
				Run: func(t *grading.T) { sineBadInput(t, discretize) }},
		}
	},
})

// centres returns the centres of the n cells of [a, b], each computed as a
// weighted mean of the ends, ((2n−2k−1)·a + (2k+1)·b) / 2n, not by stepping
// from a.
func centres(a, b float64, n int) []float64 {
	xs := make([]float64, n)
	for k := range xs {
		wa, wb := float64(2*n-2*k-1), float64(2*k+1)
		xs[k] = (wa*a + wb*b) / float64(2*n)
	}
	return xs
}

// sampled returns f at xs.
func sampled(f func(float64) float64, xs []float64) []float64 {
	ys := make([]float64, len(xs))
	for k, x := range xs {
		ys[k] = f(x)
	}
	return ys
}

// sineTol is the tolerance on points and values: a centre stepped from a
// and one interpolated between the ends differ by a few ulps of the
// interval's size.
func sineTol(a, b float64) grading.Tol {
	return grading.Tol{Abs: 1e-12 * (1 + math.Abs(a) + math.Abs(b)), Rel: 1e-9}
}

func sineFigure(t *grading.T, discretize discretizer) {
	const what = "Discretize(math.Sin, 0, π, 6)"
	xs, ys, err := discretize(fnSpec{Form: fnSin}, 0, math.Pi, 6)
	t.Must(err, what)
	require.Len(t, xs, 6, "%s: got %d centres, want 6", what, len(xs))
	require.Len(t, ys, 6, "%s: got %d values, want 6", what, len(ys))
	// The centres are odd multiples of π/12, the values the closed forms
	// sin 15° = (√6 − √2)/4, sin 45° = √2/2 and sin 75° = (√6 + √2)/4.
	wantX := make([]float64, 6)
	for k := range wantX {
		wantX[k] = float64(2*k+1) * math.Pi / 12
	}
	s15, s45, s75 := (math.Sqrt(6)-math.Sqrt(2))/4, math.Sqrt(2)/2, (math.Sqrt(6)+math.Sqrt(2))/4
	wantY := []float64{s15, s45, s75, s75, s45, s15}
	if !(grading.Diff{What: what + " centres"}.Check(t, xs, wantX, sineGridVariants(0, math.Pi, 6)...)) {
		return
	}
	grading.Diff{What: what}.Check(t, ys, wantY, sineValueVariants(math.Sin, 0, math.Pi, 6)...)
}

// sineValueVariants are the usual wrong values of f on the n cells of
// [a, b]: f of the index, f at the left or right edge of each cell, and f
// on the vertex grid of n points.
func sineValueVariants(f func(float64) float64, a, b float64, n int) []grading.Variant {
	vs := []grading.Variant{{Hint: "the values look like f(k) of the index k; evaluate f at the centre of cell k", Values: sampled(f, indices(n))}}
	for _, v := range sineGridVariants(a, b, n) {
		vs = append(vs, grading.Variant{Hint: v.Hint, Values: sampled(f, v.Values)})
	}
	return vs
}

// indices returns 0, 1, …, n−1 as numbers.
func indices(n int) []float64 {
	xs := make([]float64, n)
	for k := range xs {
		xs[k] = float64(k)
	}
	return xs
}

// sineGridVariants are the usual wrong grids of n cells on [a, b]: the
// left or right edges of the cells, and the vertex grid of Fig. 8.1.
func sineGridVariants(a, b float64, n int) []grading.Variant {
	left, right := make([]float64, n), make([]float64, n)
	for k := range left {
		left[k] = a + float64(k)*(b-a)/float64(n)
		right[k] = a + float64(k+1)*(b-a)/float64(n)
	}
	vs := []grading.Variant{
		{Hint: "these are the left edges of the cells, a + k·h; the sample sits half a cell further, at the centre", Values: left},
		{Hint: "these are the right edges of the cells, a + (k+1)·h; the sample sits half a cell back, at the centre", Values: right},
	}
	if n > 1 {
		vertex := make([]float64, n)
		for k := range vertex {
			vertex[k] = a + float64(k)*(b-a)/float64(n-1)
		}
		vs = append(vs, grading.Variant{
			Hint:   "this is the grid of Fig. 8.1, n points with both ends included; here n cells of width (b−a)/n are sampled at their centres",
			Values: vertex,
		})
	}
	return vs
}

// randomInterval draws a < b with b − a between 0.5 and 10.
func randomInterval(t *grading.T) (a, b float64) {
	a = 10*t.Rand().Float64() - 5
	return a, a + 0.5 + 9.5*t.Rand().Float64()
}

func sineGrid(t *grading.T, discretize discretizer, trials, maxN int) {
	for range trials {
		a, b := randomInterval(t)
		n := 1 + t.Rand().IntN(maxN)
		what := fmt.Sprintf("Discretize(f, %.4g, %.4g, %d)", a, b, n)
		xs, ys, err := discretize(fnSpec{Form: fnCos}, a, b, n)
		t.Must(err, what)
		require.Len(t, xs, n, "%s: got %d centres, want %d", what, len(xs), n)
		require.Len(t, ys, n, "%s: got %d values, want %d", what, len(ys), n)
		tol := sineTol(a, b)
		if !(grading.Diff{What: what + " centres", Tol: tol}.Check(t, xs, centres(a, b, n), sineGridVariants(a, b, n)...)) {
			return
		}
		// The grid is symmetric: half a cell between a and the first
		// centre, and between the last centre and b.
		half := (b - a) / float64(2*n)
		if !assert.InDelta(t, half, b-xs[n-1], tol.Abs+tol.Rel*half, "%s: the last centre is %.17g, half a cell (%.6g) before b = %.17g",
			what, xs[n-1], half, b) {
			return
		}
	}
}

// randomFunc returns f(x) = p·sin(w·x + φ) + q·x² + r with random p, w, φ,
// q and r, and a description of it.
func randomFunc(t *grading.T) (fnSpec, string) {
	r := t.Rand()
	p, w, phi, q, c := 2*r.Float64()-1, 0.5+2*r.Float64(), 3*r.Float64(), r.Float64()-0.5, r.Float64()-0.5
	f := fnSpec{Form: fnFormula, P: p, W: w, Phi: phi, Q: q, Const: c}
	return f, fmt.Sprintf("f(x) = %.3f·sin(%.3f·x + %.3f) + %.3f·x² + %.3f", p, w, phi, q, c)
}

func sineValues(t *grading.T, discretize discretizer, trials, maxN int) {
	for range trials {
		spec, desc := randomFunc(t)
		f := spec.fn()
		a, b := randomInterval(t)
		n := 1 + t.Rand().IntN(maxN)
		what := fmt.Sprintf("Discretize(%s, %.4g, %.4g, %d)", desc, a, b, n)
		_, ys, err := discretize(spec, a, b, n)
		t.Must(err, what)
		// f's slope is below 1 + |2q·x| ≤ 7 on these intervals, so a
		// centre off by a few ulps moves its value by as little.
		tol := grading.Tol{Abs: 10 * sineTol(a, b).Abs, Rel: 1e-9}
		if !(grading.Diff{What: what, Tol: tol}.Check(t, ys, sampled(f, centres(a, b, n)), sineValueVariants(f, a, b, n)...)) {
			return
		}
	}
}

func sineBadInput(t *grading.T, discretize discretizer) {
	cases := []struct {
		a, b float64
		n    int
		why  string
	}{
		{0, 1, 0, "zero cells"},
		{0, 1, -3, "a negative number of cells"},
		{1, 1, 5, "an empty interval, b = a"},
		{2, -1, 5, "b < a"},
		{math.NaN(), 1, 5, "a is NaN"},
		{0, math.NaN(), 5, "b is NaN"},
		{0, math.Inf(1), 5, "b is infinite"},
		{math.Inf(-1), 0, 5, "a is infinite"},
		{-math.MaxFloat64, math.MaxFloat64, 4, "b − a overflows"},
	}
	for _, c := range cases {
		what := fmt.Sprintf("Discretize(f, %g, %g, %d) (%s)", c.a, c.b, c.n, c.why)
		_, _, err := discretize(fnSpec{Form: fnSin}, c.a, c.b, c.n)
		if !t.WantError(err, what) {
			return
		}
	}
}
