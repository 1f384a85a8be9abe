package nbrun

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
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

func TestDiffMap(t *testing.T) {
	b := broken(t, "coarsened_loop_closes_early")
	r, _ := SimulateKernel(b.Name, b.Kernel, 34, 0)
	d, err := DiffMap(r, 17)
	require.NoError(t, err)
	g := d.Geometry()
	assert.Contains(t, g, "never written: 31744 of 32768 interior")
	assert.Contains(t, g, "wrong value: 1024 of 32768 interior")
	img, err := fig.Image(d, DiffMapWidth, DiffMapHeight, 60)
	require.NoError(t, err)
	assert.Positive(t, img.Bounds().Dx())

	assert.Contains(t, g, "darker the further off")

	// NaN outputs have no distance to shade by.
	b = broken(t, "tiled_no_barrier")
	nan, _ := SimulateKernel(b.Name, b.Kernel, 20, 8)
	d, err = DiffMap(nan, 10)
	require.NoError(t, err)
	assert.NotContains(t, d.Geometry(), "darker the further off")

	// Swapped coefficients leave errors of every size: many shades.
	b = broken(t, "coarsened_c3_c4_swapped")
	sw, _ := SimulateKernel(b.Name, b.Kernel, 20, 8)
	d, err = DiffMap(sw, 10)
	require.NoError(t, err)
	fills := map[string]bool{}
	for _, line := range strings.Split(d.Geometry(), "\n") {
		if _, f, ok := strings.Cut(line, "fill="); ok && strings.HasPrefix(line, "rect") {
			fills[strings.Fields(f)[0]] = true
		}
	}
	assert.Greater(t, len(fills), 10, "shades of vermillion")
	_, err = DiffMap(r, 34)
	assert.Error(t, err)
	_, err = DiffMap(Result{Result: lab.Result{Step: "refused"}}, 0)
	assert.Error(t, err)
	assert.NoError(t, ShowDiff(r), "outside a notebook Show renders and returns")
}

func TestIntensitySweep(t *testing.T) {
	pts, err := IntensitySweep("tiled", 20, []int{4, 6, 8})
	require.NoError(t, err)
	require.Len(t, pts, 3)
	for _, p := range pts {
		l := float64(loadsPerAxis(20, p.T))
		assert.InDelta(t, 13*18.0*18*18/(4*l*l*l), p.Counted, 1e-12, "T=%d", p.T)
		assert.InDelta(t, p.Counted, p.Model, 1e-12)
		f := 1 - 2/float64(p.T)
		assert.InDelta(t, 3.25*f*f*f, p.Slide, 1e-12)
		assert.Less(t, p.Model, p.Slide, "the face blocks load partial tiles for fewer outputs")
	}
	p, err := IntensityPlot("tiled", 20, pts)
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, fig.Tall, 60)
	require.NoError(t, err)
	_, err = IntensityPlot("tiled", 20, nil)
	assert.Error(t, err)
	_, err = IntensitySweep("tiled", 20, []int{11})
	assert.ErrorIs(t, err, sim.ErrLimit)
}

func TestModelShare(t *testing.T) {
	basic, err := ModelShare("basic", 512, 8)
	require.NoError(t, err)
	assert.InDelta(t, 25, basic, 1e-9, "8 ideal bytes over 7 loads and 1 store of 4 bytes")
	tiled, err := ModelShare("tiled", 512, 8)
	require.NoError(t, err)
	l := float64(loadsPerAxis(512, 8))
	out := 510.0 * 510 * 510
	assert.InDelta(t, 100*2*out/(l*l*l+out), tiled, 1e-9)
	_, err = ModelShare("fast", 512, 8)
	assert.Error(t, err)
}

// recorded returns the runs of notebook 07 from the committed bench file.
func recorded(t *testing.T) (*fig.Bench, []HopperRun) {
	t.Helper()
	b, err := MeasuredBench()
	require.NoError(t, err)
	return b, RecordedRuns(b)
}

func TestCompareModel(t *testing.T) {
	b, runs := recorded(t)
	s, err := CompareModel(runs)
	require.NoError(t, err)
	lines := strings.Split(s, "\n")
	at512 := map[string]fig.BenchResult{}
	for _, r := range b.Results {
		if r.N == 512 {
			at512[r.Kernel] = r
		}
	}
	// The record holds steps the lab registers (recorded ⊆ registered),
	// not necessarily all of them: a step added since has no run.
	var recordedSteps []string
	for _, step := range gpu.Steps3() {
		if _, ok := at512[step]; ok {
			recordedSteps = append(recordedSteps, step)
		}
	}
	assert.Len(t, recordedSteps, len(at512), "every kernel recorded at N = 512 is a registered step")
	require.Len(t, lines, len(recordedSteps)+1, "a header and the recorded steps")
	basic, tiled, fast := at512["basic"], at512["tiled"], at512["fast"]
	assert.Regexp(t, fmt.Sprintf(`^basic\s+8×8×8 blocks\s+%.3f\s+25 %%\s+%.0f %%$`, basic.MedianMs, basic.PctCopy), lines[1])
	assert.Regexp(t, fmt.Sprintf(`^tiled\s+T = 8\s+%.3f\s+\d+ %%\s+%.0f %%$`, tiled.MedianMs, tiled.PctCopy), lines[2])
	assert.Regexp(t, fmt.Sprintf(`^fast\s+.*%.3f\s+–\s+%.0f %%$`, fast.MedianMs, fast.PctCopy), lines[len(lines)-1])
}

