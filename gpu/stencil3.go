package gpu

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"stencillab.dev/lab"
)

// Stencil3 is a 3D seven-point step compiled for a device, ready to launch
// on device buffers.
type Stencil3 struct {
	d   *Device
	cfg config3
	mod *Module

	// Rows too long for mode 3's shared-memory ring run on mode 0.
	fallbackOnce sync.Once
	fallback     *Stencil3
	fallbackErr  error
}

// ringTooLarge reports whether the fast kernel's bulk mode cannot hold its
// ring of whole rows of nx points in the shared memory a block may have.
func ringTooLarge(c config3, nx int, p Props) bool {
	if c.step != "fast" || c.fast.Mode != fastBulk || vec(nx) != 4 {
		return false
	}
	limit := max(p.SharedPerBlock, p.SharedPerBlockOptin)
	return c.geometry(3, 3, nx, 1).SharedBytes > limit
}

// route returns the kernel that runs rows of nx points: k itself, or for
// rows too long for mode 3's ring the fast kernel in mode 0.
func (k *Stencil3) route(nx int) (*Stencil3, error) {
	if !ringTooLarge(k.cfg, nx, k.d.props) {
		return k, nil
	}
	k.fallbackOnce.Do(func() {
		k.fallback, k.fallbackErr = k.d.Stencil3("fast", Options{Tile: k.cfg.fast.CZ, Defines: []Define{{"FAST_MODE", "0"}}})
	})
	return k.fallback, k.fallbackErr
}

// Stencil3 compiles a 3D step (basic, tiled, coarsened, register_tiled or
// fast) for the device. The tile is checked against the device's limits on
// threads and shared memory per block before anything is compiled.
func (d *Device) Stencil3(step string, o Options) (*Stencil3, error) {
	cfg, err := newConfig3(step, o)
	if err != nil {
		return nil, err
	}
	step = cfg.step
	// The block and shared memory do not depend on the grid: check them on
	// the smallest grid now.
	if err := checkGeometry(cfg.geometry(3, 3, 4, 1), d.props, 0, 0); err != nil {
		return nil, fmt.Errorf("gpu: %s with tile %d: %w", step, cfg.tile, err)
	}
	m, err := d.Module(step, cfg.defines)
	if err != nil {
		return nil, err
	}
	return &Stencil3{d: d, cfg: cfg, mod: m}, nil
}

// Step returns the step's name.
func (k *Stencil3) Step() string { return k.cfg.step }

// Tile returns the tile in use (see Options.Tile).
func (k *Stencil3) Tile() int { return k.cfg.tile }

// TileShape describes the tile of a launch g on rows of nx points, e.g.
// "32x32", or for fast points×rows×planes per block.
func (k *Stencil3) TileShape(nx int, g Geometry) string { return k.cfg.describeTile(nx, g.Planes) }

// Defines returns the defines the step was compiled with.
func (k *Stencil3) Defines() []Define { return slices.Clone(k.cfg.defines) }

// Module returns the compiled module.
func (k *Stencil3) Module() *Module { return k.mod }

// Function returns the kernel that runs on rows of nx points (the fast
// step has a float4 kernel for rows of a multiple of 4 points and a scalar
// one for the others).
func (k *Stencil3) Function(nx int) (*Function, error) {
	r, err := k.route(nx)
	if err != nil {
		return nil, err
	}
	return r.mod.Function(r.cfg.entry(nx))
}

// Geometry returns the launch for an nz×ny×nx grid, with the shared memory
// per block as the compiled kernel declares it, after checking it against
// the device's limits.
func (k *Stencil3) Geometry(nz, ny, nx int) (Geometry, error) {
	if nz < 3 || ny < 3 || nx < 3 {
		return Geometry{}, fmt.Errorf("gpu: %s: grid %d×%d×%d has a side below 3 and no interior point: %w", k.cfg.step, nz, ny, nx, lab.ErrSize)
	}
	if r, err := k.route(nx); err != nil || r != k {
		if err != nil {
			return Geometry{}, err
		}
		return r.Geometry(nz, ny, nx)
	}
	f, err := k.Function(nx)
	if err != nil {
		return Geometry{}, err
	}
	cz := 0
	if k.cfg.step == "fast" && k.cfg.fast.CZ == 0 {
		// Fill the GPU in whole waves: the blocks of one chunk of planes
		// (any chunk length gives the same count), and how many fit at once.
		one := k.cfg.geometry(nz, ny, nx, nz)
		occ, err := f.Occupancy(one.Threads(), one.DynamicShared)
		if err != nil {
			return Geometry{}, err
		}
		cz = chooseChunk(one.Grid[0]*one.Grid[1], nz-2, occ*k.d.props.SMs)
	}
	g := k.cfg.geometry(nz, ny, nx, cz)
	g.SharedBytes = f.StaticShared + g.DynamicShared
	if err := checkGeometry(g, k.d.props, f.MaxThreads, f.Registers); err != nil {
		return Geometry{}, fmt.Errorf("gpu: %s on a %d×%d×%d grid: %w", k.cfg.step, nz, ny, nx, err)
	}
	return g, nil
}

