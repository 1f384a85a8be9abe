package run

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// plainSweep computes the expected output of a run of side n with the
// generic loop lab.Sweep3, not the lab.SevenPoint that nbrun compares
// with, from an input regenerated from Seed.
func plainSweep(t *testing.T, n int) *lab.Grid3[float32] {
	t.Helper()
	src, err := lab.NewCube[float32](n)
	require.NoError(t, err)
	src.FillRandom(Seed)
	want, err := lab.NewCube[float32](n)
	require.NoError(t, err)
	require.NoError(t, lab.Sweep3(want, src, lab.SevenPointStencil(lab.DistinctCoeffs())))
	return want
}

// assertMatchesPlain checks every interior point of r against the plain
// loop and every boundary point for the poison.
func assertMatchesPlain(t *testing.T, r Result) {
	t.Helper()
	want := plainSweep(t, r.N())
	n := r.N()
	bad, boundary := 0, 0
	for i := range n {
		for j := range n {
			for k := range n {
				got := r.Out.At(i, j, k)
				if i == 0 || j == 0 || k == 0 || i == n-1 || j == n-1 || k == n-1 {
					if Written(got) {
						boundary++
					}
					continue
				}
				if !(math.Abs(float64(got)-float64(want.At(i, j, k))) <= 1e-5) {
					bad++
				}
			}
		}
	}
	assert.Zero(t, bad, "%s on %s: interior points off the plain loop", r.Step, r.Backend)
	assert.Zero(t, boundary, "%s on %s: boundary points written", r.Step, r.Backend)
	assert.True(t, r.OK(), r.Summary())
}

// gpuOrSkip skips a test that needs a GPU, saying why none is there.
func gpuOrSkip(t *testing.T) {
	t.Helper()
	if !HasGPU() {
		where, err := Where()
		require.NoError(t, err)
		t.Skipf("needs an NVIDIA GPU with its driver and NVRTC: %s", where)
	}
}

func noGPUOrSkip(t *testing.T) {
	t.Helper()
	if HasGPU() {
		t.Skip("checks the machine without a GPU; this one has one")
	}
}

func TestWhereWithoutGPU(t *testing.T) {
	noGPUOrSkip(t)
	w, err := Where()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(w, "no GPU found ("), w)
	assert.True(t, strings.HasSuffix(w, "): running on the CPU simulator"), w)
	assert.NotContains(t, w, "run on the CPU simulator)", "the driver's advice is not repeated inside the reason")
}

func TestWhereWithGPU(t *testing.T) {
	gpuOrSkip(t)
	w, err := Where()
	require.NoError(t, err)
	d, err := gpu.Default()
	require.NoError(t, err)
	assert.Contains(t, w, d.Props().Name)
}

// The calls the notebooks make: on this machine's backend, each matches
// the plain loop.
func TestSweepAsTheNotebooksCallIt(t *testing.T) {
	for _, c := range []struct {
		step    string
		n, tile int
	}{
		{"basic", 48, 8}, {"tiled", 48, 8}, {"coarsened", 48, 32}, {"register_tiled", 48, 32},
		{"basic", 19, 4}, {"tiled", 19, 5}, {"coarsened", 19, 7}, {"register", 19, 6},
	} {
		r, err := Sweep(c.step, c.n, c.tile)
		require.NoError(t, err, "%s n=%d tile=%d", c.step, c.n, c.tile)
		if HasGPU() {
			assert.Equal(t, lab.GPU, r.Backend)
			assert.Positive(t, r.Launch.Millis)
		} else {
			assert.Equal(t, lab.Sim, r.Backend)
			assert.Contains(t, r.Note, "no GPU found")
			assert.True(t, strings.HasPrefix(r.Summary(), "no GPU found ("), "a sweep that wanted a GPU says it found none")
			assert.Positive(t, r.Stats.Flops)
		}
		assert.Equal(t, c.tile, r.Tile())
		assertMatchesPlain(t, r)
	}
}

// Every 3D step, the fast one included, on the GPU against the plain loop,
// on the notebooks' N = 48 and on a side that is no tile's multiple.
func TestSweepOnGPU(t *testing.T) {
	gpuOrSkip(t)
	for _, step := range gpu.Sweeps3() {
		for _, n := range []int{48, 37} {
			r, err := Sweep(step, n, 0)
			require.NoError(t, err, "%s n=%d", step, n)
			assert.Equal(t, lab.GPU, r.Backend)
			assert.Equal(t, gpu.DefaultTile(step), r.Tile())
			assert.Positive(t, r.Launch.Millis)
			assert.Positive(t, r.Launch.Geometry.Grid.Size())
			assertMatchesPlain(t, r)
		}
	}
}

