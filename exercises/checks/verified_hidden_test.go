//go:build hidden

package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	findthebug "stencillab.dev/exercises/09_find_the_bug"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// Exercise 09's checks of symptoms pay only for outputs they compared
// with the reference: the fixed kernel with one point spoiled after the
// fact, inside or on the boundary, loses every check. Instructor-only: it
// runs the exercise's answer.

// spoiled is the fixed kernel of 09 in which the thread that writes the
// point (i, j, k) = (p, p, p) adds 1 to it after its work, with no traffic
// counted; p < 2 spoils a boundary point, which no thread writes, from the
// first thread.
func spoiled(p int) star.Kernel {
	return withLaunch(findthebug.Coarsened, func(k *sim.Kernel, a star.Args) {
		body := k.Body
		out := k.Block.X - 2*star.Radius
		b, tt := sim.Dim3{}, sim.Dim3{}
		if p >= star.Radius {
			b = sim.Dim3{X: p / out, Y: p / out, Z: p / out}
			tt = sim.Dim3{X: p%out + star.Radius, Y: p%out + star.Radius}
		}
		k.Body = func(t *sim.Thread) {
			body(t)
			if t.BlockIdx == b && t.ThreadIdx == tt {
				a.Out.Data[(p*a.NY+p)*a.NX+p] += 1
			}
		}
	})
}

func TestBugHuntPaysOnlyForRightOutputs(t *testing.T) {
	for name, k := range map[string]star.Kernel{
		"an interior point": spoiled(3), // inside every grid of the checks (sides ≥ 10)
		"a boundary point":  spoiled(1),
	} {
		for _, seed := range seeds[:2] {
			res := grading.Run(FindTheBug(k), grading.Options{Seed: seed})
			require.Equal(t, grading.Graded, res.Status, res.Message)
			for _, c := range res.Checks {
				assert.False(t, c.Passed, "%s passed with %s wrong (seed %d)", c.ID, name, seed)
				assert.Contains(t, c.Message, "wrong", "%s, %s (seed %d)", c.ID, name, seed)
			}
			assert.Zero(t, res.Points, "%s wrong (seed %d)", name, seed)
		}
	}
}
