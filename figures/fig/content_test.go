package fig

import (
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// strs returns the strings a figure draws, in drawing order.
func strs(t *testing.T, d Drawer) []string {
	t.Helper()
	var out []string
	for _, s := range drawnStrings(t, d, Wide, Tall) {
		out = append(out, s.String)
	}
	return out
}

// labels returns the text of a diagram's labels.
func labels(d *Diagram) []string {
	var out []string
	for _, s := range d.Shapes {
		if s.Kind == KindText {
			out = append(out, s.Text)
		}
	}
	return out
}

func TestSine(t *testing.T) {
	d, err := Sine()
	require.NoError(t, err)
	require.Len(t, d.Items, 3)
	got := strs(t, d)
	// Fig. 8.1 (C): sin(kπ/6), k = 0…6, to two decimals.
	want := []string{"0.00", "0.50", "0.87", "1.00", "0.87", "0.50", "0.00"}
	var values []string
	for _, s := range got {
		if len(s) == 4 && s[1] == '.' {
			values = append(values, s)
		}
	}
	assert.Equal(t, want, values)
	assert.Contains(t, got, "h = π/6")
	assert.Contains(t, got, "5π/6")
}

func TestStencils1DWeights(t *testing.T) {
	d, err := Stencils1D()
	require.NoError(t, err)
	ls := labels(d)
	// Published central-difference weights (Fornberg 1988), in order.
	for _, w := range [][]string{
		{"−1/2", "0", "1/2"},
		{"1", "−2", "1"},
		{"1/12", "−2/3", "0", "2/3", "−1/12"},
		{"−1/12", "4/3", "−5/2", "4/3", "−1/12"},
		{"−1/60", "3/20", "−3/4", "0", "3/4", "−3/20", "1/60"},
		{"1/90", "−3/20", "3/2", "−49/18", "3/2", "−3/20", "1/90"},
	} {
		assert.True(t, containsRun(ls, w), "weights %v not drawn in order", w)
	}
	for _, name := range []string{"(A) three-point", "(B) five-point", "(C) seven-point"} {
		assert.Contains(t, ls, name)
	}
}

// containsRun reports whether want appears in xs as a subsequence of
// consecutive elements of the same kind of label (interleaved with other
// labels is allowed: it checks order only).
func containsRun(xs, want []string) bool {
	for start := range xs {
		i := 0
		for _, x := range xs[start:] {
			if x == want[i] {
				i++
				if i == len(want) {
					return true
				}
			}
		}
	}
	return false
}

func TestFraction(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 1: "1", -2: "−2", 0.5: "1/2", -1.0 / 12: "−1/12", -49.0 / 18: "−49/18", 1.0 / 90: "1/90", math.Pi: "3.142",
	} {
		assert.Equal(t, want, fraction(x), "%g", x)
	}
}

func TestShade(t *testing.T) {
	assert.Equal(t, color.NRGBA{255, 255, 255, 255}, Shade(Ink, 1))
	assert.Equal(t, color.NRGBA{0x22, 0x22, 0x22, 255}, Shade(Ink, 0), "Ink is #222222")
	assert.Equal(t, color.NRGBA{0x91, 0x91, 0x91, 255}, Shade(Ink, 0.5), "half way to white: 34 + 221/2 = 144.5, rounded")
	assert.Equal(t, color.NRGBA{0x11, 0x11, 0x11, 255}, Shade(Ink, -0.5), "half way to black: 34/2 = 17")
	assert.Equal(t, color.NRGBA{0, 0, 0, 255}, Shade(Ink, -1))
}

func TestStencilShapes(t *testing.T) {
	d, err := StencilShapes()
	require.NoError(t, err)
	count := map[string]int{}
	for _, l := range labels(d) {
		count[l]++
	}
	// c0 is the centre of all four stencils; c12 exists only in the
	// thirteen-point one; 5 + 9 + 7 + 13 points in all.
	assert.Equal(t, 4, count["c0"])
	assert.Equal(t, 1, count["c12"])
	total := 0
	for l, n := range count {
		if strings.HasPrefix(l, "c") && len(l) <= 3 {
			total += n
		}
	}
	assert.Equal(t, 5+9+7+13, total)
	for _, c := range []string{"(A) 2D five-point (order 1)", "(B) 2D nine-point (order 2)", "(C) 3D seven-point (order 1)", "(D) 3D thirteen-point (order 2)"} {
		assert.Contains(t, count, c)
	}
}

