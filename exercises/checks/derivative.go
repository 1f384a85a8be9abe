package checks

import (
	"fmt"
	"math"
	"math/big"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"stencillab.dev/exercises/grading"
)

// DerivativeFuncs are the functions of exercises/02_derivative.
type DerivativeFuncs struct {
	// Weights returns the finite-difference weights for the d-th
	// derivative at offset 0 from the samples at offsets lo…hi, w[m−lo],
	// on unit spacing.
	Weights func(d, lo, hi int) ([]float64, error)
	// Apply returns the d-th derivative at every sample of f, from 2r+1
	// samples each: centred where the stencil fits, off-centre inside the
	// grid at the r points at each end.
	Apply func(f []float64, h float64, d, r int) ([]float64, error)
	// Order returns the least-squares slope of log err against log h.
	Order func(h, err []float64) (float64, error)
}

// derivativeDecl declares exercise 2.
var derivativeDecl = declare(&Decl[DerivativeFuncs]{
	ID:    "02_derivative",
	Title: "Finite differences up to the ends of a grid, and their order of convergence (Fig. 8.2)",
	Files: []string{"derivative.go"},
	Allow: []string{matPkg},
	Checks: func(fn DerivativeFuncs) []grading.Check {
		return []grading.Check{
			{ID: "weights-first", Title: "weights of first-derivative stencils on every offset range of 2 to 7 points", Points: 2,
				Run: func(t *grading.T) { derivWeights(t, fn, 1) }},
			{ID: "weights-second", Title: "weights of second-derivative stencils on every offset range of 3 to 7 points", Points: 2,
				Run: func(t *grading.T) { derivWeights(t, fn, 2) }},
			{ID: "apply", Title: "the derivative at every point of random data, ends included, with a random spacing", Points: 2,
				Run: func(t *grading.T) { derivApply(t, fn, 12, 60) }},
			{ID: "order-exact", Title: "the order of errors that follow C·h^p exactly", Points: 1,
				Run: func(t *grading.T) { derivOrderExact(t, fn, 10) }},
			{ID: "order-fit", Title: "the order of noisy errors, by least squares over every point", Points: 1,
				Run: func(t *grading.T) { derivOrderFit(t, fn, 10) }},
			{ID: "convergence", Title: "on sin, the centre converges at order 2r and the first point at 2r+1−d", Points: 2,
				Run: func(t *grading.T) { derivConvergence(t, fn) }},
			{ID: "bad-input", Title: "unsupported derivatives, offsets, radii, spacings and sizes are errors", Points: 1,
				Run: func(t *grading.T) { derivBadInput(t, fn) }},
		}
	},
})

// Derivative returns exercise 2, off-centre finite differences at the ends
// of a grid and their order of convergence, checking fn.
func Derivative(fn DerivativeFuncs) grading.Exercise { return derivativeDecl.Exercise(fn) }

func scaled(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = s * x
	}
	return out
}

// lagrangeWeights returns the weights of the d-th derivative at 0 from the
// offsets lo…hi, in exact arithmetic: w_j is the d-th derivative at 0 of
// the Lagrange basis polynomial L_j of the offsets, d! times its
// coefficient of x^d. This is not the moment system the exercise solves.
func lagrangeWeights(d, lo, hi int) []float64 {
	var out []float64
	for j := lo; j <= hi; j++ {
		// L_j(x) = Π_{i≠j} (x − i)/(j − i), built coefficient by
		// coefficient: poly[p] multiplies x^p.
		poly := []*big.Rat{big.NewRat(1, 1)}
		for i := lo; i <= hi; i++ {
			if i == j {
				continue
			}
			next := make([]*big.Rat, len(poly)+1)
			for p := range next {
				next[p] = new(big.Rat)
			}
			den := big.NewRat(int64(j-i), 1)
			for p, c := range poly {
				term := new(big.Rat).Quo(c, den)
				next[p+1].Add(next[p+1], term)                                        // x·c/(j−i)
				next[p].Sub(next[p], new(big.Rat).Mul(term, big.NewRat(int64(i), 1))) // −i·c/(j−i)
			}
			poly = next
		}
		w := new(big.Rat)
		if d < len(poly) {
			fact := int64(1)
			for f := int64(2); f <= int64(d); f++ {
				fact *= f
			}
			w.Mul(poly[d], big.NewRat(fact, 1))
		}
		v, _ := w.Float64()
		out = append(out, v)
	}
	return out
}

// offsetRanges returns every range lo ≤ 0 ≤ hi of n points.
func offsetRanges(n int) [][2]int {
	var rs [][2]int
	for lo := -(n - 1); lo <= 0; lo++ {
		rs = append(rs, [2]int{lo, lo + n - 1})
	}
	return rs
}

