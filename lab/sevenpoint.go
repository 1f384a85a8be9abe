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
	if len(dst.Data) > 0 && &dst.Data[0] == &src.Data[0] {
		return fmt.Errorf("lab: seven-point sweep: dst and src are the same grid; a sweep needs two: %w", ErrMismatch)
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

// sevenPointPlanes updates the interior of planes lo ≤ i < hi. Rows are
// re-sliced to their exact length so that the compiler drops bounds checks
// in the inner loop.
func sevenPointPlanes[T Float](dst, src *Grid3[T], c Coeffs, lo, hi int) {
	nx, ny := src.NX, src.NY
	plane := nx * ny
	c0, c1, c2, c3, c4, c5, c6 := T(c[0]), T(c[1]), T(c[2]), T(c[3]), T(c[4]), T(c[5]), T(c[6])
	for i := lo; i < hi; i++ {
		for j := 1; j < ny-1; j++ {
			base := i*plane + j*nx
			cur := src.Data[base : base+nx]
			up := src.Data[base-nx : base-nx+nx]
			down := src.Data[base+nx : base+nx+nx]
			prev := src.Data[base-plane : base-plane+nx]
			next := src.Data[base+plane : base+plane+nx]
			out := dst.Data[base : base+nx]
			for k := 1; k < nx-1; k++ {
				out[k] = c0*cur[k] + c1*cur[k-1] + c2*cur[k+1] +
					c3*up[k] + c4*down[k] + c5*prev[k] + c6*next[k]
			}
		}
	}
}
