package checks

import (
	"fmt"
	"math"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// DerivativeFuncs are the functions of exercises/02_derivative.
type DerivativeFuncs struct {
	// Weights returns the central-difference weights of radius r for the
	// d-th derivative, w[m+r] for m = −r…r, on unit spacing.
	Weights func(d, r int) ([]float64, error)
	// Apply returns Σ w[m+r]·f[k+m] / h^d at every point k with a full
	// neighbourhood, and 0 at the r points at each end.
	Apply func(f []float64, h float64, d int, w []float64) ([]float64, error)
	// Order returns the least-squares slope of log err against log h.
	Order func(h, err []float64) (float64, error)
}

// hiddenDerivative adds the instructor-only checks of exercise 2.
var hiddenDerivative func(DerivativeFuncs) []grading.Check

// Derivative returns exercise 2, central differences and their order of
// convergence, checking fn.
func Derivative(fn DerivativeFuncs) grading.Exercise {
	e := grading.Exercise{
		ID:    "02_derivative",
		Title: "1D derivative stencils and their order of convergence (Fig. 8.2)",
		Files: []string{"derivative.go"},
		Checks: []grading.Check{
			{ID: "weights-first", Title: "weights of the three-, five- and seven-point first derivative", Points: 2,
				Run: func(t *grading.T) { derivWeights(t, fn, 1) }},
			{ID: "weights-second", Title: "weights of the three-, five- and seven-point second derivative", Points: 2,
				Run: func(t *grading.T) { derivWeights(t, fn, 2) }},
			{ID: "apply", Title: "the stencil applied to random data with a random spacing", Points: 2,
				Run: func(t *grading.T) { derivApply(t, fn, 12, 60) }},
			{ID: "order-exact", Title: "the order of errors that follow C·h^p exactly", Points: 1,
				Run: func(t *grading.T) { derivOrderExact(t, fn, 10) }},
			{ID: "order-fit", Title: "the order of noisy errors, by least squares over every point", Points: 1,
				Run: func(t *grading.T) { derivOrderFit(t, fn, 10) }},
			{ID: "convergence", Title: "the three-, five- and seven-point stencils converge at order 2, 4 and 6", Points: 2,
				Run: func(t *grading.T) { derivConvergence(t, fn) }},
			{ID: "bad-input", Title: "unsupported derivatives, radii, spacings and sizes are errors", Points: 1,
				Run: func(t *grading.T) { derivBadInput(t, fn) }},
		},
	}
	if hiddenDerivative != nil {
		e.Checks = append(e.Checks, hiddenDerivative(fn)...)
	}
	e.Serve = serveDerivative(fn)
	return withPolicy(e)
}

func scaled(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = s * x
	}
	return out
}

func derivWeights(t *grading.T, fn DerivativeFuncs, d int) {
	for r := 1; r <= 3; r++ {
		what := fmt.Sprintf("Weights(%d, %d)", d, r)
		w, err := fn.Weights(d, r)
		t.Must(err, what)
		ref, err := lab.CentralDifference(d, r)
		require.NoError(t, err, "the reference failed")
		require.Len(t, w, 2*r+1, "%s: got %d weights, want 2r+1 = %d", what, len(w), 2*r+1)
		flipped := "every sign is flipped: for the first derivative the weights of f(x+m·h) with m > 0 are positive"
		if d == 2 {
			flipped = "every sign is flipped: the centre weight of a second derivative is negative, as in (1, −2, 1)"
		}
		variants := []grading.Variant{
			{Hint: flipped, Values: scaled(ref.Coeffs, -1)},
			{Hint: "twice the right weights: for the first derivative the outer points are 2h apart (divide by 2)", Values: scaled(ref.Coeffs, 2)},
			{Hint: "half the right weights: the moment conditions are Σ w_m·m^p = p!·[p = d], and 2! = 2", Values: scaled(ref.Coeffs, 0.5)},
		}
		if !(grading.Diff{What: what, Tol: grading.Tol{Abs: 1e-9, Rel: 1e-9}}.Check(t, w, ref.Coeffs, variants...)) {
			return
		}
	}
}

