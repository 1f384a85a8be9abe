package checks

import (
	"fmt"
	"math"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// hiddenFindTheBug adds the instructor-only checks of exercise 9.
var hiddenFindTheBug func(submitted) []grading.Check

// tileCases returns the tiles the random cases of a step draw from: with a
// small default, the default itself (0) and tiles around it; with a large
// one, small tiles only, the default being checked on its own.
func (s kernelStep) tileCases() []int {
	if s.DefaultTile <= 8 {
		return []int{0, 4, 5, 6, 7}
	}
	return []int{4, 5, 6, 8, 10}
}

// randomCase draws a tile and an nz×ny×nx grid whose sides the output tile
// does not fit evenly.
func (s kernelStep) randomCase(t *grading.T, maxN int) *simCase {
	tile := pick(t, s.tileCases()...)
	T := tile
	if T == 0 {
		T = s.DefaultTile
	}
	return newSimCaseShape(t, sizeNot(t, 6, maxN, T), sizeNot(t, 6, maxN, T), sizeNot(t, 6, maxN, T), tile)
}

func (s kernelStep) values(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		if !sc.checkValues(t, s.fn, k, s.brokenVariants(sc)...) {
			return
		}
	}
}

func (s kernelStep) noHazards(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		if !s.randomCase(t, maxN).checkNoHazards(t, s.fn, k) {
			return
		}
	}
}

func (s kernelStep) launch(t *grading.T, k submitted, trials int) {
	for range trials {
		sc := s.randomCase(t, 60)
		if !sc.checkLaunch(t, s.fn, k, s.Kernel,
			"(n−2)/OUT_TILE_DIM + 1 blocks along each axis of n points, OUT_TILE_DIM = IN_TILE_DIM − 2, so that the output tiles cover the interior 1 … n−2",
			s.blockHint()) {
			return
		}
	}
}

func (s kernelStep) traffic(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		if !s.randomCase(t, maxN).checkTraffic(t, s.fn, k, s.Kernel, s.trafficHints()) {
			return
		}
	}
}

// defaultTileCase checks the kernel with a.Tile = 0 on a grid just larger
// than one output tile of the default size.
func (s kernelStep) defaultTileCase(t *grading.T, k submitted) {
	n := func() int { return s.DefaultTile + 1 + t.Rand().IntN(6) }
	sc := newSimCaseShape(t, n(), n(), n(), 0)
	sc.checkValues(t, s.fn, k, s.brokenVariants(sc)...)
}

