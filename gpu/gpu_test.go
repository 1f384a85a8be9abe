package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// Environment of the GPU tests.
const (
	// envTestN limits the sizes checked, e.g. STENCIL_TEST_N=67 under
	// compute-sanitizer.
	envTestN = "STENCIL_TEST_N"
	// envTestLarge=1 adds the N = 1024 and N = 2048 checks.
	envTestLarge = "STENCIL_TEST_LARGE"
)

// device returns the default device or skips the test with the reason.
func device(t *testing.T) *Device {
	t.Helper()
	d, err := Default()
	if errors.Is(err, ErrNoGPU) {
		t.Skip(err.Error())
	}
	require.NoError(t, err)
	return d
}

func testSizes(t *testing.T) []int {
	s := os.Getenv(envTestN)
	if s == "" {
		return []int{3, 67, 130, 256, 512}
	}
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(t, err, "%s=%q", envTestN, s)
		ns = append(ns, n)
	}
	return ns
}

var seedBase = uint64(time.Now().UnixNano())
var seedCount atomic.Uint64

// freshSeed returns a new seed for every call, different in every run.
func freshSeed() uint64 { return seedBase + 7919*seedCount.Add(1) }

// randomCoeffs returns seven distinct coefficients drawn afresh: the
// distinct defaults shuffled, each perturbed by up to 5%.
func randomCoeffs(seed uint64) lab.Coeffs {
	r := rand.New(rand.NewPCG(seed, 17))
	c := lab.DistinctCoeffs()
	r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	for i := range c {
		c[i] *= 1 + 0.05*(2*r.Float64()-1)
	}
	return c
}

// singleSweeps returns the 3D steps on the GPU that advance one time step a
// pass, which the tests compare with one reference sweep; the temporally
// blocked steps have their own tests against lab.Advance.
func singleSweeps() []string { return Sweeps3() }

// poisonInterior sets the interior points of g to NaN and leaves the
// boundary as it is.
func poisonInterior(g *lab.Grid3[float32]) {
	nan := float32(math.NaN())
	for i := 1; i < g.NZ-1; i++ {
		for j := 1; j < g.NY-1; j++ {
			row := g.Data[g.Index(i, j, 1):g.Index(i, j, g.NX-1)]
			for k := range row {
				row[k] = nan
			}
		}
	}
}

// tol3 bounds the difference between float32 sweeps that add the same
// seven products in different orders or with fused multiply-adds: the
// inputs are in [−1, 1) and the coefficients sum to about 1.6.
const tol3 = 1e-5

// check3 runs sweep on a fresh random n³ grid, with the interior of dst
// poisoned and its boundary copied from src, and compares with
// lab.SevenPoint from the same start.
func check3(t *testing.T, name string, sweep lab.SweepFunc, n int) {
	t.Helper()
	seed := freshSeed()
	src, err := lab.NewCube[float32](n)
	require.NoError(t, err)
	src.FillRandom(seed)
	c := randomCoeffs(seed)
	dst := src.Clone()
	poisonInterior(dst)
	want := dst.Clone()
	require.NoError(t, lab.SevenPoint(want, src, c))
	require.NoError(t, sweep(dst, src, c), "%s n=%d", name, n)
	d, err := lab.Compare3(dst, want)
	require.NoError(t, err)
	if d.MaxAbs > tol3 {
		i, j, k := d.Worst/(n*n), d.Worst/n%n, d.Worst%n
		t.Fatalf("%s n=%d seed=%d: max |gpu − reference| = %g at (i,j,k) = (%d,%d,%d): got %g, want %g",
			name, n, seed, d.MaxAbs, i, j, k, dst.Data[d.Worst], want.Data[d.Worst])
	}
	assert.Less(t, d.RelL2, 1e-6, "%s n=%d", name, n)
}

