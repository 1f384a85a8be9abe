// Package registertiled is an attack on the grader, for its tests: a
// thread starts a goroutine that keeps storing after the launch has
// returned, outside the simulator's rounds and counts.
package registertiled

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// RegisterTiled leaves a goroutine behind.
func RegisterTiled(a star.Args) (sim.Kernel, error) {
	return sim.Kernel{Name: "escape", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1},
		Body: func(t *sim.Thread) {
			go func() {
				for i := 0; ; i++ {
					t.Store(a.Out, i%(a.NZ*a.NY*a.NX), 0)
				}
			}()
		}}, nil
}
