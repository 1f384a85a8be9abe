package lab

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Discretize samples f at n ≥ 2 points of constant spacing on [a, b], both
// ends included (Fig. 8.1). Sine on [0, π] with n = 7 has spacing π/6 and
// the values 0, 0.5, 0.87, 1, 0.87, 0.5, 0.
func Discretize(f func(float64) float64, a, b float64, n int) (*Grid1[float64], error) {
	if f == nil {
		return nil, fmt.Errorf("lab: discretize a nil function: %w", ErrSize)
	}
	if n < 2 {
		return nil, fmt.Errorf("lab: discretize with n = %d points: need at least 2 to span [a, b]: %w", n, ErrSize)
	}
	if !(b > a) {
		return nil, fmt.Errorf("lab: discretize on [%g, %g]: b must be greater than a: %w", a, b, ErrSize)
	}
	g, err := NewGrid1[float64](n, a, (b-a)/float64(n-1))
	if err != nil {
		return nil, fmt.Errorf("lab: discretize: %w", err)
	}
	if err := g.Fill(func(k int) float64 { return f(g.X(k)) }); err != nil {
		return nil, fmt.Errorf("lab: discretize: %w", err)
	}
	return g, nil
}

// Stencil1 is a 1D stencil for the d-th derivative on a grid of unit
// spacing: the derivative at point k is Σ Coeffs[m]·f(k+Offsets[m]) / h^d.
type Stencil1 struct {
	Name       string
	Derivative int // which derivative it approximates: 1 or 2
	Radius     int // points on each side
	Offsets    []int
	Coeffs     []float64
}

// Points returns the number of points of the stencil, 2·Radius+1.
func (s Stencil1) Points() int { return len(s.Offsets) }

// Order returns the formal order of accuracy of a central difference of
// this radius: 2·Radius (2, 4, 6 for the three-, five- and seven-point
// stencils).
func (s Stencil1) Order() int { return 2 * s.Radius }

// CentralDifference derives the central-difference stencil of the given
// radius (1, 2 or 3: the chapter's three-, five- and seven-point stencils)
// for the first or second derivative. The weights w_m, m = −r…r, solve the
// moment conditions Σ w_m·m^p = p!·[p = d] for p = 0…2r, so that the
// stencil is exact for every polynomial of degree 2r.
func CentralDifference(derivative, radius int) (Stencil1, error) {
	if derivative < 1 || derivative > 2 {
		return Stencil1{}, fmt.Errorf("lab: central difference for derivative %d: only the first and second are supported", derivative)
	}
	if radius < 1 || radius > 4 {
		return Stencil1{}, fmt.Errorf("lab: central difference of radius %d: radius must be 1 to 4", radius)
	}
	n := 2*radius + 1
	v := mat.NewDense(n, n, nil)
	rhs := mat.NewVecDense(n, nil)
	for p := 0; p < n; p++ {
		for m := -radius; m <= radius; m++ {
			v.Set(p, m+radius, math.Pow(float64(m), float64(p)))
		}
	}
	rhs.SetVec(derivative, factorial(derivative))
	var w mat.VecDense
	if err := w.SolveVec(v, rhs); err != nil {
		return Stencil1{}, fmt.Errorf("lab: central difference: solving the moment conditions: %w", err)
	}
	s := Stencil1{
		Name:       fmt.Sprintf("%d-point, derivative %d", n, derivative),
		Derivative: derivative,
		Radius:     radius,
	}
	for m := -radius; m <= radius; m++ {
		c := w.AtVec(m + radius)
		if math.Abs(c) < 1e-12 {
			c = 0 // the centre of an odd derivative is exactly zero
		}
		s.Offsets = append(s.Offsets, m)
		s.Coeffs = append(s.Coeffs, c)
	}
	return s, nil
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// Validate checks that s can be applied: one coefficient per offset, a
// non-negative radius and derivative, and no offset beyond Radius, so that
// Derivative never reads outside the grid.
func (s Stencil1) Validate() error {
	if err := checkStencil(len(s.Offsets), len(s.Coeffs)); err != nil {
		return err
	}
	if s.Radius < 0 || s.Derivative < 0 {
		return fmt.Errorf("lab: stencil %q has radius %d and derivative %d; neither may be negative", s.Name, s.Radius, s.Derivative)
	}
	for _, off := range s.Offsets {
		if off < -s.Radius || off > s.Radius {
			return fmt.Errorf("lab: stencil %q has offset %d beyond its radius %d", s.Name, off, s.Radius)
		}
	}
	return nil
}

// Derivative applies s to src and writes the points that have a full
// neighbourhood, Radius ≤ k < N−Radius, into dst; the Radius points at each
// end of dst are not touched. It divides by src.H^Derivative.
func Derivative[T Float](dst, src *Grid1[T], s Stencil1) error {
	if dst == nil || src == nil {
		return fmt.Errorf("lab: derivative: nil grid: %w", ErrMismatch)
	}
	if dst.N != src.N || len(dst.Data) != len(src.Data) {
		return fmt.Errorf("lab: derivative: grid of %d points does not match grid of %d: %w", dst.N, src.N, ErrMismatch)
	}
	if err := src.Validate(); err != nil {
		return fmt.Errorf("lab: derivative of src: %w", err)
	}
	if err := dst.validateLen(); err != nil {
		return fmt.Errorf("lab: derivative into dst: %w", err)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("lab: derivative: %w", err)
	}
	if aliased(dst.Data, src.Data) {
		return fmt.Errorf("lab: derivative: %s; it needs two separate grids: %w", OverlapError(dst.Data, src.Data), ErrMismatch)
	}
	if src.N < 2*s.Radius+1 {
		return fmt.Errorf("lab: derivative: %d points is fewer than the %d the stencil spans: %w", src.N, 2*s.Radius+1, ErrSize)
	}
	scale := 1 / math.Pow(src.H, float64(s.Derivative))
	for k := s.Radius; k < src.N-s.Radius; k++ {
		var sum float64
		for m, off := range s.Offsets {
			sum += s.Coeffs[m] * float64(src.Data[k+off])
		}
		dst.Data[k] = T(sum * scale)
	}
	return nil
}