// configs3 are the 3D configurations checked: every registered step at its
// default tile, and further tiles and fast-kernel variants.
var configs3 = []struct {
	step string
	o    Options
}{
	{"basic", Options{Block: [3]int{32, 8, 1}}},
	{"tiled", Options{Tile: 6}},
	{"tiled", Options{Tile: 10}},
	{"coarsened", Options{Tile: 16}},
	{"register_tiled", Options{Tile: 8}},
	{"fast", Options{Tile: 11, Defines: []Define{{"FAST_BY", "5"}, {"FAST_WX", "3"}, {"FAST_DEPTH", "2"}}}},
	{"fast", Options{Defines: []Define{{"FAST_BY", "2"}, {"FAST_WX", "4"}}}},
	{"fast", Options{Tile: 5, Defines: []Define{{"FAST_PFD", "3"}, {"FAST_BY", "3"}, {"FAST_WX", "2"}}}},
	{"fast", Options{Tile: 4, Defines: []Define{{"FAST_PFD", "-2"}, {"FAST_BY", "5"}, {"FAST_DEPTH", "2"}}}},
	{"fast", Options{Tile: 7, Defines: []Define{{"FAST_PFD", "-1"}, {"FAST_BY", "3"}, {"FAST_WX", "4"}, {"FAST_L2PF", "2"}}}},
	{"fast", Options{Defines: []Define{{"FAST_MODE", "3"}, {"FAST_WX", "8"}, {"FAST_BY", "8"}, {"FAST_STREAM", "1"}}}},
	{"fast", Options{Tile: 6, Defines: []Define{{"FAST_MODE", "3"}, {"FAST_WX", "2"}, {"FAST_BY", "3"}, {"FAST_DEPTH", "3"}, {"FAST_PREFETCH", "0"}}}},
	{"fast", Options{Defines: []Define{{"FAST_MODE", "0"}, {"FAST_RY", "2"}, {"FAST_PREFETCH", "0"}, {"FAST_L2PF", "4"}, {"FAST_MINB", "4"}}}},
	{"fast", Options{Defines: []Define{{"FAST_MODE", "0"}}}},
	{"fast", Options{Tile: 9, Defines: []Define{{"FAST_MODE", "0"}, {"FAST_WX", "4"}, {"FAST_BY", "2"}, {"FAST_RY", "2"}, {"FAST_STREAM", "0"}}}},
	{"fast", Options{Tile: 32, Defines: []Define{{"FAST_MODE", "0"}, {"FAST_RY", "2"}, {"FAST_PREFETCH", "0"}}}},
	{"fast", Options{Tile: 16, Defines: []Define{{"FAST_MODE", "0"}, {"FAST_RY", "4"}}}},
}

func TestGPUSevenPoint(t *testing.T) {
	d := device(t)
	t.Logf("device: %s (%s), %d SMs, driver %d, %s", d.props.Name, d.props.Arch(), d.props.SMs, d.props.DriverVersion, driverLib)
	for _, n := range testSizes(t) {
		for _, step := range singleSweeps() {
			// Through the lab's registry, as `stencil run -backend gpu` runs it.
			sweep, err := lab.Sweeper(step, lab.GPU, lab.Config{})
			require.NoError(t, err, step)
			for rep := range 2 {
				t.Run(step+"/n="+strconv.Itoa(n)+"/run="+strconv.Itoa(rep), func(t *testing.T) { check3(t, step, sweep, n) })
			}
		}
		if n > 256 {
			continue // the variants' index arithmetic is exercised by the smaller sizes
		}
		for _, cfg := range configs3 {
			sweep, err := d.Sweeper(cfg.step, cfg.o)
			require.NoError(t, err, "%s %+v", cfg.step, cfg.o)
			name := cfg.step + "[tile=" + strconv.Itoa(cfg.o.Tile)
			for _, def := range cfg.o.Defines {
				name += "," + def.String()
			}
			name += "]"
			for rep := range 2 {
				t.Run(name+"/n="+strconv.Itoa(n)+"/run="+strconv.Itoa(rep), func(t *testing.T) { check3(t, name, sweep, n) })
			}
		}
	}
}

