//go:build hidden

package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
)

// The instructor-only checks of the kernel exercises (05 to 09): values,
// launch and traffic on larger grids. They are built with the tag
// "hidden", which the grader sets; the student release leaves this file
// out.

func init() {
	for _, s := range kernelSteps() {
		kernelDecls[s.name].Hidden = func(fn kernelFuncs) []grading.Check { return hiddenKernelChecks(s, submitted{funcs: fn}) }
	}
	findTheBugDecl.Hidden = func(fn kernelFuncs) []grading.Check {
		k := submitted{funcs: fn}
		return []grading.Check{
			{ID: "hidden-values", Title: "larger grids, sides up to 32", Points: 2, Hidden: true,
				Run: func(t *grading.T) { bugValues(t, findTheBugStep(), k, 2, 32) }},
		}
	}
}

// hiddenKernelChecks are the instructor-only checks of the kernel
// exercise s on k.
func hiddenKernelChecks(s kernelStep, k submitted) []grading.Check {
	maxN := 40
	if s.kind != basicKind {
		maxN = 32
	}
	return []grading.Check{
		{ID: "hidden-values", Title: fmt.Sprintf("larger grids, sides up to %d, launch and traffic included", maxN), Points: 2, Hidden: true,
			Run: func(t *grading.T) {
				for range 2 {
					sc := s.randomCase(t, maxN)
					if !s.checkLaunch(t, k, sc, s.variants(sc)...) || !s.checkTraffic(t, k, sc, s.variants(sc)...) {
						return
					}
				}
			}},
	}
}