// tiledChecks are the checks every tiled kernel shares.
func tiledChecks(s kernelStep, k submitted) []grading.Check {
	cs := []grading.Check{
		{ID: "values", Title: "random grids that the output tile does not fit evenly, seven distinct coefficients", Points: 3,
			Run: func(t *grading.T) { s.values(t, k, 4, 22) }},
		{ID: "barriers", Title: "no races and no reads of unloaded shared memory (the simulator's hazard checks)", Points: 2,
			Run: func(t *grading.T) { s.noHazards(t, k, 3, 20) }},
		{ID: "launch", Title: "the grid and block dimensions", Points: 1,
			Run: func(t *grading.T) { s.launch(t, k, 6) }},
		{ID: "traffic", Title: "global loads, stores, operations and shared memory per block, as the chapter's kernel", Points: 2,
			Run: func(t *grading.T) { s.traffic(t, k, 2, 18) }},
	}
	if !containsInt(s.tileCases(), 0) {
		g, _ := s.Launch(3, 3, 3, lab.Config{})
		cs = append(cs, grading.Check{ID: "default-tile",
			Title:  fmt.Sprintf("the default tile of %d: blocks of %s = %d threads", s.DefaultTile, g.Block.Shape(), g.Block.Size()),
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

// findTheBugID is the folder of exercise 9.
const findTheBugID = "09_find_the_bug"

// findTheBugKernel is the broken kernel of the study notes whose step
// exercise 9 is about: its fix is that step's kernel.
const findTheBugKernel = "coarsened_loop_closes_early"

// findTheBugStep is the kernel exercise whose kernel exercise 9 fixes.
func findTheBugStep() kernelStep {
	_, st, err := lab.LookupKernel(findTheBugKernel)
	if err != nil {
		panic(err) // the lab lost a kernel this package is built on
	}
	s, err := lookupKernelStep(st.Name)
	if err != nil {
		panic(err)
	}
	return s
}

// FindTheBug returns exercise 9: a coarsened kernel typed from Fig. 8.10
// and from a student's notes, with their two mistakes, to be found and
// fixed. It checks the kernel k.
func FindTheBug(k lab.StencilKernel) grading.Exercise {
	e := findTheBug(submitted{local: k})
	e.Serve = serveKernel(k)
	return e
}

func findTheBug(k submitted) grading.Exercise {
	s := findTheBugStep()
	e := grading.Exercise{
		ID:    findTheBugID,
		Title: fmt.Sprintf("Find the bugs: a kernel from the notes (Figs. %s, 8.11)", s.Figure),
		Files: []string{"fix.go"},
		Checks: []grading.Check{
			{ID: "every-plane", Title: "every output plane of every tile is written", Points: 3,
				Run: func(t *grading.T) { bugPlanes(t, s, k, 3, 20) }},
			{ID: "c3-c4", Title: "the y neighbours get the right coefficients (on inputs that do not vary in z)", Points: 3,
				Run: func(t *grading.T) { bugCoefficients(t, s, k, 3, 20) }},
			{ID: "values", Title: "the whole sweep on random grids, without hazards", Points: 2,
				Run: func(t *grading.T) { s.values(t, k, 3, 20) }},
		},
	}
	if hiddenFindTheBug != nil {
		e.Checks = append(e.Checks, hiddenFindTheBug(k)...)
	}
	return withPolicy(e)
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

func bugPlanes(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		what := sc.describe(s.fn)
		got, st, err := sc.run(k)
		if launchError(t, what, err, st) {
			return
		}
		missing, first := 0, -1
		planes := map[int]bool{}
		for idx, v := range got.Data {
			if math.IsNaN(float64(v)) {
				missing++
				if first < 0 {
					first = idx
				}
				planes[idx/(sc.NY*sc.NX)] = true
			}
		}
		if missing > 0 {
			assert.Fail(t, "planes not written", fmt.Sprintf(
				"%s: %d points in %d planes were never written, the first at %s — the z loop must run the barrier, the computation and the rotation of the planes once for every output plane i = iStart … iStart+OUT_TILE_DIM−1",
				what, missing, len(planes), sc.label()(first)))
			return
		}
	}
}

func bugCoefficients(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		// Inputs that depend on j and k only: every plane is the same, so
		// which plane stands in for i±1 does not matter here.
		g, h := make([]float32, sc.NY), make([]float32, sc.NX)
		for i := range g {
			g[i] = float32(2*t.Rand().Float64() - 1)
		}
		for i := range h {
			h[i] = float32(2*t.Rand().Float64() - 1)
		}
		sc.src.Fill(func(i, j, k int) float32 { return g[j] + h[k] })
		sc.want = sc.reference(t, sc.C)
		what := sc.describe(s.fn) + " on inputs that do not vary in z"
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
		if !(grading.Diff{What: what, Label: sc.label(), Tol: grading.Float32, Only: written}.Check(
			t, grading.Float64s(got.Data), grading.Float64s(sc.want.Data),
			grading.Variant{Hint: "c3 and c4 are swapped, as Fig. 8.10 prints them: c3 belongs to (i, j−1, k), inCurr_s[ty−1][tx], and c4 to (i, j+1, k), inCurr_s[ty+1][tx]", Values: swappedWant})) {
			return
		}
	}
}