func TestGridStorage(t *testing.T) {
	d, err := GridStorage()
	require.NoError(t, err)
	ls := labels(d)
	// The centre (j, k) = (1, 2) of a 4-wide grid is element 1·4 + 2 = 6;
	// its neighbours 5, 7 (x) and 2, 10 (y).
	assert.Contains(t, ls, "out[6] = c0·in[6]")
	assert.Contains(t, ls, "+ c1·in[5] + c2·in[7]")
	assert.Contains(t, ls, "+ c3·in[2] + c4·in[10]")
	assert.Contains(t, ls, "j−1: −NX = −4")
}

func TestTileLimits(t *testing.T) {
	lims, err := tileLimits()
	require.NoError(t, err)
	got := map[string][]int{}
	for _, l := range lims {
		got[l.kernel] = append(got[l.kernel], l.T)
	}
	// T³ ≤ 1024 and 4T³ ≤ 48 KiB; T² ≤ 1024 and 12T² ≤ 48 KiB; 4T² ≤ 48 KiB.
	assert.Equal(t, []int{10, 23}, got["tiled"])
	assert.Equal(t, []int{32, 64}, got["coarsened"])
	assert.Equal(t, []int{32, 110}, got["register_tiled"])
}

func TestIntensity(t *testing.T) {
	p, err := Intensity(nil)
	require.NoError(t, err)
	got := strs(t, p)
	for _, s := range []string{"1.37 at T = 8", "2.68 at T = 32", "limit 13/4 = 3.25", "0.46",
		"tiled: 1024 threads", "coarsened, reg. tiled: 1024 threads", "register tiled: 48 KiB shared", "10", "23", "110"} {
		assert.Contains(t, got, s)
	}
	for _, s := range got {
		assert.NotContains(t, s, "simulator", "no simulated points were given")
	}

	m, err := SimulatedIntensity(SimN)
	require.NoError(t, err)
	require.NotEmpty(t, m)
	for _, x := range m {
		if x.Kernel == "basic" {
			assert.InDelta(t, 13.0/28, x.OpPerByte, 1e-12)
			continue
		}
		model := lab.IntensityTiled(float64(x.T))
		assert.Less(t, x.OpPerByte, model, "%s at T = %d", x.Kernel, x.T)
		assert.Greater(t, x.OpPerByte, 0.7*model, "%s at T = %d", x.Kernel, x.T)
	}
	p, err = Intensity(m)
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(strs(t, p), func(s string) bool { return strings.Contains(s, "simulator on N = 34") }))

	_, err = SimulatedIntensity(2)
	assert.ErrorIs(t, err, lab.ErrSize)
}

func TestConvergenceSlopes(t *testing.T) {
	for d := 1; d <= 2; d++ {
		series, err := Convergence1D(d)
		require.NoError(t, err)
		require.Len(t, series, 3)
		for i, s := range series {
			assert.InDelta(t, float64(2*(i+1)), s.Slope, 0.15, "derivative %d, radius %d", d, i+1)
			assert.False(t, s.RoundOff[0], "the largest spacing is never dominated by rounding")
		}
	}
	_, err := Convergence()
	require.NoError(t, err)
}

func TestReadBench(t *testing.T) {
	one := `{"kernel":"tiled","n":256,"tile":8,"median_ms":1.5,"gbps":900,"gflops":1400,"pct_copy":30,"copy_gbps":3000}`
	for name, in := range map[string]string{
		"object": `{"device":"NVIDIA H200","results":[` + one + `]}`,
		"array":  `[` + one + `]`,
		"lines":  one + "\n" + one + "\n",
	} {
		b, err := ReadBench(strings.NewReader(in))
		require.NoError(t, err, name)
		require.NotEmpty(t, b.Results, name)
		r := b.Results[0]
		assert.Equal(t, BenchResult{Kernel: "tiled", N: 256, Tile: 8, MedianMs: 1.5, GBps: 900, GFlops: 1400, PctCopy: 30, CopyGBps: 3000}, r, name)
		if name == "object" {
			assert.Equal(t, "NVIDIA H200", b.Device)
		}
	}
	for name, in := range map[string]string{
		"empty":      "",
		"no results": `{"results":[]}`,
		"not json":   `{"kernel":`,
		"no kernel":  `[{"n":256,"median_ms":1,"gbps":1,"gflops":1}]`,
		"small n":    `[{"kernel":"basic","n":2,"median_ms":1,"gbps":1,"gflops":1}]`,
		"zero time":  `[{"kernel":"basic","n":64,"median_ms":0,"gbps":1,"gflops":1}]`,
		"negative":   `[{"kernel":"basic","n":64,"median_ms":1,"gbps":1,"gflops":1,"copy_gbps":-1}]`,
	} {
		_, err := ReadBench(strings.NewReader(in))
		assert.ErrorIs(t, err, ErrBench, name)
	}
	_, err := LoadBench("testdata/does-not-exist.json")
	assert.Error(t, err)
}

