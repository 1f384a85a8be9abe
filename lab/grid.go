package lab

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"
)

// Float is the element type of a grid: float32 or float64.
type Float interface {
	~float32 | ~float64
}

// MaxPoints bounds the number of points of one grid, so that a typo in a
// notebook (n = 100000) is an error rather than an out-of-memory crash:
// 2³⁶ points, 256 GiB of float32. A grid within it may still not fit the
// memory at hand, which CheckMemory decides; N = 2048 (2³³ points) fits
// a host of 128 GiB and, split in slabs, two GPUs of 80 GB.
const MaxPoints = 1 << 36

// ErrSize is wrapped by every error about an invalid grid size.
var ErrSize = errors.New("invalid grid size")

// ErrMismatch is wrapped by every error about two grids whose shapes differ.
var ErrMismatch = errors.New("grid shapes differ")

// Grid1 is a 1D grid of N points starting at X0 with spacing H: point k
// sits at X0 + k*H.
type Grid1[T Float] struct {
	N    int
	X0   float64 // coordinate of point 0
	H    float64 // spacing between neighbouring points
	Data []T
}

// Grid2 is a 2D grid of NY rows of NX points, stored row-major: the point
// (j, k) lives at Data[j*NX+k].
type Grid2[T Float] struct {
	NY, NX int
	Data   []T
}

// Grid3 is a 3D grid of NZ planes of NY rows of NX points, stored row-major
// with x fastest: the point (i, j, k) lives at Data[i*NY*NX + j*NX + k].
type Grid3[T Float] struct {
	NZ, NY, NX int
	Data       []T
}

// elemSize returns the bytes of one element of T.
func elemSize[T Float]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

func checkDims(min int, dims ...int) error {
	total := 1.0
	for _, d := range dims {
		if d < min {
			return fmt.Errorf("lab: grid dimension %d is below the minimum %d: %w", d, min, ErrSize)
		}
		total *= float64(d)
	}
	if total > MaxPoints {
		return fmt.Errorf("lab: grid of %.0f points exceeds the limit of %d points: %w", total, int64(MaxPoints), ErrSize)
	}
	return nil
}

