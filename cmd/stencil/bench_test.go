package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/gpu/bench"
	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
)

func TestParseVariant(t *testing.T) {
	c, err := parseVariant("fast:tile=32,FAST_BY=16,FAST_MODE=0")
	require.NoError(t, err)
	assert.Equal(t, "fast", c.step)
	assert.Equal(t, "fast[tile=32,FAST_BY=16,FAST_MODE=0]", c.label)
	assert.Equal(t, 32, c.opts.Tile)
	assert.Equal(t, []gpu.Define{{Name: "FAST_BY", Value: "16"}, {Name: "FAST_MODE", Value: "0"}}, c.opts.Defines)

	c, err = parseVariant("basic:block=32x8x1")
	require.NoError(t, err)
	assert.Equal(t, [3]int{32, 8, 1}, c.opts.Block)

	c, err = parseVariant("register")
	require.NoError(t, err)
	assert.Equal(t, "register_tiled", c.step, "the catalogue's alias")

	for _, bad := range []string{"reference", "derivative", "nope", "basic:block=32x8", "tiled:tile=0", "fast:2X=1"} {
		_, err := parseVariant(bad)
		assert.Error(t, err, bad)
	}
}

func TestParseTiles(t *testing.T) {
	all, per, err := parseTiles("16")
	require.NoError(t, err)
	assert.Equal(t, 16, all)
	assert.Empty(t, per)
	all, per, err = parseTiles("basic=8,register=16")
	require.NoError(t, err)
	assert.Zero(t, all)
	assert.Equal(t, map[string]int{"basic": 8, "register_tiled": 16}, per)
	for _, bad := range []string{"0", "basic=x", "nope=3", "basic"} {
		_, _, err := parseTiles(bad)
		assert.Error(t, err, bad)
	}
}

func TestBenchConfigs(t *testing.T) {
	cs, err := benchConfigs("basic,tiled:tile=6,coarsened", []string{"fast:FAST_BY=8", "tiled"}, "16")
	require.NoError(t, err)
	var got []string
	tiles := map[string]int{}
	for _, c := range cs {
		got = append(got, c.label)
		tiles[c.label] = c.opts.Tile
	}
	assert.Equal(t, []string{"basic", "tiled[tile=6]", "coarsened", "fast[FAST_BY=8]", "tiled"}, got, "the kernels, then the variants")
	assert.Equal(t, map[string]int{"basic": 16, "tiled[tile=6]": 6, "coarsened": 16, "fast[FAST_BY=8]": 0, "tiled": 0}, tiles,
		"-tile fills in the kernels' tiles, never one a kernel names, nor a variant's")

	cs, err = benchConfigs("basic,register", nil, "register=8")
	require.NoError(t, err)
	require.Len(t, cs, 2)
	assert.Equal(t, 0, cs[0].opts.Tile)
	assert.Equal(t, 8, cs[1].opts.Tile, "per-kernel tiles follow the catalogue's aliases")

	for _, bad := range []struct {
		kernels  string
		variants []string
		tiles    string
	}{{"", nil, ""}, {"basic", nil, "x"}, {"reference", nil, ""}, {"", []string{"nope"}, ""}} {
		_, err := benchConfigs(bad.kernels, bad.variants, bad.tiles)
		assert.Error(t, err, "%+v", bad)
	}
}

func TestParseSizes(t *testing.T) {
	ns, err := parseSizes("256, 512,3")
	require.NoError(t, err)
	assert.Equal(t, []int{256, 512, 3}, ns)
	for _, bad := range []string{"", "2", "64,", "64,x", "-5"} {
		_, err := parseSizes(bad)
		assert.Error(t, err, bad)
	}
}

// The bench JSON is what the figures read: one type on both sides, so
// every run comes back through fig.ReadBench exactly as written.
func TestBenchJSONReadsAsFigBench(t *testing.T) {
	e := 1e-7
	rep := benchfile.File{Device: "NVIDIA H200", Coeffs: lab.DistinctCoeffs(),
		Copies: []benchfile.Copy{{N: 512, MedianMs: 0.25, GBps: 4200}},
		Results: []benchfile.Run{
			{Kernel: "tiled", Label: "tiled", N: 512, Tile: 8, MedianMs: 1.4, GBps: 765, GFlops: 1243, CopyGBps: 4200, PctCopy: 18.2, MaxAbsErr: &e},
			{Kernel: "fast", Label: "fast[FAST_BY=8]", N: 512, MedianMs: 0.28, GBps: 3849, GFlops: 6255, CopyGBps: 4200, PctCopy: 91.6},
		}}
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	got, err := fig.ReadBench(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, rep.Device, got.Device)
	require.Len(t, got.Results, len(rep.Results))
	for i, r := range rep.Results {
		assert.Equal(t, r, got.Results[i])
	}
}

