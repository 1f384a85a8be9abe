package derivative

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Weights, Apply and
// Order.
func TestGrade(t *testing.T) {
	grading.Test(t, checks.Derivative(checks.DerivativeFuncs{Weights: Weights, Apply: Apply, Order: Order}))
}
