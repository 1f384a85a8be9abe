package lab

import (
	"fmt"
	"sync"
)

// Split says how a run is spread over several ranks (goroutines on cpu/sim,
// GPUs on gpu). The grid's interior is cut into z-slabs, or into pencils
// along z and y when PY is above one; every rank owns a box of interior
// points and holds halo planes (rows) of its neighbours' points, exchanged
// after each pass. The zero Split is a plain run on one domain.
type Split struct {
	// Ranks is the number of ranks on cpu/sim (0 or 1: no split).
	Ranks int
	// Devices are the GPU ordinals on the gpu backend (len ≥ 2 to split;
	// one device is a plain run on that GPU). Any device at all sends the
	// run to the gpu backend's splitter, since only it can choose the
	// ordinal.
	Devices []int
	// PY is the number of ranks along y for a pencil split (0 or 1:
	// z-slabs only); the ranks (or devices) divided by PY lie along z.
	PY int
	// Overlap names how a rank overlaps its exchange with its sweep: ""
	// is the backend's default; the gpu backend defines the names (none,
	// split, ...). The CPU ranks know only "none": they exchange after
	// they compute.
	Overlap string
}

// MaxRanks bounds Split.Ranks, Split.PY and the number of devices: one
// rank per goroutine or GPU, far beyond any machine the lab runs on.
const MaxRanks = 4096

// Splits reports whether s asks for the run to be split: more than one
// rank, pencils, or any device. The answer is the same on every backend,
// so that a split the backend cannot run (ranks on gpu, devices on cpu)
// reaches Check, which names what is wrong; backend is kept for callers.
func (s Split) Splits(backend string) bool {
	return s.Ranks > 1 || s.PY > 1 || len(s.Devices) > 0
}

// Size returns the number of ranks the split runs on a backend: the
// devices on gpu, Ranks elsewhere (at least 1).
func (s Split) Size(backend string) int {
	if backend == GPU {
		return max(len(s.Devices), 1)
	}
	return max(s.Ranks, 1)
}

// Grid returns the ranks along z and along y: Size/PY and PY.
func (s Split) Grid(backend string) (pz, py int) {
	py = max(s.PY, 1)
	return s.Size(backend) / py, py
}

// Check returns an error naming the limit unless s is a split a backend
// can run: Ranks and PY within 0…MaxRanks, PY dividing the ranks, Ranks
// only off the gpu backend and Devices only on it, each device a distinct
// non-negative ordinal. It does not know the grid: halo.Decompose checks
// that each rank owns enough planes.
func (s Split) Check(backend string) error {
	size := s.Size(backend)
	switch {
	case s.Ranks < 0 || s.Ranks > MaxRanks:
		return fmt.Errorf("lab: split: %d ranks: the count must be from 0 to %d: %w", s.Ranks, MaxRanks, ErrSize)
	case s.PY < 0 || s.PY > MaxRanks:
		return fmt.Errorf("lab: split: %d ranks along y: the count must be from 0 to %d: %w", s.PY, MaxRanks, ErrSize)
	case len(s.Devices) > MaxRanks:
		return fmt.Errorf("lab: split: %d devices exceeds the limit of %d: %w", len(s.Devices), MaxRanks, ErrSize)
	case backend == GPU && s.Ranks > 1:
		return fmt.Errorf("lab: split: %d ranks on the gpu backend: a GPU split names its devices (Split.Devices, -gpus): %w", s.Ranks, ErrSize)
	case backend != GPU && len(s.Devices) > 0:
		return fmt.Errorf("lab: split: devices %v on backend %q: devices are GPUs of the gpu backend; the CPU ranks are Split.Ranks (-ranks): %w", s.Devices, backend, ErrSize)
	case size%max(s.PY, 1) != 0:
		return fmt.Errorf("lab: split: %d ranks along y do not divide %d ranks: %w", s.PY, size, ErrSize)
	}
	seen := map[int]bool{}
	for _, d := range s.Devices {
		if d < 0 {
			return fmt.Errorf("lab: split: device %d: a GPU ordinal is not negative: %w", d, ErrSize)
		}
		if seen[d] {
			return fmt.Errorf("lab: split: device %d named twice: each rank needs a GPU of its own: %w", d, ErrSize)
		}
		seen[d] = true
	}
	return nil
}

// Splitter runs a whole Run that has a split, on one backend; registered
// per backend name. It returns the Result Execute would: the output
// gathered into one grid, its times, and what the split measured
// (Result.Comm, Result.RankTimes).
type Splitter func(r Run) (Result, error)

var splitters struct {
	mu sync.RWMutex
	m  map[string]Splitter
}

