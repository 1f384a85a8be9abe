package checks

import (
	"fmt"
	"math"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// SineFunc is the signature of Discretize in exercises/01_sine.
type SineFunc func(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error)

// hiddenSine adds the instructor-only checks of exercise 1 when built with
// the tag "hidden".
var hiddenSine func(discretizer) []grading.Check

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

// Sine returns exercise 1, sine discretization, checking d.
func Sine(d SineFunc) grading.Exercise {
	e := sineExercise(func(f fnSpec, a, b float64, n int) ([]float64, []float64, error) { return d(f.fn(), a, b, n) })
	e.Serve = serveSine(d)
	return e
}

func sineExercise(discretize discretizer) grading.Exercise {
	e := grading.Exercise{
		ID:    "01_sine",
		Title: "Sine discretization (Fig. 8.1)",
		Files: []string{"sine.go"},
		Checks: []grading.Check{
			{ID: "fig-8.1", Title: "sine on [0, π] with 7 points gives 0, 0.5, 0.87, 1, 0.87, 0.5, 0", Points: 2,
				Run: func(t *grading.T) { sineFigure(t, discretize) }},
			{ID: "grid", Title: "points a, a+h, …, b with h = (b−a)/(n−1) on random intervals", Points: 1,
				Run: func(t *grading.T) { sineGrid(t, discretize, 20, 200) }},
			{ID: "values", Title: "the values are f at the points, for random functions", Points: 2,
				Run: func(t *grading.T) { sineValues(t, discretize, 20, 200) }},
			{ID: "bad-input", Title: "n < 2 and b ≤ a are errors, not panics", Points: 1,
				Run: func(t *grading.T) { sineBadInput(t, discretize) }},
		},
	}
	if hiddenSine != nil {
		e.Checks = append(e.Checks, hiddenSine(discretize)...)
	}
	return withPolicy(e)
}

func sineFigure(t *grading.T, discretize discretizer) {
	const what = "Discretize(math.Sin, 0, π, 7)"
	xs, ys, err := discretize(fnSpec{Form: fnSin}, 0, math.Pi, 7)
	t.Must(err, what)
	require.Len(t, ys, 7, "%s: got %d values, want 7", what, len(ys))
	require.Len(t, xs, 7, "%s: got %d points, want 7", what, len(xs))
	ref, err := lab.Discretize(math.Sin, 0, math.Pi, 7)
	require.NoError(t, err, "the reference failed")
	if !(grading.Diff{What: what + " points"}.Check(t, xs, gridX(ref), sineGridVariants(0, math.Pi, 7)...)) {
		return
	}
	if !(grading.Diff{What: what}.Check(t, ys, ref.Data, sineValueVariants(math.Sin, 0, math.Pi, 7)...)) {
		return
	}
	published := []float64{0, 0.50, 0.87, 1.00, 0.87, 0.50, 0}
	for k, want := range published {
		if !assert.InDelta(t, want, ys[k], 0.005, "%s: value %d is %.4f, but Fig. 8.1 prints %.2f", what, k, ys[k], want) {
			return
		}
	}
}

// sineValueVariants are the usual wrong values of f on [a, b] with n
// points: f of the index, and f on a grid of spacing (b−a)/n.
func sineValueVariants(f func(float64) float64, a, b float64, n int) []grading.Variant {
	atIndex := make([]float64, n)
	byN := make([]float64, n)
	for k := range atIndex {
		atIndex[k] = f(float64(k))
		byN[k] = f(a + float64(k)*(b-a)/float64(n))
	}
	return []grading.Variant{
		{Hint: "the values look like f(k) of the index k; evaluate f at the point x_k = a + k·h", Values: atIndex},
		{Hint: "the values are f on a grid of spacing (b−a)/n; n points on [a, b] leave n−1 gaps, so h = (b−a)/(n−1)", Values: byN},
	}
}

// gridX returns the coordinates of the points of g.
func gridX(g *lab.Grid1[float64]) []float64 {
	xs := make([]float64, g.N)
	for k := range xs {
		xs[k] = g.X(k)
	}
	return xs
}

// sineGridVariants are the usual wrong grids on [a, b] with n points.
func sineGridVariants(a, b float64, n int) []grading.Variant {
	byN := make([]float64, n)
	shifted := make([]float64, n)
	h := (b - a) / float64(n-1)
	for k := range byN {
		byN[k] = a + float64(k)*(b-a)/float64(n)
		shifted[k] = a + float64(k+1)*h
	}
	return []grading.Variant{
		{Hint: "the spacing looks like (b−a)/n; n points on [a, b] leave n−1 gaps, so h = (b−a)/(n−1)", Values: byN},
		{Hint: "the first point should be a itself, the last b", Values: shifted},
	}
}

// randomInterval draws a < b with b − a between 0.5 and 10.
func randomInterval(t *grading.T) (a, b float64) {
	a = 10*t.Rand().Float64() - 5
	return a, a + 0.5 + 9.5*t.Rand().Float64()
}

func sineGrid(t *grading.T, discretize discretizer, trials, maxN int) {
	for range trials {
		a, b := randomInterval(t)
		n := 2 + t.Rand().IntN(maxN-1)
		what := fmt.Sprintf("Discretize(f, %.4g, %.4g, %d)", a, b, n)
		xs, ys, err := discretize(fnSpec{Form: fnCos}, a, b, n)
		t.Must(err, what)
		require.Len(t, xs, n, "%s: got %d points, want %d", what, len(xs), n)
		require.Len(t, ys, n, "%s: got %d values, want %d", what, len(ys), n)
		ref, err := lab.Discretize(math.Cos, a, b, n)
		require.NoError(t, err, "the reference failed")
		if !(grading.Diff{What: what + " points"}.Check(t, xs, gridX(ref), sineGridVariants(a, b, n)...)) {
			return
		}
		if !assert.InDelta(t, b, xs[n-1], 1e-9*(1+math.Abs(b)), "%s: the last point is %.17g, want b = %.17g", what, xs[n-1], b) {
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
		n := 2 + t.Rand().IntN(maxN-1)
		what := fmt.Sprintf("Discretize(%s, %.4g, %.4g, %d)", desc, a, b, n)
		_, ys, err := discretize(spec, a, b, n)
		t.Must(err, what)
		ref, err := lab.Discretize(f, a, b, n)
		require.NoError(t, err, "the reference failed")
		if !(grading.Diff{What: what}.Check(t, ys, ref.Data, sineValueVariants(f, a, b, n)...)) {
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
		{0, 1, 1, "one point cannot span [a, b]"},
		{0, 1, 0, "zero points"},
		{0, 1, -3, "a negative number of points"},
		{1, 1, 5, "an empty interval, b = a"},
		{2, -1, 5, "b < a"},
		{math.NaN(), 1, 5, "a is NaN"},
	}
	for _, c := range cases {
		what := fmt.Sprintf("Discretize(f, %g, %g, %d) (%s)", c.a, c.b, c.n, c.why)
		_, _, err := discretize(fnSpec{Form: fnSin}, c.a, c.b, c.n)
		if !t.WantError(err, what) {
			return
		}
	}
}
