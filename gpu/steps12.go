package gpu

import (
	"fmt"
	"math"
	"strconv"

	"stencillab.dev/lab"
)

// Default tiles of the 1D and 2D steps.
const (
	DefaultDerivativeTile = 256 // threads per block, IN_TILE_DIM of derivative.cu
	DefaultFivePointTile  = 16  // IN_TILE_DIM of five_point.cu: 16×16 blocks
)

// Derivative1 is the 1D derivative kernel compiled for one stencil radius.
type Derivative1 struct {
	d       *Device
	f       *Function
	tile    int
	radius  int
	deriv   int
	weights [9]float32
}

// checkStencil1 checks that s is a central stencil the kernel can run:
// offsets −R…R in order, 1 ≤ R ≤ 4, one coefficient per offset.
func checkStencil1(s lab.Stencil1) error {
	if len(s.Offsets) != len(s.Coeffs) || len(s.Offsets) == 0 {
		return fmt.Errorf("gpu: derivative: stencil %q has %d offsets and %d coefficients", s.Name, len(s.Offsets), len(s.Coeffs))
	}
	r := s.Radius
	if r < 1 || r > 4 {
		return fmt.Errorf("gpu: derivative: stencil %q has radius %d; the kernel supports 1 to 4", s.Name, r)
	}
	if len(s.Offsets) != 2*r+1 {
		return fmt.Errorf("gpu: derivative: stencil %q of radius %d has %d points, not %d", s.Name, r, len(s.Offsets), 2*r+1)
	}
	for m, o := range s.Offsets {
		if o != m-r {
			return fmt.Errorf("gpu: derivative: stencil %q: offset %d is %d; the kernel needs the offsets −%d…%d in order", s.Name, m, o, r, r)
		}
	}
	if s.Derivative < 0 {
		return fmt.Errorf("gpu: derivative: stencil %q: derivative order %d is negative", s.Name, s.Derivative)
	}
	return nil
}

// derivativeGeometry is the 1D launch: tile threads per block, each block
// computing tile−2·radius outputs.
func derivativeGeometry(n, radius, tile int) Geometry {
	return Geometry{Block: [3]int{tile, 1, 1}, Grid: [3]int{ceilDiv(n-radius, tile-2*radius), 1, 1}, SharedBytes: 4 * tile}
}

// Derivative1 compiles the 1D derivative kernel for the radius of s with
// tile threads per block (0 for DefaultDerivativeTile).
func (d *Device) Derivative1(s lab.Stencil1, tile int) (*Derivative1, error) {
	if err := checkStencil1(s); err != nil {
		return nil, err
	}
	if tile == 0 {
		tile = DefaultDerivativeTile
	}
	if tile <= 2*s.Radius {
		return nil, fmt.Errorf("gpu: derivative: tile %d leaves no output for radius %d: it must exceed %d", tile, s.Radius, 2*s.Radius)
	}
	if err := checkGeometry(derivativeGeometry(tile, s.Radius, tile), d.props, 0, 0); err != nil {
		return nil, fmt.Errorf("gpu: derivative with tile %d: %w", tile, err)
	}
	m, err := d.Module("derivative", []Define{{"RADIUS", strconv.Itoa(s.Radius)}, {"IN_TILE_DIM", strconv.Itoa(tile)}})
	if err != nil {
		return nil, err
	}
	f, err := m.Function("derivative")
	if err != nil {
		return nil, err
	}
	var w [9]float32
	for i, c := range s.Coeffs {
		w[i] = float32(c)
	}
	return &Derivative1{d: d, f: f, tile: tile, radius: s.Radius, deriv: s.Derivative, weights: w}, nil
}

