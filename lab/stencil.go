package lab

import (
	"fmt"
	"unsafe"
)

// Stencil2 is a 2D stencil as data: the output at (j, k) is
// Σ Coeffs[m]·in(j+Offsets[m][0], k+Offsets[m][1]).
type Stencil2 struct {
	Name    string
	Offsets [][2]int // (dy, dx)
	Coeffs  []float64
}

// Stencil3 is a 3D stencil as data: the output at (i, j, k) is
// Σ Coeffs[m]·in(i+Offsets[m][0], j+Offsets[m][1], k+Offsets[m][2]).
type Stencil3 struct {
	Name    string
	Offsets [][3]int // (dz, dy, dx)
	Coeffs  []float64
}

// Radius returns the largest offset of the stencil in any direction.
func (s Stencil2) Radius() int {
	r := 0
	for _, o := range s.Offsets {
		r = max(r, abs(o[0]), abs(o[1]))
	}
	return r
}

// Radius returns the largest offset of the stencil in any direction.
func (s Stencil3) Radius() int {
	r := 0
	for _, o := range s.Offsets {
		r = max(r, abs(o[0]), abs(o[1]), abs(o[2]))
	}
	return r
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// FivePoint is the 2D five-point stencil (Fig. 8.3A) with coefficients
// c[0] for the centre, c[1]/c[2] for x−1/x+1 and c[3]/c[4] for y−1/y+1.
func FivePoint(c [5]float64) Stencil2 {
	return Stencil2{Name: "2D five-point", Offsets: [][2]int{{0, 0}, {0, -1}, {0, 1}, {-1, 0}, {1, 0}}, Coeffs: c[:]}
}

// NinePoint is the 2D nine-point stencil of radius 2 along the axes
// (Fig. 8.3B): c[0] for the centre, then x−1, x+1, y−1, y+1, x−2, x+2,
// y−2, y+2.
func NinePoint(c [9]float64) Stencil2 {
	return Stencil2{Name: "2D nine-point", Offsets: [][2]int{
		{0, 0}, {0, -1}, {0, 1}, {-1, 0}, {1, 0}, {0, -2}, {0, 2}, {-2, 0}, {2, 0},
	}, Coeffs: c[:]}
}

// SevenPointStencil is the 3D seven-point stencil (Fig. 8.3C) as data, with
// the coefficient mapping of Coeffs.
func SevenPointStencil(c Coeffs) Stencil3 {
	return Stencil3{Name: "3D seven-point", Offsets: [][3]int{
		{0, 0, 0}, {0, 0, -1}, {0, 0, 1}, {0, -1, 0}, {0, 1, 0}, {-1, 0, 0}, {1, 0, 0},
	}, Coeffs: c[:]}
}

// ThirteenPoint is the 3D thirteen-point stencil of radius 2 along the axes
// (Fig. 8.3D): c[0] for the centre, then the radius-1 neighbours in the
// order of Coeffs (x−1, x+1, y−1, y+1, z−1, z+1), then the radius-2 ones in
// the same order.
func ThirteenPoint(c [13]float64) Stencil3 {
	return Stencil3{Name: "3D thirteen-point", Offsets: [][3]int{
		{0, 0, 0},
		{0, 0, -1}, {0, 0, 1}, {0, -1, 0}, {0, 1, 0}, {-1, 0, 0}, {1, 0, 0},
		{0, 0, -2}, {0, 0, 2}, {0, -2, 0}, {0, 2, 0}, {-2, 0, 0}, {2, 0, 0},
	}, Coeffs: c[:]}
}

func checkStencil(offsets, coeffs int) error {
	if offsets != coeffs || offsets == 0 {
		return fmt.Errorf("lab: stencil has %d offsets and %d coefficients", offsets, coeffs)
	}
	return nil
}

// aliased reports whether two grids share any memory: a sweep reads
// neighbours it has already overwritten when dst is src, or is cut from
// the same array at another offset.
func aliased[T Float](dst, src []T) bool { return Overlap(dst, src) }

// Overlap reports whether the elements of a and b share any memory: their
// address ranges intersect. Two slices cut from one array at different
// offsets overlap when their ranges do, not only when their first
// elements are the same.
func Overlap[T Float](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, a1 := span(a)
	b0, b1 := span(b)
	return a0 < b1 && b0 < a1
}

// span returns the address range [lo, hi) of the elements of s.
func span[T Float](s []T) (lo, hi uintptr) {
	lo = uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return lo, lo + uintptr(len(s))*unsafe.Sizeof(s[0])
}

// OverlapError describes how dst and src overlap, for an error: "dst and
// src share memory (src starts 36 elements after dst)".
func OverlapError[T Float](dst, src []T) string {
	d0, _ := span(dst)
	s0, _ := span(src)
	size := unsafe.Sizeof(dst[0])
	switch {
	case d0 == s0:
		return "dst and src are the same grid"
	case s0 > d0:
		return fmt.Sprintf("dst and src share memory (src starts %d elements after dst)", (s0-d0)/size)
	}
	return fmt.Sprintf("dst and src share memory (dst starts %d elements after src)", (d0-s0)/size)
}

// Sweep2 applies s to every interior point of src, those at least Radius
// from every edge, and writes dst there. Boundary points of dst hold
// boundary conditions and are not touched (Fig. 8.5).
func Sweep2[T Float](dst, src *Grid2[T], s Stencil2) error {
	if err := checkStencil(len(s.Offsets), len(s.Coeffs)); err != nil {
		return err
	}
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("lab: 2D sweep: %w", err)
	}
	if aliased(dst.Data, src.Data) {
		return fmt.Errorf("lab: 2D sweep: %s; a sweep needs two separate grids: %w", OverlapError(dst.Data, src.Data), ErrMismatch)
	}
	r := s.Radius()
	if src.NY < 2*r+1 || src.NX < 2*r+1 {
		return fmt.Errorf("lab: 2D sweep: grid %d×%d has no interior for a stencil of radius %d: %w", src.NY, src.NX, r, ErrSize)
	}
	for j := r; j < src.NY-r; j++ {
		for k := r; k < src.NX-r; k++ {
			var sum T
			for m, o := range s.Offsets {
				sum += T(s.Coeffs[m]) * src.Data[(j+o[0])*src.NX+k+o[1]]
			}
			dst.Data[j*dst.NX+k] = sum
		}
	}
	return nil
}

