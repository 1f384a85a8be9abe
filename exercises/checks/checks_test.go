//go:build hidden

package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	basic "stencillab.dev/exercises/05_basic"
	tiled "stencillab.dev/exercises/06_tiled"
	coarsened "stencillab.dev/exercises/07_coarsened"
	registertiled "stencillab.dev/exercises/08_register_tiled"
	findthebug "stencillab.dev/exercises/09_find_the_bug"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// The checks of the kernel exercises on the instructor's solutions, which
// must score full marks, hidden checks included, and on kernels with one
// known mistake each, which must lose the check named for it with a
// message that says what is wrong. The solutions are the exercises' own
// files, so this file is built with the tag "hidden" and left out of the
// student release.

// solutions are the instructor's kernels of 05 to 08, by topic.
var solutions = map[string]star.Kernel{
	"basic": basic.Basic, "tiled": tiled.Tiled, "coarsened": coarsened.Coarsened, "register_tiled": registertiled.RegisterTiled,
}

// seeds are the runs each test repeats, so that the random tiles and
// shapes vary.
var seeds = []uint64{1, 2, 3, 20261126}

func TestSolutionsScoreFullMarks(t *testing.T) {
	for _, seed := range seeds {
		exs := []grading.Exercise{FindTheBug(findthebug.Coarsened)}
		for _, s := range kernelSteps() {
			exs = append(exs, KernelExercise(s.name, solutions[s.name]))
		}
		for _, e := range exs {
			res := grading.Run(e, legitOptions(t, seed))
			require.Equal(t, grading.Graded, res.Status, "%s: %s", e.ID, res.Message)
			for _, c := range res.Checks {
				assert.True(t, c.Passed, "%s/%s (seed %d): %s", e.ID, c.ID, seed, c.Message)
			}
			assert.Equal(t, res.MaxPoints, res.Points, e.ID)
			assert.True(t, hasHidden(e), "%s has hidden checks in this build", e.ID)
		}
	}
}

func hasHidden(e grading.Exercise) bool {
	for _, c := range e.Checks {
		if c.Hidden {
			return true
		}
	}
	return false
}

// withCoeffs runs k with the coefficients rearranged by f: a kernel that
// reads them in another order.
func withCoeffs(k star.Kernel, f func(star.Coeffs) star.Coeffs) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		a.C = f(a.C)
		return k(a)
	}
}

// withLaunch runs k with its launch changed by f.
func withLaunch(k star.Kernel, f func(*sim.Kernel, star.Args)) star.Kernel {
	return func(a star.Args) (sim.Kernel, error) {
		kern, err := k(a)
		if err == nil {
			f(&kern, a)
		}
		return kern, err
	}
}

// outcome runs e and returns the result of check id.
func outcome(t *testing.T, e grading.Exercise, id string, seed uint64) grading.CheckResult {
	res := grading.Run(e, legitOptions(t, seed))
	require.Equal(t, grading.Graded, res.Status, "%s: %s", e.ID, res.Message)
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	require.Failf(t, "no such check", "%s has no check %q", e.ID, id)
	return grading.CheckResult{}
}

func TestKnownMistakesLoseTheirCheckWithAHint(t *testing.T) {
	zeroFar := func(c star.Coeffs) star.Coeffs {
		for q := 7; q < star.Points; q++ {
			c[q] = 0
		}
		return c
	}
	for _, c := range []struct {
		name, step, check, hint string
		k                       star.Kernel
	}{
		{"c9 and c10 swapped", "tiled", "values", "are c9 and c10 swapped?",
			withCoeffs(tiled.Tiled, func(c star.Coeffs) star.Coeffs { return swapped(c, 9, 10) })},
		{"c1 and c2 swapped", "basic", "values", "are c1 and c2 swapped?",
			withCoeffs(basic.Basic, func(c star.Coeffs) star.Coeffs { return swapped(c, 1, 2) })},
		{"c11 and c12 swapped", "register_tiled", "values", "are c11 and c12 swapped?",
			withCoeffs(registertiled.RegisterTiled, func(c star.Coeffs) star.Coeffs { return swapped(c, 11, 12) })},
		{"distance 2 left out", "coarsened", "values", "did you count all 13 points",
			withCoeffs(coarsened.Coarsened, zeroFar)},
		{"distances exchanged", "basic", "values", "distance 1 and distance 2 exchanged",
			withCoeffs(basic.Basic, func(c star.Coeffs) star.Coeffs { return swapped(c, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12) })},
		{"x and z mixed up", "tiled", "values", "x and z are mixed up",
			withCoeffs(tiled.Tiled, func(c star.Coeffs) star.Coeffs { return swapped(c, 1, 5, 2, 6, 7, 11, 8, 12) })},
		{"n/B blocks", "basic", "values", "launch ⌈n/B⌉",
			withLaunch(basic.Basic, func(k *sim.Kernel, a star.Args) {
				B := k.Block.X
				k.Grid = sim.Dim3{X: max(1, a.NX/B), Y: max(1, a.NY/B), Z: max(1, a.NZ/B)}
			})},
		{"a block too many", "coarsened", "launch", "gridDim is",
			withLaunch(coarsened.Coarsened, func(k *sim.Kernel, _ star.Args) { k.Grid.X++ })},
		{"an extra t.Flops", "register_tiled", "traffic", "25 operations per output",
			withLaunch(registertiled.RegisterTiled, func(k *sim.Kernel, _ star.Args) {
				body := k.Body
				k.Body = func(t *sim.Thread) { body(t); t.Flops(1) }
			})},
		{"an extra load", "tiled", "traffic", "global loads",
			withLaunch(tiled.Tiled, func(k *sim.Kernel, a star.Args) {
				body := k.Body
				k.Body = func(t *sim.Thread) { t.Load(a.In, 0); body(t) }
			})},
		{"an extra shared plane", "register_tiled", "traffic", "shared memory per block",
			withLaunch(registertiled.RegisterTiled, func(k *sim.Kernel, _ star.Args) {
				body := k.Body
				k.Body = func(t *sim.Thread) { t.Shared2("spare", k.Block.Y, k.Block.X); body(t) }
			})},
	} {
		for _, seed := range seeds[:2] {
			r := outcome(t, KernelExercise(c.step, c.k), c.check, seed)
			assert.False(t, r.Passed, "%s: %s/%s passed (seed %d)", c.name, c.step, c.check, seed)
			assert.Contains(t, r.Message, c.hint, "%s (seed %d)", c.name, seed)
		}
	}
}

