package lab

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"stencillab.dev/lab/sim"
)

// Step3 describes one 3D seven-point step: everything the lab, the gpu
// backend, the command line, the notebooks, the figures and the exercises
// need to know about it. Each step states its facts once, in a file of its
// own in this package, and registers them with Register3; every table
// elsewhere (the catalogue, the simulator's kernels, the cost model, the
// GPU's launch geometry and defines, the CLI's help, the notebooks'
// defaults, the exercises) is derived from the registered steps.
type Step3 struct {
	Step // the catalogue entry: name, title, chapter figure, notebook, what it computes

	// DefaultTile is the tile when Config.Tile is 0 (0: the backend
	// chooses one per grid, as the gpu backend does for fast).
	DefaultTile int
	// MinTile is the smallest tile that has an output: 3 for an input tile
	// with its halo, 1 for a block edge.
	MinTile int
	// TileName says what the tile is, e.g. "IN_TILE_DIM" or "block edge".
	TileName string
	// BlockShape is true when the block may have another shape than the
	// tile's (Config.Block), as for the basic kernel, whose block is free.
	BlockShape bool

	// Geometry returns the launch on an nz×ny×nx grid (every side at
	// least 3) with a resolved configuration (Config.Tile set): the grid
	// of blocks, the block, the shared memory the kernel declares and the
	// z planes a block covers. It is nil for a step whose launch the gpu
	// backend chooses itself.
	Geometry func(nz, ny, nx int, cfg Config) Geometry

	// Cost is what one block far from the grid's faces does at tile T ≥
	// MinTile: the outputs it computes and the input elements it loads
	// from global memory. Nil for a step outside the chapter's model.
	Cost func(T int) (outputs, loads int)
	// LaunchLoads is the input elements a whole launch loads from global
	// memory on an nz×ny×nx grid with tile T, the blocks at the faces
	// counted exactly. Set with Cost.
	LaunchLoads func(nz, ny, nx, T int) int64
	// Explain is the cost in words, for messages and exercises.
	Explain Explain

	// Kernel is the simulated kernel (nil: the step does not run on the
	// simulator).
	Kernel StencilKernel
	// Sweep is the step on the CPU (nil: it does not run there).
	Sweep SweepFunc
	// CUDA is the step's device code (zero: it does not run on a GPU).
	CUDA CUDA
	// Broken are kernels of this step with one mistake each, from the
	// chapter or from the study notes, in teaching order.
	Broken []Broken
	// TimeSteps, for a temporally blocked step, returns the time steps one
	// pass over the grid advances with a resolved configuration; nil means
	// one, a sweep.
	TimeSteps func(cfg Config) int
	// Radius is the reach of the step's star along each axis: 0 (or 1)
	// for the seven-point star, whose coefficients are Coeffs and whose
	// reference is SevenPoint; 2 for the thirteen-point star of radius 2,
	// whose coefficients are Coeffs13 and whose reference is
	// ThirteenPointSweep. A step of radius 2 runs on a GPU only: its
	// thirteen coefficients do not pass through a SweepFunc, a simulated
	// kernel or the cost model, which are the seven-point star's.
	Radius int
}

// StarRadius returns the reach of the step's star: 1 for the seven-point
// star, 2 for the thirteen-point one.
func (s Step3) StarRadius() int { return max(s.Radius, 1) }

// SevenPointStep reports whether a step computes the seven-point star,
// the contract of SweepFunc, the simulator and the cost model.
func SevenPointStep(s Step3) bool { return s.StarRadius() == 1 }

// Explain describes a step's cost in words, one phrase per quantity, as
// the exercises' messages and the CLI's help give it.
type Explain struct {
	Outputs string // which outputs a block computes
	Loads   string // what a block loads from global memory
	Threads string // the block's threads
	Shared  string // the shared memory a block declares
}

// CUDA names a step's device code.
type CUDA struct {
	// File is the source in package cuda, e.g. "tiled.cu".
	File string
	// Entry is the extern "C" __global__ function to launch.
	Entry string
	// TileDefine is the preprocessor define that carries the tile, e.g.
	// "IN_TILE_DIM"; empty when the tile is the block shape, chosen at
	// launch.
	TileDefine string
	// Source is the CUDA C text itself, for a step defined outside package
	// cuda (a test, a notebook); empty takes File.
	Source string
}

