package checks

import (
	"fmt"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// FivePointFuncs are the functions of exercises/03_five_point.
type FivePointFuncs struct {
	// Sweep writes one sweep of the five-point stencil over the interior
	// of src into dst, leaving dst's boundary as it is.
	Sweep func(dst, src *lab.Grid2[float64], c [5]float64) error
	// Iterate applies steps sweeps to g, boundary fixed, and returns the
	// result.
	Iterate func(g *lab.Grid2[float64], c [5]float64, steps int) (*lab.Grid2[float64], error)
}

// hiddenFivePoint adds the instructor-only checks of exercise 3.
var hiddenFivePoint func(FivePointFuncs) []grading.Check

// FivePoint returns exercise 3, the 2D five-point sweep with fixed
// boundaries, checking fn.
func FivePoint(fn FivePointFuncs) grading.Exercise {
	e := grading.Exercise{
		ID:    "03_five_point",
		Title: "2D five-point sweep with fixed boundaries (Figs. 8.3A, 8.4, 8.5)",
		Files: []string{"fivepoint.go"},
		Checks: []grading.Check{
			{ID: "interior", Title: "interior points on random grids of random sizes, five distinct coefficients", Points: 3,
				Run: func(t *grading.T) { fiveInterior(t, fn, 10, 40) }},
			{ID: "boundary", Title: "the boundary cells of dst keep their boundary conditions", Points: 2,
				Run: func(t *grading.T) { fiveBoundary(t, fn, 10, 40) }},
			{ID: "iterate", Title: "several sweeps with the boundary held fixed", Points: 3,
				Run: func(t *grading.T) { fiveIterate(t, fn, 8, 30) }},
			{ID: "bad-input", Title: "grids of different shapes, without interior, or nil, are errors", Points: 1,
				Run: func(t *grading.T) { fiveBadInput(t, fn) }},
		},
	}
	if hiddenFivePoint != nil {
		e.Checks = append(e.Checks, hiddenFivePoint(fn)...)
	}
	e.Serve = serveFivePoint(fn)
	return withPolicy(e)
}

func coeffs5(t *grading.T) [5]float64 {
	var c [5]float64
	copy(c[:], distinct(t, 5))
	return c
}

// randomGrid2 returns a ny×nx grid of random values.
func randomGrid2(t *grading.T, ny, nx int) *lab.Grid2[float64] {
	g, err := lab.NewGrid2[float64](ny, nx)
	require.NoError(t, err, "the reference failed")
	g.FillRandom(t.Rand().Uint64())
	return g
}

// sweep2 returns the reference sweep of src into a copy of dst.
func sweep2(t *grading.T, dst, src *lab.Grid2[float64], c [5]float64) *lab.Grid2[float64] {
	want := dst.Clone()
	require.NoError(t, lab.Sweep2(want, src, lab.FivePoint(c)), "the reference failed")
	return want
}

// fiveVariants are the usual wrong sweeps: coefficient pairs swapped, and
// an update in place that reads points it has already written.
func fiveVariants(t *grading.T, dst, src *lab.Grid2[float64], c [5]float64) []grading.Variant {
	inPlace := dst.Clone()
	copy(inPlace.Data, src.Data)
	for j := 1; j < src.NY-1; j++ {
		for k := 1; k < src.NX-1; k++ {
			v := c[0]*inPlace.At(j, k) + c[1]*inPlace.At(j, k-1) + c[2]*inPlace.At(j, k+1) +
				c[3]*inPlace.At(j-1, k) + c[4]*inPlace.At(j+1, k)
			inPlace.Set(j, k, v)
		}
	}
	// the in-place sweep's boundary is src's; give it dst's, as the others
	onEdge := isBoundary2(src)
	for idx := range inPlace.Data {
		if onEdge(idx) {
			inPlace.Data[idx] = dst.Data[idx]
		}
	}
	return []grading.Variant{
		{Hint: "x and y are swapped: c1/c2 go with k−1/k+1 (x) and c3/c4 with j−1/j+1 (y)", Values: sweep2(t, dst, src, swapped(c, 1, 3, 2, 4)).Data},
		{Hint: "are c1 and c2 swapped? c1 multiplies (j, k−1), c2 (j, k+1)", Values: sweep2(t, dst, src, swapped(c, 1, 2)).Data},
		{Hint: "are c3 and c4 swapped? c3 multiplies (j−1, k), c4 (j+1, k)", Values: sweep2(t, dst, src, swapped(c, 3, 4)).Data},
		{Hint: "the sweep reads points it has already updated: read every input from src, write only dst", Values: inPlace.Data},
	}
}

func isBoundary2(g *lab.Grid2[float64]) func(int) bool {
	return func(idx int) bool {
		j, k := idx/g.NX, idx%g.NX
		return j == 0 || k == 0 || j == g.NY-1 || k == g.NX-1
	}
}

func fiveInterior(t *grading.T, fn FivePointFuncs, trials, maxSide int) {
	for range trials {
		ny, nx := 3+t.Rand().IntN(maxSide), 3+t.Rand().IntN(maxSide)
		src := randomGrid2(t, ny, nx)
		dst := randomGrid2(t, ny, nx)
		c := coeffs5(t)
		want := sweep2(t, dst, src, c)
		orig := src.Clone()
		got := dst.Clone()
		what := fmt.Sprintf("Sweep on a %d×%d grid with c = %.3f", ny, nx, c)
		t.Must(fn.Sweep(got, src, c), what)
		require.Equal(t, orig.Data, src.Data, "%s changed src; a sweep only writes dst", what)
		onEdge := isBoundary2(got)
		if !(grading.Diff{What: what, Label: grading.Label2(nx), Only: func(i int) bool { return !onEdge(i) }}.Check(
			t, got.Data, want.Data, fiveVariants(t, dst, src, c)...)) {
			return
		}
	}
}

func fiveBoundary(t *grading.T, fn FivePointFuncs, trials, maxSide int) {
	for range trials {
		ny, nx := 3+t.Rand().IntN(maxSide), 3+t.Rand().IntN(maxSide)
		src := randomGrid2(t, ny, nx)
		dst := randomGrid2(t, ny, nx)
		c := coeffs5(t)
		got := dst.Clone()
		what := fmt.Sprintf("Sweep on a %d×%d grid", ny, nx)
		t.Must(fn.Sweep(got, src, c), what)
		onEdge := isBoundary2(got)
		for idx := range got.Data {
			if onEdge(idx) && got.Data[idx] != dst.Data[idx] {
				hint := "boundary cells hold boundary conditions and are never updated (Fig. 8.5): write only 1 ≤ j < NY−1, 1 ≤ k < NX−1"
				if got.Data[idx] == src.Data[idx] {
					hint = "it copied src's boundary into dst; leave dst's boundary as it is (Fig. 8.5)"
				}
				assert.Fail(t, "boundary changed", fmt.Sprintf("%s: boundary cell %s changed from %.6g to %.6g — %s",
					what, grading.Label2(nx)(idx), dst.Data[idx], got.Data[idx], hint))
				return
			}
		}
	}
}

// iterate2 is the reference: steps sweeps between two grids that both
// start as copies of g, so that both carry its boundary.
func iterate2(t *grading.T, g *lab.Grid2[float64], c [5]float64, steps int, copyBoundary bool) *lab.Grid2[float64] {
	a := g.Clone()
	b := g.Clone()
	if !copyBoundary {
		for i := range b.Data {
			b.Data[i] = 0
		}
	}
	for range steps {
		require.NoError(t, lab.Sweep2(b, a, lab.FivePoint(c)), "the reference failed")
		a, b = b, a
	}
	return a
}

func fiveIterate(t *grading.T, fn FivePointFuncs, trials, maxSide int) {
	for trial := range trials {
		ny, nx := 3+t.Rand().IntN(maxSide), 3+t.Rand().IntN(maxSide)
		g := randomGrid2(t, ny, nx)
		c := coeffs5(t)
		steps := trial % 6
		if trial >= 6 {
			steps = 2 + t.Rand().IntN(8)
		}
		orig := g.Clone()
		what := fmt.Sprintf("Iterate(a %d×%d grid, c, %d)", ny, nx, steps)
		got, err := fn.Iterate(g, c, steps)
		t.Must(err, what)
		require.NotNil(t, got, "%s returned a nil grid", what)
		require.Equal(t, orig.Data, g.Data, "%s changed its input g; work on copies", what)
		require.True(t, got.NY == ny && got.NX == nx && len(got.Data) == ny*nx,
			"%s returned a %d×%d grid, want %d×%d", what, got.NY, got.NX, ny, nx)
		want := iterate2(t, g, c, steps, true)
		variants := []grading.Variant{
			{Hint: "the second grid's boundary was never set: start both grids as copies of g", Values: iterate2(t, g, c, steps, false).Data},
		}
		if steps > 0 {
			variants = append(variants,
				grading.Variant{Hint: "one sweep too few: return the grid written last", Values: iterate2(t, g, c, steps-1, true).Data},
				grading.Variant{Hint: "one sweep too many", Values: iterate2(t, g, c, steps+1, true).Data})
		}
		if !(grading.Diff{What: what, Label: grading.Label2(nx), Tol: grading.Tol{Abs: 1e-10, Rel: 1e-9}}.Check(t, got.Data, want.Data, variants...)) {
			return
		}
	}
}

func fiveBadInput(t *grading.T, fn FivePointFuncs) {
	c := [5]float64{0.5, 0.1, 0.2, 0.3, 0.4}
	g := func(ny, nx int) *lab.Grid2[float64] {
		out, err := lab.NewGrid2[float64](ny, nx)
		require.NoError(t, err, "the reference failed")
		return out
	}
	for _, tc := range []struct {
		dst, src *lab.Grid2[float64]
		why      string
	}{
		{g(5, 6), g(6, 5), "dst 5×6, src 6×5"},
		{g(2, 7), g(2, 7), "a 2×7 grid has no interior"},
		{g(7, 1), g(7, 1), "a 7×1 grid has no interior"},
		{nil, g(4, 4), "dst is nil"},
		{g(4, 4), nil, "src is nil"},
	} {
		if !t.WantError(fn.Sweep(tc.dst, tc.src, c), "Sweep ("+tc.why+")") {
			return
		}
	}
	_, err := fn.Iterate(g(5, 5), c, -1)
	if !t.WantError(err, "Iterate with -1 steps") {
		return
	}
	_, err = fn.Iterate(nil, c, 2)
	t.WantError(err, "Iterate(nil, c, 2)")
}