// Sweep3 applies s to every interior point of src, those at least Radius
// from every face, and writes dst there; boundary points are not touched.
// It is the generic, plain loop that SevenPoint is checked against.
func Sweep3[T Float](dst, src *Grid3[T], s Stencil3) error {
	if err := checkStencil(len(s.Offsets), len(s.Coeffs)); err != nil {
		return err
	}
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("lab: 3D sweep: %w", err)
	}
	if aliased(dst.Data, src.Data) {
		return fmt.Errorf("lab: 3D sweep: %s; a sweep needs two separate grids: %w", OverlapError(dst.Data, src.Data), ErrMismatch)
	}
	r := s.Radius()
	if src.NZ < 2*r+1 || src.NY < 2*r+1 || src.NX < 2*r+1 {
		return fmt.Errorf("lab: 3D sweep: grid %d×%d×%d has no interior for a stencil of radius %d: %w",
			src.NZ, src.NY, src.NX, r, ErrSize)
	}
	for i := r; i < src.NZ-r; i++ {
		for j := r; j < src.NY-r; j++ {
			for k := r; k < src.NX-r; k++ {
				var sum T
				for m, o := range s.Offsets {
					sum += T(s.Coeffs[m]) * src.At(i+o[0], j+o[1], k+o[2])
				}
				dst.Set(i, j, k, sum)
			}
		}
	}
	return nil
}