func TestGPUNonCubic(t *testing.T) {
	device(t)
	for _, step := range singleSweeps() {
		sweep, err := lab.Sweeper(step, lab.GPU, lab.Config{})
		require.NoError(t, err)
		// The last shape's rows are too long for the fast kernel's ring of
		// whole rows: that launch is refused with the limit named, never
		// swapped silently for another kernel.
		for _, shape := range [][3]int{{5, 37, 132}, {40, 3, 9}, {3, 70, 68}, {4, 5, 2432}} {
			seed := freshSeed()
			src, _ := lab.NewGrid3[float32](shape[0], shape[1], shape[2])
			src.FillRandom(seed)
			c := randomCoeffs(seed)
			dst := src.Clone()
			poisonInterior(dst)
			want := dst.Clone()
			require.NoError(t, lab.SevenPoint(want, src, c))
			err := sweep(dst, src, c)
			if err != nil && strings.Contains(err.Error(), "ring") {
				assert.Contains(t, err.Error(), "FAST_MODE=0", "%s on %v: the refusal names the way out", step, shape)
				continue
			}
			require.NoError(t, err, "%s on %v", step, shape)
			diff, err := lab.Compare3(dst, want)
			require.NoError(t, err)
			assert.LessOrEqual(t, diff.MaxAbs, tol3, "%s on %v, seed %d", step, shape, seed)
		}
	}
}

func TestGPUDerivative(t *testing.T) {
	d := device(t)
	for _, n := range testSizes(t) {
		points := n*1000 + 7
		for deriv := 1; deriv <= 2; deriv++ {
			for r := 1; r <= 3; r++ {
				s, err := lab.CentralDifference(deriv, r)
				require.NoError(t, err)
				for rep := range 2 {
					seed := freshSeed()
					rng := rand.New(rand.NewPCG(seed, 3))
					h := 0.01 + 0.09*rng.Float64()
					src, err := lab.NewGrid1[float32](points, -1, h)
					require.NoError(t, err)
					src.FillRandom(seed)
					dst, _ := lab.NewGrid1[float32](points, -1, h)
					dst.FillRandom(seed + 1) // boundary values the sweep must keep
					for k := r; k < points-r; k++ {
						dst.Data[k] = float32(math.NaN())
					}
					want := &lab.Grid1[float32]{N: points, X0: -1, H: h, Data: append([]float32(nil), dst.Data...)}
					require.NoError(t, lab.Derivative(want, src, s))
					require.NoError(t, d.Derivative(dst, src, s), "%s n=%d", s.Name, points)
					// float32 sums of 2r+1 terms of size |c|·1, scaled by h^−d.
					var sumAbs float64
					for _, c := range s.Coeffs {
						sumAbs += math.Abs(c)
					}
					tol := 4e-7 * float64(2*r+1) * sumAbs / math.Pow(h, float64(deriv))
					diff, err := lab.Compare(dst.Data, want.Data)
					require.NoError(t, err)
					assert.LessOrEqual(t, diff.MaxAbs, tol, "%s, %d points, h=%g, seed %d, run %d: worst at %d",
						s.Name, points, h, seed, rep, diff.Worst)
				}
			}
		}
	}
}