// Launch applies the stencil to the n points of src with spacing h and
// writes dst for radius ≤ k < n−radius; it divides by h^derivative.
func (p *Derivative1) Launch(dst, src *Buffer, n int, h float64) (Launch, error) {
	if n < 2*p.radius+1 {
		return Launch{}, fmt.Errorf("gpu: derivative: %d points is fewer than the %d the stencil spans: %w", n, 2*p.radius+1, lab.ErrSize)
	}
	if !(h > 0) || math.IsInf(h, 0) {
		return Launch{}, fmt.Errorf("gpu: derivative: spacing h = %g must be positive and finite", h)
	}
	if err := dst.span(0, n); err != nil {
		return Launch{}, fmt.Errorf("gpu: derivative: destination: %w", err)
	}
	if err := src.span(0, n); err != nil {
		return Launch{}, fmt.Errorf("gpu: derivative: source: %w", err)
	}
	scale := 1 / math.Pow(h, float64(p.deriv))
	g := derivativeGeometry(n, p.radius, p.tile)
	g.SharedBytes = p.f.StaticShared
	a := derivativeArgs(src.ptr, dst.ptr, int64(n), p.weights, float32(scale))
	ms, err := p.d.launch(p.f, g, a, true)
	return Launch{Geometry: g, Millis: ms}, err
}

// Derivative is lab.Derivative on the device: it applies s to src and
// writes dst for Radius ≤ k < N−Radius, dividing by src.H^Derivative.
func (d *Device) Derivative(dst, src *lab.Grid1[float32], s lab.Stencil1) error {
	if dst == nil || src == nil {
		return fmt.Errorf("gpu: derivative: nil grid: %w", lab.ErrMismatch)
	}
	if dst.N != src.N || len(dst.Data) != len(src.Data) || len(src.Data) != src.N {
		return fmt.Errorf("gpu: derivative: grid of %d points does not match grid of %d: %w", dst.N, src.N, lab.ErrMismatch)
	}
	if err := checkStencil1(s); err != nil {
		return err
	}
	if src.N < 2*s.Radius+1 {
		return fmt.Errorf("gpu: derivative: %d points is fewer than the %d the stencil spans: %w", src.N, 2*s.Radius+1, lab.ErrSize)
	}
	p, err := d.Derivative1(s, 0)
	if err != nil {
		return err
	}
	return d.withBuffers("derivative", src.N, func(in, out *Buffer) error {
		if err := in.Upload(0, src.Data); err != nil {
			return err
		}
		if err := out.Upload(0, dst.Data); err != nil {
			return err
		}
		if _, err := p.Launch(out, in, src.N, src.H); err != nil {
			return err
		}
		return out.Download(0, dst.Data)
	})
}

// withBuffers allocates two buffers of n floats after checking that they
// fit, runs f and frees them.
func (d *Device) withBuffers(what string, n int, f func(in, out *Buffer) error) error {
	if err := d.CheckFree(fmt.Sprintf("%s on %d points (source and destination)", what, n), 2*uint64(n)*4); err != nil {
		return err
	}
	in, err := d.Alloc(n)
	if err != nil {
		return err
	}
	defer in.Free()
	out, err := d.Alloc(n)
	if err != nil {
		return err
	}
	defer out.Free()
	return f(in, out)
}

// Derivative runs Device.Derivative on the default device.
func Derivative(dst, src *lab.Grid1[float32], s lab.Stencil1) error {
	d, err := Default()
	if err != nil {
		return err
	}
	return d.Derivative(dst, src, s)
}

// fivePointCoeffs maps a 2D stencil to the five-point kernel's c0…c4
// (centre, x−1, x+1, y−1, y+1), in whatever order its points are listed.
func fivePointCoeffs(s lab.Stencil2) ([5]float32, error) {
	var c [5]float32
	if len(s.Offsets) != len(s.Coeffs) {
		return c, fmt.Errorf("gpu: five_point: stencil %q has %d offsets and %d coefficients", s.Name, len(s.Offsets), len(s.Coeffs))
	}
	if len(s.Offsets) != 5 {
		return c, fmt.Errorf("gpu: five_point: stencil %q has %d points; the kernel runs five-point stencils only (centre and x∓1, y∓1)", s.Name, len(s.Offsets))
	}
	slots := map[[2]int]int{{0, 0}: 0, {0, -1}: 1, {0, 1}: 2, {-1, 0}: 3, {1, 0}: 4}
	seen := [5]bool{}
	for m, o := range s.Offsets {
		i, ok := slots[o]
		if !ok || seen[i] {
			return c, fmt.Errorf("gpu: five_point: stencil %q has the point (dy %d, dx %d); the kernel runs five-point stencils only (centre and x∓1, y∓1, once each)", s.Name, o[0], o[1])
		}
		seen[i] = true
		c[i] = float32(s.Coeffs[m])
	}
	return c, nil
}