func TestRecordedRuns(t *testing.T) {
	b := &fig.Bench{Results: []fig.BenchResult{
		{Kernel: "basic", N: 512, Tile: 8, MedianMs: 0.6, GBps: 1600, CopyGBps: 4000, PctCopy: 40},
		{Kernel: "tiled", N: 512, Tile: 8, MedianMs: 1.3, GBps: 800, CopyGBps: 4000, PctCopy: 20},
	}}
	assert.Equal(t, []HopperRun{
		{Kernel: "basic", Config: "8×8×8 blocks", Ms: 0.6, PctCopy: 40},
		{Kernel: "tiled", Config: "T = 8", Ms: 1.3, PctCopy: 20},
	}, RecordedRuns(b))
}

func TestFromBench(t *testing.T) {
	b := &fig.Bench{Results: []fig.BenchResult{
		{Kernel: "tiled", N: 256, MedianMs: 1, GBps: 1, CopyGBps: 2},
		{Kernel: "tiled", N: 512, Tile: 8, MedianMs: 1.3, GBps: 800, CopyGBps: 4000},
		{Kernel: "basic", N: 512, MedianMs: 0.6, GBps: 1600, CopyGBps: 4000, PctCopy: 40},
		{Kernel: "fast", N: 512, Tile: 16, MedianMs: 0.3, GBps: 3200, CopyGBps: 4000},
		{Kernel: "fast", N: 1024, MedianMs: 2.3, GBps: 3600, CopyGBps: 4000},
	}}
	assert.Equal(t, []HopperRun{{Kernel: "fast", Config: "2.5D, z-marching", Ms: 2.3, PctCopy: 90}}, FromBench(b, 1024),
		"fast at its default tile 0 has its planes per block chosen per grid")
	runs := FromBench(b, 512)
	assert.Equal(t, []HopperRun{
		{Kernel: "basic", Config: "8×8×8 blocks", Ms: 0.6, PctCopy: 40},
		{Kernel: "tiled", Config: "T = 8", Ms: 1.3, PctCopy: 20},
		{Kernel: "fast", Config: "16 z planes per block", Ms: 0.3, PctCopy: 80},
	}, runs)
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "notebooks", "nbrun", "doc.go"))
	assert.NoError(t, err)
	assert.True(t, declaresModule("// c\nmodule stencillab.dev\n\ngo 1.24\n", "stencillab.dev"))
	assert.False(t, declaresModule("module stencillab.dev/x\n", "stencillab.dev"))
}

func TestMeasuredBench(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	_, statErr := os.Stat(filepath.Join(root, BenchFile))
	b, err := MeasuredBench()
	if errors.Is(statErr, os.ErrNotExist) {
		assert.True(t, IsMissing(err), "%v", err)
		return
	}
	require.NoError(t, err)
	assert.NotEmpty(t, b.Results)
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

// Once the bench file is in the repository, notebook 07 reads it, draws it
// and takes the fast kernel's share from it. The file here has the shape
// `stencil bench -json` writes, extra fields included.
func TestMeasuredBenchReadsTheFile(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module stencillab.dev\n\ngo 1.24.4\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "figures", "data"), 0o755))
	const report = `{"device": "NVIDIA H200", "command": "stencil bench", "copy": [{"n": 512, "gbps": 4200}],
 "results": [
  {"kernel": "basic", "label": "basic", "n": 512, "tile": 8, "median_ms": 0.644, "gbps": 1650, "gflops": 2700, "copy_gbps": 4200, "pct_copy": 39.3},
  {"kernel": "fast", "label": "fast", "n": 512, "tile": 16, "median_ms": 0.31, "gbps": 3400, "gflops": 5600, "copy_gbps": 4200, "pct_copy": 81}
 ]}`
	require.NoError(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(BenchFile)), []byte(report), 0o644))
	sub := filepath.Join(root, "notebooks")
	require.NoError(t, os.Mkdir(sub, 0o755))
	t.Chdir(sub)

	b, err := MeasuredBench()
	require.NoError(t, err)
	assert.Equal(t, "NVIDIA H200", b.Device)
	require.Len(t, b.Results, 2)
	runs := FromBench(b, 512)
	require.Len(t, runs, 2)
	assert.Equal(t, HopperRun{Kernel: "fast", Config: "16 z planes per block", Ms: 0.31, PctCopy: 81}, runs[1])
	p, err := fig.Bandwidth(b)
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, fig.Tall, 60)
	require.NoError(t, err)
}
