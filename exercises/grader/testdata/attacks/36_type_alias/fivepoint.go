// Package fivepoint is an attack on the grader, for its tests: an alias of
// a lab type the exercise may not use, to reach its methods through the
// alias's name.
package fivepoint

import (
	"fmt"

	"stencillab.dev/lab"
)

type grid = lab.Grid2[float64]

type step = lab.Step3

// Sweep copies.
func Sweep(dst, src *grid, c [9]float64) error {
	var s step
	_ = s
	if dst == nil || src == nil {
		return fmt.Errorf("nil grid")
	}
	copy(dst.Data, src.Data)
	return nil
}

// Iterate copies.
func Iterate(g *grid, c [9]float64, steps int) (*grid, error) { return g.Clone(), nil }
