package fivepoint

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Sweep and Iterate.
func TestGrade(t *testing.T) {
	grading.Test(t, checks.FivePoint(checks.FivePointFuncs{Sweep: Sweep, Iterate: Iterate}))
}