// checkLen returns an error wrapping ErrSize unless dims are each at least
// 1, their product is within MaxPoints, and data holds exactly that many
// elements. It is what Validate checks of a grid built as a literal.
func checkLen(what string, n int, dims ...int) error {
	if err := checkDims(1, dims...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	want := 1
	for _, d := range dims {
		want *= d // within MaxPoints, checked above
	}
	if n != want {
		return fmt.Errorf("%s: data holds %d values for %d points: %w", what, n, want, ErrSize)
	}
	return nil
}

// Validate returns an error wrapping ErrSize unless g is a usable grid: not
// nil, N ≥ 1 points within MaxPoints, Data of exactly N values, X0 finite
// and the spacing H positive and finite. NewGrid1 builds valid grids; a
// grid written as a literal is checked by Validate wherever the lab takes
// one.
func (g *Grid1[T]) Validate() error {
	if g == nil {
		return fmt.Errorf("lab: nil 1D grid: %w", ErrSize)
	}
	if err := g.validateLen(); err != nil {
		return err
	}
	if !(g.H > 0) || math.IsInf(g.H, 0) {
		return fmt.Errorf("lab: 1D grid spacing h = %g must be positive and finite: %w", g.H, ErrSize)
	}
	if math.IsNaN(g.X0) || math.IsInf(g.X0, 0) {
		return fmt.Errorf("lab: 1D grid origin x0 = %g must be finite: %w", g.X0, ErrSize)
	}
	return nil
}

// validateLen checks N and the length of Data, not the coordinates: what
// an output grid, whose spacing is unused, must satisfy.
func (g *Grid1[T]) validateLen() error {
	if g == nil {
		return fmt.Errorf("lab: nil 1D grid: %w", ErrSize)
	}
	return checkLen(fmt.Sprintf("lab: 1D grid of %d points", g.N), len(g.Data), g.N)
}

// Validate returns an error wrapping ErrSize unless g is a usable grid: not
// nil, NY and NX at least 1, NY·NX within MaxPoints, and Data of exactly
// NY·NX values. NewGrid2 builds valid grids; a grid written as a literal
// is checked by Validate wherever the lab takes one.
func (g *Grid2[T]) Validate() error {
	if g == nil {
		return fmt.Errorf("lab: nil 2D grid: %w", ErrSize)
	}
	return checkLen(fmt.Sprintf("lab: 2D grid %d×%d", g.NY, g.NX), len(g.Data), g.NY, g.NX)
}

// Validate returns an error wrapping ErrSize unless g is a usable grid: not
// nil, NZ, NY and NX at least 1, NZ·NY·NX within MaxPoints, and Data of
// exactly NZ·NY·NX values. NewGrid3 builds valid grids; a grid written as
// a literal is checked by Validate wherever the lab takes one (SameShape,
// and so every sweep, Compare3 and Execute).
func (g *Grid3[T]) Validate() error {
	if g == nil {
		return fmt.Errorf("lab: nil 3D grid: %w", ErrSize)
	}
	return checkLen(fmt.Sprintf("lab: 3D grid %d×%d×%d", g.NZ, g.NY, g.NX), len(g.Data), g.NZ, g.NY, g.NX)
}

// NewGrid1 returns a zeroed 1D grid of n ≥ 1 points starting at x0 with
// spacing h > 0.
func NewGrid1[T Float](n int, x0, h float64) (*Grid1[T], error) {
	if err := checkDims(1, n); err != nil {
		return nil, err
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("lab: grid spacing h = %g must be positive and finite: %w", h, ErrSize)
	}
	if err := checkAlloc(fmt.Sprintf("lab: grid of %d points", n), n, elemSize[T]()); err != nil {
		return nil, err
	}
	return &Grid1[T]{N: n, X0: x0, H: h, Data: make([]T, n)}, nil
}

// NewGrid2 returns a zeroed 2D grid of ny×nx points, each at least 1.
func NewGrid2[T Float](ny, nx int) (*Grid2[T], error) {
	if err := checkDims(1, ny, nx); err != nil {
		return nil, err
	}
	if err := checkAlloc(fmt.Sprintf("lab: grid %d×%d", ny, nx), ny*nx, elemSize[T]()); err != nil {
		return nil, err
	}
	return &Grid2[T]{NY: ny, NX: nx, Data: make([]T, ny*nx)}, nil
}

// NewGrid3 returns a zeroed 3D grid of nz×ny×nx points, each at least 1.
func NewGrid3[T Float](nz, ny, nx int) (*Grid3[T], error) {
	if err := checkDims(1, nz, ny, nx); err != nil {
		return nil, err
	}
	if err := checkAlloc(fmt.Sprintf("lab: grid %d×%d×%d", nz, ny, nx), nz*ny*nx, elemSize[T]()); err != nil {
		return nil, err
	}
	return &Grid3[T]{NZ: nz, NY: ny, NX: nx, Data: make([]T, nz*ny*nx)}, nil
}

// NewCube returns a zeroed N×N×N grid, the shape of the chapter's kernels.
// A seven-point sweep needs n ≥ 3; NewCube refuses smaller n.
func NewCube[T Float](n int) (*Grid3[T], error) {
	if n < 3 {
		return nil, fmt.Errorf("lab: cube side n = %d is below 3, the smallest grid with an interior point: %w", n, ErrSize)
	}
	return NewGrid3[T](n, n, n)
}

// Index returns the flat index of point (i, j, k): i*NY*NX + j*NX + k.
func (g *Grid3[T]) Index(i, j, k int) int { return (i*g.NY+j)*g.NX + k }

// At returns the value at point (i, j, k).
func (g *Grid3[T]) At(i, j, k int) T { return g.Data[g.Index(i, j, k)] }

// Set stores v at point (i, j, k).
func (g *Grid3[T]) Set(i, j, k int, v T) { g.Data[g.Index(i, j, k)] = v }

// Len returns the number of points.
func (g *Grid3[T]) Len() int { return len(g.Data) }

// IsCube reports whether all three sides are equal.
func (g *Grid3[T]) IsCube() bool { return g.NZ == g.NY && g.NY == g.NX }

// Interior returns the number of interior points, those with a full
// radius-1 neighbourhood.
func (g *Grid3[T]) Interior() int {
	return max(g.NZ-2, 0) * max(g.NY-2, 0) * max(g.NX-2, 0)
}

// Clone returns a deep copy; nil for a nil grid.
func (g *Grid3[T]) Clone() *Grid3[T] {
	if g == nil {
		return nil
	}
	c := *g
	c.Data = append([]T(nil), g.Data...)
	return &c
}

// SameShape returns an error wrapping ErrMismatch unless g and o have the
// same dimensions.
func (g *Grid3[T]) SameShape(o *Grid3[T]) error {
	if g == nil || o == nil {
		return fmt.Errorf("lab: nil grid: %w", ErrMismatch)
	}
	if g.NZ != o.NZ || g.NY != o.NY || g.NX != o.NX {
		return fmt.Errorf("lab: grid %d×%d×%d does not match grid %d×%d×%d: %w",
			g.NZ, g.NY, g.NX, o.NZ, o.NY, o.NX, ErrMismatch)
	}
	for _, x := range []*Grid3[T]{g, o} {
		if err := x.Validate(); err != nil {
			return fmt.Errorf("%w (%w)", err, ErrMismatch)
		}
	}
	return nil
}

// Fill sets every point (i, j, k) to f(i, j, k). It returns an error
// wrapping ErrSize, and changes nothing, for a grid that fails Validate or
// a nil f.
func (g *Grid3[T]) Fill(f func(i, j, k int) T) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if f == nil {
		return fmt.Errorf("lab: fill with a nil function: %w", ErrSize)
	}
	for i := 0; i < g.NZ; i++ {
		for j := 0; j < g.NY; j++ {
			row := g.Data[g.Index(i, j, 0):][:g.NX]
			for k := range row {
				row[k] = f(i, j, k)
			}
		}
	}
	return nil
}