// Only a configuration that sets nothing itself runs its timed choice
// (-tune): a tile, a block or a define is the user's setting.
func TestBenchConfigsTuneOnlyTheirOwn(t *testing.T) {
	cs, err := benchConfigs("fast,temporal,basic:tile=8", []string{"fast:FAST_MODE=3", "temporal:tile=4", "fast"}, "")
	require.NoError(t, err)
	got := map[string]bool{}
	for _, c := range cs {
		got[c.label] = c.engine().Tune
	}
	assert.Equal(t, map[string]bool{"fast": true, "temporal": true, "basic[tile=8]": false, "fast[FAST_MODE=3]": false, "temporal[tile=4]": false}, got)
	cs, err = benchConfigs("fast", nil, "64")
	require.NoError(t, err)
	assert.False(t, cs[0].engine().Tune, "-tile sets the tile")
}

func TestBenchBadFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-n", "2"},
		{"bench", "-reps", "0"},
		{"bench", "-kernels", "reference"},
		{"bench", "-kernels", "", "-n", "64"},
		{"bench", "-bogus"},
		{"bench", "-tune", "always"},
	} {
		code, _, errOut := stencil(args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: one line: %q", args, errOut)
	}
}

func TestBenchWithoutGPU(t *testing.T) {
	_, noGPU := gpu.Default()
	if !errors.Is(noGPU, gpu.ErrNoGPU) {
		t.Skip("a GPU is present: the no-driver path cannot be seen")
	}
	code, out, errOut := stencil("bench", "-n", "16", "-reps", "1")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	assert.Contains(t, errOut, strings.TrimSuffix(noGPU.Error(), ": run on the CPU simulator"), "the reason")
	assert.NotContains(t, errOut, "run on the CPU simulator", "bench has no simulator backend")
	assert.Contains(t, errOut, "figures/data/bench_h200.json", "the recorded bench")
	assert.Contains(t, errOut, "stencil run -backend sim", "the simulator's command")

	code, _, errOut = stencil("run", "-backend", "gpu", "-kernel", "basic", "-n", "64")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, noGPU.Error())
}

// TestBenchTableShowsBothCopies checks the copies' bandwidths, a run's
// shares of them and the closing table against figures worked out by hand.
func TestBenchTableShowsBothCopies(t *testing.T) {
	ms := []float64{0.27, 0.25, 0.26}
	full := bench.CopyRecord(512, 8*512*512*512, gpu.Measurement{Median: 0.256, Millis: ms})
	inner := bench.CopyRecord(512, 8*510*510*510, gpu.Measurement{Median: 0.26, Millis: ms})
	assert.InDelta(t, 4194.304, full.GBps, 1e-6, "8·512³ B in 0.256 ms")
	assert.InDelta(t, 4081.569, inner.GBps, 1e-3, "8·510³ B in 0.26 ms")
	assert.Equal(t, ms, inner.TimesMs)
	r := benchfile.Run{Kernel: "fast", Label: "fast", N: 512, TileShape: "512x4x128", MedianMs: 0.276, GBps: 3849.6, GFlops: 6255}
	bench.Against(&r, full, inner)
	assert.Equal(t, full.GBps, r.CopyGBps)
	assert.Equal(t, inner.GBps, r.InteriorGBps)
	// Four time steps in twice fast's time: twice its points per second,
	// and an effective bandwidth above the copy's.
	four := benchfile.Run{Kernel: "basic", Label: "four steps", N: 512, Steps: 4, TileShape: "8x8x8", MedianMs: 0.552,
		GBps: 8 * 510 * 510 * 510 * 4 / 0.552e6, GFlops: 1}
	bench.Against(&four, full, inner)
	rep := benchfile.File{Copies: []benchfile.Copy{full}, Interior: []benchfile.Copy{inner}, Results: []benchfile.Run{r, four}}
	var buf bytes.Buffer
	printTable(&buf, rep)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 7, buf.String())
	assert.Contains(t, lines[0], "% int")
	assert.Regexp(t, `^copy \(float4\)\s+512 .* 100\.0\s+-\s+-$`, lines[1])
	assert.Regexp(t, `^copy \(interior\)\s+512 .* 97\.3\s+100\.0\s+-$`, lines[2], "4081.6 / 4194.3")
	assert.Regexp(t, `^fast\s+512\s+1 .* 91\.8\s+94\.3\s+1\.00$`, lines[3], "3849.6 / 4194.3 and 3849.6 / 4081.6")
	assert.Regexp(t, `^four steps\s+512\s+4 .* 183\.3\s+188\.4\s+2\.00$`, lines[4], "7689.9 / 4194.3, / 4081.6, and (4 / 0.552) / (1 / 0.276)")
	assert.Contains(t, lines[6], "above 100 %")
}

func TestDefaultBenchStepsFollowTheirPasses(t *testing.T) {
	one := defaultBenchSteps(1)
	for _, name := range gpu.Steps3() {
		s, err := lab.LookupStep3(name)
		require.NoError(t, err)
		cfg, err := s.Resolve(lab.Config{})
		require.NoError(t, err)
		assert.Equal(t, s.StepsPerPass(cfg) == 1, slices.Contains(one, name), name)
	}
	assert.Contains(t, one, "basic")
	assert.NotContains(t, one, "temporal", "a pass of the temporally blocked step is several time steps")
	assert.Contains(t, defaultBenchSteps(8), "temporal")
}
