// Package intensity is an attack on the grader, for its tests: the lab's
// BlockCost computes its own intensity (OpPerByte, not allowed); an
// interface of the file's own calls it without naming it.
package intensity

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

type ratio interface{ OpPerByte() float64 }

// Cost is left out.
func Cost(kernel string, T int) (lab.BlockCost, error) {
	return lab.BlockCost{Outputs: T, Ops: 25 * T, Loads: 13 * T}, nil
}

// Intensity asks the cost for it.
func Intensity(kernel string, T int) (float64, error) {
	c, err := Cost(kernel, T)
	var r ratio = c
	return r.OpPerByte(), err
}

// MaxTile is left out.
func MaxTile(kernel string, lim sim.Limits) (int, string, error) {
	return 0, "", fmt.Errorf("no tile for %s", kernel)
}
