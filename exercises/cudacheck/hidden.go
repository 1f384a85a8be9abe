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

// checkIndex64 sweeps an N = 1700 grid and compares planes on both sides of
// the point where 32-bit indices wrap (plane 2³²/N² ≈ 1486) with the
// reference, at the points written. c6 = 0 and c3 = c4, so that the z loop
// mistake (whose one written plane uses a wrong next plane) and the c3/c4
// swap do not show: only the index arithmetic does.
func checkIndex64(t *grading.T, e *Env) {
	n := IndexN
	points := n * n * n
	need := 2 * uint64(points) * 4
	free, _, err := e.Dev.MemInfo()
	e.must(t, err, "device memory")
	if free < need+need/20 {
		e.Notes = append(e.Notes, fmt.Sprintf("index-64bit was not run: it needs %.1f GB of GPU memory, %.1f GB are free; its points are given", float64(need)/1e9, float64(free)/1e9))
		return
	}
	k, err := e.Kernel(0)
	e.must(t, err, "compile")
	src, err := e.Dev.Alloc(points)
	e.must(t, err, "allocate the input")
	defer src.Free()
	dst, err := e.Dev.Alloc(points)
	e.must(t, err, "allocate the output")
	defer dst.Free()
	e.must(t, src.FillRandom(t.Seed()), "fill the input")
	e.must(t, dst.Poison(), "poison the output")
	c := symmetric(t)
	c[6] = 0
	_, err = k.Launch(dst, src, n, n, n, c)
	e.must(t, err, fmt.Sprintf("launch on %d³", n))
	plane := n * n
	total := 0
	// Multiples of 30 (OUT_TILE_DIM at the default tile) are the planes
	// a kernel with the z loop mistake still writes.
	for _, i := range []int{1, 30, 840, 1470, 1500, 1620, 1680, n - 2} {
		in, _ := lab.NewGrid3[float32](3, n, n)
		e.must(t, src.Download((i-1)*plane, in.Data), "download the input")
		out := make([]float32, plane)
		e.must(t, dst.Download(i*plane, out), "download the output")
		ref, _ := lab.NewGrid3[float32](3, n, n)
		if err := lab.SevenPoint(ref, in, c); err != nil {
			t.Fatalf("reference: %v", err)
		}
		wrong, first, written := 0, -1, 0
		for j := 1; j < n-1; j++ {
			for kk := 1; kk < n-1; kk++ {
				got := float64(out[j*n+kk])
				if math.IsNaN(got) {
					continue
				}
				written++
				want := float64(ref.At(1, j, kk))
				if math.Abs(got-want) > tol.Abs+tol.Rel*math.Abs(want) {
					if first < 0 {
						first = j*n + kk
					}
					wrong++
				}
			}
		}
		if wrong > 0 {
			j, kk := first/n, first%n
			t.Fatalf("%s on %d³: plane i=%d has %d wrong points (first (i=%d, j=%d, k=%d): got %g, want %g): the index i·ny·nx + j·nx + k passes 2³² at plane %d; compute it in 64 bits (long long), as basic.cu does",
				e.Spec.File, n, i, wrong, i, j, kk, out[first], ref.At(1, j, kk), (1<<32)/plane)
		}
		total += written
	}
	if total == 0 {
		t.Fatalf("%s on %d³ wrote no point of the planes checked", e.Spec.File, n)
	}
}
