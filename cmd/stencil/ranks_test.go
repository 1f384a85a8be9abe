package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
)

// runJSON runs `stencil run` with -json and returns its object.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := stencil(append([]string{"run", "-json"}, args...)...)
	require.Equal(t, 0, code, errOut)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj), out)
	return obj
}

// TestRanksSlabsCountByClosedForm: G slabs of an N³ grid send 2(G−1)
// messages of h·N² floats per exchange, and -check finds the split equal
// to the single domain.
func TestRanksSlabsCountByClosedForm(t *testing.T) {
	for _, c := range []struct {
		backend, kernel string
		n, g, steps, h  int
	}{
		{"cpu", "reference", 17, 4, 3, 1},
		{"sim", "basic", 11, 3, 2, 1},
		{"sim", "temporal", 20, 2, 8, 4},
	} {
		obj := runJSON(t, "-backend", c.backend, "-kernel", c.kernel, "-n", strconv.Itoa(c.n), "-ranks", strconv.Itoa(c.g),
			"-steps", strconv.Itoa(c.steps), "-reps", "1", "-check")
		g, n, h := float64(c.g), float64(c.n), float64(c.h)
		assert.Equal(t, g, obj["ranks"], c.kernel)
		assert.Equal(t, h, obj["halo"], c.kernel)
		assert.InDelta(t, 2*(g-1)/h, obj["messages_per_step"], 1e-12, c.kernel)
		assert.InDelta(t, 2*(g-1)*h*n*n*4/h, obj["halo_bytes_per_step"], 1e-9, c.kernel)
		assert.Equal(t, "bit for bit", obj["split_check"], c.kernel)
		// Surface to volume: each inner slab receives two halos of h·N²
		// points, the outer ones one; together they own (N−2)³.
		assert.InDelta(t, 2*(g-1)*h*n*n/((n-2)*(n-2)*(n-2)), obj["surface_to_volume"], 1e-12, c.kernel)
		assert.Len(t, obj["rank_times_ms"], c.g)
	}
}

func TestRanksPencilsSummary(t *testing.T) {
	code, out, errOut := stencil("run", "-backend", "cpu", "-n", "14", "-ranks", "4", "-py", "2", "-steps", "2", "-reps", "1", "-check")
	require.Equal(t, 0, code, errOut)
	for _, s := range []string{"4 pencils, 2 along z × 2 along y", "Messages:", "Halo bytes:", "Surface to volume:",
		"equal to the single domain bit for bit"} {
		assert.Contains(t, out, s)
	}
	// The y faces of pencils: 2 along z, 2 along y, 8 messages an exchange.
	obj := runJSON(t, "-backend", "cpu", "-n", "14", "-ranks", "4", "-py", "2", "-reps", "1")
	assert.InDelta(t, 8.0, obj["messages_per_step"], 0)
	assert.Equal(t, 2.0, obj["pz"])
	assert.Equal(t, 2.0, obj["py"])
}

func TestRanksBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-ranks", "-1"}, 2, "-ranks -1: want 0 to 4096 ranks"},
		{[]string{"-ranks", "5000"}, 2, "-ranks 5000"},
		{[]string{"-ranks", "2", "-backend", "gpu"}, 2, "give -gpus 2"},
		{[]string{"-py", "2"}, 2, "needs -ranks"},
		{[]string{"-ranks", "3", "-py", "2"}, 2, "2 ranks along y do not divide 3 ranks"},
		{[]string{"-overlap", "split"}, 2, "only a split run"},
		{[]string{"-backend", "cpu", "-gpus", "2"}, 2, "GPUs are the gpu backend's"},
		{[]string{"-gpus", "0"}, 2, "want a count from 1 to 4096"},
		{[]string{"-gpus", "1,1"}, 2, "GPU 1 named twice"},
		{[]string{"-gpus", "0,-2"}, 2, "ordinal \"-2\""},
		{[]string{"-ranks", "4", "-n", "5"}, 1, "4 ranks along z × halo 1 need at least 4 interior planes; the grid has 3"},
		{[]string{"-ranks", "2", "-overlap", "split", "-n", "8"}, 1, `overlap "split"`},
		{[]string{"-backend", "sim", "-kernel", "temporal", "-ranks", "3", "-n", "12"}, 1, "3 ranks along z × halo 4 need at least 12 interior planes"},
	} {
		code, out, errOut := stencil(append([]string{"run", "-reps", "1"}, c.args...)...)
		assert.Equal(t, c.code, code, "%q: %s", c.args, errOut)
		assert.Empty(t, out, "%q", c.args)
		assert.Contains(t, errOut, c.want, "%q", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%q: one line", c.args)
	}
}