// Config configures one run of a 3D step.
type Config struct {
	// Tile is the step's tile (Step3.TileName): IN_TILE_DIM, or the block
	// edge of the basic kernel; 0 means the step's default.
	Tile int
	// Block, for a step with BlockShape, sets the block instead of
	// Tile×Tile×Tile; zero means the tile's.
	Block sim.Dim3
}

// Geometry is the launch of a 3D step on a grid: CUDA's <<<Grid, Block,
// SharedBytes>>>, and the z planes each block covers.
type Geometry struct {
	Grid        sim.Dim3 // blocks along x, y, z
	Block       sim.Dim3 // threads along x, y, z
	SharedBytes int      // shared memory the kernel declares per block
	Planes      int      // z planes each block covers
}

// Broken describes a kernel with one mistake, for teaching.
type Broken struct {
	Name   string        // e.g. "coarsened_loop_closes_early"
	From   string        // where the mistake comes from
	Bug    string        // what is wrong, in one sentence
	Caught string        // how the simulator shows it
	Kernel StencilKernel // the kernel, ready for Simulate
}

// ErrIncomplete is wrapped by the errors of Register3 about a step that
// lacks a part.
var ErrIncomplete = errors.New("step description incomplete")

var steps3 struct {
	mu   sync.RWMutex
	list []Step3 // in teaching order
}

// Register3 adds a 3D step to the lab. Every part that the rest of the lab
// derives from it is checked here, and a missing or inconsistent part is
// an error naming it, wrapping ErrIncomplete; a name already taken, by a
// step or by a broken kernel, is an error too.
func Register3(s Step3) error {
	if err := s.validate(); err != nil {
		return err
	}
	steps3.mu.Lock()
	defer steps3.mu.Unlock()
	taken := map[string]bool{}
	for _, o := range catalogue {
		taken[o.Name] = true
	}
	for _, o := range steps3.list {
		taken[o.Name] = true
		for _, b := range o.Broken {
			taken[b.Name] = true
		}
	}
	for _, n := range append([]string{s.Name}, brokenNames(s)...) {
		if taken[n] {
			return fmt.Errorf("lab: register step %q: the name %q is taken", s.Name, n)
		}
	}
	s.Dim = 3
	s.Tiled = s.TileName != ""
	s.Broken = slices.Clone(s.Broken)
	steps3.list = append(steps3.list, s)
	sort.SliceStable(steps3.list, func(a, b int) bool { return steps3.list[a].Notebook < steps3.list[b].Notebook })
	return nil
}

// mustRegister3 registers a step of this package at start-up; a step that
// fails validation is a programming error.
func mustRegister3(s Step3) Step3 {
	if err := Register3(s); err != nil {
		panic(err)
	}
	return s
}

func brokenNames(s Step3) []string {
	var ns []string
	for _, b := range s.Broken {
		ns = append(ns, b.Name)
	}
	return ns
}