func TestGPUFivePoint(t *testing.T) {
	d := device(t)
	for _, n := range testSizes(t) {
		for _, tile := range []int{0, 32} {
			p := tile
			for rep := range 2 {
				seed := freshSeed()
				rng := rand.New(rand.NewPCG(seed, 5))
				var c [5]float64
				for i := range c {
					c[i] = 0.1*float64(i+1) + 0.05*rng.Float64() // five distinct coefficients
				}
				s := lab.FivePoint(c)
				src, err := lab.NewGrid2[float32](n, n+5)
				require.NoError(t, err)
				src.FillRandom(seed)
				dst := src.Clone()
				for j := 1; j < n-1; j++ {
					for k := 1; k < n+4; k++ {
						dst.Set(j, k, float32(math.NaN()))
					}
				}
				want := dst.Clone()
				require.NoError(t, lab.Sweep2(want, src, s))
				if p == 0 {
					require.NoError(t, d.Sweep2(dst, src, s))
				} else {
					k, err := d.FivePoint2(s, p)
					require.NoError(t, err)
					in, _ := d.Alloc(len(src.Data))
					out, _ := d.Alloc(len(dst.Data))
					require.NoError(t, in.Upload(0, src.Data))
					require.NoError(t, out.Upload(0, dst.Data))
					l, err := k.Launch(out, in, n, n+5)
					require.NoError(t, err)
					assert.Equal(t, [3]int{32, 32, 1}, l.Block)
					require.NoError(t, out.Download(0, dst.Data))
					in.Free()
					out.Free()
				}
				diff, err := lab.Compare(dst.Data, want.Data)
				require.NoError(t, err)
				assert.LessOrEqual(t, diff.MaxAbs, tol3, "five_point %d×%d tile %d seed %d run %d", n, n+5, p, seed, rep)
			}
		}
	}
}

func TestGPUBadInput(t *testing.T) {
	d := device(t)
	live := func() int {
		d.state.Lock()
		defer d.state.Unlock()
		return len(d.buffers)
	}
	before := live()
	lim := d.props.MaxThreadsPerBlock

	// Tiles beyond the device's own limits, refused before compiling.
	_, err := d.Stencil3("tiled", Options{Tile: 11})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "block 11×11×11 = 1331 threads exceeds "+strconv.Itoa(lim))
	_, err = lab.Sweeper("coarsened", lab.GPU, lab.Config{Tile: 33})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "block 33×33×1 = 1089 threads exceeds "+strconv.Itoa(lim))
	_, err = d.Stencil3("basic", Options{Block: [3]int{8, 8, d.props.MaxBlockDim[2] + 1}})
	assert.ErrorContains(t, err, "exceeds the device's")

	sweep, err := lab.Sweeper("register_tiled", lab.GPU, lab.Config{})
	require.NoError(t, err)
	// N < 3.
	small := &lab.Grid3[float32]{NZ: 2, NY: 2, NX: 2, Data: make([]float32, 8)}
	err = sweep(small, small.Clone(), lab.DistinctCoeffs())
	assert.ErrorIs(t, err, lab.ErrSize)
	// Mismatched grids.
	a, _ := lab.NewCube[float32](5)
	b, _ := lab.NewCube[float32](6)
	assert.ErrorIs(t, sweep(a, b, lab.DistinctCoeffs()), lab.ErrMismatch)
	assert.ErrorIs(t, sweep(a, a, lab.DistinctCoeffs()), lab.ErrMismatch, "aliasing")
	// A grid whose data does not match its dimensions.
	liar := &lab.Grid3[float32]{NZ: 4096, NY: 4096, NX: 4096}
	assert.ErrorIs(t, sweep(liar, liar.Clone(), lab.DistinctCoeffs()), lab.ErrMismatch)
	assert.Equal(t, before, live(), "nothing was allocated for bad input")

	// Too large for the device's free memory: refused before cuMemAlloc.
	free, _, err := d.MemInfo()
	require.NoError(t, err)
	_, err = d.Alloc(int(free/4) + 1<<28)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "of device memory, more than the")
	assert.Equal(t, before, live())

	// Buffers smaller than the grid they are launched on.
	k, err := d.Stencil3("fast", Options{})
	require.NoError(t, err)
	x, _ := d.Alloc(64)
	y, _ := d.Alloc(64)
	_, err = k.Launch(y, x, 8, 8, 8, lab.DistinctCoeffs())
	assert.ErrorIs(t, err, lab.ErrMismatch)
	_, err = k.Launch(x, x, 4, 4, 4, lab.DistinctCoeffs())
	assert.ErrorIs(t, err, lab.ErrMismatch)
	_, err = k.Launch(y, x, 2, 4, 4, lab.DistinctCoeffs())
	assert.ErrorIs(t, err, lab.ErrSize)
	require.NoError(t, x.Free())
	require.NoError(t, y.Free())
	require.NoError(t, x.Free(), "freeing twice is harmless")
	_, err = k.Launch(y, x, 4, 4, 4, lab.DistinctCoeffs())
	assert.ErrorContains(t, err, "freed")

	// 1D and 2D.
	s1, _ := lab.CentralDifference(2, 3)
	g1, _ := lab.NewGrid1[float32](6, 0, 0.1)
	assert.ErrorIs(t, d.Derivative(g1, g1, s1), lab.ErrSize)
	g2, _ := lab.NewGrid2[float32](8, 8)
	assert.ErrorContains(t, d.Sweep2(g2, g2.Clone(), lab.NinePoint([9]float64{1, 2, 3, 4, 5, 6, 7, 8, 9})), "five-point stencils only")
	h2, _ := lab.NewGrid2[float32](8, 9)
	assert.ErrorIs(t, d.Sweep2(g2, h2, lab.FivePoint([5]float64{1, 2, 3, 4, 5})), lab.ErrMismatch)
	_, err = d.FivePoint2(lab.FivePoint([5]float64{}), 33)
	assert.ErrorContains(t, err, "1089 threads exceeds")
	_, err = d.Derivative1(s1, 2048)
	assert.ErrorContains(t, err, "x = 2048 exceeds the device's")
	assert.Equal(t, before, live())
}

