package sediment

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	"stencillab.dev/internal/cuda2go"
	"stencillab.dev/lab/sediment"
)

// envSedimentSizes limits the meshes of the sediment checks, as NXxNY
// pairs separated by commas, e.g. STENCIL_SEDIMENT_SIZES=67x45 under
// compute-sanitizer.
const envSedimentSizes = "STENCIL_SEDIMENT_SIZES"

// sedimentDevice returns the default device or skips the test, saying
// what it needs.
func sedimentDevice(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := gpu.Default()
	if errors.Is(err, gpu.ErrNoGPU) {
		t.Skip("needs an NVIDIA GPU and its driver: " + err.Error())
	}
	require.NoError(t, err)
	return d
}

func sedimentSizes(t *testing.T) [][2]int {
	s := os.Getenv(envSedimentSizes)
	if s == "" {
		// Odd and even widths (the best kernel's scalar and 16-byte
		// paths), none a multiple of the blocks, 62 columns or 32 rows.
		return [][2]int{{67, 45}, {130, 97}, {255, 300}, {1000, 777}}
	}
	var out [][2]int
	for _, f := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(f), "x")
		nx, err1 := strconv.Atoi(a)
		ny, err2 := strconv.Atoi(b)
		require.True(t, ok && err1 == nil && err2 == nil, "%s=%q: want NXxNY,…", envSedimentSizes, s)
		out = append(out, [2]int{nx, ny})
	}
	return out
}

// sedimentBasin returns a random basin with sediment entering and leaving
// over parts of the boundary, drawn from a fresh seed.
func sedimentBasin(t *testing.T, nx, ny int) *sediment.Basin {
	b, err := sediment.Random(nx, ny, freshSedimentSeed())
	require.NoError(t, err)
	b.Bound.West = make([]sediment.Inflow, ny)
	b.Bound.West[ny/3] = sediment.Inflow{Rate: 0.2, Sand: 0.8}
	b.Bound.North = make([]sediment.Inflow, nx)
	b.Bound.North[nx/2] = sediment.Inflow{Rate: -0.1}
	b.Bound.East = make([]sediment.Inflow, ny)
	b.Bound.East[ny-1] = sediment.Inflow{Rate: 0.05, Sand: 0.1}
	l, err := b.Limits()
	require.NoError(t, err)
	b.P.Dt = 0.9 * l.Dt
	require.NoError(t, b.Prepare())
	return b
}

var sedimentSeed = uint64(os.Getpid()) * 104729

func freshSedimentSeed() uint64 { sedimentSeed += 7919; return sedimentSeed }

// relErr returns max |got − want| over max |want| on the interior; +Inf if
// got has a NaN there.
func relErr(b *sediment.Basin, got, want []float64) float64 {
	var d, m float64
	for j := 1; j <= b.Ny; j++ {
		for i := 1; i <= b.Nx; i++ {
			k := b.Index(i, j)
			if math.IsNaN(got[k]) {
				return math.Inf(1)
			}
			d = max(d, math.Abs(got[k]-want[k]))
			m = max(m, math.Abs(want[k]))
		}
	}
	return d / m
}

// poisonSpare fills the interior of the buffers a step writes with NaN,
// keeping their ghosts, so that a point no kernel writes shows after the
// steps.
func poisonSpare(t *testing.T, r *Sediment, b *sediment.Basin) {
	for _, f := range []struct {
		buf *gpu.Buffer
		src []float64
	}{{r.h[1-r.cur], b.H.Data}, {r.s[1-r.cur], b.S.Data}} {
		v := append([]float64(nil), f.src...)
		for j := 1; j <= b.Ny; j++ {
			for i := 1; i <= b.Nx; i++ {
				v[b.Index(i, j)] = math.NaN()
			}
		}
		require.NoError(t, f.buf.Upload(0, float32View(v)))
	}
}

