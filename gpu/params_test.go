package gpu

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/internal/cuda2go"
)

// kernelParams returns the C kinds of the parameters of the extern "C"
// __global__ function entry in src, as cuda2go reads them.
func kernelParams(src, entry string) ([]string, error) {
	es, err := cuda2go.Parse("src.cu", src)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		if e.Name == entry {
			return e.Kinds(), nil
		}
	}
	return nil, fmt.Errorf("no extern \"C\" __global__ function %s", entry)
}

// The wrappers of kernels_gen.go are what cuda2go writes from today's
// sources, with the names of kernels.go's go:generate line.
func TestTheLaunchersAreFresh(t *testing.T) {
	src, err := os.ReadFile("kernels.go")
	require.NoError(t, err)
	args, err := cuda2go.Directive(string(src))
	require.NoError(t, err)
	var out, errb strings.Builder
	assert.Equal(t, 0, cuda2go.Run(append(args, "-check"), &out, &errb), "%s%s", out.String(), errb.String())
}

// Every 3D step's kernel takes exactly the arguments its launcher passes,
// in count and type: the signature parsed from the step's .cu file against
// the argument list the gpu package builds for it.
func TestLaunchersMatchTheirKernels(t *testing.T) {
	require.NotEmpty(t, Steps3())
	require.NotEmpty(t, Steps13())
	for _, step := range append(Steps3(), Steps13()...) {
		c, err := newConfig3(step, Options{})
		require.NoError(t, err, step)
		_, src, err := c.source()
		require.NoError(t, err, step)
		for _, nx := range []int{512, 130} { // float4 rows and scalar rows
			g := c.geometry(64, 64, nx, 8)
			a := c.args(1, 2, 64, 64, nx, distinctCoefs(c.desc), g)
			want, err := kernelParams(src, c.entry(nx))
			require.NoError(t, err, "%s: %s", step, c.entry(nx))
			assert.Equal(t, want, a.kinds, "%s: the launcher of %s passes other arguments than the kernel takes", step, c.entry(nx))
		}
	}
}

// fastOf returns the fast step's parameters of a configuration.
func fastOf(t *testing.T, c config3) *fastParams {
	t.Helper()
	f, ok := c.tuned.(*fastParams)
	require.True(t, ok, "%s is not tuned as fast", c.step)
	return f
}

// Every tuned step's table gives its validation, its defines and its help:
// a define of the table within its range is taken and passed on, one
// outside its range or unknown is refused with the range or the known
// names, and the help names every parameter.
func TestParamTables(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	require.NotEmpty(t, tunings)
	for step := range tunings {
		params := Params(step)
		require.NotEmpty(t, params, step)
		help := ParamHelp(step)
		for _, p := range params {
			assert.Contains(t, help, p.Name, step)
			assert.LessOrEqual(t, p.Lo, p.Hi, "%s: %s", step, p.Name)
			assert.NotEmpty(t, p.Help, "%s: %s", step, p.Name)
		}
		c, err := newConfig3(step, Options{})
		require.NoError(t, err, step)
		_, src, err := c.source()
		require.NoError(t, err, step)
		for _, d := range c.defines {
			if d.Name == c.desc.CUDA.TileDefine {
				continue
			}
			assert.Contains(t, src, "#ifndef "+d.Name+"\n#define "+d.Name+" ", "%s: %s has an overridable default in its source", step, d.Name)
		}
		for _, p := range params {
			// Out of range, on either side.
			for _, v := range []int{p.Lo - 1 - rng.IntN(5), p.Hi + 1 + rng.IntN(5)} {
				_, err := newConfig3(step, Options{Defines: []Define{{p.Name, fmt.Sprint(v)}}})
				require.Error(t, err, "%s: %s = %d", step, p.Name, v)
				assert.ErrorContains(t, err, fmt.Sprintf("%s = %d must be an integer from %d to %d", p.Name, v, p.Lo, p.Hi))
			}
		}
		_, err = newConfig3(step, Options{Defines: []Define{{"NOT_A_PARAM", "1"}}})
		require.Error(t, err, step)
		assert.ErrorContains(t, err, "unknown define NOT_A_PARAM")
		for _, p := range params {
			assert.ErrorContains(t, err, p.Name, "%s: the error names the known defines", step)
		}
	}
	// A step without a tuning takes its tile only.
	for _, step := range Steps3() {
		if _, ok := tunings[step]; ok {
			continue
		}
		assert.Empty(t, Params(step), step)
		_, err := newConfig3(step, Options{Defines: []Define{{"X", "1"}}})
		assert.ErrorContains(t, err, "takes no defines", step)
	}
}