func TestGPUCompileError(t *testing.T) {
	d := device(t)
	// A define a step does not take is refused before NVRTC runs: the
	// resolved run validates its defines once, against the step's tuning.
	_, err := d.Stencil3("tiled", Options{Defines: []Define{{"blockIdx", "("}}})
	require.Error(t, err)
	assert.ErrorContains(t, err, "unknown define blockIdx: the step takes no defines")
	var ne *NVRTCError
	assert.False(t, errors.As(err, &ne), "refused before compiling: %v", err)
	// A tuned step's define out of its range names the range.
	_, err = d.Stencil3("fast", Options{Defines: []Define{{"FAST_BY", "("}}})
	assert.ErrorContains(t, err, "FAST_BY = ( must be an integer from")
	// A source that does not compile brings NVRTC's log back.
	_, err = d.CompileSource("broken.cu", "extern \"C\" __global__ void tiled(float* x) {\n  x[0] = (;\n}\n", "tiled", nil,
		func(nz, ny, nx int) (Geometry, error) {
			return Geometry{Block: [3]int{1, 1, 1}, Grid: [3]int{1, 1, 1}}, nil
		})
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, "NVRTC_ERROR_COMPILATION", ne.Name)
	assert.Contains(t, ne.Log, "broken.cu(2)")
}

func TestGPUModuleCache(t *testing.T) {
	d := device(t)
	a, err := d.Stencil3("tiled", Options{Tile: 7})
	require.NoError(t, err)
	b, err := d.Stencil3("tiled", Options{Tile: 7})
	require.NoError(t, err)
	assert.Same(t, a.Module(), b.Module(), "one compilation per source, defines and architecture")
	c, err := d.Stencil3("tiled", Options{Tile: 9})
	require.NoError(t, err)
	assert.NotSame(t, a.Module(), c.Module())
	m := a.Module()
	t.Logf("tiled.cu T=7: target %s (CUBIN %v), NVRTC %v, NVRTC library %s", m.Target, m.CUBIN, m.CompileTime, nvrtcLib)
	assert.Equal(t, d.props.Arch(), m.Target, "an NVRTC as new as the driver compiles for the device's own architecture")
	f, err := a.Function(64)
	require.NoError(t, err)
	assert.Equal(t, 4*7*7*7, f.StaticShared, "the compiled kernel declares T³ floats of shared memory")
}

