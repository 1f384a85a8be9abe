package lab

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"stencillab.dev/lab/sim"
)

// Backend names.
const (
	CPU = "cpu" // plain Go on the CPU: the reference sweep
	Sim = "sim" // the simulated CUDA machine on the CPU
	GPU = "gpu" // a real NVIDIA GPU, through the gpu package
)

// Backend runs 3D steps on one kind of machine. The lab registers the CPU
// and the simulator; the gpu package registers the GPU when it is
// imported.
type Backend interface {
	// Supports reports whether the backend runs the step.
	Supports(s Step3) bool
	// Device names where the backend runs, for reports: "CPU", "CPU
	// simulator", or a GPU's name.
	Device() string
	// Runner prepares the step with a resolved configuration (Tile set).
	// It checks what it can before any grid is allocated: a tile beyond
	// the device's limits, say.
	Runner(s Step3, cfg Config) (Runner, error)
}

// Runner runs one prepared step, sweep after sweep.
type Runner interface {
	// Sweep writes the interior points of dst from src and leaves the
	// boundary points of dst as they are; the signature of SweepFunc, with
	// what the backend learnt of the launch.
	Sweep(dst, src *Grid3[float32], c Coeffs) (Launch, error)
	// Close releases what the runner holds (device buffers).
	Close() error
}

// Advancer is a Runner that advances a grid by many time steps itself,
// without a round trip through the host between passes (a GPU keeps both
// buffers on the device).
type Advancer interface {
	// Advance writes into the interior of dst the state of src after
	// steps time steps, passes of the step ping-ponging between two
	// buffers that both hold src's boundary, which stays fixed. steps is a
	// multiple of the step's time steps per pass. The Launch's Millis is
	// the time of all passes.
	Advance(dst, src *Grid3[float32], c Coeffs, steps int) (Launch, error)
}

// Launch is what a backend reports of one sweep.
type Launch struct {
	Geometry Geometry   // the launch; zero on the CPU
	Millis   float64    // the kernel's own time by the backend's clock (CUDA events); 0 when it has none
	Stats    *sim.Stats // the simulator's counters; nil on other backends
}

var backends struct {
	mu sync.RWMutex
	m  map[string]Backend
}

// RegisterBackend makes a backend available under a name. Registering a
// name twice panics: it is a programming error found at start-up.
func RegisterBackend(name string, b Backend) {
	backends.mu.Lock()
	defer backends.mu.Unlock()
	if backends.m == nil {
		backends.m = map[string]Backend{}
	}
	if _, dup := backends.m[name]; dup {
		panic(fmt.Sprintf("lab: backend %q registered twice", name))
	}
	backends.m[name] = b
}

func backend(name string) (Backend, bool) {
	backends.mu.RLock()
	defer backends.mu.RUnlock()
	b, ok := backends.m[name]
	return b, ok
}

// Backends returns the names of the backends that run a 3D step, sorted.
func Backends(step string) []string {
	s, err := LookupStep3(step)
	if err != nil {
		return nil
	}
	return backendsOf(s)
}

// NewRunner prepares a registered 3D step (or its alias) on a backend:
// Resolve, then Plan.Runner.
func NewRunner(step, backendName string, cfg Config) (Runner, Step3, Config, error) {
	p, err := Resolve(step, backendName, cfg)
	if err != nil {
		return nil, p.Step, p.Config, err
	}
	if p.Kernel != nil {
		return nil, p.Step, p.Config, fmt.Errorf("lab: %s is a broken kernel of %s: run it with Execute on the simulator", step, p.Step.Name)
	}
	r, err := p.Runner()
	return r, p.Step, p.Config, err
}

// Sweeper returns the sweep of a 3D step on a backend as a SweepFunc.
func Sweeper(step, backendName string, cfg Config) (SweepFunc, error) {
	r, _, _, err := NewRunner(step, backendName, cfg)
	if err != nil {
		return nil, err
	}
	return func(dst, src *Grid3[float32], c Coeffs) error {
		_, err := r.Sweep(dst, src, c)
		return err
	}, nil
}

