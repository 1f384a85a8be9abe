package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
)

// The checks the kernel exercises 05 to 08 share, and those of the tiled
// kernels (06 to 08): values, hazards, launch and traffic on random grids
// whose sides the tile does not fit evenly.

// side returns a random side in [lo, hi] that the tile T does not fit
// evenly: not a multiple of T and, for a tiled kernel, an interior n−4
// that is not a multiple of OUT_TILE_DIM (unless the range is too narrow
// to avoid them).
func (s kernelStep) side(t *grading.T, lo, hi, T int) int {
	out := s.out(T)
	for try := 0; ; try++ {
		n := lo + t.Rand().IntN(hi-lo+1)
		if try > 1000 || (n%T != 0 && (s.kind == basicKind || out < 2 || (n-2*star.Radius)%out != 0)) {
			return n
		}
	}
}

// randomCase draws a tile and an nz×ny×nx grid, each side in [5, maxN],
// that the tile does not fit evenly.
func (s kernelStep) randomCase(t *grading.T, maxN int) *simCase {
	tile := pick(t, s.tiles...)
	T := s.tileOf(tile)
	return newSimCaseShape(t, s.side(t, 5, maxN, T), s.side(t, 5, maxN, T), s.side(t, 5, maxN, T), tile)
}

// variants are the mistakes particular to the exercise.
func (s kernelStep) variants(sc *simCase) []grading.Variant {
	if s.kind == basicKind {
		return []grading.Variant{s.basicFarFaces(sc)}
	}
	return nil
}

// small checks the smallest grids: N = 5 (one output point), N = 6, and
// an odd shape with one side of 5.
func (s kernelStep) small(t *grading.T, k submitted) {
	odd := func() int { return 5 + 2*t.Rand().IntN(6) }
	for _, sc := range []*simCase{
		newSimCase(t, 5, pick(t, s.tiles...)),
		newSimCase(t, 6, pick(t, s.tiles...)),
		newSimCaseShape(t, odd(), 5, odd(), pick(t, s.tiles...)),
	} {
		if !sc.checkValues(t, s.fn, k, s.variants(sc)...) {
			return
		}
	}
}

func (s kernelStep) values(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		if !sc.checkValues(t, s.fn, k, s.variants(sc)...) {
			return
		}
	}
}

// noHazards checks runs without hazards, whose values are right and
// whose counters show the technique: a kernel without shared memory or
// barriers has no hazard to avoid and earns nothing here.
func (s kernelStep) noHazards(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		_, st, ok := sc.verified(t, s.fn, k)
		if !ok || !s.gate(t, k, sc, st) {
			return
		}
	}
}

func (s kernelStep) launch(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		if !s.checkLaunch(t, k, sc, s.variants(sc)...) {
			return
		}
	}
}

func (s kernelStep) traffic(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		if !s.checkTraffic(t, k, sc, s.variants(sc)...) {
			return
		}
	}
}

// defaultTileCase checks the kernel with a.Tile = 0 on a grid just larger
// than one output tile of the default size, its launch and its traffic
// included.
func (s kernelStep) defaultTileCase(t *grading.T, k submitted) {
	T := s.defaultTile
	n := func() int { return s.out(T) + 2*star.Radius + 1 + t.Rand().IntN(4) }
	sc := newSimCaseShape(t, n(), n(), n(), 0)
	if s.checkLaunch(t, k, sc) {
		s.checkTraffic(t, k, sc)
	}
}

// tiledChecks are the checks of the tiled kernels (06 to 08).
func tiledChecks(s kernelStep, k submitted) []grading.Check {
	cs := []grading.Check{
		{ID: "small", Title: "N = 5 (one output point) and 6, and an odd shape with a side of 5", Points: 1,
			Run: func(t *grading.T) { s.small(t, k) }},
		{ID: "values", Title: "random grids that the output tile does not fit evenly, thirteen distinct coefficients", Points: 2,
			Run: func(t *grading.T) { s.values(t, k, 4, 20) }},
		{ID: "method", Title: s.methodTitle(), Points: 3,
			Run: func(t *grading.T) { s.method(t, k, 3, 18) }},
		{ID: "barriers", Title: "no races and no reads of unloaded shared memory (the simulator's hazard checks), on a run whose values are right and whose counters show the technique", Points: 2,
			Run: func(t *grading.T) { s.noHazards(t, k, 3, 18) }},
		{ID: "launch", Title: "the grid and block dimensions, on a run whose values are right and whose counters show the technique", Points: 1,
			Run: func(t *grading.T) { s.launch(t, k, 4, 30) }},
		{ID: "traffic", Title: "global loads and stores, operations and shared memory per block, on a run whose values are right and whose counters show the technique", Points: 2,
			Run: func(t *grading.T) { s.traffic(t, k, 2, 18) }},
	}
	if !containsInt(s.tiles, 0) {
		cs = append(cs, grading.Check{ID: "default-tile",
			Title:  fmt.Sprintf("the default tile of %d: blocks of %d×%d threads, launch and traffic included", s.defaultTile, s.defaultTile, s.defaultTile),
			Points: 1, Run: func(t *grading.T) { s.defaultTileCase(t, k) }})
	}
	return cs
}

func containsInt(vs []int, v int) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