func TestGpusFlagParses(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"4", []int{0, 1, 2, 3}}, {"1", []int{0}}, {"0,2", []int{0, 2}}, {" 3 , 1 ", []int{3, 1}},
	} {
		got, err := parseGPUs(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	for _, bad := range []string{"", "0", "-1", "x", "1,", "1,,2", "2,2", "4097", "1,4096"} {
		_, err := parseGPUs(bad)
		assert.Error(t, err, "%q", bad)
	}
	counts, err := parseGPUCounts("1,2,4", 0)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 4}, counts)
	counts, err = parseGPUCounts("4,1,8", 2)
	require.NoError(t, err)
	assert.Equal(t, []int{4, 1, 8}, counts, "1 GPU is the plain base run of pencils too")
	for _, bad := range []struct {
		s  string
		py int
	}{{"0", 0}, {"1,1", 0}, {"2,3", 2}, {"", 0}, {"1,x", 0}, {"2", -1}} {
		_, err := parseGPUCounts(bad.s, bad.py)
		assert.Error(t, err, "%+v", bad)
	}
}

// TestGpusWithoutAGPU: on a machine without a GPU, -gpus fails with the
// gpu backend's usual error, in run and in bench.
func TestGpusWithoutAGPU(t *testing.T) {
	if d, err := gpu.Open(0); err == nil {
		d.Close()
		t.Skip("needs a machine without a GPU")
	} else if !errors.Is(err, gpu.ErrNoGPU) {
		t.Skipf("needs a machine without a GPU driver: %v", err)
	}
	code, _, errOut := stencil("run", "-gpus", "2", "-n", "9", "-reps", "1")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no NVIDIA driver found")
	code, _, errOut = stencil("run", "-backend", "gpu", "-gpus", "0,2", "-py", "2", "-n", "9")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no NVIDIA driver found")
	code, _, errOut = stencil("bench", "-gpus", "1,2,4", "-weak", "-n", "16")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no NVIDIA driver found")
}

func TestBenchSplitFlagsNeedGpus(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-weak"}, "give -gpus as well"}, {[]string{"-py", "2"}, "give -gpus as well"},
		{[]string{"-overlap", "none"}, "give -gpus as well"}, {[]string{"-gpus", "1,2", "-device", "1"}, "-device 1: -gpus takes GPUs 0 to G−1"},
		{[]string{"-gpus", "2,3", "-py", "2"}, "3 GPUs do not split into 2 along y"},
	} {
		code, _, errOut := stencil(append([]string{"bench", "-n", "16"}, c.args...)...)
		assert.Equal(t, 2, code, "%q: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, "%q", c.args)
	}
}

// FuzzGpusFlag: whatever -gpus holds, parseGPUs either refuses it or
// returns distinct ordinals that make a split lab accepts; `stencil run`
// ends cleanly either way.
func FuzzGpusFlag(f *testing.F) {
	smallMemory(f)
	for _, s := range []string{"4", "0,2", "1,2,4", "", "0", "-1", "1,,2", "2,2", "99999999999999999999", "3 , 1", "0x2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		devs, err := parseGPUs(s)
		if err == nil {
			require.NotEmpty(t, devs)
			require.NoError(t, lab.Split{Devices: devs}.Check(lab.GPU), "%q", s)
		}
		counts, err := parseGPUCounts(s, 0)
		if err == nil {
			for _, g := range counts {
				require.True(t, g >= 1 && g <= lab.MaxRanks, "%q gave %d", s, g)
			}
		}
		args := []string{"run", "-gpus", s, "-n", "5", "-reps", "1"}
		code, out, errOut := stencil(args...)
		cleanExit(t, args, code, out, errOut)
	})
}

