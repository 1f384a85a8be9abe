package checks

import "stencillab.dev/exercises/grading"

// All returns every exercise in teaching order (by folder: the folders'
// numbers are the order), with their checks but without student code:
// running a check of these reports "not implemented yet". Each is made
// from its declaration (Decl) on its stubs. The grader uses it to list
// the exercises and their points.
func All() []grading.Exercise { return declaredStubs() }

// HiddenIncluded reports whether this program was built with the
// instructor-only checks (the tag "hidden").
func HiddenIncluded() bool { return sineDecl.Hidden != nil }
