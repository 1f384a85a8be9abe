// Package intensity is an attack on the grader, for its tests: the lab's
// BlockCost computes its own intensity (OpPerByte, not allowed); a
// generic function whose constraint has the method calls it.
package intensity

import (
	"fmt"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

func ratio[T interface{ OpPerByte() float64 }](c T) float64 { return c.OpPerByte() }

// Cost is left out.
func Cost(kernel string, T int) (lab.BlockCost, error) {
	return lab.BlockCost{Outputs: T, Ops: 25 * T, Loads: 13 * T}, nil
}

// Intensity asks the cost for it.
func Intensity(kernel string, T int) (float64, error) {
	c, err := Cost(kernel, T)
	return ratio(c), err
}

// MaxTile is left out.
func MaxTile(kernel string, lim sim.Limits) (int, string, error) {
	return 0, "", fmt.Errorf("no tile for %s", kernel)
}