// FillRandom fills g with uniform values in [-1, 1) drawn from a PCG
// generator seeded with seed: the same seed gives the same grid. A nil
// grid is left alone.
func (g *Grid3[T]) FillRandom(seed uint64) {
	if g != nil {
		fillRandom(g.Data, seed)
	}
}

// Poison sets every point to NaN, so that a point a kernel forgets to write
// shows in a comparison. A nil grid is left alone.
func (g *Grid3[T]) Poison() {
	if g != nil {
		poison(g.Data)
	}
}

// Index returns the flat index of point (j, k).
func (g *Grid2[T]) Index(j, k int) int { return j*g.NX + k }

// At returns the value at point (j, k).
func (g *Grid2[T]) At(j, k int) T { return g.Data[j*g.NX+k] }

// Set stores v at point (j, k).
func (g *Grid2[T]) Set(j, k int, v T) { g.Data[j*g.NX+k] = v }

// Clone returns a deep copy; nil for a nil grid.
func (g *Grid2[T]) Clone() *Grid2[T] {
	if g == nil {
		return nil
	}
	c := *g
	c.Data = append([]T(nil), g.Data...)
	return &c
}

// SameShape returns an error wrapping ErrMismatch unless g and o have the
// same dimensions.
func (g *Grid2[T]) SameShape(o *Grid2[T]) error {
	if g == nil || o == nil {
		return fmt.Errorf("lab: nil grid: %w", ErrMismatch)
	}
	if g.NY != o.NY || g.NX != o.NX {
		return fmt.Errorf("lab: grid %d×%d does not match grid %d×%d: %w", g.NY, g.NX, o.NY, o.NX, ErrMismatch)
	}
	for _, x := range []*Grid2[T]{g, o} {
		if err := x.Validate(); err != nil {
			return fmt.Errorf("%w (%w)", err, ErrMismatch)
		}
	}
	return nil
}

