// Package basic is an attack on the grader, for its tests: it takes the
// lab's basic kernel from the step registry (a listing function, then a
// field of what it returns) to run in its place.
package basic

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Basic hands the work to the first registered step's kernel.
func Basic(a star.Args) (sim.Kernel, error) {
	k := lab.Steps3()[0].Kernel
	_ = k
	return sim.Kernel{}, nil
}