// The fast step's defines are those of its table that apply to the mode,
// and a value given in range reaches NVRTC as given.
func TestFastDefinesFromTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	for range 50 {
		mode := []int{fastRegisters, fastBulk}[rng.IntN(2)]
		defs := []Define{{"FAST_MODE", fmt.Sprint(mode)}}
		want := map[string]int{"FAST_MODE": mode}
		for _, p := range fastTable {
			if p.Name == "FAST_MODE" || rng.IntN(2) == 0 {
				continue
			}
			if (p.Applies == "FAST_MODE=0" && mode != 0) || (p.Applies == "FAST_MODE=3" && mode != 3) {
				continue
			}
			v := p.Lo + rng.IntN(p.Hi-p.Lo+1)
			defs = append(defs, Define{p.Name, fmt.Sprint(v)})
			want[p.Name] = v
		}
		c, err := newConfig3("fast", Options{Defines: defs})
		require.NoError(t, err, "%v", defs)
		got := map[string]string{}
		var order []string
		for _, d := range c.defines {
			got[d.Name] = d.Value
			order = append(order, d.Name)
		}
		for n, v := range want {
			assert.Equal(t, fmt.Sprint(v), got[n], "%s in %v", n, defs)
		}
		// Only the rows that apply to the mode, in the table's order.
		var rows []string
		for _, p := range fastTable {
			if p.Applies == "" || p.Applies == fmt.Sprintf("FAST_MODE=%d", mode) {
				rows = append(rows, p.Name)
			}
		}
		assert.Equal(t, rows, order)
		assert.Equal(t, []string{"fast_common.cu", map[int]string{0: "fast_registers.cu", 3: "fast_bulk.cu"}[mode]}, c.tuned.sources())
	}
}

// Mode 3 refuses float4 rows whose ring does not fit the shared memory a
// block may have, naming the limit, instead of running another kernel;
// rows of any length run mode 0's code and mode 0 has no ring.
func TestFastRefusesRowsTooLongForTheRing(t *testing.T) {
	p := h200
	p.SharedPerBlockOptin = 227 * 1024
	c, err := newConfig3("fast", Options{})
	require.NoError(t, err)
	f := fastOf(t, c)
	// (depth+3)·(rows+2)·nx floats and an 8-byte barrier per slot.
	ring := func(nx int) int { return 4*(f.Depth+3)*(f.BY+2)*nx + 8*(f.Depth+3) }
	for _, nx := range []int{4, 512, 1024, 2048, 2420} {
		require.LessOrEqual(t, ring(nx), 227*1024)
		assert.NoError(t, c.check(nx, p), "nx=%d fits", nx)
	}
	require.Greater(t, ring(2424), 227*1024)
	err = c.check(2424, p)
	require.Error(t, err)
	assert.ErrorContains(t, err, fmt.Sprintf("rows of 2424 points need a ring of %d B", ring(2424)))
	assert.ErrorContains(t, err, fmt.Sprintf("over the %d B a block may have", 227*1024))
	assert.ErrorContains(t, err, "FAST_MODE=0")
	assert.NoError(t, c.check(2423, p), "odd rows run mode 0's code")
	c0, err := newConfig3("fast", Options{Defines: []Define{{"FAST_MODE", "0"}}})
	require.NoError(t, err)
	assert.NoError(t, c0.check(8192, p))
	for _, step := range Steps3() {
		c, err := newConfig3(step, Options{})
		require.NoError(t, err)
		if _, tuned := tunings[step]; !tuned {
			assert.NoError(t, c.check(1<<20, p), step)
		}
	}
}