// RegisterSplitter makes a splitter available for a backend. Package
// stencillab.dev/lab/halo registers those of cpu and sim; the gpu package
// that of gpu. Registering a backend twice panics, as RegisterBackend.
func RegisterSplitter(backend string, f Splitter) {
	splitters.mu.Lock()
	defer splitters.mu.Unlock()
	if splitters.m == nil {
		splitters.m = map[string]Splitter{}
	}
	if _, dup := splitters.m[backend]; dup {
		panic(fmt.Sprintf("lab: splitter of backend %q registered twice", backend))
	}
	splitters.m[backend] = f
}

func splitter(backend string) (Splitter, bool) {
	splitters.mu.RLock()
	defer splitters.mu.RUnlock()
	f, ok := splitters.m[backend]
	return f, ok
}

// splitterOf checks r's split and returns the splitter of its backend, or
// says what to import to register one.
func splitterOf(r Run) (Splitter, error) {
	if err := r.Split.Check(r.Backend); err != nil {
		return nil, fmt.Errorf("lab: run %s: %w", r.Step, err)
	}
	f, ok := splitter(r.Backend)
	if !ok {
		switch r.Backend {
		case CPU, Sim:
			return nil, fmt.Errorf("lab: run %s split over %d ranks on %q: no splitter registered (import stencillab.dev/lab/halo): %w",
				r.Step, r.Split.Size(r.Backend), r.Backend, ErrUnknown)
		case GPU:
			return nil, fmt.Errorf("lab: run %s on GPUs %v: no splitter registered (import the gpu package, stencillab.dev/gpu): %w",
				r.Step, r.Split.Devices, ErrUnknown)
		}
		return nil, fmt.Errorf("lab: run %s split on backend %q: no splitter registered for it: %w", r.Step, r.Backend, ErrUnknown)
	}
	return f, nil
}

// CommStats is what a split run's ranks sent each other, counted by their
// communicator. An exchange follows every pass of the step: every time
// step for a sweep, every k time steps for a temporally blocked step of k
// steps a pass, which exchanges halos k planes deep.
type CommStats struct {
	Ranks int // ranks of the split
	PZ    int // ranks along z
	PY    int // ranks along y (1: z-slabs)
	Halo  int // halo depth h, planes (rows)
	// StepsPerExchange is the time steps between two exchanges: 1 for a
	// sweep, k for a temporally blocked step.
	StepsPerExchange int
	// Exchanges is the number of exchanges each repetition made.
	Exchanges int
	// Messages and Bytes are what each rank sent in one exchange
	// (indexed by rank): the counters over the last repetition divided
	// by its exchanges.
	Messages []int64
	Bytes    []int64
	// RecvBytes is what each rank received in one exchange: its halo
	// points times 4.
	RecvBytes []int64
}

// TotalMessages returns the messages all ranks send in one exchange.
func (s *CommStats) TotalMessages() int64 {
	if s == nil {
		return 0
	}
	var t int64
	for _, m := range s.Messages {
		t += m
	}
	return t
}

// TotalBytes returns the halo bytes all ranks send in one exchange.
func (s *CommStats) TotalBytes() int64 {
	if s == nil {
		return 0
	}
	var t int64
	for _, b := range s.Bytes {
		t += b
	}
	return t
}

// BytesPerStep returns the halo bytes all ranks send per time step: one
// exchange's bytes over the time steps between two exchanges.
func (s *CommStats) BytesPerStep() float64 {
	if s == nil || s.StepsPerExchange < 1 {
		return 0
	}
	return float64(s.TotalBytes()) / float64(s.StepsPerExchange)
}

// MessagesPerStep returns the messages all ranks send per time step.
func (s *CommStats) MessagesPerStep() float64 {
	if s == nil || s.StepsPerExchange < 1 {
		return 0
	}
	return float64(s.TotalMessages()) / float64(s.StepsPerExchange)
}

// RankTime is where one rank's time of one repetition went, in
// milliseconds by the backend's clock (CUDA events on a GPU, the wall
// clock on the CPU).
type RankTime struct {
	Compute  float64 // its sweeps
	Exchange float64 // its halo exchanges, waiting for its peers included
	Wait     float64 // waiting at the end for the slowest rank
}

// CheckCounts returns the error Execute returns for r's repetitions, time
// steps, tile and grids out of range (MaxReps, MaxSteps), nil when they
// are in range: a splitter calls it before it allocates anything.
func (r Run) CheckCounts() error { return r.checkCounts() }

// BackendDevice returns where a registered backend runs, as
// Result.Device names it ("CPU", "CPU simulator", a GPU's name), and
// whether the backend is registered.
func BackendDevice(name string) (string, bool) {
	b, ok := backend(name)
	if !ok {
		return "", false
	}
	return b.Device(), true
}
