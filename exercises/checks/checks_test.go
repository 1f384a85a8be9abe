package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// The checks of the kernel exercises on the lab's own kernels, which must
// score full marks, and on the lab's broken kernels, which must fail the
// check that names their mistake.

func TestLabKernelsScoreFullMarks(t *testing.T) {
	var exs []grading.Exercise
	for _, s := range lab.Steps3() {
		if lab.Simulated(s) && s.Exercise > 0 {
			exs = append(exs, KernelExercise(s.Name, s.Kernel))
		}
	}
	require.Len(t, exs, 4, "the four kernels of the chapter")
	for _, e := range append(exs, FindTheBug(lab.CoarsenedKernel)) {
		res := grading.Run(e, grading.Options{})
		require.Equal(t, grading.Graded, res.Status, "%s: %s", e.ID, res.Message)
		for _, c := range res.Checks {
			assert.True(t, c.Passed, "%s/%s (seed %d): %s", e.ID, c.ID, res.Seed, c.Message)
		}
		assert.Equal(t, res.MaxPoints, res.Points, e.ID)
	}
}

func TestBrokenKernelsFailWithTheirMistakeNamed(t *testing.T) {
	for _, c := range []struct {
		ex    grading.Exercise
		check string
		hint  string
	}{
		{KernelExercise("tiled", lab.BrokenTiledNoBarrier), "barriers", "t.Sync()"},
		{KernelExercise("coarsened", lab.BrokenCoarsenedSwappedC3C4), "values", "c3 and c4 swapped"},
		{KernelExercise("coarsened", lab.BrokenCoarsenedLoopClosesEarly), "values", "the z loop closes right after loading"},
		{FindTheBug(lab.BrokenCoarsenedSwappedC3C4), "c3-c4", "c3 and c4 are swapped"},
		{FindTheBug(lab.BrokenCoarsenedLoopClosesEarly), "every-plane", "never written"},
		{KernelExercise("register_tiled", lab.BrokenRegisterTiledNoSecondBarrier), "barriers", "t.Sync()"},
	} {
		res := grading.Run(c.ex, grading.Options{})
		var found bool
		for _, cr := range res.Checks {
			if cr.ID == c.check {
				found = true
				assert.False(t, cr.Passed, "%s/%s (seed %d)", c.ex.ID, c.check, res.Seed)
				assert.Contains(t, cr.Message, c.hint, "%s/%s (seed %d)", c.ex.ID, c.check, res.Seed)
			}
		}
		assert.True(t, found, "%s has a check %q", c.ex.ID, c.check)
		assert.Less(t, res.Points, res.MaxPoints, c.ex.ID)
	}
}
