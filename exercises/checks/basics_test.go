package checks

import (
	"errors"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sine "stencillab.dev/exercises/01_sine"
	derivative "stencillab.dev/exercises/02_derivative"
	fivepoint "stencillab.dev/exercises/03_five_point"
	intensity "stencillab.dev/exercises/04_intensity"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The tests of exercises 01 to 04: their solutions score full marks, here
// and through the wire to a child, and the usual mistakes lose the check
// named for them with the hint that names the mistake.

// needSolutions skips where the exercises hold their stubs (the students'
// copy): the tests grade the solutions.
func needSolutions(t *testing.T) {
	t.Helper()
	if _, _, err := sine.Discretize(math.Sin, 0, 1, 2); errors.Is(err, grading.ErrNotImplemented) {
		t.Skip("needs the instructor's solutions of exercises 01–04; this copy holds their stubs")
	}
}

func basicsSolutions() []grading.Exercise {
	return []grading.Exercise{
		Sine(sine.Discretize),
		Derivative(DerivativeFuncs{Weights: derivative.Weights, Apply: derivative.Apply, Order: derivative.Order}),
		FivePoint(FivePointFuncs{Sweep: fivepoint.Sweep, Iterate: fivepoint.Iterate}),
		Intensity(IntensityFuncs{Cost: intensity.Cost, Intensity: intensity.Intensity, MaxTile: intensity.MaxTile}),
	}
}

// remote returns e as the grader sees it: its checks here, its functions
// served by e.Serve at the other end of two pipes.
func remote(t *testing.T, e grading.Exercise) grading.Exercise {
	t.Helper()
	toChild, fromGrader := io.Pipe()
	toGrader, fromChild := io.Pipe()
	go func() { _ = grading.Serve(toChild, fromChild, e.Serve) }()
	t.Cleanup(func() { _ = fromGrader.Close(); _ = toGrader.Close() })
	r, err := Remote(e.ID, grading.NewClient(fromGrader, toGrader))
	require.NoError(t, err)
	return r
}

func TestSineDerivFiveIntensSolutionsScoreFullMarks(t *testing.T) {
	needSolutions(t)
	for _, e := range basicsSolutions() {
		for _, how := range []string{"here", "through the wire"} {
			ex := e
			if how != "here" {
				ex = remote(t, e)
			}
			res := grading.Run(ex, legitOptions(t, 0))
			require.Equal(t, grading.Graded, res.Status, "%s %s: %s", e.ID, how, res.Message)
			for _, c := range res.Checks {
				assert.True(t, c.Passed, "%s %s, check %s: %s", e.ID, how, c.ID, c.Message)
			}
			assert.Equal(t, res.MaxPoints, res.Points, "%s %s", e.ID, how)
		}
	}
}

func TestSineDerivFiveIntensPublicPoints(t *testing.T) {
	// the points of the exercises' table in exercises/README.md
	want := map[string]int{"01_sine": 6, "02_derivative": 11, "03_five_point": 9, "04_intensity": 12}
	for _, e := range All()[:4] {
		public := 0
		for _, c := range e.Checks {
			if !c.Hidden {
				public += c.Points
			}
		}
		assert.Equal(t, want[e.ID], public, e.ID)
	}
}

// results runs e and returns its checks by id.
func results(t *testing.T, e grading.Exercise) map[string]grading.CheckResult {
	out := map[string]grading.CheckResult{}
	for _, c := range grading.Run(e, legitOptions(t, 0)).Checks {
		out[c.ID] = c
	}
	return out
}

// failsWith asserts that check id of e failed and that its message holds
// hint.
func failsWith(t *testing.T, e grading.Exercise, id, hint string) {
	t.Helper()
	c, ok := results(t, e)[id]
	require.True(t, ok, "no check %q", id)
	assert.False(t, c.Passed, "check %s passed", id)
	assert.Contains(t, c.Message, hint, "check %s", id)
}

func TestSineMistakesAreNamed(t *testing.T) {
	needSolutions(t)
	at := func(where func(a, h float64, k int) float64) SineFunc {
		return func(f func(float64) float64, a, b float64, n int) ([]float64, []float64, error) {
			xs, _, err := sine.Discretize(f, a, b, n)
			if err != nil {
				return nil, nil, err
			}
			ys := make([]float64, n)
			for k := range xs {
				xs[k] = where(a, (b-a)/float64(n), k)
				ys[k] = f(xs[k])
			}
			return xs, ys, nil
		}
	}
	left := Sine(at(func(a, h float64, k int) float64 { return a + float64(k)*h }))
	failsWith(t, left, "fig-8.1", "left edges of the cells")
	failsWith(t, left, "grid", "left edges of the cells")
	right := Sine(at(func(a, h float64, k int) float64 { return a + float64(k+1)*h }))
	failsWith(t, right, "values", "right edges of the cells")
	vertex := Sine(func(f func(float64) float64, a, b float64, n int) ([]float64, []float64, error) {
		if n < 2 {
			return sine.Discretize(f, a, b, n)
		}
		xs, ys := make([]float64, n), make([]float64, n)
		for k := range xs {
			xs[k] = a + float64(k)*(b-a)/float64(n-1)
			ys[k] = f(xs[k])
		}
		return xs, ys, nil
	})
	failsWith(t, vertex, "fig-8.1", "the grid of Fig. 8.1")
	lax := Sine(func(f func(float64) float64, a, b float64, n int) ([]float64, []float64, error) {
		if math.IsInf(b, 0) {
			return []float64{b}, []float64{f(b)}, nil
		}
		return sine.Discretize(f, a, b, n)
	})
	failsWith(t, lax, "bad-input", "b is infinite")
}

func derivFuncs() DerivativeFuncs {
	return DerivativeFuncs{Weights: derivative.Weights, Apply: derivative.Apply, Order: derivative.Order}
}

func TestDerivMistakesAreNamed(t *testing.T) {
	needSolutions(t)
	flipped := derivFuncs()
	flipped.Weights = func(d, lo, hi int) ([]float64, error) {
		w, err := derivative.Weights(d, lo, hi)
		return scaled(w, -1), err
	}
	failsWith(t, Derivative(flipped), "weights-first", "every sign is flipped")

	noFactorial := derivFuncs()
	noFactorial.Weights = func(d, lo, hi int) ([]float64, error) {
		w, err := derivative.Weights(d, lo, hi)
		return scaled(w, 0.5), err
	}
	failsWith(t, Derivative(noFactorial), "weights-second", "2! = 2")

	centred := derivFuncs()
	centred.Weights = func(d, lo, hi int) ([]float64, error) {
		if n := hi - lo; n%2 == 0 {
			return derivative.Weights(d, -n/2, n/2)
		}
		return derivative.Weights(d, lo, hi)
	}
	failsWith(t, Derivative(centred), "weights-first", "these are the centred weights")

	// the chapter's Apply: centred stencils only, the ends left 0
	zeroEnds := derivFuncs()
	zeroEnds.Apply = func(f []float64, h float64, d, r int) ([]float64, error) {
		out, err := derivative.Apply(f, h, d, r)
		for k := range out {
			if k < r || k >= len(out)-r {
				out[k] = 0
			}
		}
		return out, err
	}
	failsWith(t, Derivative(zeroEnds), "apply", "the r points at each end are left 0")

	undivided := derivFuncs()
	undivided.Apply = func(f []float64, h float64, d, r int) ([]float64, error) {
		out, err := derivative.Apply(f, h, d, r)
		return scaled(out, math.Pow(h, float64(d))), err
	}
	failsWith(t, Derivative(undivided), "apply", "not divided by h^d")

	ends := derivFuncs()
	ends.Order = func(h, e []float64) (float64, error) {
		if len(h) != len(e) || len(h) < 2 {
			return derivative.Order(h, e)
		}
		n := len(h) - 1
		return (math.Log(e[n]) - math.Log(e[0])) / (math.Log(h[n]) - math.Log(h[0])), nil
	}
	failsWith(t, Derivative(ends), "order-fit", "the first and last points only")
}

func TestDerivLagrangeWeightsMatchTheBook(t *testing.T) {
	// published weights: the chapter's centred stencils and the classic
	// one-sided ones
	for _, c := range []struct {
		d, lo, hi int
		want      []float64
	}{
		{1, -1, 1, []float64{-0.5, 0, 0.5}},
		{2, -1, 1, []float64{1, -2, 1}},
		{1, -2, 2, []float64{1.0 / 12, -8.0 / 12, 0, 8.0 / 12, -1.0 / 12}},
		{1, 0, 2, []float64{-1.5, 2, -0.5}},
		{1, -2, 0, []float64{0.5, -2, 1.5}},
		{2, 0, 3, []float64{2, -5, 4, -1}},
		{1, 0, 1, []float64{-1, 1}},
	} {
		assert.InDeltaSlice(t, c.want, lagrangeWeights(c.d, c.lo, c.hi), 1e-12, "%d, %d…%d", c.d, c.lo, c.hi)
	}
}

func fiveFuncs() FivePointFuncs {
	return FivePointFuncs{Sweep: fivepoint.Sweep, Iterate: fivepoint.Iterate}
}

func TestFiveMistakesAreNamed(t *testing.T) {
	needSolutions(t)
	fixed := fiveFuncs()
	fixed.Sweep = func(dst, src *lab.Grid2[float64], c [9]float64) error {
		if dst == nil || src == nil || dst.NY < 5 || dst.NX < 5 {
			return fivepoint.Sweep(dst, src, c)
		}
		return lab.Sweep2(dst, src, lab.NinePoint(c)) // the chapter's fixed boundary
	}
	failsWith(t, FivePoint(fixed), "periodic", "the edges do not wrap")
	assert.True(t, results(t, FivePoint(fixed))["interior"].Passed, "away from the edges a fixed sweep is right")

	xy := fiveFuncs()
	xy.Sweep = func(dst, src *lab.Grid2[float64], c [9]float64) error {
		return fivepoint.Sweep(dst, src, swapped(c, 1, 3, 2, 4, 5, 7, 6, 8))
	}
	failsWith(t, FivePoint(xy), "interior", "x and y are swapped")

	radii := fiveFuncs()
	radii.Sweep = func(dst, src *lab.Grid2[float64], c [9]float64) error {
		return fivepoint.Sweep(dst, src, swapped(c, 1, 5, 2, 6, 3, 7, 4, 8))
	}
	failsWith(t, FivePoint(radii), "plane-wave", "radius-1 and radius-2 coefficients are swapped")

	short := fiveFuncs()
	short.Iterate = func(g *lab.Grid2[float64], c [9]float64, steps int) (*lab.Grid2[float64], error) {
		return fivepoint.Iterate(g, c, max(steps-1, 0))
	}
	failsWith(t, FivePoint(short), "iterate", "one sweep too few")

	shared := fiveFuncs()
	shared.Sweep = func(dst, src *lab.Grid2[float64], c [9]float64) error {
		if dst == src {
			return nil
		}
		return fivepoint.Sweep(dst, src, c)
	}
	failsWith(t, FivePoint(shared), "bad-input", "the same grid")
}

// walkBlock counts one block of a 13-point kernel by walking every thread
// and every step of its march: the loads it issues, the outputs it writes,
// the shared slots it holds at once. It is the slow route the checks'
// counts are compared with.
func walkBlock(kernel string, T int) lab.BlockCost {
	var c lab.BlockCost
	isOut := func(p int) bool { return p >= 2 && p < T-2 }
	switch kernel {
	case kBasic:
		for z := 0; z < T; z++ {
			for y := 0; y < T; y++ {
				for x := 0; x < T; x++ {
					c.Threads++
					c.Outputs++
					c.Ops += 25
					c.Loads += len(star13())
				}
			}
		}
	case kTiled:
		for z := 0; z < T; z++ {
			for y := 0; y < T; y++ {
				for x := 0; x < T; x++ {
					c.Threads++
					c.Loads++
					c.SharedBytes += 4
					if isOut(z) && isOut(y) && isOut(x) {
						c.Outputs++
						c.Ops += 25
					}
				}
			}
		}
	case kCoarsened, kRegister:
		c.Threads = T * T
		live := map[int]bool{} // input planes held in shared memory
		most := 0
		for z := 0; z < T; z++ { // one input plane per step
			for y := 0; y < T; y++ {
				for x := 0; x < T; x++ {
					c.Loads++
				}
			}
			live[z] = true
			if zo := z - 2; isOut(zo) { // the plane two below is complete
				held := 0
				for p := range live {
					if p >= zo-2 && (kernel == kCoarsened || p == zo) {
						held++
					}
				}
				most = max(most, held)
				for y := 0; y < T; y++ {
					for x := 0; x < T; x++ {
						if isOut(y) && isOut(x) {
							c.Outputs++
							c.Ops += 25
						}
					}
				}
			}
		}
		c.SharedBytes = 4 * most * T * T
	}
	return c
}

func TestIntensCountsAgreeWithAWalkOverEveryThread(t *testing.T) {
	for _, k := range starKernels {
		for T := 5; T <= 20; T++ {
			assert.Equal(t, walkBlock(k, T), countCost(k, T), "%s at T = %d", k, T)
		}
	}
	assert.Len(t, star13(), 13)
	assert.Equal(t, 5, planesUsed())
	assert.InDelta(t, 25.0/52, countIntensity(kBasic, 9), 1e-15)
	assert.Equal(t, 0.78125, countIntensity(kTiled, 8))
}

func intensFuncs() IntensityFuncs {
	return IntensityFuncs{Cost: intensity.Cost, Intensity: intensity.Intensity, MaxTile: intensity.MaxTile}
}

func TestIntensMistakesAreNamed(t *testing.T) {
	needSolutions(t)
	// the seven-point answers: 13 OPs, 7 loads, a halo of one, three planes
	seven := intensFuncs()
	seven.Intensity = func(kernel string, T int) (float64, error) {
		if kernel == kBasic {
			return 13.0 / 28, nil
		}
		o := float64(T - 2)
		return 13 * o * o * o / (4 * float64(T*T*T)), nil
	}
	failsWith(t, Intensity(seven), kBasic, "seven-point kernel's 13 OPs per 7 loads")
	failsWith(t, Intensity(seven), "by-hand", "seven-point tiled kernel")

	halo1 := intensFuncs()
	halo1.Intensity = func(kernel string, T int) (float64, error) {
		o := float64(T - 2)
		return 25 * o * o * o / (4 * float64(T*T*T)), nil
	}
	failsWith(t, Intensity(halo1), kTiled, "two points on each side")

	threePlanes := intensFuncs()
	threePlanes.Cost = func(kernel string, T int) (lab.BlockCost, error) {
		c, err := intensity.Cost(kernel, T)
		if kernel == kCoarsened {
			c.SharedBytes = 12 * T * T
		}
		return c, err
	}
	failsWith(t, Intensity(threePlanes), "cost", "five T×T planes")

	overshoot := intensFuncs()
	overshoot.MaxTile = func(kernel string, lim sim.Limits) (int, string, error) {
		T, b, err := intensity.MaxTile(kernel, lim)
		return T + 1, b, err
	}
	failsWith(t, Intensity(overshoot), "max-tile", "that tile no longer fits")

	tooSmall := intensFuncs()
	tooSmall.MaxTile = func(kernel string, lim sim.Limits) (int, string, error) {
		if _, err := intensity.Cost(kernel, 5); err == nil && lim.MaxThreads > 0 && lim.MaxSharedBytes > 0 {
			if T, b, err := intensity.MaxTile(kernel, lim); err == nil {
				return T, b, nil
			}
			return 5, "threads", nil // not even T = 5 fits, but says 5
		}
		return intensity.MaxTile(kernel, lim)
	}
	failsWith(t, Intensity(tooSmall), "bad-input", "T = 5 needs")
}

// TestFivePointSharedGridCrossesAsOne: across the channel, one grid passed
// as dst and src reaches the student's Sweep as one pointer, so a Sweep
// that does not refuse it loses bad-input there as it does here, and one
// that refuses it passes.
func TestFivePointSharedGridCrossesAsOne(t *testing.T) {
	needSolutions(t)
	lax := FivePointFuncs{Sweep: func(dst, src *lab.Grid2[float64], c [9]float64) error {
		if dst != nil && dst == src {
			return fivepoint.Sweep(dst, src.Clone(), c)
		}
		return fivepoint.Sweep(dst, src, c)
	}, Iterate: fivepoint.Iterate}
	for how, e := range map[string]grading.Exercise{"here": FivePoint(lax), "remote": remote(t, FivePoint(lax))} {
		failsWith(t, e, "bad-input", "same grid")
		assert.True(t, results(t, e)["interior"].Passed, how)
	}
	honest := remote(t, FivePoint(FivePointFuncs{Sweep: fivepoint.Sweep, Iterate: fivepoint.Iterate}))
	assert.True(t, results(t, honest)["bad-input"].Passed)
}
