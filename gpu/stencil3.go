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
}

// Stencil3 compiles a 3D step of the lab that has device code
// (lab.Step3.CUDA) for the device. The tile is checked against the device's limits on
// threads and shared memory per block before anything is compiled.
func (d *Device) Stencil3(step string, o Options) (*Stencil3, error) {
	cfg, err := newConfig3(step, o)
	if err != nil {
		return nil, err
	}
	return d.compileStencil3(cfg)
}

// Compile compiles a 3D step that the lab resolved once (lab.Resolve on
// the gpu backend): its tile and block are taken as resolved and
// validated, not looked up, resolved or validated again; defines are the
// step's tuning parameters (Params), checked here.
func (d *Device) Compile(p lab.Plan, defines []Define) (*Stencil3, error) {
	if !p.Resolved() || p.Kernel != nil {
		return nil, fmt.Errorf("gpu: %s: not a resolved plan of a step's own kernel (lab.Resolve)", p.Name)
	}
	if err := onGPU(p.Step); err != nil {
		return nil, err
	}
	c, err := resolvedConfig(p.Step, p.Config, defines)
	if err != nil {
		return nil, err
	}
	return d.compileStencil3(c)
}

// compileStencil3 compiles a resolved configuration.
func (d *Device) compileStencil3(cfg config3) (*Stencil3, error) {
	step := cfg.step
	// The block and shared memory do not depend on the grid: check them on
	// the smallest grid now.
	side := 2*cfg.desc.StarRadius() + 1 // the smallest side with a point to compute: 3 for the seven-point star
	if err := checkGeometry(cfg.geometry(side, side, side+1, 1), d.props, 0, 0); err != nil {
		return nil, fmt.Errorf("gpu: %s with tile %d: %w", step, cfg.tile, err)
	}
	name, text, err := cfg.source()
	if err != nil {
		return nil, err
	}
	m, err := d.compile(name, text, cfg.defines)
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
	return k.mod.Function(k.cfg.entry(nx))
}

// Geometry returns the launch for an nz×ny×nx grid, with the shared memory
// per block as the compiled kernel declares it, after checking it against
// the device's limits.
func (k *Stencil3) Geometry(nz, ny, nx int) (Geometry, error) {
	_, g, err := k.resolve(nz, ny, nx)
	return g, err
}

// resolve returns the kernel that runs an nz×ny×nx grid and its launch,
// checked as Geometry says.
func (k *Stencil3) resolve(nz, ny, nx int) (*Function, Geometry, error) {
	if nz < 3 || ny < 3 || nx < 3 {
		return nil, Geometry{}, fmt.Errorf("gpu: %s: grid %d×%d×%d has a side below 3 and no interior point: %w", k.cfg.step, nz, ny, nx, lab.ErrSize)
	}
	if r := k.cfg.desc.StarRadius(); nz < 2*r+1 || ny < 2*r+1 || nx < 2*r+1 {
		return nil, Geometry{}, fmt.Errorf("gpu: %s: grid %d×%d×%d has a side below %d and no point %d from every face: %w", k.cfg.step, nz, ny, nx, 2*r+1, r, lab.ErrSize)
	}
	// A configuration that cannot run these rows is refused, naming the
	// limit: no other kernel is swapped in.
	if err := k.cfg.check(nx, k.d.props); err != nil {
		return nil, Geometry{}, err
	}
	f, err := k.Function(nx)
	if err != nil {
		return nil, Geometry{}, err
	}
	cz := 0
	if open, halo := k.cfg.chunks(); open {
		// Fill the GPU in whole waves: the blocks of one chunk of planes
		// (any chunk length gives the same count), and how many fit at once.
		one := k.cfg.geometry(nz, ny, nx, nz)
		occ, err := f.Occupancy(one.Threads(), one.DynamicShared)
		if err != nil {
			return nil, Geometry{}, err
		}
		cz = chooseChunkHalo(one.Grid[0]*one.Grid[1], nz-2, occ*k.d.props.SMs, halo)
	}
	g := k.cfg.geometry(nz, ny, nx, cz)
	g.SharedBytes = f.StaticShared + g.DynamicShared
	if err := checkGeometry(g, k.d.props, f.MaxThreads, f.Registers); err != nil {
		return nil, Geometry{}, fmt.Errorf("gpu: %s on a %d×%d×%d grid: %w", k.cfg.step, nz, ny, nx, err)
	}
	return f, g, nil
}

