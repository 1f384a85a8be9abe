// Package registertiled is an attack on the grader, for its tests: a
// composite literal of sim.Global (allowed) sets its Data (not allowed)
// by a key, to make arrays the counted loads and stores do not see.
package registertiled

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// RegisterTiled makes a global array of its own.
func RegisterTiled(a star.Args) (sim.Kernel, error) {
	scratch := &sim.Global{Data: make([]float32, 8)}
	_ = scratch
	return sim.Kernel{Name: "nothing", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1}, Body: func(*sim.Thread) {}}, nil
}