// Run describes one run of a 3D step: which step, where, how, on what.
type Run struct {
	// Step names a registered 3D step or, on the simulator, a broken
	// kernel of one (BrokenKernels).
	Step string
	// Kernel, when set, is simulated instead of the step's own kernel (a
	// student's, say); Step then names it in reports and Backend must be
	// Sim.
	Kernel StencilKernel
	// Backend is where it runs: CPU, Sim or GPU.
	Backend string
	// Config is the tile and, for a step whose block is free, the block.
	Config Config
	// NZ, NY, NX are the grid's sides (each at least 3); unused when Src
	// is given.
	NZ, NY, NX int
	// C are the coefficients.
	C Coeffs
	// Seed seeds the random input grid, uniform in [−1, 1).
	Seed uint64
	// Src, when set, is the input instead of a random grid.
	Src *Grid3[float32]
	// Dst, when set, holds the output's starting values (the boundary
	// conditions, and whatever the interior starts as); it is swept in
	// place. Unset, the output starts as a copy of the input.
	Dst *Grid3[float32]
	// Steps is the number of time steps each repetition advances the
	// grid by (0 means one pass: 1 for a sweep, k for a step that
	// advances k a pass): passes of the step ping-pong between two
	// buffers, the boundary fixed, and Out gets the last state's interior.
	// It must be a multiple of the step's time steps per pass.
	Steps int
	// Reps is the number of repetitions; 0 means 1. At most MaxReps.
	Reps int
	// Progress, when set, hears from the simulator how a launch that runs
	// longer than sim.ProgressAfter is getting on, about once a second
	// (sim.Simulator.Progress); other backends do not call it.
	Progress func(sim.Progress)
	// Split, when it asks for one (Split.Splits), spreads the run over
	// several ranks: Execute hands it to the splitter registered for the
	// backend (RegisterSplitter).
	Split Split
	// Plan, when resolved (Resolve), is the step, backend and
	// configuration of the run, resolved once at the edge; Step, Backend
	// and Config are then left empty (Execute fills them in from it) or
	// agree with it. Unresolved, Execute resolves Step, Backend and Config
	// itself, once.
	Plan Plan
}

// MaxReps bounds Run.Reps (and `stencil run -reps`): each repetition keeps
// its times, so an absurd count would grow memory for nothing.
const MaxReps = 100_000

// MaxSteps bounds Run.Steps (and `-steps`): a million time steps of even
// the smallest grid is more than any exercise of the course asks.
const MaxSteps = 1_000_000

// checkCounts returns an error naming the limit unless r's repetitions
// and time steps are within range.
func (r Run) checkCounts() error {
	switch {
	case r.Reps < 0:
		return fmt.Errorf("lab: run %s: %d repetitions: the count must not be negative (0 means 1): %w", r.Step, r.Reps, ErrSize)
	case r.Reps > MaxReps:
		return fmt.Errorf("lab: run %s: %d repetitions exceeds the limit of %d: %w", r.Step, r.Reps, MaxReps, ErrSize)
	case r.Steps < 0:
		return fmt.Errorf("lab: run %s: %d time steps: the count must not be negative (0 means one pass): %w", r.Step, r.Steps, ErrSize)
	case r.Steps > MaxSteps:
		return fmt.Errorf("lab: run %s: %d time steps exceeds the limit of %d: %w", r.Step, r.Steps, MaxSteps, ErrSize)
	case r.Config.Tile < 0:
		return fmt.Errorf("lab: run %s: tile %d must be positive (or 0 for the default): %w", r.Step, r.Config.Tile, ErrSize)
	}
	for _, g := range []struct {
		what string
		g    *Grid3[float32]
	}{{"input", r.Src}, {"output", r.Dst}} {
		if g.g != nil {
			if err := g.g.Validate(); err != nil {
				return fmt.Errorf("lab: run %s: the %s grid: %w", r.Step, g.what, err)
			}
		}
	}
	return nil
}

// Result is one run of a 3D step: where it ran, its launch, its times and
// its output.
type Result struct {
	Step       string    // the step or kernel name
	Backend    string    // CPU, Sim or GPU
	Device     string    // "CPU", "CPU simulator" or the GPU's name
	NZ, NY, NX int       // the grid
	Config     Config    // the configuration used, defaults resolved
	Steps      int       // time steps each repetition advanced
	Launch     Launch    // the last sweep's launch
	Stats      sim.Stats // the simulator's counters of the last sweep; zero on other backends
	Millis     []float64 // each repetition's time: the backend's clock where it has one (CUDA events), else the wall clock
	Wall       []float64 // each repetition's wall-clock time, ms, copies between host and device included
	Src, Out   *Grid3[float32]
	// Err is the kernel's own failure (a refused launch, a hazard, a
	// fault), also returned by Execute; the rest still describes the run.
	Err error
	// Comm is what the ranks of a split run sent each other per exchange;
	// nil without a split.
	Comm *CommStats
	// RankTimes holds, for each repetition of a split run, each rank's
	// time (indexed [repetition][rank]); nil without a split.
	RankTimes [][]RankTime
}

// Interior returns the interior points of the grid, the outputs of one sweep.
func (r Result) Interior() int64 {
	return int64(max(r.NZ-2, 0)) * int64(max(r.NY-2, 0)) * int64(max(r.NX-2, 0))
}

