package lab

import (
	"errors"
	"math"
	"math/rand/v2"
	"stencillab.dev/lab/sim"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomCoeffs returns seven different coefficients in [0.05, 0.5), drawn
// from r: a swap of any two shows in a result.
func randomCoeffs(r *rand.Rand) Coeffs {
	var c Coeffs
	for i := range c {
	draw:
		c[i] = 0.05 + 0.45*r.Float64()
		for _, p := range c[:i] {
			if math.Abs(p-c[i]) < 0.01 {
				goto draw
			}
		}
	}
	return c
}

// sweepCase is a fresh random problem: src, a dst whose boundary cells
// hold random values and whose interior is NaN, and the reference result.
type sweepCase struct {
	src, dst, want *Grid3[float32]
	c              Coeffs
	seed           uint64
}

func newSweepCase(t testing.TB, n int) sweepCase { return newSweepCaseShape(t, n, n, n) }

// newSweepCaseShape is newSweepCase on an nz×ny×nx grid.
func newSweepCaseShape(t testing.TB, nz, ny, nx int) sweepCase {
	t.Helper()
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	src, err := NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err)
	src.FillRandom(seed)
	dst, err := NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err)
	dst.FillRandom(seed + 1)
	nan := float32(math.NaN())
	for i := 1; i < nz-1; i++ {
		for j := 1; j < ny-1; j++ {
			for k := 1; k < nx-1; k++ {
				dst.Set(i, j, k, nan)
			}
		}
	}
	c := randomCoeffs(r)
	want := dst.Clone()
	require.NoError(t, SevenPoint(want, src, c))
	return sweepCase{src: src, dst: dst, want: want, c: c, seed: seed}
}

// boundaryChanged counts the boundary cells of got that differ from want.
func boundaryChanged(got, want *Grid3[float32]) int {
	changed := 0
	for i := 0; i < got.NZ; i++ {
		for j := 0; j < got.NY; j++ {
			for k := 0; k < got.NX; k++ {
				if i == 0 || j == 0 || k == 0 || i == got.NZ-1 || j == got.NY-1 || k == got.NX-1 {
					if got.At(i, j, k) != want.At(i, j, k) {
						changed++
					}
				}
			}
		}
	}
	return changed
}

// checkKernel runs k on fresh random data and checks the result against
// SevenPoint, the boundary against its old values, and the counted traffic
// against the closed forms of CostN.
func checkKernel(t *testing.T, step string, k StencilKernel, n, tile int) {
	t.Helper()
	sc := newSweepCase(t, n)
	s := &simT{tile: tile}
	err := s.Run(k, sc.dst, sc.src, sc.c)
	require.NoError(t, err, "%s N=%d T=%d seed=%d", step, n, tile, sc.seed)
	d, err := Compare3(sc.dst, sc.want)
	require.NoError(t, err)
	assert.LessOrEqual(t, d.MaxAbs, 1e-5, "%s N=%d T=%d seed=%d: worst point %d", step, n, tile, sc.seed, d.Worst)
	// Boundary cells must be exactly as they were.
	require.Zero(t, boundaryChanged(sc.dst, sc.want), "%s N=%d T=%d: boundary cells changed", step, n, tile)
	st := s.Last()
	if tile == 0 {
		tile = st.Block.X // the kernel's default: the block edge is T for all four
	}
	model, err := CostN(step, n, tile)
	require.NoError(t, err)
	interior := int64(n-2) * int64(n-2) * int64(n-2)
	assert.Equal(t, Flops7*interior, st.Flops)
	assert.Equal(t, interior, st.GlobalStores)
	assert.Equal(t, model.Loads, st.GlobalLoads, "%s N=%d T=%d: global loads", step, n, tile)
	assert.Equal(t, int64(model.Blocks), st.BlocksRun)
	assert.Zero(t, st.HazardCounts.Total())
	assert.Zero(t, st.FaultCount)
}

func TestLaunchIsDeterministic(t *testing.T) {
	sc := newSweepCase(t, 23)
	run := func(workers int) ([]float32, sim.Stats, error) {
		dst := sc.dst.Clone()
		s := &simT{tile: 6, workers: workers}
		err := s.Run(BrokenTiledNoBarrier, dst, sc.src, sc.c)
		return dst.Data, s.Last(), err
	}
	d1, s1, e1 := run(1)
	d4, s4, e4 := run(4)
	require.Error(t, e1)
	assert.Equal(t, e1.Error(), e4.Error())
	assert.Equal(t, s1, s4)
	// Compare counts NaN against NaN as equal: the uninitialised reads.
	d, err := Compare(d4, d1)
	require.NoError(t, err)
	assert.Zero(t, d.MaxAbs, "point %d differs between 1 and 4 workers", d.Worst)
}