func TestSweepFastWithoutGPU(t *testing.T) {
	noGPUOrSkip(t)
	_, err := Sweep("fast", 32, 0)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNoSimulation)
	assert.ErrorIs(t, err, gpu.ErrNoGPU)
	assert.Contains(t, err.Error(), "no GPU found (")
	assert.NotContains(t, err.Error(), "run on the CPU simulator", "the simulator has no fast kernel")
	assert.True(t, strings.HasSuffix(err.Error(), "the fast step runs only on a GPU: it has no simulated kernel"), err.Error())
}

func TestSweepRejectsOtherSteps(t *testing.T) {
	_, err := Sweep("five_point", 16, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown)
	_, err = Sweep("nonsense", 16, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown)
	_, err = Sweep("temporal", 16, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown, "a pass of the temporally blocked step is several time steps, not a sweep")
	_, err = Simulate("basic", 2, 0)
	assert.ErrorIs(t, err, lab.ErrSize)
	_, err = Simulate("basic", MaxSimN+1, 0)
	assert.ErrorIs(t, err, lab.ErrSize)
	_, err = Simulate("basic", 16, -1)
	assert.Error(t, err)
}

// loadsPerAxis counts the (block, thread) pairs along one axis of a tiled
// launch whose point lies in the grid: the kernel loads one element for
// each such pair in all three axes.
func loadsPerAxis(n, tile int) int {
	out := tile - 2
	blocks := (n-2)/out + 1
	count := 0
	for b := range blocks {
		for t := range tile {
			if p := b*out + t - 1; p >= 0 && p < n {
				count++
			}
		}
	}
	return count
}

func TestSimulateCountsBasic(t *testing.T) {
	const n = 20
	r, err := Simulate("basic", n, 8)
	require.NoError(t, err)
	inner := int64((n - 2) * (n - 2) * (n - 2))
	assert.Equal(t, 7*inner, r.Stats.GlobalLoads)
	assert.Equal(t, inner, r.Stats.GlobalStores)
	assert.Equal(t, 13*inner, r.Stats.Flops)
	assert.InDelta(t, 13.0/28, r.Stats.OpPerByte(), 1e-12)
	assert.InDelta(t, 13.0/28, r.Model, 1e-12)
	assert.True(t, strings.HasPrefix(r.Summary(), "basic on the CPU simulator, N = 20, tile 8\n"), r.Summary())
	assert.Equal(t, int64(27), r.Stats.BlocksRun, "⌈20/8⌉³ blocks")
	assertMatchesPlain(t, r)
	c := r.Counters()
	assert.Contains(t, c, "global loads")
	assert.Contains(t, c, "0.4643")
}

func TestSimulateCountsTiled(t *testing.T) {
	for _, c := range []struct{ n, tile int }{{20, 8}, {23, 5}, {34, 10}} {
		r, err := Simulate("tiled", c.n, c.tile)
		require.NoError(t, err)
		l := int64(loadsPerAxis(c.n, c.tile))
		assert.Equal(t, l*l*l, r.Stats.GlobalLoads, "n=%d T=%d", c.n, c.tile)
		inner := int64((c.n - 2) * (c.n - 2) * (c.n - 2))
		assert.InDelta(t, float64(13*inner)/float64(4*l*l*l), r.Stats.OpPerByte(), 1e-12)
		assert.InDelta(t, r.Model, r.Stats.OpPerByte(), 1e-12)
		assert.Equal(t, c.tile*c.tile*c.tile*4, r.Stats.SharedBytesPerBlock)
	}
}

// Fig. 8.10 with T = 32 on a 48³ grid: 2 blocks along each axis, each of
// 32×32 threads with three planes of 32×32 floats in shared memory; Fig.
// 8.12 keeps one.
func TestSimulateCoarsenedAndRegisterTiled(t *testing.T) {
	for _, c := range []struct {
		step   string
		planes int
	}{{"coarsened", 3}, {"register_tiled", 1}} {
		r, err := Simulate(c.step, 48, 32)
		require.NoError(t, err)
		assert.Equal(t, int64(8), r.Stats.BlocksRun)
		assert.Equal(t, 1024, r.Stats.Block.Size())
		assert.Equal(t, c.planes*32*32*4, r.Stats.SharedBytesPerBlock, c.step)
		l := int64(loadsPerAxis(48, 32))
		assert.Equal(t, l*l*l, r.Stats.GlobalLoads, c.step)
		assertMatchesPlain(t, r)
	}
}