func derivWeights(t *grading.T, fn DerivativeFuncs, d int) {
	// every range of d+1 to 7 points, in a random order of sizes so that
	// a mistake shows on a varied case
	var cases [][2]int
	for n := d + 1; n <= 7; n++ {
		cases = append(cases, offsetRanges(n)...)
	}
	t.Rand().Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
	for _, c := range cases {
		lo, hi := c[0], c[1]
		what := fmt.Sprintf("Weights(%d, %d, %d)", d, lo, hi)
		w, err := fn.Weights(d, lo, hi)
		t.Must(err, what)
		require.Len(t, w, hi-lo+1, "%s: got %d weights, want hi−lo+1 = %d", what, len(w), hi-lo+1)
		want := lagrangeWeights(d, lo, hi)
		variants := []grading.Variant{
			{Hint: "every sign is flipped: weight m multiplies f(x + m·h), and the moment conditions ask Σ w_m·m^d = d!", Values: scaled(want, -1)},
			{Hint: "half the right weights: the moment conditions are Σ w_m·m^p = p!·[p = d], and 2! = 2", Values: scaled(want, 0.5)},
			{Hint: "the weights are listed from hi down to lo; w[0] belongs to offset lo", Values: reversed(want)},
		}
		if (hi-lo)%2 == 0 && lo != -hi {
			r := (hi - lo) / 2
			variants = append(variants, grading.Variant{
				Hint:   fmt.Sprintf("these are the centred weights on −%d…%d; the stencil asked for sits on %d…%d", r, r, lo, hi),
				Values: lagrangeWeights(d, -r, r),
			})
		}
		if !(grading.Diff{What: what, Tol: grading.Tol{Abs: 1e-9, Rel: 1e-9}}.Check(t, w, want, variants...)) {
			return
		}
	}
}

func reversed(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[len(v)-1-i] = x
	}
	return out
}

// applyRef is the derivative at every point of f with 2r+1 points each,
// the window slid inside the grid at the ends; ends decides what the r
// points at each end get: "inside" (the right answer), "zero" or "copy"
// (the nearest centred value).
func applyRef(f []float64, h float64, d, r int, ends string) []float64 {
	n := len(f)
	out := make([]float64, n)
	hd := math.Pow(h, float64(d))
	weights := map[int][]float64{} // by the window's offset lo
	for k := range f {
		first := min(max(k-r, 0), n-(2*r+1)) // the window's first sample
		switch {
		case first == k-r || ends == "inside":
		case ends == "zero":
			continue
		case ends == "copy":
			first = k - r
			if k < r {
				first = 0
			} else {
				first = n - (2*r + 1)
			}
			out[k] = math.NaN() // filled below from the centred value
			continue
		}
		w, ok := weights[first-k]
		if !ok {
			w = lagrangeWeights(d, first-k, first-k+2*r)
			weights[first-k] = w
		}
		var sum float64
		for i, wi := range w {
			sum += wi * f[first+i]
		}
		out[k] = sum / hd
	}
	if ends == "copy" {
		for k := range out {
			if math.IsNaN(out[k]) {
				out[k] = out[min(max(k, r), n-1-r)]
			}
		}
	}
	return out
}

