package lab

import (
	"fmt"
	"math"
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

// sweepAcc64 sweeps src into dst in float32 with float64 sums.
func sweepAcc64(dst, src *Grid3[float32], c Coeffs) {
	nx, plane := src.NX, src.NX*src.NY
	for i := 1; i < src.NZ-1; i++ {
		for j := 1; j < src.NY-1; j++ {
			for k := 1; k < nx-1; k++ {
				p := i*plane + j*nx + k
				dst.Data[p] = float32(point64(src.Data, p, nx, plane, c))
			}
		}
	}
}

// point64 is the seven-point update of point p in float64.
func point64(d []float32, p, nx, plane int, c Coeffs) float64 {
	return c[0]*float64(d[p]) +
		c[1]*float64(d[p-1]) + c[2]*float64(d[p+1]) +
		c[3]*float64(d[p-nx]) + c[4]*float64(d[p+nx]) +
		c[5]*float64(d[p-plane]) + c[6]*float64(d[p+plane])
}

// compareSweep returns Compare(got, want) where want is the float64
// sweep of src, its boundary that of src, without building want.
func compareSweep(got, src *Grid3[float32], c Coeffs) Diff {
	d := Diff{Worst: -1}
	var num, den float64
	nz, ny, nx := src.NZ, src.NY, src.NX
	plane := nx * ny
	p := 0
	for i := range nz {
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
				if e > d.MaxAbs {
					d.MaxAbs, d.Worst = e, p
				}
				num += e * e
				if !math.IsNaN(w) {
					den += w * w
				}
				p++
			}
		}
	}
	if den > 0 {
		d.RelL2 = math.Sqrt(num / den)
	} else {
		d.RelL2 = math.Sqrt(num)
	}
	return d
}