func TestGPUFillAndCopy(t *testing.T) {
	d := device(t)
	n := 1<<20 + 3
	a, err := d.Alloc(n)
	require.NoError(t, err)
	defer a.Free()
	b, err := d.Alloc(n)
	require.NoError(t, err)
	defer b.Free()
	require.NoError(t, a.FillRandom(42))
	x := make([]float32, n)
	require.NoError(t, a.Download(0, x))
	var sum float64
	for _, v := range x {
		require.True(t, v >= -1 && v < 1, "value %g outside [−1, 1)", v)
		sum += float64(v)
	}
	assert.Less(t, math.Abs(sum/float64(n)), 0.01, "mean of uniform [−1, 1) values")
	require.NoError(t, b.FillRandom(42))
	y := make([]float32, n)
	require.NoError(t, b.Download(0, y))
	assert.Equal(t, x, y, "the same seed gives the same values")
	require.NoError(t, b.FillRandom(43))
	require.NoError(t, b.Download(0, y))
	assert.NotEqual(t, x[:100], y[:100])

	require.NoError(t, b.Poison())
	l, err := d.Copy(b, a)
	require.NoError(t, err)
	assert.Positive(t, l.Millis)
	require.NoError(t, b.Download(0, y))
	assert.Equal(t, x, y, "the copy kernel copies every float, the tail too")
}

// TestGPUCopyInterior checks the interior copy on fresh random inputs,
// twice each: every interior point equals the input bit for bit, and every
// boundary point keeps the NaN it was poisoned with.
func TestGPUCopyInterior(t *testing.T) {
	d := device(t)
	var shapes [][3]int
	for _, n := range testSizes(t) {
		shapes = append(shapes, [3]int{n, n, n}, [3]int{n, n, n + 1})
	}
	shapes = append(shapes, [3]int{5, 7, 516}, [3]int{4, 3, 8}, [3]int{4, 4, 4})
	for _, s := range shapes {
		nz, ny, nx := s[0], s[1], s[2]
		t.Run(fmt.Sprintf("%dx%dx%d", nz, ny, nx), func(t *testing.T) {
			n := nz * ny * nx
			src, err := d.Alloc(n)
			require.NoError(t, err)
			defer src.Free()
			dst, err := d.Alloc(n)
			require.NoError(t, err)
			defer dst.Free()
			in, out := make([]float32, n), make([]float32, n)
			for run := range 2 {
				seed := freshSeed()
				require.NoError(t, src.FillRandom(seed))
				require.NoError(t, dst.Poison())
				_, err := d.CopyInterior(dst, src, nz, ny, nx)
				require.NoError(t, err)
				require.NoError(t, src.Download(0, in))
				require.NoError(t, dst.Download(0, out))
				bad, first := 0, ""
				for i := range nz {
					for j := range ny {
						for k := range nx {
							at := (i*ny+j)*nx + k
							inside := i > 0 && i < nz-1 && j > 0 && j < ny-1 && k > 0 && k < nx-1
							ok := math.IsNaN(float64(out[at]))
							if inside {
								ok = math.Float32bits(in[at]) == math.Float32bits(out[at])
							}
							if !ok {
								if bad == 0 {
									first = fmt.Sprintf("(%d,%d,%d), interior %v: got %g, input %g", i, j, k, inside, out[at], in[at])
								}
								bad++
							}
						}
					}
				}
				require.Zero(t, bad, "run %d seed %d: %d points wrong (interior points must equal the input, boundary points stay NaN), first %s",
					run, seed, bad, first)
			}
		})
	}
	a, err := d.Alloc(27)
	require.NoError(t, err)
	defer a.Free()
	_, err = d.CopyInterior(a, a, 3, 3, 3)
	assert.ErrorContains(t, err, "same buffer")
	b, err := d.Alloc(26)
	require.NoError(t, err)
	defer b.Free()
	_, err = d.CopyInterior(b, a, 3, 3, 3)
	assert.ErrorContains(t, err, "smaller than the 3×3×3 grid")
}

