package checks

import (
	"slices"
	"strings"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// All returns every exercise in teaching order, with their checks but
// without student code: running a check of these reports "not implemented
// yet". The grader uses it to list the exercises and their points.
func All() []grading.Exercise {
	all := []grading.Exercise{}
	for _, s := range kernelSteps() {
		all = append(all, s.exercise(submitted{local: stubKernel}))
	}
	all = append(all, FindTheBug(stubKernel))
	// The declared exercises' stubs are made from their declarations; the
	// folders' numbers are the teaching order.
	all = append(all, declaredStubs()...)
	slices.SortStableFunc(all, func(a, b grading.Exercise) int { return strings.Compare(a.ID, b.ID) })
	return all
}

// stubKernel is a kernel that is not written yet.
func stubKernel(star.Args) (sim.Kernel, error) { return sim.Kernel{}, grading.ErrNotImplemented }

// HiddenIncluded reports whether this program was built with the
// instructor-only checks (the tag "hidden").
func HiddenIncluded() bool { return sineDecl.Hidden != nil }
