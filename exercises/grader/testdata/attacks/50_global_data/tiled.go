// Package tiled is an attack on the grader, for its tests: a field of a
// value the checks pass in (the input's Data, reached through star.Args,
// which is allowed whole) bypasses the counted loads and stores.
package tiled

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// Tiled copies in the host code.
func Tiled(a star.Args) (sim.Kernel, error) {
	copy(a.Out.Data, a.In.Data)
	return sim.Kernel{Name: "nothing", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1}, Body: func(*sim.Thread) {}}, nil
}
