package cudacheck

import (
	"fmt"

	"stencillab.dev/lab"
)

// Sweep13 writes the thirteen-point sweep of src with c into dst: the lab's
// CPU reference, lab.ThirteenPointSweep (lab.Sweep3 with lab.ThirteenPoint,
// summed in the same order, in float32, on every core; the boundary two
// points deep untouched), which the timed chain at N ≈ 512 needs, as the
// plain loop takes minutes over it. A grid with no point two from every
// face has nothing to sweep.
func Sweep13(dst, src *lab.Grid3[float32], c Coeffs13) error {
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("cudacheck: thirteen-point sweep: %w", err)
	}
	if src.NZ < 2*Radius+1 || src.NY < 2*Radius+1 || src.NX < 2*Radius+1 {
		return nil
	}
	if err := lab.ThirteenPointSweep(dst, src, lab.Coeffs13(c)); err != nil {
		return fmt.Errorf("cudacheck: %w", err)
	}
	return nil
}
