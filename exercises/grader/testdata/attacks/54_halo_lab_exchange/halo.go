// Package exchange is an attack on the grader, for its tests: it hands the
// lab's own halo exchange in as the answer, through a function value so
// that no call names it.
package exchange

import "stencillab.dev/lab/halo"

var lab = halo.Exchange[[]float32]

// Exchange is the lab's.
func Exchange(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error {
	return lab(c, local, p, nx)
}
