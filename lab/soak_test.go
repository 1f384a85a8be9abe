package lab

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/internal/testlimit"
	"stencillab.dev/lab/sim"
)

// The soak test throws a few thousand random launches at the simulator:
// the lab's kernels and their broken versions on random shapes and tiles,
// odd grids (mismatched, overlapping, too small, short of data), random
// limits, and raw launches of deliberately faulty thread code with random
// dimensions. None may panic or hang past a watchdog; every error must
// match a sentinel of the simulator or the lab; a clean launch of a
// correct kernel must give the reference sweep.

const soakLaunches = 3000

// soakSentinels are the errors every failure must match.
var soakSentinels = []error{sim.ErrLimit, sim.ErrHazard, sim.ErrBarrier, sim.ErrFault,
	ErrSize, ErrMismatch, ErrMemory, ErrUnknown}

func matchesSentinel(err error) bool {
	for _, s := range soakSentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// soakKernel is a kernel of the lab, correct or broken.
type soakKernel struct {
	name    string
	k       StencilKernel
	correct bool
	step    Step3 // the step it belongs to, for its time steps per pass
}

func soakKernels() []soakKernel {
	var ks []soakKernel
	for _, s := range Steps3() {
		if s.Kernel == nil {
			continue
		}
		ks = append(ks, soakKernel{s.Name, s.Kernel, true, s})
		for _, b := range s.Broken {
			ks = append(ks, soakKernel{b.Name, b.Kernel, false, s})
		}
	}
	return ks
}

// faultyBodies are thread codes with one mistake each, for raw launches.
var faultyBodies = []struct {
	name string
	body func(g *sim.Global) func(t *sim.Thread)
}{
	{"ok", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) {
			s := t.Shared1("s", t.BlockDim.Size())
			lin := (t.ThreadIdx.Z*t.BlockDim.Y+t.ThreadIdx.Y)*t.BlockDim.X + t.ThreadIdx.X
			s.Store(lin, float32(lin))
			t.Sync()
			_ = s.Load(t.BlockDim.Size() - 1 - lin)
		}
	}},
	{"race", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) {
			s := t.Shared1("s", t.BlockDim.X)
			s.Store(t.ThreadIdx.X, 1)
			_ = s.Load((t.ThreadIdx.X + 1) % t.BlockDim.X)
		}
	}},
	{"global out of bounds", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) { t.Store(g, len(g.Data)+t.ThreadIdx.X, 1) }
	}},
	{"shared out of bounds", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) { t.Shared2("s", 2, 2).Store(t.ThreadIdx.X, 3, 0) }
	}},
	{"panic", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) {
			if t.ThreadIdx.X == t.BlockDim.X-1 {
				var m map[string]int
				m["x"]++
			}
		}
	}},
	{"returns before the barrier", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) {
			if t.ThreadIdx.X%2 == 1 {
				return
			}
			t.Sync()
		}
	}},
	{"divergent barriers", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) {
			if t.ThreadIdx.X%3 == 0 {
				t.Sync()
			} else {
				t.Sync()
			}
		}
	}},
	{"redeclared shared array", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) { t.Shared1("s", 4+t.ThreadIdx.X%2) }
	}},
	{"huge shared array", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) { t.Shared3("s", 1<<20, 1<<20, 1<<20) }
	}},
	{"nil global", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) { _ = t.Load(nil, 0) }
	}},
	{"swallows the unwinding", func(g *sim.Global) func(t *sim.Thread) {
		return func(t *sim.Thread) {
			defer func() { _ = recover() }()
			if t.ThreadIdx.X == 0 {
				return
			}
			t.Sync()
			t.Sync()
		}
	}},
}

// soakGrid returns a random grid: mostly valid, sometimes a side below 3
// or data of the wrong length.
func soakGrid(r *rand.Rand, nz, ny, nx int) *Grid3[float32] {
	n := max(nz, 0) * max(ny, 0) * max(nx, 0)
	g := &Grid3[float32]{NZ: nz, NY: ny, NX: nx, Data: make([]float32, n)}
	if r.IntN(40) == 0 {
		g.Data = g.Data[:n/2]
	}
	fillRandom(g.Data, r.Uint64())
	return g
}

