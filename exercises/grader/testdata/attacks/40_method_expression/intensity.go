// Package intensity is an attack on the grader, for its tests: a method
// expression of the lab's BlockCost, kept in a variable, computes the
// intensity (OpPerByte, not allowed).
package intensity

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

var opPerByte = lab.BlockCost.OpPerByte

// Cost is left out.
func Cost(kernel string, T int) (lab.BlockCost, error) {
	return lab.BlockCost{Outputs: T, Ops: 25 * T, Loads: 13 * T}, nil
}

// Intensity asks the embedded cost.
func Intensity(kernel string, T int) (float64, error) {
	c, err := Cost(kernel, T)
	return opPerByte(c), err
}

// MaxTile is left out.
func MaxTile(kernel string, lim sim.Limits) (int, string, error) {
	return 0, "", fmt.Errorf("no tile for %s", kernel)
}
