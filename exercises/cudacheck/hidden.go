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
	for _, i := range indexPlanes {
		in, _ := lab.NewGrid3[float32](3, n, n)
		e.must(t, src.Download((i-1)*plane, in.Data), "download the input")
		out := make([]float32, plane)
		e.must(t, dst.Download(i*plane, out), "download the output")
		ref, _ := lab.NewGrid3[float32](3, n, n)
		if err := lab.SevenPoint(ref, in, c); err != nil {
			t.Fatalf("reference: %v", err)
		}
		unwritten, wrong, first := 0, 0, -1
		for j := 1; j < n-1; j++ {
			for kk := 1; kk < n-1; kk++ {
				got := float64(out[j*n+kk])
				want := float64(ref.At(1, j, kk))
				switch {
				case math.IsNaN(got):
					unwritten++
				case math.Abs(got-want) > tol.Abs+tol.Rel*math.Abs(want):
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
				e.Spec.File, n, i, unwritten, wrong, i, j, kk, out[first], ref.At(1, j, kk), (1<<32)/plane)
		}
	}
}
