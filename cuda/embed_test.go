package cuda

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNames(t *testing.T) {
	names := Names()
	for _, want := range []string{"basic", "tiled", "coarsened", "register_tiled", "fast_common", "fast_bulk", "fast_registers",
		"derivative", "five_point", "copy", "fill"} {
		assert.Contains(t, names, want)
	}
}

func TestSource(t *testing.T) {
	a, err := Source("tiled")
	require.NoError(t, err)
	b, err := Source("tiled.cu")
	require.NoError(t, err)
	assert.Equal(t, a, b)

	_, err = Source("nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "known:")
	assert.Contains(t, err.Error(), "register_tiled")
	_, err = Source("../go.mod")
	assert.Error(t, err)
}

// Each step's file defines a kernel of its own name (each of the fast
// step's mode files two, fast4 and fast1), includes nothing (NVRTC compiles it without headers)
// and has no host code.
func TestStepSources(t *testing.T) {
	entries := map[string][]string{
		"basic": {"basic"}, "tiled": {"tiled"}, "coarsened": {"coarsened"},
		"register_tiled": {"register_tiled"}, "fast_bulk": {"fast4", "fast1"}, "fast_registers": {"fast4", "fast1"},
		"derivative": {"derivative"}, "five_point": {"five_point"},
		"copy": {"copy_float4"}, "fill": {"fill_random"},
	}
	for name, kernels := range entries {
		src, err := Source(name)
		require.NoError(t, err)
		for _, k := range kernels {
			re := regexp.MustCompile(`extern "C" __global__ void (__launch_bounds__\([^)]*\)\s*)?` + k + `\(`)
			assert.Regexp(t, re, src, "%s.cu defines %s", name, k)
		}
		assert.NotContains(t, src, "#include", name)
		assert.NotContains(t, src, "int main", name)
	}
}

// Tile sizes (and the radius) are defines with defaults that a notebook can
// override, and the 3D kernels index with 64-bit arithmetic.
func TestDefinesAndIndices(t *testing.T) {
	for name, defs := range map[string][]string{
		"tiled": {"IN_TILE_DIM"}, "coarsened": {"IN_TILE_DIM"}, "register_tiled": {"IN_TILE_DIM"},
		"derivative": {"RADIUS", "IN_TILE_DIM"}, "five_point": {"IN_TILE_DIM"},
		"fast_common":    {"FAST_BY", "FAST_RY", "FAST_WX", "FAST_PREFETCH", "FAST_STREAM", "FAST_L2PF", "FAST_MINB"},
		"fast_bulk":      {"FAST_MODE", "FAST_DEPTH", "FAST_PFD"},
		"fast_registers": {"FAST_MODE"},
	} {
		src, err := Source(name)
		require.NoError(t, err)
		for _, d := range defs {
			assert.True(t, strings.Contains(src, "#ifndef "+d+"\n#define "+d+" "), "%s.cu: %s has an overridable default", name, d)
		}
	}
	for _, name := range []string{"basic", "tiled", "coarsened", "register_tiled", "fast_common", "fast_bulk"} {
		src, _ := Source(name)
		assert.Contains(t, src, "(long long)ny * nx", "%s.cu computes the plane stride in 64 bits", name)
		assert.NotContains(t, src, "unsigned int N", "%s.cu: the chapter's 32-bit N is gone", name)
	}
}

// The lab's coefficient mapping: c3 with the j−1 neighbour, c4 with j+1,
// in the chapter's shared-memory kernels (Figs. 8.10 and 8.12 swap them).
func TestCoefficientMapping(t *testing.T) {
	for _, name := range []string{"coarsened", "register_tiled"} {
		src, _ := Source(name)
		assert.Contains(t, src, "c3 * inCurr_s[threadIdx.y - 1][threadIdx.x]", name)
		assert.Contains(t, src, "c4 * inCurr_s[threadIdx.y + 1][threadIdx.x]", name)
	}
	src, _ := Source("register_tiled")
	assert.Contains(t, src, "inCurr_s[threadIdx.y][threadIdx.x] = inNext;")
	assert.False(t, strings.Contains(src, "= inNext_s;"))
}
