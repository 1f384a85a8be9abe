//go:build hidden

package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	derivative "stencillab.dev/exercises/02_derivative"
	findthebug "stencillab.dev/exercises/09_find_the_bug"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// Checks that pay only for outputs they compared with the reference,
// tested on the exercises' answers with one part spoiled: 02's
// convergence check on an Apply right only where the order is measured,
// and 09's checks of symptoms on the fixed kernel with one point spoiled
// after the fact, inside or on the boundary. Instructor-only: the tests
// run the exercises' answers.

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
			res := grading.Run(FindTheBug(k), legitOptions(t, seed))
			require.Equal(t, grading.Graded, res.Status, res.Message)
			for _, c := range res.Checks {
				assert.False(t, c.Passed, "%s passed with %s wrong (seed %d)", c.ID, name, seed)
				assert.Contains(t, c.Message, "wrong", "%s, %s (seed %d)", c.ID, name, seed)
			}
			assert.Zero(t, res.Points, "%s wrong (seed %d)", name, seed)
		}
	}
}

// An Apply that is right only at the first and middle points, the two the
// order is measured at, gets no point for convergence: the check compares
// every output with the reference first. The same Apply right everywhere
// passes it.
func TestConvergenceJudgesOnlyVerifiedOutputs(t *testing.T) {
	apply := func(partial bool) func([]float64, float64, int, int) ([]float64, error) {
		return func(f []float64, h float64, d, r int) ([]float64, error) {
			out, err := derivative.Apply(f, h, d, r)
			if partial {
				for i := range out {
					if i != 0 && i != len(f)/2 {
						out[i] = 0
					}
				}
			}
			return out, err
		}
	}
	fn := DerivativeFuncs{Weights: derivative.Weights, Order: derivative.Order}
	fn.Apply = apply(false)
	honest := checkResult(t, Derivative(fn), "convergence")
	assert.True(t, honest.Passed, honest.Message)
	fn.Apply = apply(true)
	partial := checkResult(t, Derivative(fn), "convergence")
	assert.False(t, partial.Passed, "an Apply right at two points only passed convergence")
	assert.Contains(t, partial.Message, "wrong value at")
}