func (k *Stencil3) prepare(dst, src *Buffer, nz, ny, nx int, c coefs) (*Function, Geometry, *Args, error) {
	f, g, err := k.resolve(nz, ny, nx)
	if err != nil {
		return nil, Geometry{}, nil, err
	}
	a, err := k.argsFor(g, dst, src, nz, ny, nx, c)
	return f, g, a, err
}

// argsFor checks the buffers of a resolved launch g and returns its
// arguments.
func (k *Stencil3) argsFor(g Geometry, dst, src *Buffer, nz, ny, nx int, c coefs) (*Args, error) {
	if err := k.cfg.checkCoefs(c); err != nil {
		return nil, err
	}
	if err := k.d.checkGridBuffers(k.cfg.step, dst, src, nz, ny, nx); err != nil {
		return nil, err
	}
	return k.cfg.args(src.ptr, dst.ptr, nz, ny, nx, c, g), nil
}

// args are the kernel arguments of a sweep of the nz×ny×nx grid at src into
// dst with launch g: the two grids, the sides and the seven coefficients
// of every step's contract (cuda/basic.cu), or a tuned step's own list.
func (c config3) args(src, dst uint64, nz, ny, nx int, co coefs, g Geometry) *Args {
	if c.tuned != nil {
		return c.tuned.args(src, dst, nz, ny, nx, co, g)
	}
	return sevenPointArgs(src, dst, int32(nz), int32(ny), int32(nx), co[0], co[1], co[2], co[3], co[4], co[5], co[6])
}

// chunkArgs are the arguments of a step whose blocks march through g.Planes
// planes of the grid (fast, temporal): the contract's, and the planes.
func chunkArgs(src, dst uint64, nz, ny, nx int, co coefs, g Geometry) *Args {
	return sevenPointChunkArgs(src, dst, int32(nz), int32(ny), int32(nx), co[0], co[1], co[2], co[3], co[4], co[5], co[6], int32(g.Planes))
}

// Launch runs one sweep of the nz×ny×nx grid in src into dst, timed with
// CUDA events, and returns its geometry and time. Boundary points of dst
// are not written.
func (k *Stencil3) Launch(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs) (Launch, error) {
	f, g, err := k.resolve(nz, ny, nx)
	if err != nil {
		return Launch{}, err
	}
	return k.launchResolved(f, g, dst, src, nz, ny, nx, sevenCoefs(c))
}

// launchResolved runs one sweep of a launch resolve returned, timed.
func (k *Stencil3) launchResolved(f *Function, g Geometry, dst, src *Buffer, nz, ny, nx int, c coefs) (Launch, error) {
	a, err := k.argsFor(g, dst, src, nz, ny, nx, c)
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
	return k.measure(dst, src, nz, ny, nx, sevenCoefs(c), warmup, reps)
}

