// Package registertiled is an attack on the grader, for its tests: it
// ends the process with status 0 as soon as it is called.
package registertiled

import (
	"os"

	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// RegisterTiled exits.
func RegisterTiled(a star.Args) (sim.Kernel, error) {
	os.Exit(0)
	return sim.Kernel{}, nil
}