func (k *Stencil3) prepare(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs) (*Function, Geometry, *args, error) {
	if nz >= 3 && ny >= 3 && nx >= 3 {
		if r, err := k.route(nx); err != nil || r != k {
			if err != nil {
				return nil, Geometry{}, nil, err
			}
			return r.prepare(dst, src, nz, ny, nx, c)
		}
	}
	g, err := k.Geometry(nz, ny, nx)
	if err != nil {
		return nil, Geometry{}, nil, err
	}
	if err := k.d.checkGridBuffers(k.cfg.step, dst, src, nz, ny, nx); err != nil {
		return nil, Geometry{}, nil, err
	}
	f, _ := k.Function(nx)
	a := new(args).ptr(src.ptr).ptr(dst.ptr).i32(int32(nz)).i32(int32(ny)).i32(int32(nx))
	for _, v := range c {
		a.f32(float32(v))
	}
	if k.cfg.step == "fast" {
		a.i32(int32(g.Planes))
	}
	return f, g, a, nil
}

// Launch runs one sweep of the nz×ny×nx grid in src into dst, timed with
// CUDA events, and returns its geometry and time. Boundary points of dst
// are not written.
func (k *Stencil3) Launch(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs) (Launch, error) {
	f, g, a, err := k.prepare(dst, src, nz, ny, nx, c)
	if err != nil {
		return Launch{}, err
	}
	ms, err := k.d.launch(f, g, a, true)
	if err != nil {
		return Launch{}, err
	}
	return Launch{Geometry: g, Millis: ms}, nil
}

// Measure runs warmup untimed sweeps, then reps sweeps each timed with
// CUDA events. The launch is prepared once: the timed loop only launches.
func (k *Stencil3) Measure(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs, warmup, reps int) (Measurement, error) {
	if reps < 1 {
		return Measurement{}, fmt.Errorf("gpu: measure %s: %d repetitions: need at least 1", k.cfg.step, reps)
	}
	f, g, a, err := k.prepare(dst, src, nz, ny, nx, c)
	if err != nil {
		return Measurement{}, err
	}
	return k.d.measure(f, g, a, warmup, reps)
}

// PlaneCheck is the result of CheckPlanes.
type PlaneCheck struct {
	Planes   []int    // the planes checked
	Diff     lab.Diff // over the checked planes; Worst indexes them as a stacked grid
	Points   int      // interior points compared
	Boundary int      // boundary points of the checked planes that are not NaN
}

// CheckPlanes compares planes of an nz×ny×nx sweep on the device with
// lab.SevenPoint computed on the host from the same input. For each plane
// i (1 ≤ i ≤ nz−2) it downloads planes i−1…i+1 of src and plane i of dst.
// Use it where a full reference would not fit or take too long (N = 2048).
// If dst was poisoned with NaN before the sweep, Boundary counts boundary
// points of those planes that were written.
func (d *Device) CheckPlanes(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs, planes []int) (PlaneCheck, error) {
	res := PlaneCheck{Planes: slices.Clone(planes)}
	plane := ny * nx
	if err := src.span(0, nz*plane); err != nil {
		return res, fmt.Errorf("gpu: check planes: source: %w", err)
	}
	if err := dst.span(0, nz*plane); err != nil {
		return res, fmt.Errorf("gpu: check planes: destination: %w", err)
	}
	var got, want []float32
	for _, i := range planes {
		if i < 1 || i > nz-2 {
			return res, fmt.Errorf("gpu: check planes: plane %d is not interior (1 to %d)", i, nz-2)
		}
		in, err := lab.NewGrid3[float32](3, ny, nx)
		if err != nil {
			return res, err
		}
		if err := src.Download((i-1)*plane, in.Data); err != nil {
			return res, err
		}
		out, _ := lab.NewGrid3[float32](3, ny, nx)
		if err := dst.Download(i*plane, out.Data[plane:2*plane]); err != nil {
			return res, err
		}
		ref := out.Clone()
		if err := lab.SevenPoint(ref, in, c); err != nil {
			return res, err
		}
		got = append(got, out.Data[plane:2*plane]...)
		want = append(want, ref.Data[plane:2*plane]...)
		for j := 0; j < ny; j++ {
			for kk := 0; kk < nx; kk++ {
				if j == 0 || j == ny-1 || kk == 0 || kk == nx-1 {
					if !math.IsNaN(float64(out.At(1, j, kk))) {
						res.Boundary++
					}
				} else {
					res.Points++
				}
			}
		}
	}
	diff, err := lab.Compare(got, want)
	if err != nil {
		return res, err
	}
	res.Diff = diff
	return res, nil
}