func TestRunChecksItsGrids(t *testing.T) {
	s := &simT{}
	c, _ := NewCube[float32](5)
	assert.ErrorIs(t, s.Run(TiledKernel, c, c, DistinctCoeffs()), ErrMismatch)
	assert.ErrorIs(t, s.Run(TiledKernel, nil, c, DistinctCoeffs()), ErrMismatch)
	a, _ := NewGrid3[float32](5, 6, 7)
	assert.ErrorIs(t, s.Run(TiledKernel, a, c, DistinctCoeffs()), ErrMismatch)
	flat, _ := NewGrid3[float32](2, 6, 7)
	flat2, _ := NewGrid3[float32](2, 6, 7)
	assert.ErrorIs(t, s.Run(TiledKernel, flat, flat2, DistinctCoeffs()), ErrSize)
	d, _ := NewCube[float32](5)
	s.tile = 2
	assert.ErrorContains(t, s.Run(TiledKernel, d, c, DistinctCoeffs()), "IN_TILE_DIM = 2 leaves no output tile")
	assert.Error(t, s.Run(nil, d, c, DistinctCoeffs()))
}

// simulatedSweep keeps the simulated steps that advance one time step a
// pass, which these tests compare with one reference sweep (the temporally
// blocked step has its tests in temporal_test.go).
func simulatedSweep(s Step3) bool { return Simulated(s) && s.TimeSteps == nil }

// TestKernelsRunOnAnyShape runs every simulated step on grids whose three
// sides differ and fit no tile evenly, against the reference.
func TestKernelsRunOnAnyShape(t *testing.T) {
	for _, step := range Names3(simulatedSweep) {
		for _, shape := range [][3]int{{5, 9, 13}, {14, 3, 7}, {3, 3, 3}, {11, 17, 4}} {
			sc := newSweepCaseShape(t, shape[0], shape[1], shape[2])
			res, err := Execute(Run{Step: step, Backend: Sim, Config: Config{Tile: 5}, Src: sc.src, Dst: sc.dst, C: sc.c})
			require.NoError(t, err, "%s on %v", step, shape)
			d, err := Compare3(res.Out, sc.want)
			require.NoError(t, err)
			assert.LessOrEqual(t, d.MaxAbs, 1e-5, "%s on %v, seed %d", step, shape, sc.seed)
			assert.Zero(t, boundaryChanged(res.Out, sc.want), "%s on %v: boundary written", step, shape)
			in := int64(shape[0]-2) * int64(shape[1]-2) * int64(shape[2]-2)
			assert.Equal(t, Flops7*in, res.Stats.Flops, "%s on %v", step, shape)
			cost, err := CostGrid(step, shape[0], shape[1], shape[2], 5)
			require.NoError(t, err)
			assert.Equal(t, cost.Loads, res.Stats.GlobalLoads, "%s on %v: loads against the model", step, shape)
		}
	}
}

func TestSimStepsAreRegistered(t *testing.T) {
	// Properties of the registered steps, not a list of their names, so
	// that a new step is its own files and nothing here.
	var simulated, sweeps []string
	for _, s := range Steps3() {
		if s.Kernel != nil {
			simulated = append(simulated, s.Name)
			if s.TimeSteps == nil {
				sweeps = append(sweeps, s.Name)
			}
		}
		if s.Figure != "" && s.Cost != nil {
			assert.NotNil(t, s.Kernel, "%s follows Fig. %s of the chapter's model: it runs on the simulator", s.Name, s.Figure)
		}
	}
	assert.Equal(t, simulated, Names3(Simulated))
	assert.Equal(t, sweeps, Names3(simulatedSweep))
	assert.NotEmpty(t, sweeps)
	for _, step := range Names3(simulatedSweep) {
		assert.Contains(t, Backends(step), Sim)
		sweep, err := Sweeper(step, Sim, Config{})
		require.NoError(t, err)
		sc := newSweepCase(t, 9)
		require.NoError(t, sweep(sc.dst, sc.src, sc.c))
		d, err := Compare3(sc.dst, sc.want)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-5, step)
	}
	st, err := LookupStep3("register")
	require.NoError(t, err)
	kern, err := st.Kernel(StencilArgs{NZ: 10, NY: 10, NX: 10})
	require.NoError(t, err)
	assert.Equal(t, "register_tiled", kern.Name)
	_, _, err = LookupKernel("reference")
	assert.ErrorIs(t, err, ErrUnknown)
	_, err = Sweeper("reference", Sim, Config{})
	assert.ErrorIs(t, err, ErrUnknown)

	// Impossible tiles are refused when the sweep is built.
	_, err = Sweeper("tiled", Sim, Config{Tile: 11})
	assert.ErrorContains(t, err, "block 11×11×11 = 1331 threads exceeds 1024")
	_, err = Sweeper("coarsened", Sim, Config{Tile: 34})
	assert.ErrorContains(t, err, "block 34×34 = 1156 threads exceeds 1024")
	_, err = Sweeper("basic", Sim, Config{Tile: 11})
	assert.ErrorContains(t, err, "1331 threads exceeds 1024")
	_, err = Sweeper("register_tiled", Sim, Config{Tile: 33})
	assert.ErrorContains(t, err, "block 33×33 = 1089 threads exceeds 1024")
	assert.True(t, errors.Is(err, sim.ErrLimit))
}

