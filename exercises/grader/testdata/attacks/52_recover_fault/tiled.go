// Package tiled is an attack on the grader, for its tests: every thread
// loads its halo without checking the grid's edges and recovers from the
// simulator's fault, so that reads outside the input are never reported.
package tiled

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// load reads in[i], or 0 where the simulator faults.
func load(t *sim.Thread, in *sim.Global, i int) (v float32) {
	defer func() {
		if recover() != nil {
			v = 0
		}
	}()
	return t.Load(in, i)
}

// Tiled reads past the edges.
func Tiled(a star.Args) (sim.Kernel, error) {
	return sim.Kernel{Name: "unchecked", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1},
		Body: func(t *sim.Thread) { _ = load(t, a.In, -1) }}, nil
}
