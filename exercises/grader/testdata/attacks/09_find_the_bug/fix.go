// Package findthebug is an attack on the grader, for its tests: it takes
// the lab's own kernel from the registry instead of fixing the broken one.
package findthebug

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Coarsened is the lab's.
func Coarsened(a star.Args) (sim.Kernel, error) {
	k, _, err := lab.LookupKernel("coarsened")
	if err != nil {
		return sim.Kernel{}, err
	}
	return k(lab.StencilArgs{In: a.In, Out: a.Out, NZ: a.NZ, NY: a.NY, NX: a.NX, Tile: a.Tile})
}