func TestExecuteOnTheSimulator(t *testing.T) {
	for _, name := range Names3(simulatedSweep) {
		sc := newSweepCase(t, 13)
		res, err := Execute(Run{Step: name, Backend: Sim, Config: Config{Tile: 6}, Src: sc.src, Dst: sc.dst, C: sc.c, Reps: 2})
		require.NoError(t, err, name)
		d, err := Compare3(res.Out, sc.want)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-5, name)
		st := res.Stats
		assert.Equal(t, name, st.Kernel)
		assert.Equal(t, Flops7*int64(11*11*11), st.Flops, name)
		assert.Len(t, res.Millis, 2)
		assert.Equal(t, "CPU simulator", res.Device)
		assert.Equal(t, 6, res.Config.Tile)
	}
	// A broken kernel runs under its own name, with its step's defaults.
	res, err := Execute(Run{Step: "tiled_no_barrier", Backend: Sim, NZ: 9, NY: 10, NX: 11, Seed: 3, C: DistinctCoeffs()})
	require.ErrorIs(t, err, sim.ErrHazard)
	assert.Equal(t, err, res.Err)
	assert.Equal(t, TiledDefaultTile, res.Config.Tile)
	assert.Positive(t, res.Stats.HazardCounts.ReadAfterWrite)
	_, err = Execute(Run{Step: "tiled_no_barrier", Backend: CPU, NZ: 9, NY: 9, NX: 9})
	assert.ErrorContains(t, err, "runs on the simulator only")
}

// simT runs stencil kernels on a fresh simulator with a tile and keeps the
// counters of the last launch, as the tests read them.
type simT struct {
	tile, workers int
	last          sim.Stats
}

func (s *simT) Run(k StencilKernel, dst, src *Grid3[float32], c Coeffs) error {
	st, err := Simulate(&sim.Simulator{Workers: s.workers}, k, Config{Tile: s.tile}, dst, src, c)
	s.last = st
	return err
}

func (s *simT) Last() sim.Stats { return s.last }

// A run of several time steps equals that many reference sweeps with the
// boundary fixed, on the CPU and on the simulator, and leaves the boundary
// of its output as it was.
func TestExecuteAdvancesTimeSteps(t *testing.T) {
	sc := newSweepCaseShape(t, 9, 12, 10)
	for _, steps := range []int{1, 2, 5} {
		want := sc.dst.Clone()
		require.NoError(t, Advance(SevenPoint[float32], want, sc.src, sc.c, steps))
		// By hand for two steps: sweep once, then sweep the result, whose
		// boundary is src's.
		if steps == 2 {
			one := sc.src.Clone()
			require.NoError(t, SevenPoint(one, sc.src, sc.c))
			two := sc.dst.Clone()
			require.NoError(t, SevenPoint(two, one, sc.c))
			d, err := Compare3(want, two)
			require.NoError(t, err)
			assert.Zero(t, d.MaxAbs)
		}
		for _, run := range []Run{
			{Step: "reference", Backend: CPU},
			{Step: "register_tiled", Backend: Sim, Config: Config{Tile: 6}},
			{Step: "basic", Backend: Sim},
		} {
			run.Src, run.Dst, run.C, run.Steps, run.Reps = sc.src, sc.dst.Clone(), sc.c, steps, 2
			res, err := Execute(run)
			require.NoError(t, err, "%s, %d steps", run.Step, steps)
			assert.Equal(t, steps, res.Steps)
			d, err := Compare3(res.Out, want)
			require.NoError(t, err)
			assert.LessOrEqual(t, d.MaxAbs, 1e-5*float64(steps), "%s, %d steps", run.Step, steps)
			assert.Zero(t, boundaryChanged(res.Out, sc.dst), "%s: the boundary of the output is left alone", run.Step)
		}
	}
	res, err := Execute(Run{Step: "basic", Backend: Sim, NZ: 5, NY: 5, NX: 5, Steps: 0})
	assert.NoError(t, err, "0 is one step")
	assert.Equal(t, 1, res.Steps)
	_, err = Execute(Run{Step: "basic", Backend: Sim, NZ: 5, NY: 5, NX: 5, Steps: -2})
	assert.ErrorIs(t, err, ErrSize, "a negative count is refused")
	assert.Error(t, Advance(SevenPoint[float32], sc.dst.Clone(), sc.src, sc.c, 0))
}
