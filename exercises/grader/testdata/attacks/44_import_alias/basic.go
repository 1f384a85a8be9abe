// Package basic is an attack on the grader, for its tests: an allowed
// package imported under another name, to reach a symbol that is not
// allowed (the simulator's Simulator, which runs kernels) as if it were
// another package's.
package basic

import (
	"stencillab.dev/exercises/star"
	kernels "stencillab.dev/lab/sim"
)

// Basic runs a launch of its own.
func Basic(a star.Args) (kernels.Kernel, error) {
	var s kernels.Simulator
	_, err := s.Launch(kernels.Kernel{})
	return kernels.Kernel{}, err
}
