//go:build !hidden

// Package findthebug is an attack on the grader, for its tests: a build
// constraint, which a check that lists the package's files with other
// tags than the build would leave out while the build compiles it.
package findthebug

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// Coarsened runs nothing.
func Coarsened(a star.Args) (sim.Kernel, error) {
	return sim.Kernel{Name: "nothing", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1}, Body: func(*sim.Thread) {}}, nil
}