// validate checks that the parts of s hang together.
func (s Step3) validate() error {
	missing := func(part, why string) error {
		return fmt.Errorf("lab: step %q: %s: %s: %w", s.Name, part, why, ErrIncomplete)
	}
	switch {
	case s.Name == "" || strings.ContainsAny(s.Name, " \t/\\:,="):
		return missing("name", fmt.Sprintf("%q must be a non-empty word (letters, digits, _)", s.Name))
	case s.Title == "":
		return missing("title", "every step needs a short title")
	case s.Notebook == "":
		return missing("notebook", "every step needs the notebook that teaches it")
	case s.Kernel == nil && s.Sweep == nil && s.CUDA == (CUDA{}):
		return missing("implementation", "no simulated kernel, CPU sweep or CUDA file")
	case s.CUDA != (CUDA{}) && (s.CUDA.Entry == "" || (s.CUDA.File == "" && s.CUDA.Source == "")):
		return missing("CUDA", "a CUDA step needs its entry point and its file or source")
	case s.Kernel != nil && s.Geometry == nil:
		return missing("geometry", "a simulated kernel needs the launch geometry it uses")
	case s.Geometry != nil && s.DefaultTile < 1:
		return missing("default tile", "a step with a geometry needs a default tile")
	case s.DefaultTile > 0 && s.DefaultTile < s.MinTile:
		return missing("default tile", fmt.Sprintf("%d is below the smallest tile %d", s.DefaultTile, s.MinTile))
	case s.Geometry != nil && s.MinTile < 1:
		return missing("smallest tile", "must be at least 1")
	case (s.Cost == nil) != (s.LaunchLoads == nil):
		return missing("cost", "the block cost and the launch loads come together")
	case s.Cost != nil && s.Geometry == nil:
		return missing("cost", "the cost model takes threads and shared memory from the geometry")
	case s.Cost != nil && (s.Explain.Loads == "" || s.Explain.Outputs == "" || s.Explain.Threads == "" || s.Explain.Shared == ""):
		return missing("explain", "a step in the cost model says in words what a block loads, computes, runs and shares")
	case s.Radius < 0 || s.Radius > 2:
		return missing("radius", fmt.Sprintf("%d: a star of radius 1 (seven points) or 2 (thirteen points)", s.Radius))
	case s.StarRadius() == 2 && (s.Kernel != nil || s.Sweep != nil || s.Cost != nil || len(s.Broken) > 0 || s.CUDA == (CUDA{})):
		return missing("thirteen-point star", "a step of radius 2 is device code only: no simulated kernel, SweepFunc, cost or broken kernels, which take the seven-point star's coefficients")
	case len(s.Broken) > 0 && s.Kernel == nil:
		return missing("broken kernels", "broken variants run on the simulator, which needs the step's own kernel")
	}
	for _, b := range s.Broken {
		if b.Name == "" || b.Kernel == nil || b.Bug == "" {
			return missing("broken kernel "+b.Name, "needs a name, a kernel and the bug in words")
		}
	}
	return nil
}

// Steps3 returns the registered 3D steps in teaching order (by the
// notebook that teaches them).
func Steps3() []Step3 {
	steps3.mu.RLock()
	defer steps3.mu.RUnlock()
	out := make([]Step3, len(steps3.list))
	for i, s := range steps3.list {
		s.Broken = slices.Clone(s.Broken)
		out[i] = s
	}
	return out
}

// LookupStep3 returns the registered 3D step with that name or alias, in
// one pass over the registered steps: callers resolve a name once and
// hand the Step3 on (as lab.NewRunner does to a backend).
func LookupStep3(name string) (Step3, error) {
	for _, s := range Steps3() {
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return s, nil
		}
	}
	return Step3{}, unknown3(name)
}

// unknown3 is the refusal of a name that is no 3D step: the known steps,
// and the nearest to name.
func unknown3(name string) error {
	known := Names3(nil)
	return fmt.Errorf("lab: 3D step %q: %w%s (known: %s)", name, ErrUnknown, DidYouMean(name, known), strings.Join(known, ", "))
}

// Names3 returns the names of the registered 3D steps for which keep
// returns true (every step when keep is nil), in teaching order.
func Names3(keep func(Step3) bool) []string {
	var ns []string
	for _, s := range Steps3() {
		if keep == nil || keep(s) {
			ns = append(ns, s.Name)
		}
	}
	return ns
}

// Simulated reports whether a step runs on the simulator.
func Simulated(s Step3) bool { return s.Kernel != nil }

// InModel reports whether a step is in the chapter's cost model.
func InModel(s Step3) bool { return s.Cost != nil }

// OnGPU reports whether a step has device code.
func OnGPU(s Step3) bool { return s.CUDA != (CUDA{}) }

// Resolve fills in the step's defaults: the default tile for 0, and the
// tile's block for a step whose block is free. It checks the tile against
// the smallest one; a block given to a step whose block follows from its
// tile is an error.
func (s Step3) Resolve(cfg Config) (Config, error) {
	if cfg.Tile < 0 {
		return cfg, fmt.Errorf("lab: %s: tile %d must be positive (or 0 for the default)", s.Name, cfg.Tile)
	}
	if cfg.Tile == 0 {
		cfg.Tile = s.DefaultTile
	}
	if cfg.Tile != 0 && cfg.Tile < s.MinTile {
		return cfg, fmt.Errorf("lab: %s: %s = %d leaves no output tile: it must be at least %d", s.Name, s.TileName, cfg.Tile, s.MinTile)
	}
	if cfg.Block != (sim.Dim3{}) {
		if !s.BlockShape {
			return cfg, fmt.Errorf("lab: %s: a block shape applies only to a step whose block is free; %s's block follows from its %s", s.Name, s.Name, s.TileName)
		}
		b := cfg.Block
		if b.X < 1 || b.Y < 1 || b.Z < 1 {
			return cfg, fmt.Errorf("lab: %s: block %d×%d×%d: every side must be at least 1", s.Name, b.X, b.Y, b.Z)
		}
	}
	return cfg, nil
}

