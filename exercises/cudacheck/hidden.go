//go:build hidden

package cudacheck

import (
	"fmt"
	"math"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// The instructor-only GPU checks, built with the tag "hidden"; the student
// release leaves this file out.

func init() {
	hiddenChecks = func(s Spec) []hiddenCheck {
		switch s.Kind {
		case FindBug:
			return []hiddenCheck{{id: "index-64bit", title: fmt.Sprintf("N = %d, inputs that vary along x only: the points of a plane whose indices pass 2³² are right where those of the planes below are (in at least half of the columns)", IndexN), points: 1, run: checkIndex64}}
		default:
			pts := 2
			if s.method() != nil {
				pts = 1 // the correctness part stays at most half
			}
			return []hiddenCheck{{id: "hidden-values", title: "larger grids, sides up to 150", points: pts,
				run: func(t *grading.T, e *Env) { valuesOn(t, e, 0, 2, 70, 150) }}}
		}
	}
}

// IndexN is the side of the grid of the 64-bit index check: N³ = 4.9·10⁹
// points, past 2³² (N ≈ 1625), in fp32 19.7 GB a grid.
const IndexN = 1700

// The planes checkIndex64 compares: the low ones have every index below
// 2³² (1260·N² < 2³²), the high one every index past it (1486·N² < 2³² <
// 1487·N²). All are multiples of 420, the least common multiple of the
// output tiles of 28 (IN_TILE_DIM = 32) and 30 (a halo of one): planes
// that a kernel whose z loop closes early still writes.
var (
	lowPlanes  = []int{420, 840, 1260}
	highPlane  = 1680
	indexPlane = append(append([]int(nil), lowPlanes...), highPlane)
)

// checkIndex64 sweeps an N = 1700 grid whose input varies along x only
// (so that a swap of coefficients, a z loop that closes early or a race
// between planes does not show) and compares, column by column, the
// highest plane, whose indices are past 2³², with the low planes, whose
// indices are not: it fails when most columns that are right in every low
// plane are unwritten or wrong in the high one.
func checkIndex64(t *grading.T, e *Env) {
	n := IndexN
	points := n * n * n
	need := 2 * uint64(points) * 4
	h, _, err := e.do(request{Op: opMemInfo}, -1)
	e.must(t, err, "device memory")
	free := h.Free
	if free < need+need/20 {
		t.Fatalf("could not be run, so it scores 0: it needs %.1f GB of GPU memory and %.1f GB are free (%.1f GB were free before %s was compiled and loaded)",
			float64(need)/1e9, float64(free)/1e9, float64(e.FreeBefore)/1e9, e.Spec.File)
	}
	c := randomCoeffs(t)
	seed := t.Rand().Uint64()
	e.must(t, e.Kernel(0), "compile")
	_, out, err := e.do(request{Op: opSweep, Dims: [3]int{n, n, n}, Seed: seed, Along: "x", Coeffs: c[:], Planes: indexPlane}, len(indexPlane)*n*n)
	e.must(t, err, fmt.Sprintf("launch on %d³", n))
	// The input varies along x only: every plane's reference is the same.
	window, _ := seededAlong(2*Radius+1, 2*Radius+1, n, seed, "x")
	ref, _ := lab.NewGrid3[float32](2*Radius+1, 2*Radius+1, n)
	if err := sweep13(ref, window.Grid3, c); err != nil {
		t.Fatalf("reference: %v", err)
	}
	plane := n * n
	right := func(p, j, k int) bool {
		g := float64(out[p*plane+j*n+k])
		want := float64(ref.At(Radius, Radius, k))
		return !math.IsNaN(g) && math.Abs(g-want) <= tol.Abs+tol.Rel*math.Abs(want)
	}
	judged, bad, first := 0, 0, [2]int{-1, -1}
	for j := Radius; j < n-Radius; j++ {
		for k := Radius; k < n-Radius; k++ {
			low := true
			for p := range lowPlanes {
				low = low && right(p, j, k)
			}
			if !low {
				continue
			}
			judged++
			if !right(len(lowPlanes), j, k) {
				bad++
				if first[0] < 0 {
					first = [2]int{j, k}
				}
			}
		}
	}
	if judged == 0 {
		t.Fatalf("%s on %d³: no column (j, k) is right in every plane i = %s, so plane i = %d, whose indices are past 2³², has nothing to be compared with; the check scores 0",
			e.Spec.File, n, list(lowPlanes), highPlane)
	}
	if all := (n - 2*Radius) * (n - 2*Radius); 2*judged < all {
		t.Fatalf("%s on %d³: only %d of the %d interior columns (j, k) are right in every plane i = %s; the check judges plane i = %d where at least half of them are",
			e.Spec.File, n, judged, all, list(lowPlanes), highPlane)
	}
	if 2*bad > judged {
		j, k := first[0], first[1]
		t.Fatalf("%s on %d³: of the %d columns (j, k) whose points are right in planes i = %s, %d are unwritten or wrong in plane i = %d (first (i=%d, j=%d, k=%d): got %g, want %g); every index of that plane, i·ny·nx + j·nx + k, is above 2³² = %d, and every index of the lower planes below it",
			e.Spec.File, n, judged, list(lowPlanes), bad, highPlane, highPlane, j, k, out[len(lowPlanes)*plane+j*n+k], ref.At(Radius, Radius, k), uint64(1)<<32)
	}
}
