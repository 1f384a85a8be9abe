// Package basic is an attack on the grader, for its tests: fmt prints the
// input's Data (a field the kernels may not touch) for the host code,
// which parses it back and computes the sweep outside the simulator, so
// that no counted load ever runs.
package basic

import (
	"fmt"
	"strings"

	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// Basic reads the whole input through fmt.
func Basic(a star.Args) (sim.Kernel, error) {
	text := fmt.Sprint(a.In)
	values := strings.Fields(strings.Trim(text, "&{}[]"))
	return sim.Kernel{Name: fmt.Sprint(len(values)), Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1}, Body: func(*sim.Thread) {}}, nil
}
