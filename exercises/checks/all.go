package checks

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// All returns every exercise in teaching order (by folder: the folders'
// numbers are the order), with their checks but without student code:
// running a check of these reports "not implemented yet". Each is made
// from its declaration (Decl) on its stubs. The grader uses it to list
// the exercises and their points.
func All() []grading.Exercise { return declaredStubs() }

// stubKernel is a kernel that is not written yet.
func stubKernel(star.Args) (sim.Kernel, error) { return sim.Kernel{}, grading.ErrNotImplemented }

// HiddenIncluded reports whether this program was built with the
// instructor-only checks (the tag "hidden").
func HiddenIncluded() bool { return sineDecl.Hidden != nil }
