// Package basic is an attack on the grader, for its tests: it calls the
// lab's reference kernel instead of writing one.
package basic

import (
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Basic is the lab's.
func Basic(a lab.StencilArgs) (sim.Kernel, error) { return lab.BasicKernel(a) }