func derivApply(t *grading.T, fn DerivativeFuncs, trials, maxN int) {
	for range trials {
		d := 1 + t.Rand().IntN(2)
		r := 1 + t.Rand().IntN(3)
		n := 2*r + 1 + t.Rand().IntN(maxN)
		h := 0.01 + t.Rand().Float64()
		g, err := lab.NewGrid1[float64](n, 0, h)
		require.NoError(t, err, "the reference failed")
		g.FillRandom(t.Rand().Uint64())
		f := append([]float64(nil), g.Data...)
		ref, err := lab.CentralDifference(d, r)
		require.NoError(t, err, "the reference failed")
		want, err := lab.NewGrid1[float64](n, 0, h)
		require.NoError(t, err, "the reference failed")
		require.NoError(t, lab.Derivative(want, g, ref), "the reference failed")

		what := fmt.Sprintf("Apply(f of %d random values, h = %.4g, d = %d, the %d-point weights)", n, h, d, 2*r+1)
		got, err := fn.Apply(f, h, d, append([]float64(nil), ref.Coeffs...))
		t.Must(err, what)
		assert.Equal(t, g.Data, f, "%s changed its input f", what)
		hd := math.Pow(h, float64(d))
		shifted := make([]float64, n)
		for k := r; k < n-r; k++ {
			if k+1 < n-r {
				shifted[k] = want.Data[k+1]
			}
		}
		variants := []grading.Variant{
			{Hint: "the result is not divided by h^d", Values: scaled(want.Data, hd)},
			{Hint: "the result is divided by h, not by h² (the second derivative divides by h^d with d = 2)", Values: scaled(want.Data, h)},
			{Hint: "the result is shifted by one point: dst[k] must use f[k−r] … f[k+r]", Values: shifted},
			{Hint: "the r points at each end have no full neighbourhood: leave them 0", Match: func(got []float64) bool {
				for k := range got {
					if (k < r || k >= n-r) && got[k] != 0 {
						return true
					}
				}
				return false
			}},
		}
		if !(grading.Diff{What: what, Tol: grading.Tol{Abs: 1e-9, Rel: 1e-9}}.Check(t, got, want.Data, variants...)) {
			return
		}
	}
}

// orderVariants are the usual wrong answers for a slope p fitted to log err
// against log h; ends is the slope through the first and last points.
func orderVariants(p, ends float64) []grading.Scalar {
	return []grading.Scalar{
		{Hint: "the sign is flipped: the error shrinks with h, so the slope of log err against log h is positive", Value: -p},
		{Hint: "this is the slope of log h against log err; fit log err against log h", Value: 1 / p},
		{Hint: "this is the slope through the first and last points only; fit every point by least squares", Value: ends},
	}
}

func derivOrderExact(t *grading.T, fn DerivativeFuncs, trials int) {
	for range trials {
		n := 3 + t.Rand().IntN(6)
		p := 1 + 6*t.Rand().Float64()
		c := math.Exp(4*t.Rand().Float64() - 2)
		h0 := 0.05 + 0.5*t.Rand().Float64()
		ratio := 1.3 + 1.7*t.Rand().Float64()
		hs, errs := make([]float64, n), make([]float64, n)
		for i := range hs {
			hs[i] = h0 / math.Pow(ratio, float64(i))
			errs[i] = c * math.Pow(hs[i], p)
		}
		what := fmt.Sprintf("Order(h, err) with err = %.3g·h^%.4f at %d spacings", c, p, n)
		got, err := fn.Order(hs, errs)
		t.Must(err, what)
		if !grading.Number(t, what, got, p, grading.Tol{Abs: 1e-8, Rel: 1e-8}, orderVariants(p, 0)[:2]...) {
			return
		}
	}
}

func derivOrderFit(t *grading.T, fn DerivativeFuncs, trials int) {
	for range trials {
		n := 5 + t.Rand().IntN(6)
		p := 1 + 6*t.Rand().Float64()
		hs, errs := make([]float64, n), make([]float64, n)
		xs, ys := make([]float64, n), make([]float64, n)
		h := 0.1 + 0.4*t.Rand().Float64()
		for i := range hs {
			hs[i] = h
			errs[i] = math.Pow(h, p) * math.Exp(0.6*(t.Rand().Float64()-0.5))
			xs[i], ys[i] = math.Log(hs[i]), math.Log(errs[i])
			h /= 1.2 + t.Rand().Float64()
		}
		_, slope := stat.LinearRegression(xs, ys, nil, false)
		ends := (ys[n-1] - ys[0]) / (xs[n-1] - xs[0])
		what := fmt.Sprintf("Order(h, err) for %d noisy errors of order about %.2f", n, p)
		got, err := fn.Order(hs, errs)
		t.Must(err, what)
		vs := orderVariants(slope, ends)
		if !grading.Number(t, what, got, slope, grading.Tol{Abs: 1e-8, Rel: 1e-8}, vs...) {
			return
		}
	}
}

// centreError returns the error of a derivative approximation of sin at
// x, the centre point of approx.
func centreError(approx []float64, x float64, d int) float64 {
	exact := math.Cos(x)
	if d == 2 {
		exact = -math.Sin(x)
	}
	return math.Abs(approx[len(approx)/2] - exact)
}