func TestModelBench(t *testing.T) {
	b, err := ModelBench(512)
	require.NoError(t, err)
	got := map[string]BenchResult{}
	for _, r := range b.Results {
		got[r.Kernel] = r
	}
	// basic moves 7 loads and 1 store, 32 B per interior point, against
	// the 8 B per interior point that stencil bench counts: a quarter of
	// the bandwidth, 13/32 OP per byte.
	basic := got["basic"]
	assert.InDelta(t, 25, basic.PctCopy, 1e-9)
	assert.InDelta(t, 13.0/32*H200BandwidthGBps, basic.GFlops, 1e-6)
	// coarsened at T = 32 loads 32³ inputs for 30³ outputs.
	perPoint := 4*32768.0/27000 + 4
	assert.InDelta(t, 100*8/perPoint, got["coarsened"].PctCopy, 1e-9)
	assert.Contains(t, b.Device, "not measured")
	_, err = ModelBench(2)
	assert.ErrorIs(t, err, ErrBench)
}

func TestBandwidth(t *testing.T) {
	p, err := Bandwidth(nil)
	require.NoError(t, err)
	assert.Contains(t, p.Title, "MODEL, NOT MEASURED")

	b := &Bench{Device: "NVIDIA H200", Results: []BenchResult{
		{Kernel: "basic", N: 512, Tile: 8, MedianMs: 0.37, GBps: 2900, GFlops: 4700, PctCopy: 69, CopyGBps: 4200},
		{Kernel: "coarsened", N: 256, Tile: 32, MedianMs: 0.05, GBps: 3000, GFlops: 4800, PctCopy: 71, CopyGBps: 4200},
		{Kernel: "coarsened", N: 512, Tile: 32, MedianMs: 0.30, GBps: 3600, GFlops: 5800, PctCopy: 86, CopyGBps: 4200},
		{Kernel: "fast", N: 512, MedianMs: 0.27, GBps: 4000, GFlops: 6500, PctCopy: 95, CopyGBps: 4200},
	}}
	p, err = Bandwidth(b)
	require.NoError(t, err)
	assert.Equal(t, "Measured on NVIDIA H200", p.Title)
	got := strs(t, p)
	assert.Contains(t, got, "3600 (86%)", "the largest N of a kernel is drawn")
	assert.NotContains(t, got, "3000 (71%)")
	assert.Contains(t, got, "copy 4200 GB/s")
	assert.Contains(t, got, "fast: 6500 GFLOP/s")

	_, err = Bandwidth(&Bench{})
	assert.ErrorIs(t, err, ErrBench)
	_, err = Bandwidth(&Bench{Results: []BenchResult{{Kernel: "basic", N: 64}}})
	assert.ErrorIs(t, err, ErrBench)
}

func TestIntensityTemporal(t *testing.T) {
	p, err := IntensityTemporal(nil)
	require.NoError(t, err)
	got := strs(t, p)
	// T = 24: the useful intensity 13k(24−2k)²/2304 peaks at k = 4, 13312/2304 = 5.78.
	assert.Contains(t, got, "useful peaks at k = 4: 5.78 OP/B")
	assert.Contains(t, got, "one sweep's limit 13/4 = 3.25")
	m, err := SimulatedTemporalIntensity(SimN)
	require.NoError(t, err)
	require.Len(t, m, len(TemporalKs))
	for i, x := range m {
		performed, _ := lab.TemporalIntensity(lab.TemporalSimTile, x.T)
		// The blocks at the faces load partial tiles and skip boundary
		// updates: below the model, but not far.
		assert.Less(t, x.OpPerByte, performed, "k = %d", x.T)
		assert.Greater(t, x.OpPerByte, 0.5*performed, "k = %d", x.T)
		if i > 0 {
			assert.Greater(t, x.OpPerByte, m[i-1].OpPerByte, "rises with k")
		}
	}
	assert.Greater(t, m[len(m)-1].OpPerByte, lab.IntensityLimit)
	p, err = IntensityTemporal(m)
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(strs(t, p), func(s string) bool { return strings.Contains(s, "simulator on N = 34") }))
}
