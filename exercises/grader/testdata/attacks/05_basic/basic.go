// Package basic is an attack on the grader, for its tests: it calls the
// lab's reference kernel instead of writing one.
package basic

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Basic is the lab's.
func Basic(a star.Args) (sim.Kernel, error) {
	return lab.BasicKernel(lab.StencilArgs{In: a.In, Out: a.Out, NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile})
}
