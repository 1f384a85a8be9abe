package checks

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

// handPitch are the smallest conflict-free pitches worked out by hand.
// T = 4: the block is one warp of 16 lanes, words 4tx + ty are 16
// distinct banks. T = 8: a warp is 4 rows (ty = r…r+3) of 8; pitch 12
// puts tx at banks 0, 12, 24, 4, 16, 28, 8, 20, four apart, and ty fills
// the gaps; 8 to 11 all collide (e.g. 9: tx = 7 lands on 63 ≡ 31, next to
// tx = 0 shifted by ty). T = 16: a warp is 2 rows; 18tx covers the 16
// even banks, ty = 1 the odd ones; 16 is 8-way, 17 puts tx = 15, ty = 1 on
// bank 0 with tx = 0, ty = 0. T = 32: one row a warp, any odd pitch: 33.
var handPitch = map[int]int{4: 4, 8: 12, 16: 18, 32: 33}

func gradeWarps(t *testing.T, fn WarpsFuncs) map[string]grading.CheckResult {
	res := grading.Run(Warps(fn), legitOptions(t, 0))
	out := map[string]grading.CheckResult{}
	for _, c := range res.Checks {
		out[c.ID] = c
	}
	return out
}

func TestWarpsHandWorkedAnswersScoreFullMarks(t *testing.T) {
	res := grading.Run(Warps(WarpsFuncs{
		Block: func() (sim.Dim3, error) { return sim.Dim3{X: 64, Y: 2, Z: 2}, nil },
		Pitch: func(T int) (int, error) {
			if p, ok := handPitch[T]; ok {
				return p, nil
			}
			return 0, errors.New("no such tile")
		},
	}), legitOptions(t, 0))
	require.Equal(t, grading.Graded, res.Status, res.Message)
	for _, c := range res.Checks {
		assert.True(t, c.Passed, "%s: %s", c.ID, c.Message)
	}
	assert.Equal(t, 11, res.MaxPoints)
}

func TestWarpsWrongAnswersFail(t *testing.T) {
	for T, p := range handPitch {
		assert.Zero(t, columnConflicts(T, p), "T = %d, pitch %d", T, p)
	}
	assert.Equal(t, int64(7*8), columnConflicts(16, 16), "pitch 16: each of the 8 warps reads 8 words from each of 4 banks, 8-way")

	cube := gradeWarps(t, WarpsFuncs{
		Block: func() (sim.Dim3, error) { return sim.Dim3{X: 8, Y: 8, Z: 8}, nil },
		Pitch: func(T int) (int, error) { return T, nil },
	})
	assert.True(t, cube["block"].Passed)
	assert.False(t, cube["useful-bytes"].Passed)
	assert.Contains(t, cube["useful-bytes"].Message, "which threads of your block form a warp")
	assert.False(t, cube["sectors"].Passed)
	assert.False(t, cube["no-conflicts"].Passed)
	assert.Contains(t, cube["no-conflicts"].Message, "T = 8, pitch 8")
	assert.False(t, cube["bad-input"].Passed)

	wasteful := gradeWarps(t, WarpsFuncs{
		Block: func() (sim.Dim3, error) { return sim.Dim3{X: 64, Y: 32, Z: 1}, nil },
		Pitch: func(T int) (int, error) { return 3*T + 1, nil }, // 13, 25, 49, 97: conflict-free but not the least
	})
	assert.False(t, wasteful["block"].Passed)
	assert.Contains(t, wasteful["block"].Message, "2048 threads exceeds 1024")
	assert.False(t, wasteful["smallest"].Passed)
}

// TestWarpsAbsurdAnswersFailQuickly hands the checks a pitch and a block
// far past any limit: they fail with the limit named, without trying every
// pitch below the answer or allocating its tile.
func TestWarpsAbsurdAnswersFailQuickly(t *testing.T) {
	huge := 1 << 62
	res := gradeWarps(t, WarpsFuncs{
		Block: func() (sim.Dim3, error) { return sim.Dim3{X: 1 << 32, Y: 1 << 32, Z: 1}, nil },
		Pitch: func(T int) (int, error) { return huge + T, nil },
	})
	for _, id := range []string{"block", "useful-bytes", "sectors", "no-conflicts", "smallest"} {
		assert.False(t, res[id].Passed, id)
	}
	for T := range handPitch {
		// The largest pitch that fits, worked out from the limit itself.
		maxP := sim.DefaultSharedPerBlock / (sim.ElemBytes * T)
		assert.LessOrEqual(t, T*maxP*sim.ElemBytes, sim.DefaultSharedPerBlock)
		assert.Greater(t, T*(maxP+1)*sim.ElemBytes, sim.DefaultSharedPerBlock)
	}
	assert.Contains(t, res["smallest"].Message, "exceeds the 49152 bytes of shared memory")
}
