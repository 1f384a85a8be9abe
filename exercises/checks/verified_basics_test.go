package checks

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

// The checks of exercise 10 that judge a quantity computed from the
// student's answers judge it only on answers they verified (02's
// convergence check is tested in verified_hidden_test.go, on the
// exercise's answer).

// checkResult runs e and returns the result of check id.
func checkResult(t *testing.T, e grading.Exercise, id string) grading.CheckResult {
	res := grading.Run(e, legitOptions(t, 5))
	require.Equal(t, grading.Graded, res.Status, "%s: %s", e.ID, res.Message)
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	require.Failf(t, "no such check", "%s has no check %q", e.ID, id)
	return grading.CheckResult{}
}

// A pitch that reads the columns with bank conflicts is not the smallest
// conflict-free pitch, however small it is: the unpadded tile, pitch T,
// conflicts for every tile of 8 or more (lane (tx, ty) reads word tx·T + ty,
// and 32/T lanes share a bank for T ≥ 8), and scores 0 on "smallest".
func TestSmallestPitchMustAvoidConflicts(t *testing.T) {
	for _, T := range []int{8, 16, 32} {
		// The first warp: threads ty·T + tx below 32, each reading word
		// tx·T + ty of bank (tx·T + ty) mod 32.
		lanes := map[int]int{}
		for id := range 32 {
			tx, ty := id%T, id/T
			lanes[(tx*T+ty)%32]++
		}
		require.Less(t, len(lanes), 32, "T = %d: two lanes of the first warp share a bank", T)
	}
	unpadded := Warps(WarpsFuncs{
		Block: func() (sim.Dim3, error) { return sim.Dim3{X: 32, Y: 4, Z: 4}, nil },
		Pitch: func(T int) (int, error) {
			if T != 4 && T != 8 && T != 16 && T != 32 {
				return 0, errors.New("a tile of 4, 8, 16 or 32")
			}
			return T, nil
		},
	})
	r := checkResult(t, unpadded, "smallest")
	assert.False(t, r.Passed, "pitch T passed the smallest-pitch check")
	assert.Contains(t, r.Message, "bank conflicts")
}