func derivApply(t *grading.T, fn DerivativeFuncs, trials, maxN int) {
	for range trials {
		d := 1 + t.Rand().IntN(2)
		r := 1 + t.Rand().IntN(3)
		n := 2*r + 1 + t.Rand().IntN(maxN)
		h := 0.01 + t.Rand().Float64()
		f := make([]float64, n)
		for i := range f {
			f[i] = 2*t.Rand().Float64() - 1
		}
		orig := append([]float64(nil), f...)
		want := applyRef(f, h, d, r, "inside")

		what := fmt.Sprintf("Apply(f of %d random values, h = %.4g, d = %d, r = %d)", n, h, d, r)
		got, err := fn.Apply(f, h, d, r)
		t.Must(err, what)
		assert.Equal(t, orig, f, "%s changed its input f", what)
		hd := math.Pow(h, float64(d))
		variants := []grading.Variant{
			{Hint: "the result is not divided by h^d", Values: scaled(want, hd)},
			{Hint: "the result is divided by h, not by h² (the second derivative divides by h^d with d = 2)", Values: scaled(want, h)},
			{Hint: "the r points at each end are left 0: give them the off-centre stencil of 2r+1 points that fits inside the grid", Values: applyRef(f, h, d, r, "zero")},
			{Hint: "the r points at each end copy the nearest centred value: give each its own off-centre stencil", Values: applyRef(f, h, d, r, "copy")},
		}
		if !(grading.Diff{What: what, Tol: grading.Tol{Abs: 1e-8, Rel: 1e-8}}.Check(t, got, want, variants...)) {
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

// sinDerivative returns the d-th derivative of sin at x.
func sinDerivative(x float64, d int) float64 {
	if d == 1 {
		return math.Cos(x)
	}
	return -math.Sin(x)
}

func derivConvergence(t *grading.T, fn DerivativeFuncs) {
	// The error is measured at one point xc, where every derivative of
	// sin is far from 0 (sin and cos are both above 0.56): at the centre
	// of a grid centred there, with spacings from 0.4 down to 0.1, and at
	// the first point of a grid starting there, whose larger error
	// constants need spacings from 0.1 down to 0.025: small enough for
	// the leading term of the error to dominate, large enough for
	// rounding not to. Over these ranges the fitted slopes stay within
	// 0.1 of the order at the centre and 0.4 at the end.
	xc := 0.6 + 0.4*t.Rand().Float64()
	scale := 0.9 + 0.2*t.Rand().Float64()
	for d := 1; d <= 2; d++ {
		for r := 1; r <= 3; r++ {
			for _, atEnd := range []bool{false, true} {
				var hs, got, want []float64
				spacings, tol := []float64{0.4, 0.28, 0.2, 0.14, 0.1}, 0.1
				if atEnd {
					spacings, tol = []float64{0.1, 0.07, 0.05, 0.035, 0.025}, 0.4
				}
				for _, h := range spacings {
					h *= scale
					n := 2*r + 1 + 2*t.Rand().IntN(4)
					k := n / 2
					if atEnd {
						k = 0
					}
					f := make([]float64, n)
					for i := range f {
						f[i] = math.Sin(xc + float64(i-k)*h)
					}
					what := fmt.Sprintf("Apply(sin on %d points, h = %.3g, d = %d, r = %d)", n, h, d, r)
					out, err := fn.Apply(f, h, d, r)
					t.Must(err, what)
					require.Len(t, out, n, "%s returned %d values for %d points", what, len(out), n)
					// The order is judged only on outputs compared here
					// with the reference, as the check "apply" does.
					ref := applyRef(f, h, d, r, "inside")
					if !(grading.Diff{What: what, Tol: grading.Tol{Abs: 1e-8, Rel: 1e-8}}.Check(t, out, ref)) {
						return
					}
					exact := sinDerivative(xc, d)
					hs = append(hs, h)
					got = append(got, math.Abs(out[k]-exact))
					want = append(want, math.Abs(ref[k]-exact))
				}
				where, order := "the centre", 2*r
				if atEnd {
					where, order = "the first point", 2*r+1-d
				}
				what := fmt.Sprintf("Order of the %d-point stencil for derivative %d at %s, on sin at x = %.3f", 2*r+1, d, where, xc)
				for i, e := range got {
					if !(e > 0) {
						assert.Fail(t, "no error", fmt.Sprintf("%s: the error at h = %.3g is %g; a finite difference of sin is never exact", what, hs[i], e))
						return
					}
				}
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
				if !assert.InDelta(t, float64(order), p, tol, "%s is %.2f; want %d", what, p, order) {
					return
				}
			}
		}
	}
}

func derivBadInput(t *grading.T, fn DerivativeFuncs) {
	for _, c := range []struct {
		d, lo, hi int
		why       string
	}{
		{0, -1, 1, "derivative 0"}, {3, -2, 2, "derivative 3"}, {1, 1, 3, "offsets 1…3 leave out the point itself"},
		{1, -3, -1, "offsets −3…−1 leave out the point itself"}, {2, 0, 1, "2 points for a second derivative"},
		{1, 0, 0, "1 point"}, {1, -4, 3, "8 points"}, {2, 3, -3, "lo > hi"},
	} {
		_, err := fn.Weights(c.d, c.lo, c.hi)
		if !t.WantError(err, fmt.Sprintf("Weights(%d, %d, %d) (%s)", c.d, c.lo, c.hi, c.why)) {
			return
		}
	}
	f := []float64{0, 1, 4, 9, 16}
	for _, c := range []struct {
		f    []float64
		h    float64
		d, r int
		why  string
	}{
		{f, 0, 1, 1, "h = 0"},
		{f, -0.1, 1, 1, "h < 0"},
		{f, math.NaN(), 1, 1, "h is NaN"},
		{f, math.Inf(1), 1, 1, "h is infinite"},
		{f, 0.1, 1, 0, "radius 0"},
		{f, 0.1, 1, 4, "radius 4"},
		{f[:2], 0.1, 1, 1, "2 samples for a 3-point stencil"},
		{nil, 0.1, 2, 1, "no samples"},
		{f, 0.1, 3, 1, "derivative 3"},
		{f, 0.1, 0, 1, "derivative 0"},
	} {
		_, err := fn.Apply(c.f, c.h, c.d, c.r)
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
