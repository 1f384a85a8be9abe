package checks

import (
	"fmt"
	"math"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// The checks of the exercise of a step whose block is free (the basic
// kernel of Fig. 8.6): one thread per grid point, in blocks of B×B×B
// threads.

// basicChecks returns the checks of the exercise of s on k.
func basicChecks(s kernelStep, k submitted) []grading.Check {
	g, _ := s.Launch(3, 3, 3, lab.Config{})
	return []grading.Check{
		{ID: "small", Title: fmt.Sprintf("one block of the default %s threads on a 6³ grid", g.Block.Shape()), Points: 1,
			Run: func(t *grading.T) { newSimCase(t, 6, 0).checkValues(t, s.fn, k) }},
		{ID: "values", Title: "random grids whose sides are not a multiple of the block edge, seven distinct coefficients", Points: 3,
			Run: func(t *grading.T) { basicValues(t, s, k, 4, 24) }},
		{ID: "launch", Title: "⌈n/B⌉ blocks of B×B×B threads along each axis of n points, B = Tile", Points: 2,
			Run: func(t *grading.T) { basicLaunch(t, s, k, 6) }},
		{ID: "traffic", Title: "7 loads, 1 store and 13 operations per interior point, as the chapter counts", Points: 2,
			Run: func(t *grading.T) { basicTraffic(t, s, k, 3) }},
	}
}

func basicTile(t *grading.T) int { return pick(t, 0, 3, 4, 5, 6, 7) }

// basicBlock is the block edge at a tile: the tile, or the step's default
// when it is 0.
func (s kernelStep) basicBlock(tile int) int {
	if tile == 0 {
		return s.DefaultTile
	}
	return tile
}

// basicCase draws an nz×ny×nx grid whose sides are not multiples of the
// block edge.
func (s kernelStep) basicCase(t *grading.T, tile, maxN int) *simCase {
	B := s.basicBlock(tile)
	return newSimCaseShape(t, sizeNot(t, 5, maxN, B), sizeNot(t, 5, maxN, B), sizeNot(t, 5, maxN, B), tile)
}

func basicValues(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc := s.basicCase(t, basicTile(t), maxN)
		if !sc.checkValues(t, s.fn, k, s.basicFarFaces(sc)) {
			return
		}
	}
}

// basicFarFaces names the pattern of a grid of ⌊n/B⌋ blocks: the points
// near the far faces get no thread.
func (s kernelStep) basicFarFaces(sc *simCase) grading.Variant {
	B := s.basicBlock(sc.Tile)
	cz, cy, cx := sc.NZ/B*B, sc.NY/B*B, sc.NX/B*B
	return grading.Variant{
		Hint: "the points past the last full block were never written: launch ⌈n/B⌉ = (n+B−1)/B blocks along each axis of n points, not n/B",
		Match: func(got []float64) bool {
			if cz >= sc.NZ-1 && cy >= sc.NY-1 && cx >= sc.NX-1 {
				return false
			}
			missing := false
			for idx, v := range got {
				i, j, k := idx/(sc.NY*sc.NX), idx/sc.NX%sc.NY, idx%sc.NX
				if i < 1 || j < 1 || k < 1 || i > sc.NZ-2 || j > sc.NY-2 || k > sc.NX-2 {
					continue
				}
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

func basicLaunch(t *grading.T, s kernelStep, k submitted, trials int) {
	for range trials {
		sc := s.basicCase(t, basicTile(t), 40)
		if !sc.checkLaunch(t, s.fn, k, s.Kernel,
			"one thread per grid point: ⌈n/B⌉ = (n+B−1)/B blocks along each axis of n points",
			s.blockHint()) {
			return
		}
	}
}

func basicTraffic(t *grading.T, s kernelStep, k submitted, trials int) {
	for range trials {
		sc := s.basicCase(t, basicTile(t), 20)
		if !sc.checkTraffic(t, s.fn, k, s.Kernel, s.trafficHints()) {
			return
		}
	}
}
