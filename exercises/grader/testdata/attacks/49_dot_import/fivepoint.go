// Package fivepoint is an attack on the grader, for its tests: a dot
// import of the lab, so that its names appear unqualified.
package fivepoint

import (
	"fmt"

	. "stencillab.dev/lab"
)

// Sweep copies.
func Sweep(dst, src *Grid2[float64], c [9]float64) error {
	if dst == nil || src == nil {
		return fmt.Errorf("nil grid")
	}
	copy(dst.Data, src.Data)
	return nil
}

// Iterate copies.
func Iterate(g *Grid2[float64], c [9]float64, steps int) (*Grid2[float64], error) {
	return g.Clone(), nil
}
