//go:build hidden

package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
)

// The instructor-only checks of the kernel exercises (05 to 09): the public
// checks again on larger grids. They are built
// with the tag "hidden", which the grader sets; the student release leaves
// this file out.

func init() {
	hiddenKernel = func(s kernelStep, k submitted) []grading.Check {
		if s.BlockShape {
			return []grading.Check{
				{ID: "hidden-values", Title: "larger grids, sides up to 40", Points: 2, Hidden: true,
					Run: func(t *grading.T) { basicValues(t, s, k, 4, 40) }},
			}
		}
		maxN := 34
		if blockDepth(s.Step3) > 1 {
			maxN = 30 // a thread per input-tile point: fewer points per block
		}
		return []grading.Check{
			{ID: "hidden-values", Title: fmt.Sprintf("larger grids, sides up to %d", maxN), Points: 2, Hidden: true,
				Run: func(t *grading.T) { s.values(t, k, 3, maxN) }},
		}
	}
	hiddenFindTheBug = func(k submitted) []grading.Check {
		return []grading.Check{
			{ID: "hidden-values", Title: "larger grids, sides up to 34", Points: 2, Hidden: true,
				Run: func(t *grading.T) { findTheBugStep().values(t, k, 3, 34) }},
		}
	}
}
