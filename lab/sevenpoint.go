package lab

import (
	"fmt"
	"runtime"
	"sync"
)

// Coeffs holds the seven coefficients c0…c6 of the 3D seven-point stencil.
//
// The mapping is fixed throughout the lab, on the CPU, in the simulator and
// on the GPU:
//
//	c0: the centre (i, j, k)
//	c1: k−1 (x−1)    c2: k+1 (x+1)
//	c3: j−1 (y−1)    c4: j+1 (y+1)
//	c5: i−1 (z−1)    c6: i+1 (z+1)
//
// Fig. 8.6 of the chapter uses this mapping; Figs. 8.10 and 8.12 swap c3 and
// c4. Tests use seven different values so that such a swap shows.
type Coeffs [7]float64

// DistinctCoeffs returns seven different coefficients of order one, a good
// default for checking kernels: a swap of any two shows in the result.
func DistinctCoeffs() Coeffs {
	return Coeffs{0.5, 0.11, 0.13, 0.17, 0.19, 0.23, 0.29}
}

// The CPU reference sweep of Figs. 8.3C and 8.5.
var _ = mustRegister3(Step3{
	Step: Step{Name: "reference", Title: "3D seven-point reference sweep", Figure: "8.3C, 8.5",
		Runs:     "the seven-point stencil over the interior of a 3D grid, in parallel on the CPU",
		Notebook: "02_stencils_and_grids"},
	Sweep: SevenPoint[float32],
})

// SweepFunc is the signature shared by every 3D seven-point step: the CPU
// reference, the simulated kernels and the GPU launchers. It writes the
// interior points of dst from src and leaves the boundary points of dst as
// they are. dst and src must have the same shape and must not alias.
type SweepFunc func(dst, src *Grid3[float32], c Coeffs) error

// Flops7 is the number of floating-point operations of one seven-point
// update: 7 multiplications and 6 additions.
const Flops7 = 13

func checkSweep[T Float](dst, src *Grid3[T]) error {
	if dst == nil || src == nil {
		return fmt.Errorf("lab: seven-point sweep: nil grid: %w", ErrMismatch)
	}
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("lab: seven-point sweep: %w", err)
	}
	if src.NZ < 3 || src.NY < 3 || src.NX < 3 {
		return fmt.Errorf("lab: seven-point sweep: grid %d×%d×%d has a side below 3 and no interior point: %w",
			src.NZ, src.NY, src.NX, ErrSize)
	}
	if aliased(dst.Data, src.Data) {
		return fmt.Errorf("lab: seven-point sweep: %s; a sweep needs two separate grids: %w", OverlapError(dst.Data, src.Data), ErrMismatch)
	}
	return nil
}

// CheckSweep validates the arguments of a seven-point sweep: same shape,
// every side at least 3, no aliasing. Kernels call it before any work.
func CheckSweep[T Float](dst, src *Grid3[T]) error { return checkSweep(dst, src) }

// SevenPoint is the fast CPU reference sweep of the 3D seven-point stencil:
//
//	dst(i,j,k) = c0·src(i,j,k)
//	           + c1·src(i,j,k−1) + c2·src(i,j,k+1)
//	           + c3·src(i,j−1,k) + c4·src(i,j+1,k)
//	           + c5·src(i−1,j,k) + c6·src(i+1,j,k)
//
// for every interior point; boundary points of dst are not touched. The
// planes are split over all cores. Arithmetic is in T.
func SevenPoint[T Float](dst, src *Grid3[T], c Coeffs) error {
	return SevenPointThreads(dst, src, c, runtime.GOMAXPROCS(0))
}

// SevenPointThreads is SevenPoint on at most threads goroutines; 1 gives the
// single-threaded loop that the C benchmark is compared with.
func SevenPointThreads[T Float](dst, src *Grid3[T], c Coeffs, threads int) error {
	if err := checkSweep(dst, src); err != nil {
		return err
	}
	threads = max(1, min(threads, src.NZ-2))
	if threads == 1 {
		sevenPointPlanes(dst, src, c, 1, src.NZ-1)
		return nil
	}
	var wg sync.WaitGroup
	planes := src.NZ - 2
	for t := range threads {
		lo := 1 + planes*t/threads
		hi := 1 + planes*(t+1)/threads
		wg.Add(1)
		go func() {
			defer wg.Done()
			sevenPointPlanes(dst, src, c, lo, hi)
		}()
	}
	wg.Wait()
	return nil
}

// sevenPointPlanes updates the interior of planes lo ≤ i < hi. Each row's
// input streams are re-sliced to the exact length of the output row, so
// that the compiler proves every index in bounds and the inner loop runs
// without bounds checks.
func sevenPointPlanes[T Float](dst, src *Grid3[T], c Coeffs, lo, hi int) {
	if rowKernel32 != nil {
		if d, ok := any(dst).(*Grid3[float32]); ok {
			sevenPointPlanesRows(d, any(src).(*Grid3[float32]), c, lo, hi, rowKernel32)
			return
		}
	}
	nx, ny := src.NX, src.NY
	plane := nx * ny
	w := nx - 2 // interior points per row
	c0, c1, c2, c3, c4, c5, c6 := T(c[0]), T(c[1]), T(c[2]), T(c[3]), T(c[4]), T(c[5]), T(c[6])
	for i := lo; i < hi; i++ {
		for j := 1; j < ny-1; j++ {
			base := i*plane + j*nx + 1 // the first interior point of the row
			out := dst.Data[base : base+w]
			right := src.Data[base+1 : base+1+w][:len(out)]
			up := src.Data[base-nx : base-nx+w][:len(out)]
			down := src.Data[base+nx : base+nx+w][:len(out)]
			prev := src.Data[base-plane : base-plane+w][:len(out)]
			next := src.Data[base+plane : base+plane+w][:len(out)]
			// Slide a window along the row: the centre and left
			// neighbour of point k+1 are the right neighbour and centre
			// of point k, so each point loads five values, not seven.
			left, mid := src.Data[base-1], src.Data[base]
			for k := range out {
				r := right[k]
				// A balanced sum: three short chains instead of one long
				// one, so consecutive points overlap in the pipeline.
				out[k] = (c0*mid + c1*left) + (c2*r + c3*up[k]) +
					((c4*down[k] + c5*prev[k]) + c6*next[k])
				left, mid = mid, r
			}
		}
	}
}

// rowKernel32, when set, computes one float32 row of the sweep from its
// seven input streams; sevenpoint_simd.go sets it where the CPU allows.
var rowKernel32 func(out, left, mid, right, up, down, prev, next []float32, c *[7]float32)

// sevenPointPlanesRows is sevenPointPlanes for float32 grids with a row
// kernel.
func sevenPointPlanesRows(dst, src *Grid3[float32], c Coeffs, lo, hi int,
	row func(out, left, mid, right, up, down, prev, next []float32, c *[7]float32)) {
	nx, ny := src.NX, src.NY
	plane, w := nx*ny, nx-2
	var c32 [7]float32
	for q := range c {
		c32[q] = float32(c[q])
	}
	for i := lo; i < hi; i++ {
		for j := 1; j < ny-1; j++ {
			b := i*plane + j*nx + 1
			d := src.Data
			row(dst.Data[b:b+w], d[b-1:b-1+w], d[b:b+w], d[b+1:b+1+w],
				d[b-nx:b-nx+w], d[b+nx:b+nx+w], d[b-plane:b-plane+w], d[b+plane:b+plane+w], &c32)
		}
	}
}