// measure is Measure with the step's coefficients.
func (k *Stencil3) measure(dst, src *Buffer, nz, ny, nx int, c coefs, warmup, reps int) (Measurement, error) {
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

// sweeper runs a compiled step on host grids, the lab's Runner: it keeps
// device buffers between sweeps of grids of the same size.
type sweeper struct {
	k        *Stencil3
	mu       sync.Mutex
	src, dst *Buffer
}

// Sweep copies src and dst to the device, sweeps once, timed with CUDA
// events, and copies dst back: the signature of lab.SevenPoint, with the
// launch. Boundary points of dst keep their values.
func (s *sweeper) Sweep(dst, src *lab.Grid3[float32], c lab.Coeffs) (lab.Launch, error) {
	step := s.k.cfg.step
	if err := lab.CheckSweep(dst, src); err != nil {
		return lab.Launch{}, fmt.Errorf("gpu: %s: %w", step, err)
	}
	// The launch is resolved once a sweep (occupancy, chunks, limits),
	// before any buffer is allocated, and launched as resolved.
	f, g, err := s.k.resolve(src.NZ, src.NY, src.NX)
	if err != nil {
		return lab.Launch{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.buffers(src); err != nil {
		return lab.Launch{}, err
	}
	if err := s.src.Upload(0, src.Data); err != nil {
		return lab.Launch{}, fmt.Errorf("gpu: %s: %w", step, err)
	}
	if err := s.dst.Upload(0, dst.Data); err != nil {
		return lab.Launch{}, fmt.Errorf("gpu: %s: %w", step, err)
	}
	l, err := s.k.launchResolved(f, g, s.dst, s.src, src.NZ, src.NY, src.NX, sevenCoefs(c))
	if err != nil {
		return lab.Launch{}, err
	}
	if err := s.dst.Download(0, dst.Data); err != nil {
		return lab.Launch{}, fmt.Errorf("gpu: %s: %w", step, err)
	}
	return lab.Launch{Geometry: l.Geometry.Lab(), Millis: l.Millis}, nil
}

// buffers keeps two device buffers of src's size, allocating them when the
// size changed. The caller holds s.mu.
func (s *sweeper) buffers(src *lab.Grid3[float32]) error {
	n := len(src.Data)
	if s.src != nil && s.src.n == n {
		return nil
	}
	s.free()
	what := fmt.Sprintf("%s on a %d×%d×%d grid (source and destination)", s.k.cfg.step, src.NZ, src.NY, src.NX)
	if err := s.k.d.checkFreeFit(what, 2*uint64(n)*4, lab.CubeFit(2)); err != nil {
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
	return nil
}

// Close frees the device buffers.
func (s *sweeper) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free()
	return nil
}

func (s *sweeper) free() {
	s.src.Free()
	s.dst.Free()
	s.src, s.dst = nil, nil
}

// Sweeper returns the sweep of a 3D step on the device, with the signature
// of lab.SevenPoint.
func (d *Device) Sweeper(step string, o Options) (lab.SweepFunc, error) {
	k, err := d.Stencil3(step, o)
	if err != nil {
		return nil, err
	}
	if !lab.SevenPointStep(k.cfg.desc) {
		return nil, errNotSevenPoint(k.cfg.desc)
	}
	s := &sweeper{k: k}
	return func(dst, src *lab.Grid3[float32], c lab.Coeffs) error {
		_, err := s.Sweep(dst, src, c)
		return err
	}, nil
}

// backend is the gpu backend of the lab: it runs every step that has
// device code, on the default device, opened at the first use so that a
// machine without a GPU gets ErrNoGPU then.
type backend struct{}

func (backend) Supports(s lab.Step3) bool { return lab.OnGPU(s) }

func (backend) Device() string {
	if d, err := Default(); err == nil {
		return d.Props().Name
	}
	return "GPU"
}

func (backend) Runner(s lab.Step3, cfg lab.Config) (lab.Runner, error) {
	if !lab.SevenPointStep(s) {
		return nil, errNotSevenPoint(s)
	}
	d, err := Default()
	if err != nil {
		return nil, err
	}
	// The lab resolved the step and its configuration once (lab.Resolve):
	// they come as they are, not by name, resolved or validated again.
	if err := onGPU(s); err != nil {
		return nil, err
	}
	c, err := resolvedConfig(s, cfg, nil)
	if err != nil {
		return nil, err
	}
	k, err := d.compileStencil3(c)
	if err != nil {
		return nil, err
	}
	return &sweeper{k: k}, nil
}

func init() { lab.RegisterBackend(lab.GPU, backend{}) }