// sweeper is a registered GPU step: it keeps device buffers between calls
// on grids of the same size.
type sweeper struct {
	k        *Stencil3
	mu       sync.Mutex
	src, dst *Buffer

	record bool      // keep each launch's time (TimedSweeper)
	times  []float64 // kernel times of the launches so far, ms
	geo    Geometry  // geometry of the last launch
}

// Sweep copies src and dst to the device, sweeps, and copies dst back:
// the signature of lab.SevenPoint. Boundary points of dst keep their
// values.
func (s *sweeper) Sweep(dst, src *lab.Grid3[float32], c lab.Coeffs) error {
	step := s.k.cfg.step
	if err := lab.CheckSweep(dst, src); err != nil {
		return fmt.Errorf("gpu: %s: %w", step, err)
	}
	if _, err := s.k.Geometry(src.NZ, src.NY, src.NX); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(src.Data)
	if s.src == nil || s.src.n != n {
		s.src.Free()
		s.dst.Free()
		s.src, s.dst = nil, nil
		what := fmt.Sprintf("%s on a %d×%d×%d grid (source and destination)", step, src.NZ, src.NY, src.NX)
		if err := s.k.d.CheckFree(what, 2*uint64(n)*4); err != nil {
			return err
		}
		a, err := s.k.d.Alloc(n)
		if err != nil {
			return err
		}
		b, err := s.k.d.Alloc(n)
		if err != nil {
			a.Free()
			return err
		}
		s.src, s.dst = a, b
	}
	if err := s.src.Upload(0, src.Data); err != nil {
		return fmt.Errorf("gpu: %s: %w", step, err)
	}
	if err := s.dst.Upload(0, dst.Data); err != nil {
		return fmt.Errorf("gpu: %s: %w", step, err)
	}
	l, err := s.k.Launch(s.dst, s.src, src.NZ, src.NY, src.NX, c)
	if err != nil {
		return err
	}
	if s.record {
		s.times = append(s.times, l.Millis)
		s.geo = l.Geometry
	}
	if err := s.dst.Download(0, dst.Data); err != nil {
		return fmt.Errorf("gpu: %s: %w", step, err)
	}
	return nil
}

// Sweeper returns the sweep of a 3D step on the device, with the signature
// of lab.SevenPoint.
func (d *Device) Sweeper(step string, o Options) (lab.SweepFunc, error) {
	k, err := d.Stencil3(step, o)
	if err != nil {
		return nil, err
	}
	return (&sweeper{k: k}).Sweep, nil
}

// TimedSweeper is Sweeper that also keeps the kernel time of every sweep,
// measured with CUDA events and without the copies between host and
// device. measured summarises the sweeps made so far; release frees the
// device buffers the sweep keeps between calls.
func (d *Device) TimedSweeper(step string, o Options) (sweep lab.SweepFunc, measured func() Measurement, release func(), err error) {
	k, err := d.Stencil3(step, o)
	if err != nil {
		return nil, nil, nil, err
	}
	s := &sweeper{k: k, record: true}
	measured = func() Measurement {
		s.mu.Lock()
		defer s.mu.Unlock()
		return summarize(s.geo, slices.Clone(s.times))
	}
	release = func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.src.Free()
		s.dst.Free()
		s.src, s.dst = nil, nil
	}
	return s.Sweep, measured, release, nil
}

// maker returns the lab.Maker of a step: it opens the default device on
// first use, so that on a machine without a GPU it returns ErrNoGPU.
func maker(step string) lab.Maker {
	return func(cfg lab.Config) (lab.SweepFunc, error) {
		d, err := Default()
		if err != nil {
			return nil, err
		}
		return d.Sweeper(step, Options{Tile: cfg.Tile})
	}
}

func init() {
	for _, s := range Steps3 {
		lab.Register(s, lab.GPU, maker(s))
	}
}
