package checks

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// FivePointFuncs are the functions of exercises/03_five_point: the
// nine-point star of radius 2 on a periodic grid.
type FivePointFuncs struct {
	// Sweep writes one periodic sweep of the nine-point star over every
	// point of src into dst.
	Sweep func(dst, src *lab.Grid2[float64], c [9]float64) error
	// Iterate applies steps periodic sweeps to g and returns the result.
	Iterate func(g *lab.Grid2[float64], c [9]float64, steps int) (*lab.Grid2[float64], error)
}

// FivePoint returns exercise 3, the nine-point star of radius 2 on a
// periodic grid, checking fn.
func FivePoint(fn FivePointFuncs) grading.Exercise { return fivePointDecl.Exercise(fn) }

// fivePointDecl declares exercise 3. Sweep writes its grid in place and
// may be handed one grid twice, which a check refuses to see accepted:
// the binding (grading.ServeFuncs) sends the grids, whether they are one,
// and copies back what the child wrote.
var fivePointDecl = declare(&Decl[FivePointFuncs]{
	ID:    "03_five_point",
	Title: "2D nine-point star of radius 2 with periodic boundaries (Fig. 8.3B)",
	Files: []string{"fivepoint.go"},
	Allow: sym(labPkg, "Grid2", "NewGrid2", "Grid2.NY", "Grid2.NX", "Grid2.Data", "Grid2.At", "Grid2.Set", "Grid2.Index", "Grid2.Clone"),
	Checks: func(fn FivePointFuncs) []grading.Check {
		return []grading.Check{
			{ID: "interior", Title: "points at least 2 from every edge, on random grids with nine distinct coefficients", Points: 2,
				Run: func(t *grading.T) { fiveInterior(t, fn, 10, 40) }},
			{ID: "periodic", Title: "the points near the edges wrap around, in x and in y", Points: 2,
				Run: func(t *grading.T) { fivePeriodic(t, fn, 10, 40) }},
			{ID: "plane-wave", Title: "a periodic plane wave comes back scaled and shifted by the stencil's symbol", Points: 1,
				Run: func(t *grading.T) { fivePlaneWave(t, fn, 6, 30) }},
			{ID: "iterate", Title: "several sweeps, and the sum of the grid kept when the coefficients add up to 1", Points: 3,
				Run: func(t *grading.T) { fiveIterate(t, fn, 8, 30) }},
			{ID: "bad-input", Title: "nil, malformed, mismatched, shared or too small grids and negative steps are errors", Points: 1,
				Run: func(t *grading.T) { fiveBadInput(t, fn) }},
		}
	},
})

// starOffsets are the nine (dy, dx) of the star in the order of its
// coefficients, lab.NinePoint's: centre, x−1, x+1, y−1, y+1, x−2, x+2,
// y−2, y+2.
var starOffsets = lab.NinePoint([9]float64{}).Offsets

func coeffs9(t *grading.T) [9]float64 {
	var c [9]float64
	copy(c[:], distinct(t, 9))
	return c
}

// randomGrid2 returns a ny×nx grid of random values.
func randomGrid2(t *grading.T, ny, nx int) *lab.Grid2[float64] {
	g, err := lab.NewGrid2[float64](ny, nx)
	require.NoError(t, err, "the reference failed")
	for i := range g.Data {
		g.Data[i] = 2*t.Rand().Float64() - 1
	}
	return g
}

// randomSides returns grid sides from 5 to 4+maxSide, rarely equal.
func randomSides(t *grading.T, maxSide int) (ny, nx int) {
	return 5 + t.Rand().IntN(maxSide), 5 + t.Rand().IntN(maxSide)
}

// edgeMode says how the reference sweep treats points near an edge:
// wrapped in both axes (the right answer), or one of the usual mistakes.
type edgeMode int

const (
	wrapBoth  edgeMode = iota
	wrapNone           // fixed: points within 2 of an edge keep dst's value
	wrapXOnly          // rows wrap, columns are fixed
	wrapYOnly          // columns wrap, rows are fixed
	clamped            // an index past an edge reads the edge point
)