func TestGPUSedimentMatchesCPU(t *testing.T) {
	d := sedimentDevice(t)
	type variant struct {
		name string
		opts Options
	}
	variants := []variant{{"baseline", Options{}}, {"opt1", Options{}}, {"opt2", Options{}},
		{"opt3", Options{}}, {"best", Options{}}, {"best", Options{Split: true}},
		{"best", Options{RY: 7, Warps: 3}}, {"best", Options{FastDiv: true}},
		{"best", Options{RY: 5, Warps: 2, MinBlocks: 3, FastDiv: true, Split: true}}}
	const steps = 10
	for _, sz := range sedimentSizes(t) {
		for _, v := range variants {
			t.Run(fmt.Sprintf("%s%+v/%dx%d", v.name, v.opts, sz[0], sz[1]), func(t *testing.T) {
				b := sedimentBasin(t, sz[0], sz[1])
				want := b.Clone()
				require.NoError(t, want.Run(steps))
				r, err := New(d, b, v.name, v.opts)
				require.NoError(t, err)
				defer r.Free()
				poisonSpare(t, r, b)
				_, err = r.Run(steps)
				require.NoError(t, err)
				got := b.Clone()
				require.NoError(t, r.Download(got))
				assert.Equal(t, steps, got.Steps)
				assert.LessOrEqual(t, relErr(b, got.H.Data, want.H.Data), 1e-12, "h")
				assert.LessOrEqual(t, relErr(b, got.S.Data, want.S.Data), 1e-12, "s")
			})
		}
	}
}

func TestGPUSedimentBench(t *testing.T) {
	d := sedimentDevice(t)
	rep, err := Bench(d, 300, 200, 1, 1, 3, []Options{{}, {RY: 16, Warps: 2}})
	require.NoError(t, err)
	assert.Greater(t, rep.CopyGBs, 0.0)
	assert.Len(t, rep.Rows, 2*4+3)
	for _, row := range rep.Rows {
		require.Greater(t, row.Ms, 0.0, "%+v", row)
		pts := 300.0 * 200
		flops := map[string]float64{sediment.KernelH: 55, sediment.KernelS: 34, sediment.KernelFused: 89}[row.Kernel]
		assert.InDelta(t, flops*pts/(row.Ms*1e6), row.GFLOPs, 1e-9*row.GFLOPs)
		assert.InDelta(t, row.GBs/rep.CopyGBs, row.CopyShare, 1e-12)
		assert.Greater(t, row.Regs, 0)
		assert.True(t, row.Occupancy > 0 && row.Occupancy <= 1, "occupancy %g", row.Occupancy)
	}
	opt3, ok := rep.Row(sediment.KernelH, "opt3")
	require.True(t, ok)
	assert.Equal(t, "34×6", opt3.Block)
	assert.Equal(t, 2*34*6*8, opt3.SharedBytes, "two shared arrays of 34×6 doubles")
	opt2, _ := rep.Row(sediment.KernelS, "opt2")
	assert.Equal(t, 2*34*6*8, opt2.SharedBytes)
}

func TestGPUSedimentBadInput(t *testing.T) {
	d := sedimentDevice(t)
	b := sedimentBasin(t, 20, 10)
	_, err := New(d, b, "opt9", Options{})
	assert.ErrorIs(t, err, sediment.ErrInput)
	_, err = New(d, nil, "best", Options{})
	assert.Error(t, err)
	_, err = New(d, b, "best", Options{Warps: 33})
	assert.ErrorContains(t, err, "1024 threads")
	_, err = New(d, b, "best", Options{MinBlocks: -1})
	assert.ErrorContains(t, err, "resident blocks")
	unstable := b.Clone()
	unstable.P.Dt *= 10
	_, err = New(d, unstable, "baseline", Options{})
	assert.ErrorIs(t, err, sediment.ErrUnstable)

	r, err := New(d, b, "opt2", Options{})
	require.NoError(t, err)
	_, _, err = r.Kernel(Fused)
	assert.ErrorContains(t, err, "only the variants whose warps walk rows (best) have it")
	_, err = r.Run(-1)
	assert.Error(t, err)
	other, _ := sediment.Random(21, 10, 1)
	assert.Error(t, r.Download(other))
	require.NoError(t, r.Free())
	require.NoError(t, r.Free())
	_, err = r.Run(1)
	assert.ErrorContains(t, err, "freed")
}

func TestSedimentDefinesRoundTrip(t *testing.T) {
	b, err := sediment.Random(9, 7, 3)
	require.NoError(t, err)
	b.P.Dx, b.P.Cs = 0.1, 3
	defs := sedimentDefines(b)
	got := map[string]string{}
	for _, d := range defs {
		_, err := gpu.ParseDefine(d.String())
		require.NoError(t, err, d.String())
		got[d.Name] = d.Value
	}
	assert.Equal(t, "9", got["NX"])
	assert.Equal(t, "7", got["NY"])
	// The values as the CPU computes them, in float64 arithmetic.
	dx, cs := b.P.Dx, b.P.Cs
	for name, want := range map[string]float64{"SED_DT": b.P.Dt, "SED_RX": 1 / (dx * dx), "SED_ICS": 1 / cs, "SED_HCS": 0.5 / cs, "SED_A": b.P.A} {
		v, err := strconv.ParseFloat(got[name], 64)
		require.NoError(t, err)
		assert.Equal(t, want, v, name)
		assert.Contains(t, got[name], "e", "%s must be a double literal", name)
	}
}

