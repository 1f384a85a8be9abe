package fig

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Star13 is the name BlockTrace and the thread figures give the tiled
// kernel of the thirteen-point star of radius 2 (Fig. 8.3D), which the
// exercises ask for and the lab does not register as a step.
const Star13 = "star13_tiled"

// star13Kernel prepares the tiled kernel of the thirteen-point star that
// TraceBlock runs for Star13 (blocks of IN_TILE_DIM³ threads, IN_TILE_DIM =
// tile). It is an exercise's answer, so only a file built with the tag
// "hidden", which the students' copy leaves out, sets it; while it is nil,
// Threads draws Star13 from the committed record of its launch
// (Star13RecordFile).
var star13Kernel func(in, out *sim.Global, n, tile int, c [13]float32) (sim.Kernel, error)

// ErrInstructorOnly is wrapped by TraceBlock's error for Star13 in a build
// without the tag "hidden": the kernel is an exercise's answer.
var ErrInstructorOnly = errors.New(`built only with the tag "hidden"`)

// Star13Traceable reports whether this build holds the tiled
// thirteen-point kernel, so that TraceBlock can run Star13.
func Star13Traceable() bool { return star13Kernel != nil }

// BlockTrace is what the threads of one block did in one simulated launch,
// read from the simulator's record of every access (sim.Recorder): for
// each thread of one x–y plane of the block, its global loads, its global
// stores (the outputs it computed) and its shared-memory stores.
type BlockTrace struct {
	Step     string   // the kernel: a registered step, or Star13
	Title    string   // e.g. "Shared-memory tiling (Fig. 8.8)"
	Tile     int      // the tile the launch ran with
	N        int      // the grid's side: an N×N×N grid
	Block    sim.Dim3 // blockDim of the launch
	BlockIdx sim.Dim3 // the block traced
	Plane    int      // threadIdx.z of the plane of threads kept

	// Per thread of the plane, indexed ty·Block.X + tx.
	Loads        []int // global loads
	Outputs      []int // global stores: output points computed
	SharedStores []int // stores to shared memory

	Intervals int // barrier intervals the block ran: barriers + 1
}

// Roles counts the threads of the plane that computed at least one
// output, those that only loaded (the halo, and points on the grid's
// boundary) and those that did neither (outside the grid, or a basic
// kernel's thread on the boundary).
func (b *BlockTrace) Roles() (compute, loadOnly, idle int) {
	for i := range b.Loads {
		switch {
		case b.Outputs[i] > 0:
			compute++
		case b.Loads[i] > 0:
			loadOnly++
		default:
			idle++
		}
	}
	return compute, loadOnly, idle
}

// threadSpec is the launch each thread figure traces.
type threadSpec struct {
	step     string
	tile, n  int
	blockIdx sim.Dim3
	plane    int
}

// threadSpecs are the launches the thread figures draw: a grid which no
// tile divides, and the last block along x and y, so that each picture
// shows threads computing, loading only (but for the basic kernel, whose
// threads load only what they compute with) and idling.
var threadSpecs = []threadSpec{
	{"basic", 8, 14, sim.Dim3{X: 1, Y: 1, Z: 1}, 2},
	{"tiled", 8, 12, sim.Dim3{X: 1, Y: 1, Z: 1}, 3},
	{"coarsened", 8, 12, sim.Dim3{X: 1, Y: 1, Z: 1}, 0},
	{"register_tiled", 8, 12, sim.Dim3{X: 1, Y: 1, Z: 1}, 0},
	{Star13, 8, 12, sim.Dim3{X: 2, Y: 2, Z: 1}, 3},
}

// MaxTraceN bounds the grid a BlockTrace simulates: the trace keeps every
// access of one block, and the picture one cell per thread.
const MaxTraceN = 64