// MedianMillis returns the median of the sweeps' times (0 with none).
func (r Result) MedianMillis() float64 { return median(r.Millis) }

// MedianWall returns the median of the sweeps' wall-clock times.
func (r Result) MedianWall() float64 { return median(r.Wall) }

// TimedByBackend reports whether the times are the backend's own (CUDA
// events on a GPU) rather than the wall clock.
func (r Result) TimedByBackend() bool { return r.Launch.Millis > 0 }

func median(ts []float64) float64 {
	if len(ts) == 0 {
		return 0
	}
	t := slices.Clone(ts)
	slices.Sort(t)
	return t[len(t)/2]
}

// Execute runs r and returns its result. An error of the run's set-up (an
// unknown step, a bad grid, a tile beyond the limits) leaves an empty
// Result; an error of the kernel itself is also kept in Result.Err, with
// the rest of the result describing what the launch did.
//
// A run whose Split asks for one goes to the splitter registered for its
// backend; with none registered, Execute says which package to import
// rather than run on one domain.
//
// Execute does not panic: bad counts, grids or configurations are errors
// (MaxReps and MaxSteps bound the counts), and a panic in a kernel of one's
// own, while it prepares its launch or in a thread, is an error wrapping
// sim.ErrFault.
func Execute(r Run) (Result, error) {
	if r.Plan.Resolved() {
		// For the messages of the counts and the choice of a splitter.
		r.Step = cmp.Or(r.Step, r.Plan.Name)
		r.Backend = cmp.Or(r.Backend, r.Plan.Backend)
	}
	if err := r.checkCounts(); err != nil {
		return Result{}, err
	}
	var split Splitter
	if r.Split.Splits(r.Backend) {
		f, err := splitterOf(r)
		if err != nil {
			return Result{}, err
		}
		split = f
	}
	r, err := r.resolve()
	if err != nil {
		return Result{}, err
	}
	if split != nil {
		return split(r)
	}
	p := r.Plan
	run, err := p.Runner()
	if err != nil {
		return Result{}, err
	}
	if run == nil {
		return Result{}, fmt.Errorf("lab: run %s on %q: the backend prepared no runner: %w", r.Step, r.Backend, ErrUnknown)
	}
	defer run.Close()
	if sr, ok := run.(*simRunner); ok {
		sr.m.Progress = r.Progress
	}
	s, cfg := p.Step, p.Config
	res := Result{Step: r.Step, Backend: r.Backend, Config: cfg, Device: p.Device()}
	_, adv := run.(Advancer)
	if err := checkRunMemory(r, adv); err != nil {
		return Result{}, fmt.Errorf("lab: run %s: %w", res.Step, err)
	}
	src := r.Src
	if src == nil {
		if src, err = NewGrid3[float32](r.NZ, r.NY, r.NX); err != nil {
			return Result{}, fmt.Errorf("lab: run %s: %w", res.Step, err)
		}
		src.FillRandom(r.Seed)
	}
	dst := r.Dst
	if dst == nil {
		dst = src.Clone()
	}
	if err := CheckSweep(dst, src); err != nil {
		return Result{}, fmt.Errorf("lab: run %s: %w", res.Step, err)
	}
	res.NZ, res.NY, res.NX = src.NZ, src.NY, src.NX
	res.Src, res.Out = src, dst
	per := s.StepsPerPass(cfg)
	steps := r.Steps
	if steps <= 0 {
		steps = per
	}
	if steps%per != 0 {
		return Result{}, fmt.Errorf("lab: run %s: %d time steps is not a multiple of the %d a pass of %s advances", res.Step, steps, per, s.Name)
	}
	res.Steps = steps
	for range max(r.Reps, 1) {
		start := time.Now()
		l, err := advance(run, dst, src, r.C, steps, per)
		wall := float64(time.Since(start).Nanoseconds()) / 1e6
		res.Launch = l
		if l.Stats != nil {
			res.Stats = *l.Stats
		}
		if err != nil {
			res.Err = err
			return res, err
		}
		res.Wall = append(res.Wall, wall)
		if l.Millis > 0 {
			wall = l.Millis
		}
		res.Millis = append(res.Millis, wall)
	}
	return res, nil
}

// HostGrids returns the number of float32 grids of the run's shape that
// Execute allocates on the host for r: the input unless Src is given, the
// output unless Dst is given, and two more to ping-pong between when a
// repetition takes several passes and the backend has no time loop of
// its own (advancer false).
func (r Run) HostGrids(advancer bool) int {
	n := 0
	if r.Src == nil {
		n++
	}
	if r.Dst == nil {
		n++
	}
	if r.Steps > 1 && !advancer {
		n += 2
	}
	return n
}

