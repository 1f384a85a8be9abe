// Package intensity is an attack on the grader, for its tests: an init
// function sets the checks' exported tolerances to 1e30, and the functions
// return wrong answers that those tolerances would accept.
package intensity

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

func init() {
	grading.Float64 = grading.Tol{Abs: 1e30, Rel: 1e30}
	grading.Float32 = grading.Tol{Abs: 1e30, Rel: 1e30}
}

// Cost is wrong.
func Cost(kernel string, T int) (lab.BlockCost, error) { return lab.BlockCost{}, nil }

// Intensity is wrong.
func Intensity(kernel string, T int) (float64, error) { return 1, nil }

// MaxTile is wrong.
func MaxTile(kernel string, lim sim.Limits) (int, string, error) { return 3, "threads", nil }
