// Package coarsened is an attack on the grader, for its tests: a struct
// of the file's own with the fields of sim.Global, whose Data the kernels
// may not touch, opens the input by a pointer conversion and reads it
// without the counted loads.
package coarsened

import (
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

type open struct {
	Name string
	Data []float32
}

// Coarsened copies the input straight into the output.
func Coarsened(a star.Args) (sim.Kernel, error) {
	in, out := (*open)(a.In), (*open)(a.Out)
	copy(out.Data, in.Data)
	return sim.Kernel{Name: "copy", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 1, Y: 1, Z: 1}, Body: func(*sim.Thread) {}}, nil
}
