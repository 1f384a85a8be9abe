//go:build hidden

package checks

import "stencillab.dev/exercises/grading"

// The instructor-only checks of exercise 11: the public checks again on
// larger grids and tiles, more limits and more errors. Built with the tag
// "hidden", which the grader sets; the student release leaves this file
// out.

func init() {
	launchDecl.Hidden = func(fn LaunchFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-configure", Title: "both kernels on grids of sides up to 5000", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					launchConfigure(t, fn, kTiled, 200, 5000)
					if !t.Failed() {
						launchConfigure(t, fn, kCoarsened, 200, 5000)
					}
				}},
			{ID: "hidden-limits", Title: "more launches, legal and refused, and more errors after a launch", Points: 1, Hidden: true,
				Run: func(t *grading.T) {
					launchLegal(t, fn, 1000)
					for _, check := range []func(*grading.T, LaunchFuncs, int){launchThreads, launchShared, launchDimensions, launchReport} {
						if t.Failed() {
							return
						}
						check(t, fn, 300)
					}
				}},
		}
	}
}