func TestTileOverThreadLimitRefused(t *testing.T) {
	r, err := Simulate("tiled", 16, 11)
	require.Error(t, err)
	assert.ErrorIs(t, err, sim.ErrLimit)
	assert.Contains(t, err.Error(), "11×11×11 = 1331 threads exceeds 1024")
	assert.Zero(t, r.Stats.GlobalLoads, "a refused launch runs nothing")
	assert.Equal(t, (16-2)*(16-2)*(16-2), counts(t, r)[Unwritten])
}

// counts is r.Count, which must succeed.
func counts(t *testing.T, r Result) Counts {
	t.Helper()
	c, err := r.Count()
	require.NoError(t, err)
	return c
}

// class is r.Classify(i, j, k), which must succeed.
func class(t *testing.T, r Result, i, j, k int) Class {
	t.Helper()
	c, err := r.Classify(i, j, k)
	require.NoError(t, err)
	return c
}

func broken(t *testing.T, name string) lab.Broken {
	t.Helper()
	for _, b := range lab.BrokenKernels() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no broken kernel %s", name)
	return lab.Broken{}
}

// With T = 32 on a 34³ grid there are two blocks along z, starting at
// planes 0 and 30. Closing the loop early, each computes one plane only,
// iStart: plane 0 is a boundary plane, so only plane 30 is written, and
// with the wrong next plane. The other 31 interior planes stay unwritten.
func TestBrokenLoopClosesEarly(t *testing.T) {
	b := broken(t, "coarsened_loop_closes_early")
	r, err := SimulateKernel(b.Name, b.Kernel, 34, 0)
	require.NoError(t, err, "a wrong result, but no error")
	c := counts(t, r)
	assert.Equal(t, 32*32, c[Wrong])
	assert.Equal(t, 31*32*32, c[Unwritten])
	assert.Zero(t, c[Right])
	assert.Zero(t, c[BoundaryWritten])
	assert.Equal(t, 34*34*34-32*32*32, c[Boundary])
	for j := 1; j < 33; j++ {
		assert.Equal(t, Wrong, class(t, r, 30, j, 17))
		assert.Equal(t, Unwritten, class(t, r, 29, j, 17))
	}
	assert.False(t, r.OK())
	assert.Contains(t, r.Summary(), "1024 wrong, 31744 never written")
}

func TestBrokenSwappedCoefficients(t *testing.T) {
	b := broken(t, "coarsened_c3_c4_swapped")
	r, err := SimulateKernel(b.Name, b.Kernel, 20, 8)
	require.NoError(t, err)
	c := counts(t, r)
	assert.Zero(t, c[Unwritten])
	assert.Greater(t, c[Wrong], 18*18*18*9/10, "c3 ≠ c4 spoils nearly every point")
}

func TestBrokenBlock34Refused(t *testing.T) {
	b := broken(t, "coarsened_block_34x34")
	r, err := SimulateKernel(b.Name, b.Kernel, 34, 0)
	require.Error(t, err)
	assert.ErrorIs(t, err, sim.ErrLimit)
	assert.Contains(t, err.Error(), "34×34 = 1156 threads exceeds 1024")
	assert.Equal(t, 32*32*32, counts(t, r)[Unwritten])
}

func TestBrokenRacesReported(t *testing.T) {
	for _, c := range []struct{ name, kind string }{
		{"tiled_no_barrier", "read after write"},
		{"register_tiled_no_second_barrier", "write after read"},
	} {
		b := broken(t, c.name)
		r, err := SimulateKernel(b.Name, b.Kernel, 20, 0)
		require.Error(t, err)
		assert.ErrorIs(t, err, sim.ErrHazard)
		h := r.Hazards(3)
		assert.Contains(t, h, c.kind)
		assert.Equal(t, 4, strings.Count(h, "\n")+1, "the counts and three reports")
		assert.False(t, r.OK())
	}
	r, err := Simulate("tiled", 20, 8)
	require.NoError(t, err)
	assert.Empty(t, r.Hazards(3))
}

