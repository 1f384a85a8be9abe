package intensity

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Cost, Intensity and
// MaxTile.
func TestGrade(t *testing.T) {
	grading.Test(t, checks.Intensity(checks.IntensityFuncs{Cost: Cost, Intensity: Intensity, MaxTile: MaxTile}))
}
