// Package findthebug is an attack on the grader, for its tests: it takes
// the lab's own kernel from the registry instead of fixing the broken one.
package findthebug

import (
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Coarsened is the lab's.
func Coarsened(a lab.StencilArgs) (sim.Kernel, error) {
	k, _, err := lab.LookupKernel("coarsened")
	if err != nil {
		return sim.Kernel{}, err
	}
	return k(a)
}
