package warps

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Block and Pitch.
func TestGrade(t *testing.T) {
	grading.Test(t, checks.Warps(checks.WarpsFuncs{Block: Block, Pitch: Pitch}))
}