// TraceBlock runs step (a registered simulated kernel, or Star13) with
// the given tile on an n×n×n grid of random values on the simulator,
// records every access of the block blockIdx, and returns what each
// thread of its plane threadIdx.z = plane did. The launch's result is
// checked against the CPU reference first, so the trace is that of a
// correct run.
func TraceBlock(step string, tile, n int, blockIdx sim.Dim3, plane int) (*BlockTrace, error) {
	if n < 3 || n > MaxTraceN {
		return nil, fmt.Errorf("fig: trace %s: grid side %d outside 3…%d", step, n, MaxTraceN)
	}
	src, err := lab.NewCube[float32](n)
	if err != nil {
		return nil, fmt.Errorf("fig: trace %s: %w", step, err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(tile)))
	for i := range src.Data {
		src.Data[i] = rng.Float32()
	}
	dst, _ := lab.NewCube[float32](n)
	want, _ := lab.NewCube[float32](n)
	rec := &sim.Recorder{Block: blockIdx}
	s := &sim.Simulator{Trace: rec.Trace}
	bt := &BlockTrace{Step: step, Tile: tile, N: n, BlockIdx: blockIdx, Plane: plane}
	var st sim.Stats
	if step == Star13 {
		if tile < 5 {
			return nil, fmt.Errorf("fig: trace %s: IN_TILE_DIM = %d leaves no output tile (IN_TILE_DIM = OUT_TILE_DIM + 4): it must be at least 5: %w", step, tile, sim.ErrLimit)
		}
		if star13Kernel == nil {
			return nil, fmt.Errorf("fig: trace %s: the tiled thirteen-point kernel is an exercise's answer, %w (go run -tags hidden ./figures records it); Threads(Star13) draws the committed record %s",
				step, ErrInstructorOnly, Star13RecordFile)
		}
		c := star13Coeffs()
		k, kerr := star13Kernel(&sim.Global{Name: "in", Data: src.Data}, &sim.Global{Name: "out", Data: dst.Data}, n, tile, c)
		if kerr != nil {
			return nil, fmt.Errorf("fig: trace %s: %w", step, kerr)
		}
		st, err = s.Launch(k)
		if err == nil {
			var c64 [13]float64
			for i, v := range c {
				c64[i] = float64(v)
			}
			err = lab.Sweep3(want, src, lab.ThirteenPoint(c64))
		}
		bt.Title = "The thirteen-point star of radius 2 (Fig. 8.3D), tiled: IN_TILE_DIM = OUT_TILE_DIM + 4"
	} else {
		k, s3, lerr := lab.LookupKernel(step)
		if lerr != nil {
			return nil, fmt.Errorf("fig: trace: %w", lerr)
		}
		c := lab.DistinctCoeffs()
		st, err = lab.Simulate(s, k, lab.Config{Tile: tile}, dst, src, c)
		if err == nil {
			err = lab.Sweep3(want, src, lab.SevenPointStencil(c))
		}
		bt.Title = fmt.Sprintf("%s (Fig. %s)", s3.Title, s3.Figure)
	}
	if err != nil {
		return nil, fmt.Errorf("fig: trace %s: %w", step, err)
	}
	if err := rec.Err(); err != nil {
		return nil, fmt.Errorf("fig: trace %s: %w", step, err)
	}
	if d, err := lab.Compare3(dst, want); err != nil || d.MaxAbs > 1e-5 {
		return nil, fmt.Errorf("fig: trace %s: the launch's result differs from the reference (%v, %v): %w", step, d, err, lab.ErrMismatch)
	}
	bt.Block = st.Block
	if blockIdx.X >= st.Grid.X || blockIdx.Y >= st.Grid.Y || blockIdx.Z >= st.Grid.Z || blockIdx.X < 0 || blockIdx.Y < 0 || blockIdx.Z < 0 {
		return nil, fmt.Errorf("fig: trace %s: block %v outside the grid of blocks %v", step, blockIdx, st.Grid)
	}
	if plane < 0 || plane >= st.Block.Z {
		return nil, fmt.Errorf("fig: trace %s: plane threadIdx.z = %d outside the block's %d planes", step, plane, st.Block.Z)
	}
	m := st.Block.X * st.Block.Y
	bt.Loads, bt.Outputs, bt.SharedStores = make([]int, m), make([]int, m), make([]int, m)
	for _, a := range rec.Accesses() {
		bt.Intervals = max(bt.Intervals, a.Interval+1)
		if a.Thread.Z != plane {
			continue
		}
		i := a.Thread.Y*st.Block.X + a.Thread.X
		switch a.Kind {
		case sim.GlobalLoad:
			bt.Loads[i]++
		case sim.GlobalStore:
			bt.Outputs[i]++
		case sim.SharedStore:
			bt.SharedStores[i]++
		}
	}
	return bt, nil
}

// star13Coeffs are thirteen distinct coefficients.
func star13Coeffs() [13]float32 {
	var c [13]float32
	for i := range c {
		c[i] = 0.5 - 0.03*float32(i)
	}
	return c
}
