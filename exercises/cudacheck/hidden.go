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
			return []hiddenCheck{{id: "index-64bit", title: fmt.Sprintf("N = %d: indices past 2³² need 64-bit arithmetic", IndexN), points: 2, run: checkIndex64}}
		default:
			return []hiddenCheck{{id: "hidden-values", title: "larger grids, sides up to 150", points: 2,
				run: func(t *grading.T, e *Env) { valuesOn(t, e, 0, 2, 70, 150) }}}
		}
	}
}

// IndexN is the side of the grid of the 64-bit index check: N³ = 4.9·10⁹
// points, past 2³² (N ≈ 1625), in fp32 19.7 GB a grid.
const IndexN = 1700

// indexPlanes are the planes checkIndex64 compares: every index of them
// (i·N² + j·N + k, 1486·N² < 2³² < 1487·N² at N = 1700) is past 2³², so a
// kernel computing it in 32 bits writes their points elsewhere (the
// wrapped index, in planes 0 to 212) and leaves them unwritten. They are
// multiples of 30 (OUT_TILE_DIM at the default tile): the planes a kernel
// with the z loop mistake still writes, so that mistake does not show here.
var indexPlanes = []int{1500, 1590, 1680}

// checkIndex64 sweeps an N = 1700 grid and compares, at every interior
// point, the planes indexPlanes, whose indices are all past 2³², with the
// reference: a point left unwritten or wrong fails. c6 = 0 and c3 = c4, so
// that the z loop mistake (whose one written plane uses a wrong next
// plane) and the c3/c4 swap do not show: only the index arithmetic does.
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
	c := symmetric(t)
	c[6] = 0
	seed := t.Rand().Uint64()
	e.must(t, e.Kernel(0), "compile")
	_, out, err := e.do(request{Op: opSweep, Dims: [3]int{n, n, n}, Seed: seed, Coeffs: c[:], Planes: indexPlanes}, len(indexPlanes)*n*n)
	e.must(t, err, fmt.Sprintf("launch on %d³", n))
	plane := n * n
	for p, i := range indexPlanes {
		in, _ := lab.NewGrid3[float32](3, n, n)
		fillInput(in.Data, seed, (i-1)*plane)
		got := out[p*plane : (p+1)*plane]
		ref, _ := lab.NewGrid3[float32](3, n, n)
		if err := lab.SevenPoint(ref, in, c); err != nil {
			t.Fatalf("reference: %v", err)
		}
		unwritten, wrong, first := 0, 0, -1
		for j := 1; j < n-1; j++ {
			for kk := 1; kk < n-1; kk++ {
				g := float64(got[j*n+kk])
				want := float64(ref.At(1, j, kk))
				switch {
				case math.IsNaN(g):
					unwritten++
				case math.Abs(g-want) > tol.Abs+tol.Rel*math.Abs(want):
					wrong++
				default:
					continue
				}
				if first < 0 {
					first = j*n + kk
				}
			}
		}
		if unwritten+wrong > 0 {
			j, kk := first/n, first%n
			t.Fatalf("%s on %d³: plane i=%d has %d points never written and %d wrong (first (i=%d, j=%d, k=%d): got %g, want %g): the index i·ny·nx + j·nx + k passes 2³² at plane %d, so in 32 bits it wraps and the point is read and written elsewhere; compute it in 64 bits (long long), as basic.cu does",
				e.Spec.File, n, i, unwritten, wrong, i, j, kk, got[first], ref.At(1, j, kk), (1<<32)/plane)
		}
	}
}
