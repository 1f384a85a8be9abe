package lab

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiscretizeSine(t *testing.T) {
	g, err := Discretize(math.Sin, 0, math.Pi, 7)
	require.NoError(t, err)
	assert.InDelta(t, math.Pi/6, g.H, 1e-15)
	// Fig. 8.1 (C), to two decimals.
	want := []string{"0.00", "0.50", "0.87", "1.00", "0.87", "0.50", "0.00"}
	for k, w := range want {
		assert.Equal(t, w, fmt.Sprintf("%.2f", math.Abs(g.Data[k])), "point %d", k)
		assert.InDelta(t, math.Sin(float64(k)*math.Pi/6), g.Data[k], 1e-15)
	}
	_, err = Discretize(math.Sin, 0, 1, 1)
	assert.ErrorIs(t, err, ErrSize)
	_, err = Discretize(math.Sin, 1, 0, 5)
	assert.ErrorIs(t, err, ErrSize)
}

// Closed forms of the central-difference weights, independent of the solve:
// first derivative w_m = (−1)^(m+1)·(r!)² / (m·(r−m)!·(r+m)!), second
// derivative w_m = 2·(−1)^(m+1)·(r!)² / (m²·(r−m)!·(r+m)!) with the centre
// making the weights sum to zero.
func closedFormWeight(derivative, r, m int) float64 {
	if m == 0 {
		if derivative == 1 {
			return 0
		}
		s := 0.0
		for q := 1; q <= r; q++ {
			s -= 2 * closedFormWeight(2, r, q)
		}
		return s
	}
	sign := -1.0
	if m%2 != 0 {
		sign = 1
	}
	am := m
	if am < 0 {
		am = -am
	}
	w := sign * factorial(r) * factorial(r) / (factorial(r-am) * factorial(r+am))
	if derivative == 1 {
		return w / float64(m)
	}
	return 2 * w / float64(m*m)
}

func TestCentralDifferenceWeights(t *testing.T) {
	for _, d := range []int{1, 2} {
		for r := 1; r <= 3; r++ {
			s, err := CentralDifference(d, r)
			require.NoError(t, err)
			assert.Equal(t, 2*r+1, s.Points())
			assert.Equal(t, 2*r, s.Order())
			for i, m := range s.Offsets {
				assert.InDelta(t, closedFormWeight(d, r, m), s.Coeffs[i], 1e-12, "d=%d r=%d m=%d", d, r, m)
			}
		}
	}
	// The three-point first derivative of the study notes: −1/2, 0, 1/2.
	s, _ := CentralDifference(1, 1)
	assert.InDeltaSlice(t, []float64{-0.5, 0, 0.5}, s.Coeffs, 1e-15)
	_, err := CentralDifference(3, 1)
	assert.Error(t, err)
	_, err = CentralDifference(1, 0)
	assert.Error(t, err)
}

// maxDerivativeError applies the stencil to f on n points of [0, 2] and
// returns the largest error against the exact derivative over the points in
// [0.5, 1.5], a window that every grid of the test samples at the same x.
func maxDerivativeError(t *testing.T, s Stencil1, n int, f, df func(float64) float64) (h, e float64) {
	src, err := Discretize(f, 0, 2, n)
	require.NoError(t, err)
	dst, err := NewGrid1[float64](n, src.X0, src.H)
	require.NoError(t, err)
	require.NoError(t, Derivative(dst, src, s))
	for k := s.Radius; k < n-s.Radius; k++ {
		if x := src.X(k); x >= 0.5-1e-9 && x <= 1.5+1e-9 {
			e = max(e, math.Abs(dst.Data[k]-df(x)))
		}
	}
	return src.H, e
}

func TestDerivativeConvergenceOrders(t *testing.T) {
	f := func(x float64) float64 { return math.Exp(x) * math.Sin(3*x) }
	df := func(x float64) float64 { return math.Exp(x) * (math.Sin(3*x) + 3*math.Cos(3*x)) }
	d2f := func(x float64) float64 { return math.Exp(x) * (6*math.Cos(3*x) - 8*math.Sin(3*x)) }
	for _, tc := range []struct {
		deriv int
		exact func(float64) float64
	}{{1, df}, {2, d2f}} {
		for r := 1; r <= 3; r++ {
			s, err := CentralDifference(tc.deriv, r)
			require.NoError(t, err)
			// Halve h: n−1 intervals doubling. Coarse enough that the
			// rounding error stays far below the truncation error.
			h1, e1 := maxDerivativeError(t, s, 41, f, tc.exact)
			h2, e2 := maxDerivativeError(t, s, 81, f, tc.exact)
			order := math.Log(e1/e2) / math.Log(h1/h2)
			t.Logf("derivative %d, radius %d: observed order %.3f", tc.deriv, r, order)
			assert.InDelta(t, float64(2*r), order, 0.2, "derivative %d, radius %d: observed order %.3f", tc.deriv, r, order)
		}
	}
}

func TestDerivativeLeavesEndsAndChecksSizes(t *testing.T) {
	s, _ := CentralDifference(1, 3)
	src, _ := Discretize(math.Cos, 0, 1, 10)
	dst, _ := NewGrid1[float64](10, 0, src.H)
	dst.Poison()
	require.NoError(t, Derivative(dst, src, s))
	for k := 0; k < 10; k++ {
		assert.Equal(t, k < 3 || k >= 7, math.IsNaN(dst.Data[k]), "point %d", k)
	}
	short, _ := NewGrid1[float64](6, 0, 0.1)
	shortOut, _ := NewGrid1[float64](6, 0, 0.1)
	assert.ErrorIs(t, Derivative(shortOut, short, s), ErrSize)
	other, _ := NewGrid1[float64](11, 0, 0.1)
	assert.ErrorIs(t, Derivative(other, src, s), ErrMismatch)
}

func TestDerivativeRefusesBadStencilsInsteadOfPanicking(t *testing.T) {
	src, _ := Discretize(math.Sin, 0, 1, 12)
	dst, _ := NewGrid1[float64](12, 0, src.H)
	// An offset beyond the declared radius would read past the grid's end.
	wide := Stencil1{Name: "wide", Derivative: 1, Radius: 1, Offsets: []int{-1, 0, 5}, Coeffs: []float64{-0.5, 0, 0.5}}
	assert.NotPanics(t, func() {
		err := Derivative(dst, src, wide)
		assert.ErrorContains(t, err, "offset 5 beyond its radius 1")
	})
	uneven := Stencil1{Radius: 1, Offsets: []int{-1, 1}, Coeffs: []float64{1}}
	assert.ErrorContains(t, Derivative(dst, src, uneven), "2 offsets and 1 coefficients")
	s, _ := CentralDifference(1, 1)
	assert.NoError(t, s.Validate())
	assert.ErrorIs(t, Derivative(src, src, s), ErrMismatch, "dst and src are one grid")
}