func TestGPUConcurrentSweeps(t *testing.T) {
	device(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			step := singleSweeps()[g%len(singleSweeps())]
			sweep, err := lab.Sweeper(step, lab.GPU, lab.Config{})
			if err != nil {
				errs[g] = err
				return
			}
			src, _ := lab.NewCube[float32](33)
			src.FillRandom(freshSeed())
			dst, want := src.Clone(), src.Clone()
			if err := lab.SevenPoint(want, src, lab.DistinctCoeffs()); err != nil {
				errs[g] = err
				return
			}
			if err := sweep(dst, src, lab.DistinctCoeffs()); err != nil {
				errs[g] = err
				return
			}
			if diff, _ := lab.Compare3(dst, want); diff.MaxAbs > tol3 {
				errs[g] = errors.New(step + ": wrong result")
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
}

// TestGPULarge checks N = 1024 and N = 2048 on device-resident random
// grids: whole interior planes (first, last and others) against
// lab.SevenPoint, and the boundary planes left untouched.
func TestGPULarge(t *testing.T) {
	if os.Getenv(envTestLarge) != "1" {
		t.Skip("set " + envTestLarge + "=1 to check N = 1024 and 2048 (needs 69 GB of device memory)")
	}
	d := device(t)
	for _, n := range []int{1024, 2048} {
		total := n * n * n
		src, err := d.Alloc(total)
		require.NoError(t, err)
		dst, err := d.Alloc(total)
		require.NoError(t, err)
		seed := freshSeed()
		require.NoError(t, src.FillRandom(seed))
		for _, step := range singleSweeps() {
			k, err := d.Stencil3(step, Options{})
			require.NoError(t, err)
			c := randomCoeffs(seed)
			require.NoError(t, dst.Poison())
			l, err := k.Launch(dst, src, n, n, n, c)
			require.NoError(t, err)
			mid := 1 + int(seed%uint64(n-2))
			planes := []int{1, 2, n / 2, mid, n - 3, n - 2}
			res, err := d.CheckPlanes(dst, src, n, n, n, c, planes)
			require.NoError(t, err)
			assert.LessOrEqual(t, res.Diff.MaxAbs, tol3, "%s n=%d planes %v seed %d", step, n, planes, seed)
			assert.Zero(t, res.Boundary, "%s n=%d: boundary points written", step, n)
			edge := make([]float32, n*n)
			for _, i := range []int{0, n - 1} {
				require.NoError(t, dst.Download(i*n*n, edge))
				for p, v := range edge {
					if !math.IsNaN(float64(v)) {
						t.Fatalf("%s n=%d: boundary plane %d written at %d", step, n, i, p)
					}
				}
			}
			t.Logf("%s n=%d: %s, %.3f ms, %d points checked, max diff %.3g", step, n, l.Geometry, l.Millis, res.Points, res.Diff.MaxAbs)
		}
		require.NoError(t, src.Free())
		require.NoError(t, dst.Free())
	}
}

// TestGPUExecute runs steps through the lab's one way of running a step,
// lab.Execute, on the gpu backend: the output equals the reference on a
// grid whose sides differ, every sweep has a kernel time from CUDA events,
// and the launch is the step's geometry.
func TestGPUExecute(t *testing.T) {
	device(t)
	for _, shape := range [][3]int{{67, 40, 35}, {40, 67, 68}} {
		seed := freshSeed()
		src, err := lab.NewGrid3[float32](shape[0], shape[1], shape[2])
		require.NoError(t, err)
		src.FillRandom(seed)
		dst := src.Clone()
		poisonInterior(dst)
		want := dst.Clone()
		c := randomCoeffs(seed)
		require.NoError(t, lab.SevenPoint(want, src, c))
		res, err := lab.Execute(lab.Run{Step: "register", Backend: lab.GPU, Src: src, Dst: dst, C: c, Reps: 3})
		require.NoError(t, err)
		d, err := lab.Compare3(res.Out, want)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, tol3, "shape %v seed %d", shape, seed)
		require.Len(t, res.Millis, 3)
		for _, ms := range res.Millis {
			assert.Positive(t, ms)
		}
		st, err := lab.LookupStep3("register_tiled")
		require.NoError(t, err)
		g, err := st.Launch(shape[0], shape[1], shape[2], lab.Config{})
		require.NoError(t, err)
		assert.Equal(t, g.Grid, res.Launch.Geometry.Grid)
		assert.Equal(t, g.Block, res.Launch.Geometry.Block)
		assert.Equal(t, 32, res.Config.Tile)
	}
}

// TestGPUTimeLoop advances grids by several time steps on the device, the
// passes ping-ponging between two device buffers, against as many
// reference sweeps with the boundary fixed, for every 3D step.
func TestGPUTimeLoop(t *testing.T) {
	d := device(t)
	for _, step := range Steps3() {
		for _, shape := range [][3]int{{35, 33, 40}, {3, 7, 9}} {
			seed := freshSeed()
			src, err := lab.NewGrid3[float32](shape[0], shape[1], shape[2])
			require.NoError(t, err)
			src.FillRandom(seed)
			c := randomCoeffs(seed)
			k, err := d.Stencil3(step, Options{})
			require.NoError(t, err)
			for _, steps := range []int{k.StepsPerPass(), 2 * k.StepsPerPass(), 4 * k.StepsPerPass()} {
				dst := src.Clone()
				poisonInterior(dst)
				want := dst.Clone()
				require.NoError(t, lab.Advance(lab.SevenPoint[float32], want, src, c, steps))
				res, err := lab.Execute(lab.Run{Step: step, Backend: lab.GPU, Src: src, Dst: dst, C: c, Steps: steps})
				require.NoError(t, err, "%s on %v, %d steps", step, shape, steps)
				diff, err := lab.Compare3(res.Out, want)
				require.NoError(t, err)
				assert.LessOrEqual(t, diff.MaxAbs, tol3*float64(steps), "%s on %v, %d steps, seed %d", step, shape, steps, seed)
				assert.Positive(t, res.MedianMillis())
			}
		}
	}
	// MeasureSteps starts every run from the same input: the output after
	// the timed runs is the same as after one.
	n := 40
	k, err := d.Stencil3("tiled", Options{})
	require.NoError(t, err)
	src, a, b := allocN(t, d, n), allocN(t, d, n), allocN(t, d, n)
	require.NoError(t, src.FillRandom(3))
	m, err := k.MeasureSteps(src, a, b, n, n, n, lab.DistinctCoeffs(), 4, 1, 3)
	require.NoError(t, err)
	assert.Len(t, m.Millis, 3)
	assert.Positive(t, m.Median)
	host, err := lab.NewCube[float32](n)
	require.NoError(t, err)
	require.NoError(t, src.Download(0, host.Data))
	want := host.Clone()
	require.NoError(t, lab.Advance(lab.SevenPoint[float32], want, host, lab.DistinctCoeffs(), 4))
	got := host.Clone()
	require.NoError(t, a.Download(0, got.Data)) // 4 passes: the result is back in a
	diff, err := lab.Compare3(got, want)
	require.NoError(t, err)
	assert.LessOrEqual(t, diff.MaxAbs, 4*tol3)
	_, err = k.MeasureSteps(src, a, b, n, n, n, lab.DistinctCoeffs(), 0, 0, 1)
	assert.ErrorContains(t, err, "positive multiple")
}

func allocN(t *testing.T, d *Device, n int) *Buffer {
	t.Helper()
	b, err := d.Alloc(n * n * n)
	require.NoError(t, err)
	t.Cleanup(func() { b.Free() })
	return b
}
