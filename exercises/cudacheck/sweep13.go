package cudacheck

import (
	"fmt"
	"runtime"
	"sync"

	"stencillab.dev/lab"
)

// Sweep13 writes the thirteen-point sweep of src with c into dst, as
// lab.Sweep3 with lab.ThirteenPoint does (in float32, interior points only,
// the boundary untouched), a plane per worker on every core: the CPU
// reference of the timed chain at N ≈ 512, which the plain loop takes
// minutes over.
func Sweep13(dst, src *lab.Grid3[float32], c Coeffs13) error {
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("cudacheck: thirteen-point sweep: %w", err)
	}
	if lab.Overlap(dst.Data, src.Data) {
		return fmt.Errorf("cudacheck: thirteen-point sweep: the grids share memory; a sweep needs two separate grids: %w", lab.ErrMismatch)
	}
	nz, ny, nx := src.NZ, src.NY, src.NX
	if nz < 2*Radius+1 || ny < 2*Radius+1 || nx < 2*Radius+1 {
		return nil
	}
	var w [Points]float32
	for q := range w {
		w[q] = float32(c[q])
	}
	sy, sz := nx, ny*nx
	in, out := src.Data, dst.Data
	plane := func(i int) {
		for j := Radius; j < ny-Radius; j++ {
			row := i*sz + j*sy
			for k := Radius; k < nx-Radius; k++ {
				p := row + k
				// The order of lab.ThirteenPoint's offsets, so that the
				// float32 sums are the reference's.
				var sum float32
				sum += w[0] * in[p]
				sum += w[1] * in[p-1]
				sum += w[2] * in[p+1]
				sum += w[3] * in[p-sy]
				sum += w[4] * in[p+sy]
				sum += w[5] * in[p-sz]
				sum += w[6] * in[p+sz]
				sum += w[7] * in[p-2]
				sum += w[8] * in[p+2]
				sum += w[9] * in[p-2*sy]
				sum += w[10] * in[p+2*sy]
				sum += w[11] * in[p-2*sz]
				sum += w[12] * in[p+2*sz]
				out[p] = sum
			}
		}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), nz-2*Radius) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				plane(i)
			}
		}()
	}
	for i := Radius; i < nz-Radius; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return nil
}