// soakOne runs one random launch and returns a description of it and an
// error for the test (not the launch's own error) when something is
// wrong.
func soakOne(r *rand.Rand, ks []soakKernel) (string, error) {
	side := func() int {
		if r.IntN(15) == 0 {
			return r.IntN(5) - 1 // -1 … 3: too small, or just enough
		}
		return 3 + r.IntN(12)
	}
	s := &sim.Simulator{Workers: 1 + r.IntN(3)}
	if r.IntN(6) == 0 {
		s.Limits = Limits{MaxThreads: 1 << r.IntN(11), MaxSharedBytes: 1 << (8 + r.IntN(9))}
	}
	if r.IntN(5) == 0 {
		// A raw launch of faulty thread code with random dimensions.
		b := faultyBodies[r.IntN(len(faultyBodies))]
		dim := func(hi int) int {
			if r.IntN(20) == 0 {
				return []int{0, -1, 1 << 31}[r.IntN(3)] // refused before anything runs
			}
			return 1 + r.IntN(hi)
		}
		k := sim.Kernel{Name: b.name, Grid: sim.Dim3{X: dim(3), Y: dim(2), Z: dim(2)},
			Block: sim.Dim3{X: dim(40), Y: dim(4), Z: dim(3)}, Body: b.body(&sim.Global{Name: "g", Data: make([]float32, 16)})}
		what := fmt.Sprintf("raw %s <<<%v, %v>>>", b.name, k.Grid, k.Block)
		_, err := s.Launch(k)
		if err != nil && !matchesSentinel(err) {
			return what, fmt.Errorf("error matches no sentinel: %v", err)
		}
		if b.name == "ok" && err != nil && !errors.Is(err, sim.ErrLimit) {
			return what, fmt.Errorf("a correct body failed: %v", err)
		}
		return what, nil
	}

	kern := ks[r.IntN(len(ks))]
	nz, ny, nx := side(), side(), side()
	cfg := Config{Tile: []int{0, 0, 3, 4, 5, 6, 7, 8, 10, 2, 1, -3}[r.IntN(12)]}
	if r.IntN(8) == 0 {
		cfg.Block = sim.Dim3{X: r.IntN(12) - 1, Y: r.IntN(12), Z: r.IntN(6)}
	}
	src := soakGrid(r, nz, ny, nx)
	var dst *Grid3[float32]
	odd := ""
	switch r.IntN(12) {
	case 0:
		odd = "mismatched"
		dst = soakGrid(r, nz, ny, nx+1)
	case 1:
		odd = "overlapping"
		off := 1 + r.IntN(max(len(src.Data), 1))
		buf := make([]float32, len(src.Data)+off)
		copy(buf, src.Data)
		src.Data = buf[:len(src.Data)]
		dst = &Grid3[float32]{NZ: nz, NY: ny, NX: nx, Data: buf[off : off+len(src.Data)]}
	case 2:
		odd = "same"
		dst = src
	case 3:
		odd = "nil"
	default:
		dst = src.Clone()
	}
	what := fmt.Sprintf("%s on %d×%d×%d, tile %d, block %v, %s grids, limits %+v", kern.name, nz, ny, nx, cfg.Tile, cfg.Block, odd, s.Limits)
	c := DistinctCoeffs()
	_, err := Simulate(s, kern.k, cfg, dst, src, c)
	if err != nil {
		if !matchesSentinel(err) {
			return what, fmt.Errorf("error matches no sentinel: %v", err)
		}
		return what, nil
	}
	if odd != "" {
		return what, fmt.Errorf("%s grids were accepted", odd)
	}
	if kern.correct {
		// One pass of a temporally blocked step advances k time steps.
		steps := 1
		if kern.step.TimeSteps != nil {
			resolved, err := kern.step.Resolve(Config{Tile: cfg.Tile})
			if err != nil {
				return what, fmt.Errorf("a tile the kernel took is refused by its step: %v", err)
			}
			steps = kern.step.StepsPerPass(resolved)
		}
		want := src.Clone()
		oneThread := func(d, s *Grid3[float32], c Coeffs) error { return SevenPointThreads(d, s, c, 1) }
		if err := Advance(oneThread, want, src, c, steps); err != nil {
			return what, fmt.Errorf("the reference failed: %v", err)
		}
		d, err := Compare3(dst, want)
		if err != nil || d.MaxAbs > 1e-5*float64(steps) || math.IsNaN(d.MaxAbs) {
			return what, fmt.Errorf("a clean launch of a correct kernel differs from the reference: %+v %v", d, err)
		}
	}
	return what, nil
}

// Limits is sim.Limits, for the soak's random limits.
type Limits = sim.Limits

func TestSimulatorSoak(t *testing.T) {
	watchdog := testlimit.Legit
	start := time.Now()
	r := rand.New(rand.NewPCG(17, 2026))
	ks := soakKernels()
	type outcome struct {
		what string
		err  error
	}
	for i := range soakLaunches {
		seed := r.Uint64()
		done := make(chan outcome, 1)
		go func() {
			var o outcome
			defer func() {
				if p := recover(); p != nil {
					o.err = fmt.Errorf("panic: %v", p)
				}
				done <- o
			}()
			o.what, o.err = soakOne(rand.New(rand.NewPCG(seed, 0)), ks)
		}()
		select {
		case o := <-done:
			if o.err != nil {
				t.Fatalf("launch %d (seed %d): %s: %v", i, seed, o.what, o.err)
			}
		case <-time.After(watchdog(t)):
			// Every launch ends by itself (the simulator detects a
			// barrier that not every thread reaches), so the watchdog,
			// which turns a hang into a failure naming the launch's
			// seed, is the test's own remaining time, not a fixed
			// budget load could break.
			t.Fatalf("launch %d (seed %d) still runs at the test's deadline", i, seed)
		}
	}
	t.Logf("%d random launches in %.1f s", soakLaunches, time.Since(start).Seconds())
}

// Two findings of the soak: a basic kernel given a block with a zero side
// divided by zero, and a kernel's refusal of its tile matched no sentinel.
func TestSoakFindings(t *testing.T) {
	src := soakGrid(rand.New(rand.NewPCG(1, 1)), 6, 6, 6)
	src.Data = src.Data[:216]
	dst := src.Clone()
	_, err := Simulate(&sim.Simulator{}, BasicKernel, Config{Block: sim.Dim3{X: 5, Y: 0, Z: 3}}, dst, src, DistinctCoeffs())
	assert.ErrorIs(t, err, sim.ErrLimit)
	assert.EqualError(t, err, "lab: sim: basic: block 5×0×3: every side must be at least 1")
	_, err = Simulate(&sim.Simulator{}, TiledKernel, Config{Tile: 2}, dst, src, DistinctCoeffs())
	assert.ErrorIs(t, err, sim.ErrLimit)
	assert.EqualError(t, err, "lab: sim: tiled: IN_TILE_DIM = 2 leaves no output tile; it must be at least 3")
}
