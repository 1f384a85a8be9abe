package launch

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Configure, Validate
// and Report.
func TestGrade(t *testing.T) {
	grading.Test(t, checks.Launch(checks.LaunchFuncs{Configure: Configure, Validate: Validate, Report: Report}))
}
