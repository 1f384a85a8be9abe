package checks

import (
	"fmt"
	"math"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// Hidden checks of exercises 6 to 9, added when built with the tag
// "hidden".
var (
	hiddenTiled         func(lab.StencilKernel) []grading.Check
	hiddenCoarsened     func(lab.StencilKernel) []grading.Check
	hiddenRegisterTiled func(lab.StencilKernel) []grading.Check
	hiddenFindTheBug    func(lab.StencilKernel) []grading.Check
)

// tiledStep describes one of the tiled kernels for the shared checks.
type tiledStep struct {
	name         string            // the student's function, e.g. "Tiled"
	ref          lab.StencilKernel // the lab's kernel
	defaultTile  int
	tiles        []int // tiles the random cases draw from
	blockHint    string
	trafficHints map[string]string
}

var (
	tiledDesc = tiledStep{
		name: "Tiled", ref: lab.TiledKernel, defaultTile: lab.TiledDefaultTile, tiles: []int{0, 4, 5, 6, 7},
		blockHint: "one thread per input-tile element: IN_TILE_DIM³ threads, IN_TILE_DIM = a.Tile or lab.TiledDefaultTile (8)",
		trafficHints: map[string]string{
			"global loads":                    "each thread loads its own input-tile element, if it is in the grid, once; the neighbours come from shared memory",
			"shared memory per block (bytes)": "one IN_TILE_DIM³ shared array of float32, 4 bytes each",
		},
	}
	coarsenedDesc = tiledStep{
		name: "Coarsened", ref: lab.CoarsenedKernel, defaultTile: lab.CoarsenedDefaultTile, tiles: []int{4, 5, 6, 8, 10},
		blockHint: "a coarsened block is one IN_TILE_DIM×IN_TILE_DIM plane of threads (blockDim.z = 1), IN_TILE_DIM = a.Tile or lab.CoarsenedDefaultTile (32)",
		trafficHints: map[string]string{
			"global loads":                    "each thread loads its (j, k) column once: plane iStart−1, plane iStart, then plane i+1 in each step of the z loop, only where they are in the grid",
			"shared memory per block (bytes)": "three IN_TILE_DIM×IN_TILE_DIM planes: inPrev_s, inCurr_s and inNext_s",
		},
	}
	registerDesc = tiledStep{
		name: "RegisterTiled", ref: lab.RegisterTiledKernel, defaultTile: lab.CoarsenedDefaultTile, tiles: []int{4, 5, 6, 8, 10},
		blockHint: "one IN_TILE_DIM×IN_TILE_DIM plane of threads, as the coarsened kernel",
		trafficHints: map[string]string{
			"global loads":                    "each thread loads its (j, k) column once, as the coarsened kernel",
			"shared memory per block (bytes)": "only the current plane, inCurr_s, is shared; inPrev, inCurr and inNext are registers (local variables of Body)",
		},
	}
)

// randomCase draws a tile and a side N that the output tile does not fit
// evenly.
func (s tiledStep) randomCase(t *grading.T, maxN int) *simCase {
	tile := pick(t, s.tiles...)
	T := tile
	if T == 0 {
		T = s.defaultTile
	}
	return newSimCase(t, sizeNot(t, 6, maxN, T), tile)
}

func (s tiledStep) values(t *grading.T, k lab.StencilKernel, trials, maxN int, extra func(*simCase) []grading.Variant) {
	for range trials {
		sc := s.randomCase(t, maxN)
		var vs []grading.Variant
		if extra != nil {
			vs = extra(sc)
		}
		if !sc.checkValues(t, s.name, k, vs...) {
			return
		}
	}
}

func (s tiledStep) noHazards(t *grading.T, k lab.StencilKernel, trials, maxN int) {
	for range trials {
		if !s.randomCase(t, maxN).checkNoHazards(t, s.name, k) {
			return
		}
	}
}

func (s tiledStep) launch(t *grading.T, k lab.StencilKernel, trials int) {
	for range trials {
		sc := s.randomCase(t, 60)
		if !sc.checkLaunch(t, s.name, k, s.ref,
			"(N−2)/OUT_TILE_DIM + 1 blocks along each axis, OUT_TILE_DIM = IN_TILE_DIM − 2, so that the output tiles cover the interior 1 … N−2",
			s.blockHint) {
			return
		}
	}
}

func (s tiledStep) traffic(t *grading.T, k lab.StencilKernel, trials, maxN int) {
	for range trials {
		if !s.randomCase(t, maxN).checkTraffic(t, s.name, k, s.ref, s.trafficHints) {
			return
		}
	}
}

// defaultTileCase checks the kernel with a.Tile = 0 on a grid just larger
// than one output tile of the default size.
func (s tiledStep) defaultTileCase(t *grading.T, k lab.StencilKernel, extra func(*simCase) []grading.Variant) {
	N := s.defaultTile + 1 + t.Rand().IntN(6)
	sc := newSimCase(t, N, 0)
	var vs []grading.Variant
	if extra != nil {
		vs = extra(sc)
	}
	sc.checkValues(t, s.name, k, vs...)
}

// tiledChecks are the checks every tiled kernel shares.
func tiledChecks(s tiledStep, k lab.StencilKernel, extra func(*simCase) []grading.Variant) []grading.Check {
	return []grading.Check{
		{ID: "values", Title: "random grids that the output tile does not fit evenly, seven distinct coefficients", Points: 3,
			Run: func(t *grading.T) { s.values(t, k, 4, 22, extra) }},
		{ID: "barriers", Title: "no races and no reads of unloaded shared memory (the simulator's hazard checks)", Points: 2,
			Run: func(t *grading.T) { s.noHazards(t, k, 3, 20) }},
		{ID: "launch", Title: "the grid and block dimensions", Points: 1,
			Run: func(t *grading.T) { s.launch(t, k, 6) }},
		{ID: "traffic", Title: "global loads, stores, operations and shared memory per block, as the chapter's kernel", Points: 2,
			Run: func(t *grading.T) { s.traffic(t, k, 2, 18) }},
	}
}

// Tiled returns exercise 6, shared-memory tiling on the simulator (Fig.
// 8.8), checking the kernel k.
func Tiled(k lab.StencilKernel) grading.Exercise {
	e := grading.Exercise{
		ID:     "06_tiled",
		Title:  "Shared-memory tiling on the simulator (Fig. 8.8)",
		Files:  []string{"tiled.go"},
		Checks: tiledChecks(tiledDesc, k, nil),
	}
	if hiddenTiled != nil {
		e.Checks = append(e.Checks, hiddenTiled(k)...)
	}
	return e
}

// loopClosesEarly is the result of the coarsened kernel whose z loop
// closes before the computation (the day-22 study notes), alone and
// together with the c3/c4 swap of Fig. 8.10.
func loopClosesEarly(sc *simCase) []grading.Variant {
	early, _, _ := sc.run(lab.BrokenCoarsenedLoopClosesEarly)
	both := *sc
	both.C = swapped(sc.C, 3, 4)
	bothGot, _, _ := both.run(lab.BrokenCoarsenedLoopClosesEarly)
	return []grading.Variant{
		{Hint: "only plane iStart of each output tile is computed, with the wrong next plane: the z loop closes right after loading inNext_s, but it must enclose the barrier, the computation and the rotation of the planes",
			Values: grading.Float64s(early.Data)},
		{Hint: "this is the kernel of Fig. 8.10 and the notes with both of its mistakes: the z loop that closes early and the swapped c3 and c4",
			Values: grading.Float64s(bothGot.Data)},
	}
}

// Coarsened returns exercise 7, thread coarsening in z (Fig. 8.10),
// checking the kernel k.
func Coarsened(k lab.StencilKernel) grading.Exercise {
	e := grading.Exercise{
		ID:    "07_coarsened",
		Title: "Thread coarsening in z on the simulator (Fig. 8.10)",
		Files: []string{"coarsened.go"},
		Checks: append(tiledChecks(coarsenedDesc, k, loopClosesEarly),
			grading.Check{ID: "default-tile", Title: "the default tile of 32: blocks of 32×32 = 1024 threads", Points: 1,
				Run: func(t *grading.T) { coarsenedDesc.defaultTileCase(t, k, loopClosesEarly) }}),
	}
	if hiddenCoarsened != nil {
		e.Checks = append(e.Checks, hiddenCoarsened(k)...)
	}
	return e
}

// RegisterTiled returns exercise 8, register tiling (Fig. 8.12), checking
// the kernel k.
func RegisterTiled(k lab.StencilKernel) grading.Exercise {
	e := grading.Exercise{
		ID:    "08_register_tiled",
		Title: "Register tiling on the simulator (Fig. 8.12)",
		Files: []string{"register_tiled.go"},
		Checks: append(tiledChecks(registerDesc, k, nil),
			grading.Check{ID: "default-tile", Title: "the default tile of 32: blocks of 32×32 = 1024 threads", Points: 1,
				Run: func(t *grading.T) { registerDesc.defaultTileCase(t, k, nil) }}),
	}
	if hiddenRegisterTiled != nil {
		e.Checks = append(e.Checks, hiddenRegisterTiled(k)...)
	}
	return e
}

// FindTheBug returns exercise 9: a coarsened kernel typed from Fig. 8.10
// and from a student's notes, with their two mistakes, to be found and
// fixed. It checks the kernel k.
func FindTheBug(k lab.StencilKernel) grading.Exercise {
	e := grading.Exercise{
		ID:    "09_find_the_bug",
		Title: "Find the bugs: a coarsened kernel from the notes (Figs. 8.10, 8.11)",
		Files: []string{"fix.go"},
		Checks: []grading.Check{
			{ID: "every-plane", Title: "every output plane of every tile is written", Points: 3,
				Run: func(t *grading.T) { bugPlanes(t, k, 3, 20) }},
			{ID: "c3-c4", Title: "the y neighbours get the right coefficients (on inputs that do not vary in z)", Points: 3,
				Run: func(t *grading.T) { bugCoefficients(t, k, 3, 20) }},
			{ID: "values", Title: "the whole sweep on random grids, without hazards", Points: 2,
				Run: func(t *grading.T) { coarsenedDesc.values(t, k, 3, 20, loopClosesEarly) }},
		},
	}
	if hiddenFindTheBug != nil {
		e.Checks = append(e.Checks, hiddenFindTheBug(k)...)
	}
	return e
}

// countIf counts the indices below n for which f holds.
func countIf(n int, f func(int) bool) int {
	c := 0
	for i := range n {
		if f(i) {
			c++
		}
	}
	return c
}

func bugPlanes(t *grading.T, k lab.StencilKernel, trials, maxN int) {
	for range trials {
		sc := coarsenedDesc.randomCase(t, maxN)
		what := sc.describe("Coarsened")
		got, st, err := sc.run(k)
		if launchError(t, what, err, st) {
			return
		}
		N := sc.N
		missing, first := 0, -1
		planes := map[int]bool{}
		for idx, v := range got.Data {
			if math.IsNaN(float64(v)) {
				missing++
				if first < 0 {
					first = idx
				}
				planes[idx/(N*N)] = true
			}
		}
		if missing > 0 {
			assert.Fail(t, "planes not written", fmt.Sprintf(
				"%s: %d points in %d planes were never written, the first at %s — the z loop must run the barrier, the computation and the rotation of the planes once for every output plane i = iStart … iStart+OUT_TILE_DIM−1",
				what, missing, len(planes), grading.Label3(N, N)(first)))
			return
		}
	}
}

func bugCoefficients(t *grading.T, k lab.StencilKernel, trials, maxN int) {
	for range trials {
		sc := coarsenedDesc.randomCase(t, maxN)
		// Inputs that depend on j and k only: every plane is the same, so
		// which plane stands in for i±1 does not matter here.
		N := sc.N
		g, h := make([]float32, N), make([]float32, N)
		for i := range g {
			g[i], h[i] = float32(2*t.Rand().Float64()-1), float32(2*t.Rand().Float64()-1)
		}
		sc.src.Fill(func(i, j, k int) float32 { return g[j] + h[k] })
		sc.want = sc.reference(t, sc.C)
		what := sc.describe("Coarsened") + " on inputs that do not vary in z"
		got, st, err := sc.run(k)
		if launchError(t, what, err, st) {
			return
		}
		written := func(idx int) bool { return !math.IsNaN(float64(got.Data[idx])) }
		if sc.want.Interior() == countIf(len(got.Data), func(idx int) bool { return !written(idx) }) {
			assert.Fail(t, "nothing written", what+": no interior point was written")
			return
		}
		swappedWant := grading.Float64s(sc.reference(t, swapped(sc.C, 3, 4)).Data)
		if !(grading.Diff{What: what, Label: grading.Label3(N, N), Tol: grading.Float32, Only: written}.Check(
			t, grading.Float64s(got.Data), grading.Float64s(sc.want.Data),
			grading.Variant{Hint: "c3 and c4 are swapped, as Fig. 8.10 prints them: c3 belongs to (i, j−1, k), inCurr_s[ty−1][tx], and c4 to (i, j+1, k), inCurr_s[ty+1][tx]", Values: swappedWant})) {
			return
		}
	}
}
