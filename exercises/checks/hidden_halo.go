//go:build hidden

package checks

import "stencillab.dev/exercises/grading"

// The instructor-only checks of exercise 12: slabs of uneven sizes, a
// single rank with no neighbour, and many ranks at the smallest slab a
// halo allows. Built with the tag "hidden", which the grader sets; the
// student release leaves this file out.

func init() {
	haloDecl.Hidden = func(fn haloFuncs) []grading.Check {
		return []grading.Check{
			{ID: "hidden-uneven", Title: "uneven slabs (nz − 2 not a multiple of the ranks) on 2 to 8 ranks, h = 1 to 4, and a single rank", Points: 1, Hidden: true,
				Run: func(t *grading.T) { haloUneven(t, fn, 12) }},
			{ID: "hidden-minimum", Title: "9 to 16 ranks, each owning exactly h planes: every halo is a neighbour's whole slab", Points: 1, Hidden: true,
				Run: func(t *grading.T) { haloMinimum(t, fn, 6) }},
		}
	}
}

// haloUneven runs random splits whose slabs differ in size, then one rank
// alone, whose exchange sends and receives nothing.
func haloUneven(t *grading.T, fn haloFuncs, trials int) {
	for range trials {
		ranks, h := 2+t.Rand().IntN(7), 1+t.Rand().IntN(4)
		nz, ny, nx := haloSides(t, ranks, h, 3*ranks, 13)
		for (nz-2)%ranks == 0 {
			nz++
		}
		g := newHaloGrid(t, nz, ny, nx, ranks, h)
		r, what := g.run(t, fn)
		g.checkPlanes(t, r, what)
		g.checkMessages(t, r, what)
		if t.Failed() {
			return
		}
	}
	nz, ny, nx := haloSides(t, 1, 1, 10, 13)
	g := newHaloGrid(t, nz, ny, nx, 1, 1+t.Rand().IntN(3))
	r, what := g.run(t, fn)
	if len(r.Sent)+len(r.Received) > 0 {
		t.Fatalf("%s: a single rank has no neighbour, yet it sent or received %d messages", what, len(r.Sent)+len(r.Received))
	}
	g.checkPlanes(t, r, what)
}

// haloMinimum runs 9 to 16 ranks, each owning exactly h planes.
func haloMinimum(t *grading.T, fn haloFuncs, trials int) {
	for range trials {
		ranks, h := 9+t.Rand().IntN(8), 1+t.Rand().IntN(4)
		_, ny, nx := haloSides(t, ranks, h, 0, 7)
		g := newHaloGrid(t, 2+ranks*h, ny, nx, ranks, h)
		r, what := g.run(t, fn)
		g.checkPlanes(t, r, what)
		g.checkMessages(t, r, what)
		if t.Failed() {
			return
		}
	}
}