// Fill sets every point (j, k) to f(j, k). It returns an error wrapping
// ErrSize, and changes nothing, for a grid that fails Validate or a nil f.
func (g *Grid2[T]) Fill(f func(j, k int) T) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if f == nil {
		return fmt.Errorf("lab: fill with a nil function: %w", ErrSize)
	}
	for j := 0; j < g.NY; j++ {
		for k := 0; k < g.NX; k++ {
			g.Data[j*g.NX+k] = f(j, k)
		}
	}
	return nil
}

// FillRandom fills g with uniform values in [-1, 1) from a seeded PCG; a
// nil grid is left alone.
func (g *Grid2[T]) FillRandom(seed uint64) {
	if g != nil {
		fillRandom(g.Data, seed)
	}
}

// Poison sets every point to NaN; a nil grid is left alone.
func (g *Grid2[T]) Poison() {
	if g != nil {
		poison(g.Data)
	}
}

// X returns the coordinate of point k, X0 + k*H.
func (g *Grid1[T]) X(k int) float64 { return g.X0 + float64(k)*g.H }

// Fill sets every point k to f(k). It returns an error wrapping ErrSize,
// and changes nothing, for a nil grid or a nil f.
func (g *Grid1[T]) Fill(f func(k int) T) error {
	if g == nil || f == nil {
		return fmt.Errorf("lab: fill a nil 1D grid or with a nil function: %w", ErrSize)
	}
	for k := range g.Data {
		g.Data[k] = f(k)
	}
	return nil
}

// FillRandom fills g with uniform values in [-1, 1) from a seeded PCG; a
// nil grid is left alone.
func (g *Grid1[T]) FillRandom(seed uint64) {
	if g != nil {
		fillRandom(g.Data, seed)
	}
}

// Poison sets every point to NaN; a nil grid is left alone.
func (g *Grid1[T]) Poison() {
	if g != nil {
		poison(g.Data)
	}
}

func fillRandom[T Float](data []T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x5eed_57e4c11))
	for i := range data {
		data[i] = T(2*r.Float64() - 1)
	}
}

func poison[T Float](data []T) {
	nan := T(math.NaN())
	for i := range data {
		data[i] = nan
	}
}

// Diff summarises how far a result is from a reference.
type Diff struct {
	MaxAbs float64 // largest |got − want|; +Inf if any point is NaN in one and not the other
	RelL2  float64 // ‖got − want‖₂ / ‖want‖₂ (the absolute L2 norm when want is zero)
	Worst  int     // flat index of the largest difference, −1 when equal
}

// Compare returns the difference between got and want, which must have the
// same length. A NaN in got where want is a number counts as an infinite
// difference, so poisoned points that a kernel never wrote show up.
func Compare[T Float](got, want []T) (Diff, error) {
	if len(got) != len(want) {
		return Diff{}, fmt.Errorf("lab: compare %d values with %d: %w", len(got), len(want), ErrMismatch)
	}
	d := Diff{Worst: -1}
	var num, den float64
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		var e float64
		switch {
		case math.IsNaN(g) && math.IsNaN(w):
			e = 0
		case math.IsNaN(g) || math.IsNaN(w):
			e = math.Inf(1)
		default:
			e = math.Abs(g - w)
		}
		if e > d.MaxAbs {
			d.MaxAbs, d.Worst = e, i
		}
		num += e * e
		if !math.IsNaN(w) {
			den += w * w
		}
	}
	if den > 0 {
		d.RelL2 = math.Sqrt(num / den)
	} else {
		d.RelL2 = math.Sqrt(num)
	}
	return d, nil
}

// Compare3 compares two 3D grids of the same shape.
func Compare3[T Float](got, want *Grid3[T]) (Diff, error) {
	if err := got.SameShape(want); err != nil {
		return Diff{}, err
	}
	return Compare(got.Data, want.Data)
}

// Convert returns a copy of g with elements of type U; nil for a nil grid.
func Convert[U, T Float](g *Grid3[T]) *Grid3[U] {
	if g == nil {
		return nil
	}
	c := &Grid3[U]{NZ: g.NZ, NY: g.NY, NX: g.NX, Data: make([]U, len(g.Data))}
	for i, v := range g.Data {
		c.Data[i] = U(v)
	}
	return c
}
