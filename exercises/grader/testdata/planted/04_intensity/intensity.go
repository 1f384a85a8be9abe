// Package intensity is a planted solution of exercise 4 whose package
// initialisation never ends, so that no check ever starts, for the
// grader's tests.
package intensity

import (
	"time"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

var started = func() bool {
	for {
		time.Sleep(time.Second)
	}
}()

// Cost returns nothing useful.
func Cost(kernel string, T int) (lab.BlockCost, error) { return lab.BlockCost{}, nil }

// Intensity returns nothing useful.
func Intensity(kernel string, T int) (float64, error) { return 0, nil }

// MaxTile returns nothing useful.
func MaxTile(kernel string, lim sim.Limits) (int, string, error) { return 0, "", nil }