// sweepStar is the reference sweep: a loop over every point and every
// coefficient, the wrapped index found by stepping, not by %.
func sweepStar(dst, src *lab.Grid2[float64], c [9]float64, mode edgeMode) *lab.Grid2[float64] {
	out := dst.Clone()
	ny, nx := src.NY, src.NX
	step := func(i, d, n int) (int, bool) {
		i += d
		for i < 0 {
			i += n
		}
		for i >= n {
			i -= n
		}
		return i, true
	}
	clamp := func(i, d, n int) (int, bool) { return min(max(i+d, 0), n-1), true }
	fixed := func(i, d, n int) (int, bool) { return i + d, i+d >= 0 && i+d < n }
	ys, xs := step, step
	switch mode {
	case wrapNone:
		ys, xs = fixed, fixed
	case wrapXOnly:
		ys = fixed
	case wrapYOnly:
		xs = fixed
	case clamped:
		ys, xs = clamp, clamp
	}
	for j := range ny {
		for k := range nx {
			var sum float64
			inside := true
			for m, o := range starOffsets {
				jj, okY := ys(j, o[0], ny)
				kk, okX := xs(k, o[1], nx)
				if !okY || !okX {
					inside = false
					break
				}
				sum += c[m] * src.Data[jj*nx+kk]
			}
			if inside {
				out.Data[j*nx+k] = sum
			}
		}
	}
	return out
}

// starVariants are the usual wrong sweeps: coefficients paired with the
// wrong neighbours, edges that do not wrap or wrap one way only, and an
// update in place.
func starVariants(dst, src *lab.Grid2[float64], c [9]float64) []grading.Variant {
	inPlace := src.Clone()
	for j := range src.NY {
		for k := range src.NX {
			var sum float64
			for m, o := range starOffsets {
				jj, kk := (j+o[0]+2*src.NY)%src.NY, (k+o[1]+2*src.NX)%src.NX
				sum += c[m] * inPlace.Data[jj*src.NX+kk]
			}
			inPlace.Data[j*src.NX+k] = sum
		}
	}
	return []grading.Variant{
		{Hint: "the edges do not wrap: in a periodic grid every point is updated, and a neighbour past an edge is the point at the other end", Values: sweepStar(dst, src, c, wrapNone).Data},
		{Hint: "the rows wrap but the columns do not: index j±1 and j±2 modulo NY too", Values: sweepStar(dst, src, c, wrapXOnly).Data},
		{Hint: "the columns wrap but the rows do not: index k±1 and k±2 modulo NX too", Values: sweepStar(dst, src, c, wrapYOnly).Data},
		{Hint: "a neighbour past an edge reads the edge point; periodic means it reads the point at the other end", Values: sweepStar(dst, src, c, clamped).Data},
		{Hint: "x and y are swapped: c1, c2, c5, c6 go with k (x), c3, c4, c7, c8 with j (y)", Values: sweepStar(dst, src, swapped(c, 1, 3, 2, 4, 5, 7, 6, 8), wrapBoth).Data},
		{Hint: "the radius-1 and radius-2 coefficients are swapped: c1…c4 go with the neighbours at distance 1, c5…c8 with those at 2", Values: sweepStar(dst, src, swapped(c, 1, 5, 2, 6, 3, 7, 4, 8), wrapBoth).Data},
		{Hint: "are c1 and c2 swapped? c1 multiplies (j, k−1), c2 (j, k+1)", Values: sweepStar(dst, src, swapped(c, 1, 2), wrapBoth).Data},
		{Hint: "are c3 and c4 swapped? c3 multiplies (j−1, k), c4 (j+1, k)", Values: sweepStar(dst, src, swapped(c, 3, 4), wrapBoth).Data},
		{Hint: "are c5/c6 or c7/c8 swapped? c5 multiplies (j, k−2), c6 (j, k+2), c7 (j−2, k), c8 (j+2, k)", Values: sweepStar(dst, src, swapped(c, 5, 6, 7, 8), wrapBoth).Data},
		{Hint: "the sweep reads points it has already updated: read every input from src, write only dst", Values: inPlace.Data},
	}
}

