package checks

import (
	"fmt"
	"math"

	"stencillab.dev/exercises/grading"
)

// The checks of the basic thirteen-point kernel (exercise 05): one thread
// per grid point, in blocks of B×B×B threads.

// basicChecks returns the checks of the basic kernel's exercise on k.
func basicChecks(s kernelStep, k submitted) []grading.Check {
	B := s.defaultTile
	return []grading.Check{
		{ID: "small", Title: fmt.Sprintf("N = 5 and 6 (one block of the default %d×%d×%d threads) and an odd shape", B, B, B), Points: 1,
			Run: func(t *grading.T) { s.small(t, k) }},
		{ID: "values", Title: "random grids whose sides are not a multiple of the block edge, thirteen distinct coefficients", Points: 3,
			Run: func(t *grading.T) { s.values(t, k, 4, 24) }},
		{ID: "method", Title: s.methodTitle(), Points: 3,
			Run: func(t *grading.T) { s.method(t, k, 3, 18) }},
		{ID: "launch", Title: "⌈n/B⌉ blocks of B×B×B threads along each axis of n points, B = Tile, on a run whose values are right and whose counters show the technique", Points: 2,
			Run: func(t *grading.T) { s.launch(t, k, 4, 30) }},
		{ID: "traffic", Title: "13 loads, 1 store and 25 operations per interior point, on a run whose values are right and whose counters show the technique", Points: 2,
			Run: func(t *grading.T) { s.traffic(t, k, 3, 18) }},
	}
}

// basicFarFaces names the pattern of a grid of ⌊n/B⌋ blocks: the points
// near the far faces get no thread.
func (s kernelStep) basicFarFaces(sc *simCase) grading.Variant {
	B := s.tileOf(sc.Tile)
	cz, cy, cx := sc.NZ/B*B, sc.NY/B*B, sc.NX/B*B
	interior := sc.interior()
	return grading.Variant{
		Hint: "the points past the last full block were never written: launch ⌈n/B⌉ = (n+B−1)/B blocks along each axis of n points, not n/B",
		Match: func(got []float64) bool {
			missing := false
			for idx, v := range got {
				if !interior(idx) {
					continue
				}
				i, j, k := idx/(sc.NY*sc.NX), idx/sc.NX%sc.NY, idx%sc.NX
				far := i >= cz || j >= cy || k >= cx
				if far != math.IsNaN(v) {
					return false
				}
				missing = missing || far
			}
			return missing
		},
	}
}