// A kernel whose counters are right but whose values are not gets no
// point for its launch or its traffic: those checks judge only runs whose
// outputs they verified.
func TestLaunchAndTrafficNeedVerifiedValues(t *testing.T) {
	wrong := withLaunch(coarsened.Coarsened, func(k *sim.Kernel, a star.Args) {
		body := k.Body
		k.Body = func(t *sim.Thread) {
			body(t)
			// Spoil one output after the fact, with no further traffic
			// counted: the counters stay those of the right kernel.
			// The thread of column (j, k) = (2, 2), in the block of plane 2,
			// after it wrote its outputs.
			out := k.Block.X - 2*star.Radius
			b := 2 / out
			if tt := 4 - b*out; t.BlockIdx == (sim.Dim3{X: b, Y: b, Z: b}) && t.ThreadIdx == (sim.Dim3{X: tt, Y: tt}) {
				idx := (2*a.NY+2)*a.NX + 2
				a.Out.Data[idx] += 1
			}
		}
	})
	for _, seed := range seeds {
		res := grading.Run(KernelExercise("coarsened", wrong), legitOptions(t, seed))
		for _, c := range res.Checks {
			if c.ID == "launch" || c.ID == "traffic" || c.ID == "default-tile" || c.ID == "hidden-values" {
				assert.False(t, c.Passed, "%s passed on wrong values (seed %d)", c.ID, seed)
				assert.Contains(t, c.Message, "wrong value at", "%s (seed %d)", c.ID, seed)
			}
		}
	}
}

func TestEachMistakeOfTheBugHuntLosesItsCheck(t *testing.T) {
	for _, c := range []struct {
		name  string
		k     star.Kernel
		check string
		words []string // the symptom the message states
	}{
		{"halo", bugHalo, "every-column", []string{"were never written", "exactly the points with"}},
		{"swap", bugSwap, "one-axis", []string{"on inputs that vary along y only", "along x only, every point written is right"}},
		{"loop", bugLoop, "every-plane", []string{"no point of the interior planes", "received outputs"}},
		{"barrier", bugBarrier, "barriers", []string{"hazard"}},
	} {
		for _, seed := range seeds {
			res := grading.Run(FindTheBug(c.k), legitOptions(t, seed))
			require.Equal(t, grading.Graded, res.Status, res.Message)
			for _, r := range res.Checks {
				switch {
				case r.ID == c.check:
					assert.False(t, r.Passed, "%s: %s passed (seed %d)", c.name, r.ID, seed)
					for _, w := range c.words {
						assert.Contains(t, r.Message, w, "%s (seed %d)", c.name, seed)
					}
					t.Logf("%s, seed %d: %s", c.name, seed, r.Message)
				case r.ID == "values" || r.ID == "hidden-values" || r.ID == "structure":
					// The structure check pays for the given kernel fixed:
					// it measures a run whose values are all right.
					assert.False(t, r.Passed, "%s: %s passed (seed %d)", c.name, r.ID, seed)
				default:
					assert.True(t, r.Passed, "%s: %s failed too, with only this mistake (seed %d): %s", c.name, r.ID, seed, r.Message)
				}
				for _, fix := range []string{"t.Sync", "swap", "OUT_TILE_DIM = IN_TILE_DIM", "IN_TILE_DIM − 4", "halo", "loop"} {
					assert.NotContains(t, r.Message, fix, "%s/%s names a fix (seed %d)", c.name, r.ID, seed)
				}
			}
		}
	}
	res := grading.Run(FindTheBug(bugAll), legitOptions(t, 7))
	assert.Equal(t, 0, res.Points, "the kernel as handed out scores 0")
}

// The solutions score full marks across the channel too, as the grader
// runs them in its child.
func TestSolutionsScoreFullMarksAcrossTheChannel(t *testing.T) {
	exs := []grading.Exercise{findTheBug(submitted{remote: servedKernel(t, findthebug.Coarsened)})}
	for _, s := range kernelSteps() {
		exs = append(exs, s.exercise(submitted{remote: servedKernel(t, solutions[s.name])}))
	}
	for _, e := range exs {
		res := grading.Run(e, legitOptions(t, 11))
		require.Equal(t, grading.Graded, res.Status, "%s: %s", e.ID, res.Message)
		for _, c := range res.Checks {
			assert.True(t, c.Passed, "%s/%s: %s", e.ID, c.ID, c.Message)
		}
	}
}
