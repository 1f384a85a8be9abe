package lab

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// CheckGrids is the number of extra grids of the run's shape that
// CheckRun allocates: none for one time step, one float32 grid for more.
func CheckGrids(steps int) int {
	if steps > 1 {
		return 1
	}
	return 0
}

// CheckRun compares got, the output of steps time steps of the
// seven-point stencil from src with the boundary fixed, with a reference
// that accumulates in float64, and returns their difference as Compare
// would give it against a float64 time loop. The last time step is
// computed in float64 point by point as it is compared, so that one time
// step costs no extra grid; the earlier ones ping-pong between src and one
// float32 copy of it, in float32 with float64 sums, so that more time
// steps cost one extra grid (CheckGrids). With steps > 1, src is
// overwritten.
func CheckRun(got, src *Grid3[float32], c Coeffs, steps int) (Diff, error) {
	if err := checkSweep(got, src); err != nil {
		return Diff{}, fmt.Errorf("lab: check: %w", err)
	}
	if steps < 1 {
		return Diff{}, fmt.Errorf("lab: check %d time steps: need at least one", steps)
	}
	cur := src
	if steps > 1 {
		if err := checkAlloc("lab: check's reference grid", len(src.Data), 4); err != nil {
			return Diff{}, err
		}
		other := src.Clone()
		for range steps - 1 {
			sweepAcc64(other, cur, c)
			cur, other = other, cur
		}
	}
	return compareSweep(got, cur, c), nil
}

// sweepAcc64 sweeps src into dst in float32 with float64 sums, its planes
// split over all cores.
func sweepAcc64(dst, src *Grid3[float32], c Coeffs) {
	forRanges(planeRanges(src.NZ), func(_, lo, hi int) {
		nx, plane := src.NX, src.NX*src.NY
		for i := lo; i < hi; i++ {
			for j := 1; j < src.NY-1; j++ {
				for k := 1; k < nx-1; k++ {
					p := i*plane + j*nx + k
					dst.Data[p] = float32(point64(src.Data, p, nx, plane, c))
				}
			}
		}
	})
}

// checkThreads bounds the goroutines of the check; a variable so that a
// test can run the check on one and on many.
var checkThreads = runtime.GOMAXPROCS(0)

// forRanges calls f(i, lo, hi) for each range rs[i] = [lo, hi), each on
// its own goroutine, and returns when all are done.
func forRanges(rs [][2]int, f func(i, lo, hi int)) {
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i, r[0], r[1])
		}()
	}
	wg.Wait()
}

// planeRanges splits the planes 1 … nz−2 into at most checkThreads
// ranges of nearly equal size.
func planeRanges(nz int) [][2]int {
	planes := nz - 2
	n := max(1, min(checkThreads, planes))
	rs := make([][2]int, 0, n)
	for t := range n {
		rs = append(rs, [2]int{1 + planes*t/n, 1 + planes*(t+1)/n})
	}
	return rs
}

// point64 is the seven-point update of point p in float64.
func point64(d []float32, p, nx, plane int, c Coeffs) float64 {
	return c[0]*float64(d[p]) +
		c[1]*float64(d[p-1]) + c[2]*float64(d[p+1]) +
		c[3]*float64(d[p-nx]) + c[4]*float64(d[p+nx]) +
		c[5]*float64(d[p-plane]) + c[6]*float64(d[p+plane])
}

// compareSweep returns Compare(got, want) where want is the float64
// sweep of src, its boundary that of src, without building want. The
// planes are compared on all cores; each range keeps its own largest
// difference and sums, and the ranges are joined in order, so the first
// point of the largest difference is reported, as a single loop would.
func compareSweep(got, src *Grid3[float32], c Coeffs) Diff {
	nz, ny, nx := src.NZ, src.NY, src.NX
	plane := nx * ny
	// The two boundary planes are compared as ranges of their own.
	rs := append([][2]int{{0, 1}}, planeRanges(nz)...)
	if nz > 1 {
		rs = append(rs, [2]int{nz - 1, nz})
	}
	parts := make([]diffPart, len(rs))
	forRanges(rs, func(i, lo, hi int) {
		parts[i] = comparePlanes(got, src, c, lo, hi, nz, ny, nx, plane)
	})
	d := Diff{Worst: -1}
	var num, den float64
	for _, pt := range parts {
		if pt.maxAbs > d.MaxAbs {
			d.MaxAbs, d.Worst = pt.maxAbs, pt.worst
		}
		num += pt.num
		den += pt.den
	}
	if den > 0 {
		d.RelL2 = math.Sqrt(num / den)
	} else {
		d.RelL2 = math.Sqrt(num)
	}
	return d
}

// diffPart is compareSweep's result over a range of planes.
type diffPart struct {
	maxAbs   float64
	worst    int
	num, den float64
}

// comparePlanes compares planes lo ≤ i < hi of got with the float64 sweep
// of src.
func comparePlanes(got, src *Grid3[float32], c Coeffs, lo, hi, nz, ny, nx, plane int) diffPart {
	d := diffPart{worst: -1}
	for i := lo; i < hi; i++ {
		p := i * plane
		for j := range ny {
			for k := range nx {
				w := float64(src.Data[p])
				if i > 0 && i < nz-1 && j > 0 && j < ny-1 && k > 0 && k < nx-1 {
					w = point64(src.Data, p, nx, plane, c)
				}
				g := float64(got.Data[p])
				var e float64
				switch {
				case math.IsNaN(g) && math.IsNaN(w):
				case math.IsNaN(g) || math.IsNaN(w):
					e = math.Inf(1)
				default:
					e = math.Abs(g - w)
				}
				if e > d.maxAbs {
					d.maxAbs, d.worst = e, p
				}
				d.num += e * e
				if !math.IsNaN(w) {
					d.den += w * w
				}
				p++
			}
		}
	}
	return d
}

// LargestFinite returns the largest magnitude among the finite values of
// v (0 with none): the scale of the float32 rounding of a run's output.
func LargestFinite(v []float32) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(float64(x)); a > m && !math.IsInf(a, 0) {
			m = a
		}
	}
	return m
}