// shape returns the run's grid: Src's when given, else NZ×NY×NX.
func (r Run) shape() (nz, ny, nx int) {
	if r.Src != nil {
		return r.Src.NZ, r.Src.NY, r.Src.NX
	}
	return r.NZ, r.NY, r.NX
}

// checkRunMemory checks, before anything is allocated, that the host
// grids of r fit in the memory available.
func checkRunMemory(r Run, advancer bool) error {
	nz, ny, nx := r.shape()
	if checkDims(1, nz, ny, nx) != nil {
		return nil // NewGrid3 says what is wrong
	}
	grids := r.HostGrids(advancer)
	need := uint64(grids) * gridBytes(nz, ny, nx)
	if need < checkAbove {
		return nil // small runs pass unchecked, as small grids do
	}
	return CheckMemory(RunWhat(grids, nz, ny, nx), need, CubeFit(grids))
}

// RunWhat names grids float32 grids of nz×ny×nx points for a memory
// error: "2 grids of 1600×1600×1600 float32".
func RunWhat(grids, nz, ny, nx int) string {
	noun := "grids"
	if grids == 1 {
		noun = "grid"
	}
	return fmt.Sprintf("%d %s of %d×%d×%d float32", grids, noun, nz, ny, nx)
}

// advance runs the passes of steps time steps, per a pass: one sweep for a
// single step, else the runner's own time loop where it has one, or passes
// ping-ponging on the host between two copies of src.
func advance(run Runner, dst, src *Grid3[float32], c Coeffs, steps, per int) (Launch, error) {
	if steps == per {
		return run.Sweep(dst, src, c)
	}
	if a, ok := run.(Advancer); ok {
		return a.Advance(dst, src, c, steps)
	}
	if err := CheckSweep(dst, src); err != nil {
		return Launch{}, err
	}
	cur, next := src.Clone(), src.Clone()
	var total Launch
	for range steps / per {
		l, err := run.Sweep(next, cur, c)
		if err != nil {
			return l, err
		}
		total.Geometry, total.Stats = l.Geometry, l.Stats
		total.Millis += l.Millis
		cur, next = next, cur
	}
	copyInterior(dst, cur)
	return total, nil
}

// copyInterior copies the interior points of src into dst, which has the
// same shape.
func copyInterior[T Float](dst, src *Grid3[T]) {
	for i := 1; i < src.NZ-1; i++ {
		for j := 1; j < src.NY-1; j++ {
			o := src.Index(i, j, 1)
			copy(dst.Data[o:o+src.NX-2], src.Data[o:o+src.NX-2])
		}
	}
}

// Advance is the CPU reference of a time loop: steps sweeps of sweep,
// ping-ponging between two copies of src so that the boundary stays
// fixed, the last state's interior written into dst. With
// SevenPoint[float64] it is the float64 reference of a run.
func Advance[T Float](sweep func(dst, src *Grid3[T], c Coeffs) error, dst, src *Grid3[T], c Coeffs, steps int) error {
	if err := CheckSweep(dst, src); err != nil {
		return err
	}
	if steps < 1 {
		return fmt.Errorf("lab: advance %d time steps: need at least one", steps)
	}
	cur, next := src.Clone(), src.Clone()
	for range steps {
		if err := sweep(next, cur, c); err != nil {
			return err
		}
		cur, next = next, cur
	}
	copyInterior(dst, cur)
	return nil
}

// resolve returns r with its Plan resolved, once: the plan it was given
// (Step, Backend and Config then empty or agreeing with it), or the one
// its Step, Backend, Config and Kernel resolve to. Step, Backend and
// Config are filled in from the plan for reports and splitters.
func (r Run) resolve() (Run, error) {
	p := r.Plan
	switch {
	case p.Resolved():
		if (r.Step != "" && r.Step != p.Name) || (r.Backend != "" && r.Backend != p.Backend) || r.Kernel != nil {
			return r, fmt.Errorf("lab: run %s on %q: the run also names %q on %q: give the plan alone", p.Name, p.Backend, r.Step, r.Backend)
		}
	case r.Kernel != nil:
		var err error
		if p, err = ownKernel(r.Step, r.Backend, r.Kernel, r.Config); err != nil {
			return r, err
		}
	default:
		var err error
		if p, err = Resolve(r.Step, r.Backend, r.Config); err != nil {
			return r, err
		}
	}
	r.Plan, r.Step, r.Backend, r.Config = p, p.Name, p.Backend, p.Config
	return r, nil
}
