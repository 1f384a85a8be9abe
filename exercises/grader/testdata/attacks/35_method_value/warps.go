// Package warps is an attack on the grader, for its tests: it keeps a
// method value of the simulator in a variable and runs a kernel with it to
// measure what the exercise asks to work out.
package warps

import (
	"fmt"

	"stencillab.dev/lab/sim"
)

// Block measures.
func Block() (sim.Dim3, error) {
	var s sim.Simulator
	launch := s.Launch
	_, err := launch(sim.Kernel{})
	return sim.Dim3{X: 32, Y: 4, Z: 2}, err
}

// Pitch is a guess.
func Pitch(T int) (int, error) {
	if T != 4 && T != 8 && T != 16 && T != 32 {
		return 0, fmt.Errorf("no tile %d", T)
	}
	return T + 1, nil
}
