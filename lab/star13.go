package lab

import (
	"fmt"
	"runtime"
	"sync"
)

// Coeffs13 holds the thirteen coefficients of the 3D thirteen-point star
// of radius 2, in the order of ThirteenPoint:
//
//	c0: the centre
//	c1 … c6: x−1, x+1, y−1, y+1, z−1, z+1 (the order of Coeffs)
//	c7 … c12: x−2, x+2, y−2, y+2, z−2, z+2
//
// It is a type of its own, not a longer Coeffs, so that a seven-point
// step never receives thirteen coefficients, nor a thirteen-point step
// seven.
type Coeffs13 [13]float64

// DistinctCoeffs13 returns thirteen different coefficients, summing to
// 1.222, for checking kernels: a swap of any two shows in the result.
func DistinctCoeffs13() Coeffs13 {
	return Coeffs13{0.4, 0.07, 0.08, 0.09, 0.1, 0.11, 0.12, 0.031, 0.037, 0.041, 0.043, 0.047, 0.053}
}

// Flops13 is the number of floating-point operations of one thirteen-point
// update: 13 multiplications and 12 additions.
const Flops13 = 25

// Radius13 is the reach of the thirteen-point star along each axis: the
// boundary it leaves untouched is this many points deep on every face.
const Radius13 = 2

// ThirteenPointSweep is the CPU reference of the thirteen-point star, the
// planes split over all cores: Sweep3 with ThirteenPoint(c), summed in the
// same order, on every point at least two from every face; the boundary
// shell of dst, two points deep, is not touched.
func ThirteenPointSweep[T Float](dst, src *Grid3[T], c Coeffs13) error {
	if dst == nil || src == nil {
		return fmt.Errorf("lab: thirteen-point sweep: nil grid: %w", ErrMismatch)
	}
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("lab: thirteen-point sweep: %w", err)
	}
	if src.NZ < 5 || src.NY < 5 || src.NX < 5 {
		return fmt.Errorf("lab: thirteen-point sweep: grid %d×%d×%d has a side below 5 and no point two from every face: %w",
			src.NZ, src.NY, src.NX, ErrSize)
	}
	if aliased(dst.Data, src.Data) {
		return fmt.Errorf("lab: thirteen-point sweep: %s; a sweep needs two separate grids: %w", OverlapError(dst.Data, src.Data), ErrMismatch)
	}
	var w [13]T
	for i, v := range c {
		w[i] = T(v)
	}
	planes := src.NZ - 4
	threads := max(1, min(runtime.GOMAXPROCS(0), planes))
	var wg sync.WaitGroup
	for t := range threads {
		lo, hi := 2+planes*t/threads, 2+planes*(t+1)/threads
		wg.Go(func() { thirteenPointPlanes(dst, src, &w, lo, hi) })
	}
	wg.Wait()
	return nil
}

// thirteenPointPlanes updates planes lo ≤ i < hi.
func thirteenPointPlanes[T Float](dst, src *Grid3[T], w *[13]T, lo, hi int) {
	nx, p := src.NX, src.NY*src.NX
	s, d := src.Data, dst.Data
	for i := lo; i < hi; i++ {
		for j := 2; j < src.NY-2; j++ {
			for k := 2; k < nx-2; k++ {
				o := i*p + j*nx + k
				sum := w[0] * s[o]
				sum += w[1] * s[o-1]
				sum += w[2] * s[o+1]
				sum += w[3] * s[o-nx]
				sum += w[4] * s[o+nx]
				sum += w[5] * s[o-p]
				sum += w[6] * s[o+p]
				sum += w[7] * s[o-2]
				sum += w[8] * s[o+2]
				sum += w[9] * s[o-2*nx]
				sum += w[10] * s[o+2*nx]
				sum += w[11] * s[o-2*p]
				sum += w[12] * s[o+2*p]
				d[o] = sum
			}
		}
	}
}

// Advance13 is the CPU reference of a time loop of the thirteen-point
// star: steps sweeps of ThirteenPointSweep ping-ponging between two copies
// of src, so that the boundary shell, two points deep, stays fixed; the
// last state is written into dst, which has src's shape.
func Advance13[T Float](dst, src *Grid3[T], c Coeffs13, steps int) error {
	if dst == nil || src == nil {
		return fmt.Errorf("lab: thirteen-point advance: nil grid: %w", ErrMismatch)
	}
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("lab: thirteen-point advance: %w", err)
	}
	if steps < 1 {
		return fmt.Errorf("lab: advance %d time steps: need at least one", steps)
	}
	cur, next := src.Clone(), src.Clone()
	for range steps {
		if err := ThirteenPointSweep(next, cur, c); err != nil {
			return err
		}
		cur, next = next, cur
	}
	copy(dst.Data, cur.Data)
	return nil
}

// The thirteen-point star of radius 2 (Fig. 8.3D), a single sweep on a
// GPU, beyond the chapter: each block marches through a chunk of z
// planes, the ±1 and ±2 planes of its points in registers, the x and y
// neighbours of the centre plane in shared memory. Its launch and tuning
// belong to the gpu backend, which chooses the planes per block per grid
// unless a tile gives them.
var _ = mustRegister3(Step3{
	Step: Step{Name: "star13", Title: "Beyond the chapter: the thirteen-point star on a GPU",
		Figure:   "8.3D",
		Runs:     "one sweep of the thirteen-point star of radius 2, a z-march with the ±1 and ±2 planes in registers",
		Notebook: "07b_past_the_roofline"},
	TileName: "z planes per block",
	MinTile:  1,
	Radius:   Radius13,
	CUDA:     CUDA{File: "star13.cu", Entry: "star13"},
})
