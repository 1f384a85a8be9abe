package basic

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Basic.
func TestGrade(t *testing.T) { grading.Test(t, checks.KernelExercise("basic", Basic)) }
