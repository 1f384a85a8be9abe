package checks

import (
	"math"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// hiddenBasic adds the instructor-only checks of exercise 5.
var hiddenBasic func(lab.StencilKernel) []grading.Check

// Basic returns exercise 5, the basic kernel of Fig. 8.6 on the simulator,
// checking the kernel k.
func Basic(k lab.StencilKernel) grading.Exercise {
	e := grading.Exercise{
		ID:    "05_basic",
		Title: "The basic 3D seven-point kernel on the simulator (Fig. 8.6)",
		Files: []string{"basic.go"},
		Checks: []grading.Check{
			{ID: "small", Title: "one block of the default 8×8×8 threads on a 6³ grid", Points: 1,
				Run: func(t *grading.T) { newSimCase(t, 6, 0).checkValues(t, "Basic", k) }},
			{ID: "values", Title: "random grids whose side is not a multiple of the block edge, seven distinct coefficients", Points: 3,
				Run: func(t *grading.T) { basicValues(t, k, 4, 24) }},
			{ID: "launch", Title: "⌈N/B⌉ blocks of B×B×B threads along each axis, B = Tile", Points: 2,
				Run: func(t *grading.T) { basicLaunch(t, k, 6) }},
			{ID: "traffic", Title: "7 loads, 1 store and 13 operations per interior point, as the chapter counts", Points: 2,
				Run: func(t *grading.T) { basicTraffic(t, k, 3) }},
		},
	}
	if hiddenBasic != nil {
		e.Checks = append(e.Checks, hiddenBasic(k)...)
	}
	return e
}

func basicTile(t *grading.T) int { return pick(t, 0, 3, 4, 5, 6, 7) }

// basicBlock is the block edge of the basic kernel at a tile: the tile, or
// lab.BasicBlockDim when it is 0.
func basicBlock(tile int) int {
	if tile == 0 {
		return lab.BasicBlockDim
	}
	return tile
}

func basicSize(t *grading.T, tile, maxN int) int { return sizeNot(t, 5, maxN, basicBlock(tile)) }

func basicValues(t *grading.T, k lab.StencilKernel, trials, maxN int) {
	for range trials {
		tile := basicTile(t)
		sc := newSimCase(t, basicSize(t, tile, maxN), tile)
		if !sc.checkValues(t, "Basic", k, basicFarFaces(sc)) {
			return
		}
	}
}

// basicFarFaces names the pattern of a grid of ⌊N/B⌋ blocks: the points
// near the far faces get no thread.
func basicFarFaces(sc *simCase) grading.Variant {
	B := basicBlock(sc.Tile)
	covered := sc.N / B * B
	N := sc.N
	return grading.Variant{
		Hint: "the points past the last full block were never written: launch ⌈N/B⌉ = (N+B−1)/B blocks along each axis, not N/B",
		Match: func(got []float64) bool {
			if covered >= N-1 {
				return false
			}
			missing := false
			for idx, v := range got {
				i, j, k := idx/(N*N), idx/N%N, idx%N
				if i < 1 || j < 1 || k < 1 || i > N-2 || j > N-2 || k > N-2 {
					continue
				}
				far := i >= covered || j >= covered || k >= covered
				if far != math.IsNaN(v) {
					return false
				}
				missing = missing || far
			}
			return missing
		},
	}
}

func basicLaunch(t *grading.T, k lab.StencilKernel, trials int) {
	for range trials {
		tile := basicTile(t)
		sc := newSimCase(t, basicSize(t, tile, 40), tile)
		if !sc.checkLaunch(t, "Basic", k, lab.BasicKernel,
			"one thread per grid point: ⌈N/B⌉ = (N+B−1)/B blocks along each axis",
			"blocks of B×B×B threads with B = a.Tile, or lab.BasicBlockDim (8) when a.Tile is 0") {
			return
		}
	}
}

func basicTraffic(t *grading.T, k lab.StencilKernel, trials int) {
	for range trials {
		tile := basicTile(t)
		sc := newSimCase(t, basicSize(t, tile, 20), tile)
		if !sc.checkTraffic(t, "Basic", k, lab.BasicKernel, map[string]string{
			"global loads":                    "each interior point loads its 7 inputs with t.Load, once each; boundary threads load nothing",
			"shared memory per block (bytes)": "the basic kernel uses no shared memory",
		}) {
			return
		}
	}
}