// TestScaleBenchOnRanks runs bench -gpus's loop on goroutine ranks of the
// CPU, where no GPU is needed: every count is timed, its efficiency is
// worked out against the fewest, strong runs match the base bit for bit,
// and the JSON reads back.
func TestScaleBenchOnRanks(t *testing.T) {
	for _, weak := range []bool{false, true} {
		for _, py := range []int{0, 2} {
			path := filepath.Join(t.TempDir(), "scale.json")
			const n, steps = 14, 2
			b := scaleBench{backend: lab.CPU, props: gpu.Props{Name: "CPU"}, configs: []benchConfig{{label: "reference", step: "reference"}},
				sizes: []int{n}, counts: []int{4, 1, 2}, weak: weak, py: py, steps: steps, warmup: 1, reps: 3, seed: 5, check: true, jsonFile: path}
			var out, errOut bytes.Buffer
			code, err := b.run(&out, &errOut)
			require.NoError(t, err)
			require.Equal(t, 0, code)
			assert.Contains(t, out.String(), map[bool]string{false: "Strong scaling", true: "Weak scaling"}[weak])
			f, err := benchfile.Load(path)
			require.NoError(t, err)
			require.Len(t, f.Scaling, 3)
			for i, s := range f.Scaling {
				g := []int{1, 2, 4}[i]
				what := fmt.Sprintf("weak %v, py %d, %d ranks", weak, py, g)
				assert.Equal(t, g, s.GPUs, what)
				assert.Equal(t, 1, s.BaseGPUs, what)
				assert.Equal(t, f.Scaling[0].MedianMs, s.BaseMs, what)
				assert.Len(t, s.TimesMs, 3, what)
				nz := n
				if weak {
					nz = n * g
				}
				assert.Equal(t, nz, s.NZ, what)
				want := s.BaseMs / (float64(g) * s.MedianMs)
				if weak {
					want = s.BaseMs / s.MedianMs
				}
				assert.InDelta(t, want, s.Efficiency, 1e-12, what)
				assert.InDelta(t, float64(nz-2)*(n-2)*(n-2)*steps/(s.MedianMs*1e-3), s.PointsPerSec, 1e-6*s.PointsPerSec, what)
				switch {
				case g == 1:
					assert.Equal(t, "the base run", s.Checked, what)
					assert.Zero(t, s.HaloBytesPerStep, what)
				case weak:
					assert.Contains(t, s.Checked, "not checked", what)
				default:
					assert.Equal(t, "bit for bit against 1 GPUs", s.Checked, what)
				}
				if py == 0 && g > 1 {
					// Slabs: 2(G−1) planes of N² floats a step.
					assert.InDelta(t, float64(2*(g-1)*n*n*4), s.HaloBytesPerStep, 0, what)
					assert.InDelta(t, float64(2*(g-1)), s.MessagesPerStep, 0, what)
				}
				if g > 1 {
					assert.Equal(t, py, s.PY, what)
					assert.Len(t, s.RankMs, g, what)
				}
			}
		}
	}
}

// TestFillPlanes: the same seed gives the same grid, every value lies in
// [−1, 1), each plane draws from its own generator as a loop would.
func TestFillPlanes(t *testing.T) {
	g, err := lab.NewGrid3[float32](9, 7, 5)
	require.NoError(t, err)
	fillPlanes(g, 3)
	for z := range g.NZ {
		r := rand.New(rand.NewPCG(3, uint64(z)))
		for i := range g.NY * g.NX {
			require.Equal(t, float32(2*r.Float64()-1), g.Data[z*g.NY*g.NX+i], "plane %d point %d", z, i)
		}
	}
	for _, v := range g.Data {
		require.True(t, v >= -1 && v < 1, "%g", v)
	}
}

// TestBitsDiffer: flipping chosen points of a copy counts exactly those
// points and names the lowest index first; grids of other shapes differ
// everywhere.
func TestBitsDiffer(t *testing.T) {
	a, err := lab.NewGrid3[float32](5, 4, 7)
	require.NoError(t, err)
	a.FillRandom(11)
	b := a.Clone()
	n, first := bitsDiffer(a, b)
	assert.Equal(t, 0, n)
	assert.Equal(t, -1, first)

	r := rand.New(rand.NewPCG(5, 6))
	picked := map[int]bool{}
	for len(picked) < 6 {
		picked[r.IntN(len(a.Data))] = true
	}
	lowest := len(a.Data)
	for i := range picked {
		lowest = min(lowest, i)
		b.Data[i] = -b.Data[i]
	}
	n, first = bitsDiffer(a, b)
	assert.Equal(t, len(picked), n)
	assert.Equal(t, lowest, first)

	c, err := lab.NewGrid3[float32](5, 4, 6)
	require.NoError(t, err)
	n, first = bitsDiffer(a, c)
	assert.Equal(t, len(a.Data), n)
	assert.Equal(t, 0, first)
	n, _ = bitsDiffer(nil, nil)
	assert.Equal(t, 1, n)
}