func TestBrokenInteriorCheckWritesBoundary(t *testing.T) {
	b := broken(t, "tiled_no_interior_check")
	r, err := SimulateKernel(b.Name, b.Kernel, 20, 8)
	require.Error(t, err)
	assert.ErrorIs(t, err, sim.ErrFault)
	assert.Positive(t, counts(t, r)[BoundaryWritten])
}

func TestClassify(t *testing.T) {
	const n = 4
	out, err := lab.NewCube[float32](n)
	require.NoError(t, err)
	poison(out)
	want := out.Clone()
	want.Set(1, 1, 1, 2)
	want.Set(1, 1, 2, 2)
	want.Set(1, 2, 1, 2)
	want.Set(2, 2, 2, 2)
	out.Set(1, 1, 1, 2+1e-6)              // right, within tolerance
	out.Set(1, 1, 2, 2.5)                 // wrong
	out.Set(1, 2, 1, float32(math.NaN())) // a computed NaN is wrong, not unwritten
	out.Set(0, 3, 3, 7)                   // boundary overwritten
	r := Result{Result: lab.Result{Step: "test", NZ: n, NY: n, NX: n, Out: out}, Want: want}
	assert.Equal(t, Right, class(t, r, 1, 1, 1))
	assert.Equal(t, Wrong, class(t, r, 1, 1, 2))
	assert.Equal(t, Wrong, class(t, r, 1, 2, 1))
	assert.Equal(t, Unwritten, class(t, r, 2, 2, 2))
	assert.Equal(t, BoundaryWritten, class(t, r, 0, 3, 3))
	assert.Equal(t, Boundary, class(t, r, 3, 0, 0))
	assert.Equal(t, Counts{Right: 1, Wrong: 2, Unwritten: 5, Boundary: 55, BoundaryWritten: 1}, counts(t, r))
	assert.Equal(t, "never written", Unwritten.String())
	assert.Equal(t, "class(9)", Class(9).String())
	for _, p := range [][3]int{{-1, 1, 1}, {1, n, 1}, {1, 1, 1 << 40}} {
		_, err := r.Classify(p[0], p[1], p[2])
		assert.ErrorIs(t, err, lab.ErrSize, "point %v is outside the grid", p)
	}
	_, err = Result{Result: lab.Result{Step: "test", NX: n, Out: out}}.Classify(1, 1, 1)
	assert.ErrorContains(t, err, "no output to compare", "no reference")
	_, err = Result{}.Count()
	assert.Error(t, err, "the zero Result")
	short := Result{Result: lab.Result{Step: "test", NZ: n, NY: n, NX: n, Out: out}, Want: &lab.Grid3[float32]{NZ: n, NY: n, NX: n}}
	_, err = short.Count()
	assert.Error(t, err, "a reference without data")
	assert.False(t, short.OK())
	assert.Contains(t, short.Summary(), "cannot be compared")
}

func TestBenchWithoutGPU(t *testing.T) {
	noGPUOrSkip(t)
	_, err := Bench(64, 3)
	assert.ErrorIs(t, err, gpu.ErrNoGPU)
}

func TestBenchArguments(t *testing.T) {
	_, err := Bench(MaxBenchN+1, 3)
	assert.ErrorIs(t, err, lab.ErrSize)
	_, err = Bench(64, 0)
	assert.Error(t, err)
}

// The live benchmark of notebook 07: every step timed and checked, its
// bandwidth consistent with its time.
func TestBenchOnGPU(t *testing.T) {
	gpuOrSkip(t)
	const n = 128
	b, err := Bench(n, 5)
	require.NoError(t, err)
	require.Len(t, b.Results, len(gpu.Sweeps3()))
	for i, r := range b.Results {
		assert.Equal(t, gpu.Sweeps3()[i], r.Kernel)
		assert.Equal(t, n, r.N)
		assert.Positive(t, r.MedianMs)
		assert.InDelta(t, 8*126.0*126*126/(r.MedianMs*1e6), r.GBps, 1e-9*r.GBps)
		assert.InDelta(t, 100*r.GBps/r.CopyGBps, r.PctCopy, 1e-9)
	}
	p, err := fig.Bandwidth(b)
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, fig.Tall, 60)
	require.NoError(t, err)
}