// nearEdge returns whether a point of a ny×nx grid, by flat index, is
// within 2 of an edge.
func nearEdge(ny, nx int) func(int) bool {
	return func(idx int) bool {
		j, k := idx/nx, idx%nx
		return j < 2 || k < 2 || j >= ny-2 || k >= nx-2
	}
}

// sweepCase runs the student's Sweep on fresh random grids and returns
// what it wrote, with the inputs; a failure stops the check.
func sweepCase(t *grading.T, fn FivePointFuncs, ny, nx int) (what string, dst, src, got *lab.Grid2[float64], c [9]float64) {
	src = randomGrid2(t, ny, nx)
	dst = randomGrid2(t, ny, nx)
	c = coeffs9(t)
	orig := src.Clone()
	got = dst.Clone()
	what = fmt.Sprintf("Sweep on a %d×%d grid with c = %.3f", ny, nx, c)
	t.Must(fn.Sweep(got, src, c), what)
	require.Equal(t, orig.Data, src.Data, "%s changed src; a sweep only writes dst", what)
	require.Len(t, got.Data, ny*nx, "%s changed the length of dst.Data", what)
	return what, dst, src, got, c
}

func fiveInterior(t *grading.T, fn FivePointFuncs, trials, maxSide int) {
	for range trials {
		ny, nx := randomSides(t, maxSide)
		what, dst, src, got, c := sweepCase(t, fn, ny, nx)
		edge := nearEdge(ny, nx)
		if !(grading.Diff{What: what, Label: grading.Label2(nx), Only: func(i int) bool { return !edge(i) }}.Check(
			t, got.Data, sweepStar(dst, src, c, wrapBoth).Data, starVariants(dst, src, c)...)) {
			return
		}
	}
}

func fivePeriodic(t *grading.T, fn FivePointFuncs, trials, maxSide int) {
	for range trials {
		ny, nx := randomSides(t, maxSide)
		what, dst, src, got, c := sweepCase(t, fn, ny, nx)
		if !(grading.Diff{What: what, Label: grading.Label2(nx)}.Check(
			t, got.Data, sweepStar(dst, src, c, wrapBoth).Data, starVariants(dst, src, c)...)) {
			return
		}
	}
}

// fivePlaneWave checks Sweep against a closed form: on a periodic grid,
// the wave u(j, k) = Re(A·e^{i(a·j + b·k)}), a = 2πp/NY and b = 2πq/NX,
// comes back as Re(λ·A·e^{i(a·j + b·k)}), with the symbol
// λ = Σ_m c_m·e^{i(a·dy_m + b·dx_m)}.
func fivePlaneWave(t *grading.T, fn FivePointFuncs, trials, maxSide int) {
	for range trials {
		ny, nx := randomSides(t, maxSide)
		p, q := 1+t.Rand().IntN(ny-1), 1+t.Rand().IntN(nx-1)
		a, b := 2*math.Pi*float64(p)/float64(ny), 2*math.Pi*float64(q)/float64(nx)
		amp := cmplx.Rect(0.5+t.Rand().Float64(), 2*math.Pi*t.Rand().Float64())
		c := coeffs9(t)
		var lambda complex128
		for m, o := range starOffsets {
			lambda += complex(c[m], 0) * cmplx.Exp(complex(0, a*float64(o[0])+b*float64(o[1])))
		}
		src, err := lab.NewGrid2[float64](ny, nx)
		require.NoError(t, err, "the reference failed")
		want := src.Clone()
		for j := range ny {
			for k := range nx {
				e := cmplx.Exp(complex(0, a*float64(j)+b*float64(k)))
				src.Data[j*nx+k] = real(amp * e)
				want.Data[j*nx+k] = real(lambda * amp * e)
			}
		}
		dst := randomGrid2(t, ny, nx)
		got := dst.Clone()
		what := fmt.Sprintf("Sweep of the wave cos(2π(%d·j/%d + %d·k/%d) + φ) on a %d×%d grid", p, ny, q, nx, ny, nx)
		t.Must(fn.Sweep(got, src, c), what)
		if !(grading.Diff{What: what, Label: grading.Label2(nx), Tol: grading.Tol{Abs: 1e-9, Rel: 1e-9}}.Check(
			t, got.Data, want.Data, starVariants(dst, src, c)...)) {
			return
		}
	}
}

