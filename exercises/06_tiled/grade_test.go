package tiled

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Tiled.
func TestGrade(t *testing.T) { grading.Test(t, checks.KernelExercise("tiled", Tiled)) }