// The split fast kernel compiles to what the measured file compiled to:
// for each kept configuration, the same registers, shared memory, local
// memory and thread limit for both entries as bench/fast_variants.cu (the
// file before the split) with the defines it took then. SASS itself is
// compared by bench/fast-split-sass.sh where nvcc and cuobjdump are.
func TestFastSplitCompilesAsBefore(t *testing.T) {
	d := device(t)
	// From the package's folder (go test) or the repository's root (a
	// built gpu.test run there).
	old, err := os.ReadFile(filepath.Join("..", "bench", "fast_variants.cu"))
	if err != nil {
		if old, err = os.ReadFile(filepath.Join("bench", "fast_variants.cu")); err != nil {
			t.Skipf("needs the repository's bench/fast_variants.cu: %v", err)
		}
	}
	for _, tc := range []struct {
		o      Options
		before []Define // what the file before the split was given
	}{
		{Options{}, []Define{{"FAST_MODE", "3"}, {"FAST_BY", "4"}, {"FAST_RY", "1"}, {"FAST_WX", "8"}, {"FAST_DEPTH", "1"},
			{"FAST_L2PF", "0"}, {"FAST_MINB", "1"}, {"FAST_EDGE", "5"}, {"FAST_PREFETCH", "1"}, {"FAST_STREAM", "0"}, {"FAST_PFD", "0"}}},
		{Options{Defines: []Define{{"FAST_PFD", "-2"}, {"FAST_BY", "5"}, {"FAST_DEPTH", "2"}, {"FAST_STREAM", "1"}}},
			[]Define{{"FAST_MODE", "3"}, {"FAST_BY", "5"}, {"FAST_RY", "1"}, {"FAST_WX", "8"}, {"FAST_DEPTH", "2"},
				{"FAST_L2PF", "0"}, {"FAST_MINB", "1"}, {"FAST_EDGE", "5"}, {"FAST_PREFETCH", "1"}, {"FAST_STREAM", "1"}, {"FAST_PFD", "-2"}}},
		{Options{Defines: []Define{{"FAST_MODE", "0"}, {"FAST_RY", "2"}, {"FAST_WX", "2"}, {"FAST_L2PF", "4"}}},
			[]Define{{"FAST_MODE", "0"}, {"FAST_BY", "8"}, {"FAST_RY", "2"}, {"FAST_WX", "2"}, {"FAST_DEPTH", "1"},
				{"FAST_L2PF", "4"}, {"FAST_MINB", "1"}, {"FAST_EDGE", "0"}, {"FAST_PREFETCH", "1"}, {"FAST_STREAM", "0"}}},
	} {
		k, err := d.Stencil3("fast", tc.o)
		require.NoError(t, err, "%v", tc.o.Defines)
		m, err := d.compile("fast_variants", string(old), tc.before)
		require.NoError(t, err)
		for _, entry := range []string{"fast4", "fast1"} {
			nx := map[string]int{"fast4": 512, "fast1": 130}[entry]
			got, err := k.Function(nx)
			require.NoError(t, err)
			want, err := m.Function(entry)
			require.NoError(t, err)
			assert.Equal(t, []int{want.Registers, want.StaticShared, want.LocalBytes, want.MaxThreads},
				[]int{got.Registers, got.StaticShared, got.LocalBytes, got.MaxThreads},
				"%s with %v: registers, static shared, local bytes, max threads", entry, tc.o.Defines)
		}
	}
}