// iterateStar is the reference: steps sweeps between two grids.
func iterateStar(g *lab.Grid2[float64], c [9]float64, steps int) *lab.Grid2[float64] {
	a, b := g.Clone(), g.Clone()
	for range steps {
		b = sweepStar(b, a, c, wrapBoth)
		a, b = b, a
	}
	return a
}

func total(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

func fiveIterate(t *grading.T, fn FivePointFuncs, trials, maxSide int) {
	for trial := range trials {
		ny, nx := randomSides(t, maxSide)
		g := randomGrid2(t, ny, nx)
		c := coeffs9(t)
		conserving := trial%2 == 1
		if conserving { // coefficients that add up to 1
			s := total(c[:])
			for m := range c {
				c[m] /= s
			}
		}
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
			"%s returned a %d×%d grid with %d values, want %d×%d", what, got.NY, got.NX, len(got.Data), ny, nx)
		if conserving {
			// Σ dst = Σ_m c_m · Σ src on a periodic grid: the sum stays.
			before, after := total(g.Data), total(got.Data)
			if !assert.InDelta(t, before, after, 1e-9*float64(ny*nx), "%s with coefficients adding up to 1: the sum of the grid went from %.9g to %.9g; a periodic sweep loses nothing through its edges",
				what, before, after) {
				return
			}
		}
		want := iterateStar(g, c, steps)
		var variants []grading.Variant
		if steps > 0 {
			variants = append(variants,
				grading.Variant{Hint: "one sweep too few: return the grid written last", Values: iterateStar(g, c, steps-1).Data},
				grading.Variant{Hint: "one sweep too many", Values: iterateStar(g, c, steps+1).Data})
		}
		if !(grading.Diff{What: what, Label: grading.Label2(nx), Tol: grading.Tol{Abs: 1e-10, Rel: 1e-9}}.Check(t, got.Data, want.Data, variants...)) {
			return
		}
	}
}

func fiveBadInput(t *grading.T, fn FivePointFuncs) {
	var c [9]float64
	for m := range c {
		c[m] = 0.05 * float64(m+1)
	}
	g := func(ny, nx int) *lab.Grid2[float64] {
		return &lab.Grid2[float64]{NY: ny, NX: nx, Data: make([]float64, max(ny*nx, 0))}
	}
	short := g(6, 6)
	short.Data = short.Data[:30]
	same := g(7, 8)
	for _, tc := range []struct {
		dst, src *lab.Grid2[float64]
		why      string
	}{
		{g(6, 7), g(7, 6), "dst 6×7, src 7×6"},
		{g(4, 9), g(4, 9), "a side of 4"},
		{g(9, 3), g(9, 3), "a side of 3"},
		{g(0, 0), g(0, 0), "an empty grid"},
		{g(6, 6), short, "src 6×6 with 30 values"},
		{short, g(6, 6), "dst 6×6 with 30 values"},
		{nil, g(6, 6), "dst is nil"},
		{g(6, 6), nil, "src is nil"},
		{same, same, "dst and src are the same grid"},
	} {
		if !t.WantError(fn.Sweep(tc.dst, tc.src, c), "Sweep ("+tc.why+")") {
			return
		}
	}
	for _, tc := range []struct {
		g     *lab.Grid2[float64]
		steps int
		why   string
	}{
		{g(6, 6), -1, "−1 steps"},
		{nil, 2, "a nil grid"},
		{g(3, 8), 0, "a 3×8 grid, 0 steps"},
		{short, 1, "a 6×6 grid with 30 values"},
	} {
		_, err := fn.Iterate(tc.g, c, tc.steps)
		if !t.WantError(err, "Iterate ("+tc.why+")") {
			return
		}
	}
}