func derivConvergence(t *grading.T, fn DerivativeFuncs) {
	// The error is measured at one point xc, where every derivative of
	// sin is far from 0 (sin and cos are both above 0.56), on grids
	// centred there with spacings from 0.4 down to 0.1: small enough for
	// the leading term of the error to dominate, large enough for
	// rounding not to.
	xc := 0.6 + 0.4*t.Rand().Float64()
	scale := 0.9 + 0.2*t.Rand().Float64()
	for d := 1; d <= 2; d++ {
		for r := 1; r <= 3; r++ {
			w, err := fn.Weights(d, r)
			t.Must(err, fmt.Sprintf("Weights(%d, %d)", d, r))
			ref, err := lab.CentralDifference(d, r)
			require.NoError(t, err, "the reference failed")
			var hs, got, want []float64
			for _, h := range []float64{0.4, 0.28, 0.2, 0.14, 0.1} {
				h *= scale
				n := 2*r + 1 + 2*t.Rand().IntN(4)
				g, err := lab.NewGrid1[float64](n, xc-float64(n/2)*h, h)
				require.NoError(t, err, "the reference failed")
				g.Fill(func(k int) float64 { return math.Sin(g.X(k)) })
				out, err := fn.Apply(g.Data, h, d, w)
				t.Must(err, fmt.Sprintf("Apply(sin on %d points, h = %.3g, d = %d, your %d-point weights)", n, h, d, 2*r+1))
				require.Len(t, out, n, "Apply returned %d values for %d points", len(out), n)
				exact, err := lab.NewGrid1[float64](n, g.X0, h)
				require.NoError(t, err, "the reference failed")
				require.NoError(t, lab.Derivative(exact, g, ref), "the reference failed")
				hs = append(hs, h)
				got = append(got, centreError(out, xc, d))
				want = append(want, centreError(exact.Data, xc, d))
			}
			what := fmt.Sprintf("Order of the %d-point stencil for derivative %d on sin at x = %.3f", 2*r+1, d, xc)
			p, err := fn.Order(hs, got)
			t.Must(err, what)
			xs, ys := make([]float64, len(hs)), make([]float64, len(hs))
			for i := range hs {
				xs[i], ys[i] = math.Log(hs[i]), math.Log(want[i])
			}
			_, slope := stat.LinearRegression(xs, ys, nil, false)
			if !grading.Number(t, what, p, slope, grading.Tol{Abs: 0.05}) {
				return
			}
			if !assert.InDelta(t, float64(2*r), p, 0.1, "%s is %.2f; a central difference of radius %d has order %d", what, p, r, 2*r) {
				return
			}
		}
	}
}

func derivBadInput(t *grading.T, fn DerivativeFuncs) {
	for _, c := range []struct {
		d, r int
		why  string
	}{{0, 1, "derivative 0"}, {3, 1, "derivative 3"}, {1, 0, "radius 0"}, {2, 4, "radius 4"}, {1, -1, "a negative radius"}} {
		_, err := fn.Weights(c.d, c.r)
		if !t.WantError(err, fmt.Sprintf("Weights(%d, %d) (%s)", c.d, c.r, c.why)) {
			return
		}
	}
	w := []float64{-0.5, 0, 0.5}
	f := []float64{0, 1, 4, 9, 16}
	for _, c := range []struct {
		f   []float64
		h   float64
		d   int
		w   []float64
		why string
	}{
		{f, 0, 1, w, "h = 0"},
		{f, -0.1, 1, w, "h < 0"},
		{f, math.NaN(), 1, w, "h is NaN"},
		{f, 0.1, 1, []float64{1, -1}, "an even number of weights"},
		{f, 0.1, 1, nil, "no weights"},
		{f[:2], 0.1, 1, w, "2 points for a 3-point stencil"},
		{f, 0.1, 3, w, "derivative 3"},
	} {
		_, err := fn.Apply(c.f, c.h, c.d, c.w)
		if !t.WantError(err, fmt.Sprintf("Apply (%s)", c.why)) {
			return
		}
	}
	for _, c := range []struct {
		h, e []float64
		why  string
	}{
		{[]float64{0.1}, []float64{0.01}, "one point"},
		{[]float64{0.1, 0.05}, []float64{0.01}, "lengths differ"},
		{[]float64{0.1, 0.05}, []float64{0.01, 0}, "an error of 0 has no logarithm"},
		{[]float64{0.1, -0.05}, []float64{0.01, 0.002}, "a negative spacing"},
		{[]float64{0.1, 0.1}, []float64{0.01, 0.002}, "every spacing the same"},
	} {
		_, err := fn.Order(c.h, c.e)
		if !t.WantError(err, fmt.Sprintf("Order (%s)", c.why)) {
			return
		}
	}
}