func TestBoundaryRatesOrder(t *testing.T) {
	b, err := sediment.NewBasin(3, 2, sediment.Params{Dx: 1, Dy: 1, Dt: 0.1, Cs: 1, Cm: 1, A: 1})
	require.NoError(t, err)
	b.Bound.East = []sediment.Inflow{{Rate: 1}, {Rate: 2}}
	b.Bound.North = []sediment.Inflow{{Rate: 3}, {Rate: 4}, {Rate: 5}}
	assert.Equal(t, []float64{0, 0, 1, 2, 0, 0, 0, 3, 4, 5}, boundaryRates(b))
	v := []float64{1.5, -2}
	f := float32View(v)
	require.Len(t, f, 4)
	// The same bytes: each double's low and high words (little-endian).
	for k, x := range v {
		bits := math.Float64bits(x)
		assert.Equal(t, uint32(bits), math.Float32bits(f[2*k]), "low word of %g", x)
		assert.Equal(t, uint32(bits>>32), math.Float32bits(f[2*k+1]), "high word of %g", x)
	}
	assert.Nil(t, float32View(nil))
}

// On an H200-like device a best kernel of 128 registers in blocks of 4
// warps fits 4 blocks a multiprocessor (16 warps of 4096 registers), 528
// on 132 of them. A 4096×4096 mesh has 67 chunks of 62 columns; at about
// 32 rows a warp that is 2144 blocks, 4.06 waves. The launcher takes 4
// waves: 31 blocks of 4 warps a chunk, ⌈4096/124⌉ = 34 rows a warp, and
// 67·31 = 2077 blocks, no more than 4·528.
func TestBestRowsFillWholeWaves(t *testing.T) {
	r := &Sediment{sms: 132, variant: "best", v: sedimentVariants["best"], nx: 4096, ny: 4096,
		opts: Options{RY: 32, Warps: 4},
		limits: gpu.OccupancyLimits{MaxThreads: 2048, RegsPerSM: 65536, MaxBlocks: 32, SharedPerSM: 233472,
			ReservedShared: 1024, RegUnit: 256, SharedUnit: 128, Partitions: 4}}
	assert.Equal(t, 4, r.limits.Blocks(128, 128, 0))
	rows := r.bestRows(&gpu.Function{Registers: 128})
	assert.Equal(t, 34, rows)
	r.rows = map[*Kernel]int{Fused: rows}
	g := r.geometry(Fused)
	assert.Equal(t, [3]int{67, 31, 1}, g.Grid)
	assert.Equal(t, [3]int{32, 4, 1}, g.Block)
	assert.LessOrEqual(t, g.Blocks(), 4*528)

	// Unknown limits: RY as given.
	r.limits = gpu.OccupancyLimits{}
	assert.Equal(t, 32, r.bestRows(&gpu.Function{Registers: 128}))
}

// Each of the case study's variants is registered here, once, and no
// other: a variant of lab/sediment without its launch would have none.
func TestEverySedimentVariantIsRegistered(t *testing.T) {
	var names []string
	for n, v := range sedimentVariants {
		names = append(names, n)
		assert.NotNil(t, v.launch, n)
	}
	assert.ElementsMatch(t, sediment.Variants, names)
}

// Every kernel is found by its name, once, and a name that is none of
// them is refused with the list.
func TestKernelsAreRegistered(t *testing.T) {
	require.Len(t, Kernels(), len(kernels))
	for _, name := range Kernels() {
		k, err := LookupKernel(name)
		require.NoError(t, err)
		assert.Equal(t, name, k.Name())
		assert.NotNil(t, k.args, name)
	}
	for _, name := range []string{sediment.KernelH, sediment.KernelS, sediment.KernelFused} {
		_, err := LookupKernel(name)
		assert.NoError(t, err, "the bench's kernel %s", name)
	}
	_, err := LookupKernel("hs")
	assert.ErrorIs(t, err, sediment.ErrInput)
}

// The wrappers of kernels_gen.go are what cuda2go writes from today's
// sediment_*.cu, with the names of kernels.go's go:generate line.
func TestTheLaunchersAreFresh(t *testing.T) {
	src, err := os.ReadFile("kernels.go")
	require.NoError(t, err)
	args, err := cuda2go.Directive(string(src))
	require.NoError(t, err)
	var out, errb strings.Builder
	assert.Equal(t, 0, cuda2go.Run(append(args, "-check"), &out, &errb), "%s%s", out.String(), errb.String())
}
