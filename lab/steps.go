package lab

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Backend names.
const (
	CPU = "cpu" // plain Go on the CPU: the reference sweeps
	Sim = "sim" // the simulated CUDA execution model on the CPU
	GPU = "gpu" // a real NVIDIA GPU through the gpu package
)

// Step is one step of the lab, from the 1D derivative to 3D register tiling.
// A step keeps one name everywhere: its CUDA file (cuda/NAME.cu), its
// simulated kernel in this package, its gpu launcher and its CLI -kernel.
type Step struct {
	Name     string // e.g. "register_tiled"
	Title    string // a short human title
	Figure   string // the chapter figure it follows, e.g. "8.12"
	Dim      int    // 1, 2 or 3
	Runs     string // what it computes, in one sentence
	Notebook string // the notebook that teaches it
	Tiled    bool   // whether a tile size (-tile, IN_TILE_DIM) applies
}

var catalogue = []Step{
	{Name: "derivative", Title: "1D derivative stencils", Figure: "8.2", Dim: 1,
		Runs: "central differences of radius 1–3 for the first and second derivative on a 1D grid", Notebook: "01_sine_and_derivatives"},
	{Name: "five_point", Title: "2D five-point stencil", Figure: "8.3A, 8.4", Dim: 2,
		Runs: "one sweep of the 2D five-point stencil over the interior of a 2D grid", Notebook: "02_stencils_and_grids"},
	{Name: "reference", Title: "3D seven-point reference sweep", Figure: "8.3C, 8.5", Dim: 3,
		Runs: "the seven-point stencil over the interior of a 3D grid, in parallel on the CPU", Notebook: "02_stencils_and_grids"},
	{Name: "basic", Title: "Basic kernel: one thread per output point", Figure: "8.6", Dim: 3,
		Runs: "each thread reads its seven inputs from global memory and writes one output", Notebook: "03_basic_kernel", Tiled: true},
	{Name: "tiled", Title: "Shared-memory tiling", Figure: "8.8", Dim: 3,
		Runs: "a block loads a T³ input tile into shared memory and computes the (T−2)³ output tile", Notebook: "04_shared_memory_tiling", Tiled: true},
	{Name: "coarsened", Title: "Thread coarsening in z", Figure: "8.10", Dim: 3,
		Runs: "a T×T block marches in z keeping three input planes in shared memory", Notebook: "05_thread_coarsening", Tiled: true},
	{Name: "register_tiled", Title: "Register tiling", Figure: "8.12", Dim: 3,
		Runs: "as coarsening, with the previous and next planes in registers and only the current plane shared", Notebook: "06_register_tiling", Tiled: true},
	{Name: "fast", Title: "Beyond the chapter: our fastest kernel", Figure: "", Dim: 3,
		Runs: "a bandwidth-tuned seven-point sweep for modern GPUs", Notebook: "07_measuring_on_a_gpu", Tiled: true},
}

// Steps returns the lab's steps in teaching order.
func Steps() []Step { return slices.Clone(catalogue) }

// ErrUnknown is wrapped by errors about an unknown step or backend.
var ErrUnknown = errors.New("unknown step or backend")

// LookupStep returns the step with the given name. "register" is accepted
// for "register_tiled".
func LookupStep(name string) (Step, error) {
	if name == "register" {
		name = "register_tiled"
	}
	for _, s := range catalogue {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(catalogue))
	for i, s := range catalogue {
		names[i] = s.Name
	}
	return Step{}, fmt.Errorf("lab: step %q: %w (known: %s)", name, ErrUnknown, strings.Join(names, ", "))
}

// Config configures one run of a 3D step.
type Config struct {
	// Tile is the input tile dimension IN_TILE_DIM (the block edge for the
	// basic kernel); 0 means the step's default.
	Tile int
}

// Maker builds the sweep of one step on one backend for a configuration.
type Maker func(cfg Config) (SweepFunc, error)

var (
	regMu    sync.RWMutex
	registry = map[string]map[string]Maker{} // step → backend → maker
)

// Register makes a 3D step available on a backend. Packages call it from
// init; registering the same step and backend twice panics, since that is a
// programming error found at start-up.
func Register(step, backend string, m Maker) {
	if _, err := LookupStep(step); err != nil {
		panic(err)
	}
	regMu.Lock()
	defer regMu.Unlock()
	if registry[step] == nil {
		registry[step] = map[string]Maker{}
	}
	if _, dup := registry[step][backend]; dup {
		panic(fmt.Sprintf("lab: step %q registered twice on backend %q", step, backend))
	}
	registry[step][backend] = m
}

// Backends returns the backends on which a 3D step can run, sorted.
func Backends(step string) []string {
	regMu.RLock()
	defer regMu.RUnlock()
	var bs []string
	for b := range registry[step] {
		bs = append(bs, b)
	}
	sort.Strings(bs)
	return bs
}

// Sweeper returns the sweep of a 3D step on a backend.
func Sweeper(step, backend string, cfg Config) (SweepFunc, error) {
	s, err := LookupStep(step)
	if err != nil {
		return nil, err
	}
	regMu.RLock()
	m, ok := registry[s.Name][backend]
	regMu.RUnlock()
	if !ok {
		if backend == GPU {
			return nil, fmt.Errorf("lab: step %q on backend %q: %w (import the gpu package to register it)", s.Name, backend, ErrUnknown)
		}
		return nil, fmt.Errorf("lab: step %q on backend %q: %w (it runs on: %s)", s.Name, backend, ErrUnknown, strings.Join(Backends(s.Name), ", "))
	}
	return m(cfg)
}

func init() {
	Register("reference", CPU, func(Config) (SweepFunc, error) { return SevenPoint[float32], nil })
}