// Launch returns the geometry of the step on an nz×ny×nx grid with cfg,
// defaults resolved; an error for a step whose launch only the gpu backend
// knows, or a grid with a side below 3.
func (s Step3) Launch(nz, ny, nx int, cfg Config) (Geometry, error) {
	if s.Geometry == nil {
		return Geometry{}, fmt.Errorf("lab: %s: the gpu backend chooses its launch per grid: %w", s.Name, ErrUnknown)
	}
	if nz < 3 || ny < 3 || nx < 3 {
		return Geometry{}, fmt.Errorf("lab: %s: grid %d×%d×%d has a side below 3 and no interior point: %w", s.Name, nz, ny, nx, ErrSize)
	}
	cfg, err := s.Resolve(cfg)
	if err != nil {
		return Geometry{}, err
	}
	return s.Geometry(nz, ny, nx, cfg), nil
}

// TileShape writes the tile of a launch g as the study notes print it: the
// block's extents with "x" between them, trailing 1s left out unless the
// step's block is free ("32x32" for the coarsened kernels, "8x8x8" for
// the tiled one, "32x8x1" for a basic block of that shape).
func (s Step3) TileShape(g Geometry) string {
	if s.BlockShape {
		return fmt.Sprintf("%dx%dx%d", g.Block.X, g.Block.Y, g.Block.Z)
	}
	return strings.ReplaceAll(g.Block.Shape(), "×", "x")
}

// String writes the geometry as the launch configuration.
func (g Geometry) String() string {
	return fmt.Sprintf("grid %d×%d×%d, block %d×%d×%d, %d B shared", g.Grid.X, g.Grid.Y, g.Grid.Z,
		g.Block.X, g.Block.Y, g.Block.Z, g.SharedBytes)
}

// BrokenKernels returns the broken kernels of every step, in teaching
// order.
func BrokenKernels() []Broken {
	var bs []Broken
	for _, s := range Steps3() {
		bs = append(bs, s.Broken...)
	}
	return bs
}

// LookupKernel returns the simulated kernel with that name, a step's own
// or a broken one, and the step it belongs to.
func LookupKernel(name string) (StencilKernel, Step3, error) {
	for _, s := range Steps3() {
		if s.Name == name && s.Kernel != nil {
			return s.Kernel, s, nil
		}
		for _, b := range s.Broken {
			if b.Name == name {
				return b.Kernel, s, nil
			}
		}
	}
	simulated, broken := Names3(Simulated), brokenList()
	return nil, Step3{}, fmt.Errorf("lab: no simulated kernel %q: %w%s (simulated: %s; broken: %s)", name, ErrUnknown,
		DidYouMean(name, append(append([]string(nil), simulated...), broken...)),
		strings.Join(simulated, ", "), strings.Join(broken, ", "))
}

func brokenList() []string {
	var ns []string
	for _, b := range BrokenKernels() {
		ns = append(ns, b.Name)
	}
	return ns
}

// StepsPerPass returns the time steps one pass of the step advances with a
// resolved configuration: 1 for a sweep.
func (s Step3) StepsPerPass(cfg Config) int {
	if s.TimeSteps == nil {
		return 1
	}
	return max(s.TimeSteps(cfg), 1)
}

// StepOfFigure returns the registered 3D step that follows a chapter
// figure, e.g. "8.8" for shared-memory tiling.
func StepOfFigure(fig string) (Step3, error) {
	for _, s := range Steps3() {
		if s.Figure == fig {
			return s, nil
		}
	}
	return Step3{}, fmt.Errorf("lab: no 3D step follows Fig. %s: %w", fig, ErrUnknown)
}