// fivePointGeometry is the 2D launch: T×T blocks, each computing a
// (T−2)×(T−2) output tile.
func fivePointGeometry(ny, nx, tile int) Geometry {
	o := tile - 2
	return Geometry{Block: [3]int{tile, tile, 1}, Grid: [3]int{ceilDiv(nx-1, o), ceilDiv(ny-1, o), 1}, SharedBytes: 4 * tile * tile}
}

// FivePoint2 is the 2D five-point kernel compiled for one tile.
type FivePoint2 struct {
	d    *Device
	f    *Function
	tile int
	c    [5]float32
}

// FivePoint2 compiles the 2D five-point kernel for stencil s with T×T
// blocks (tile 0 for DefaultFivePointTile).
func (d *Device) FivePoint2(s lab.Stencil2, tile int) (*FivePoint2, error) {
	c, err := fivePointCoeffs(s)
	if err != nil {
		return nil, err
	}
	if tile == 0 {
		tile = DefaultFivePointTile
	}
	if tile < 3 {
		return nil, fmt.Errorf("gpu: five_point: IN_TILE_DIM = %d leaves no output tile: it must be at least 3", tile)
	}
	if err := checkGeometry(fivePointGeometry(3, 3, tile), d.props, 0, 0); err != nil {
		return nil, fmt.Errorf("gpu: five_point with tile %d: %w", tile, err)
	}
	m, err := d.Module("five_point", []Define{{"IN_TILE_DIM", strconv.Itoa(tile)}})
	if err != nil {
		return nil, err
	}
	f, err := m.Function("five_point")
	if err != nil {
		return nil, err
	}
	return &FivePoint2{d: d, f: f, tile: tile, c: c}, nil
}

// Launch sweeps the ny×nx grid in src into dst, timed.
func (p *FivePoint2) Launch(dst, src *Buffer, ny, nx int) (Launch, error) {
	if ny < 3 || nx < 3 {
		return Launch{}, fmt.Errorf("gpu: five_point: grid %d×%d has no interior: %w", ny, nx, lab.ErrSize)
	}
	if err := dst.span(0, ny*nx); err != nil {
		return Launch{}, fmt.Errorf("gpu: five_point: destination: %w", err)
	}
	if err := src.span(0, ny*nx); err != nil {
		return Launch{}, fmt.Errorf("gpu: five_point: source: %w", err)
	}
	g := fivePointGeometry(ny, nx, p.tile)
	g.SharedBytes = p.f.StaticShared
	c := p.c
	a := fivePointArgs(src.ptr, dst.ptr, int32(ny), int32(nx), c[0], c[1], c[2], c[3], c[4])
	ms, err := p.d.launch(p.f, g, a, true)
	return Launch{Geometry: g, Millis: ms}, err
}

// Sweep2 is lab.Sweep2 on the device for five-point stencils: it writes
// the interior points of dst from src and leaves the boundary as it is.
func (d *Device) Sweep2(dst, src *lab.Grid2[float32], s lab.Stencil2) error {
	if _, err := fivePointCoeffs(s); err != nil {
		return err
	}
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("gpu: five_point: %w", err)
	}
	if src.NY < 3 || src.NX < 3 {
		return fmt.Errorf("gpu: five_point: grid %d×%d has no interior for a stencil of radius 1: %w", src.NY, src.NX, lab.ErrSize)
	}
	if lab.Overlap(dst.Data, src.Data) {
		return fmt.Errorf("gpu: five_point: %s; a sweep needs two separate grids: %w", lab.OverlapError(dst.Data, src.Data), lab.ErrMismatch)
	}
	p, err := d.FivePoint2(s, 0)
	if err != nil {
		return err
	}
	return d.withBuffers("five_point", len(src.Data), func(in, out *Buffer) error {
		if err := in.Upload(0, src.Data); err != nil {
			return err
		}
		if err := out.Upload(0, dst.Data); err != nil {
			return err
		}
		if _, err := p.Launch(out, in, src.NY, src.NX); err != nil {
			return err
		}
		return out.Download(0, dst.Data)
	})
}

// Sweep2 runs Device.Sweep2 on the default device.
func Sweep2(dst, src *lab.Grid2[float32], s lab.Stencil2) error {
	d, err := Default()
	if err != nil {
		return err
	}
	return d.Sweep2(dst, src, s)
}
