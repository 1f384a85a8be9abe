//go:build hidden

package cudacheck

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The header of a fixture of a chapter exercise with a tile define.
const fixtureTile = "#ifndef IN_TILE_DIM\n#define IN_TILE_DIM %d\n#endif\n#define OUT_TILE_DIM (IN_TILE_DIM - 4)\n\n"

// fixtureSig is the entry's signature.
const fixtureSig = `extern "C" __global__ void NAME(const float* in, float* out, int nz, int ny, int nx,
    float c0, float c1, float c2, float c3, float c4, float c5, float c6, float c7,
    float c8, float c9, float c10, float c11, float c12)
`

// star13 computes acc, the thirteen-point star at the flat index at, from
// global memory (row and plane are the strides).
const star13 = `        float acc = c0 * in[at];
        acc += c1 * in[at - 1] + c2 * in[at + 1];
        acc += c3 * in[at - row] + c4 * in[at + row];
        acc += c5 * in[at - plane] + c6 * in[at + plane];
        acc += c7 * in[at - 2] + c8 * in[at + 2];
        acc += c9 * in[at - 2 * row] + c10 * in[at + 2 * row];
        acc += c11 * in[at - 2 * plane] + c12 * in[at + 2 * plane];
`

// plainTiled is the plain kernel in the tiled launch: each inner thread
// computes its point from global memory. extra goes before the store
// (shared memory for show).
func plainTiled(pre, extra string) string {
	return strings.ReplaceAll("#ifndef IN_TILE_DIM\n#define IN_TILE_DIM 8\n#endif\n#define OUT_TILE_DIM (IN_TILE_DIM - 4)\n\n"+fixtureSig, "NAME", "tiled") + `{
    const int tz = threadIdx.z, ty = threadIdx.y, tx = threadIdx.x;
    const int i = blockIdx.z * OUT_TILE_DIM + tz - 2;
    const int j = blockIdx.y * OUT_TILE_DIM + ty - 2;
    const int k = blockIdx.x * OUT_TILE_DIM + tx - 2;
    const long long row = nx;
    const long long plane = (long long)ny * nx;
` + pre + `    const bool inner = tz >= 2 && tz < IN_TILE_DIM - 2 && ty >= 2 && ty < IN_TILE_DIM - 2 && tx >= 2 && tx < IN_TILE_DIM - 2;
    if (inner && i >= 2 && i < nz - 2 && j >= 2 && j < ny - 2 && k >= 2 && k < nx - 2) {
        const long long at = i * plane + j * row + k;
` + star13 + extra + `        out[at] = acc;
    }
}
`
}

// plainColumns is the plain kernel in the launch of the z-marching
// kernels (22–24): each inner thread marches through its planes and
// computes each point from global memory.
func plainColumns(name, pre, extra string) string {
	return strings.ReplaceAll("#ifndef IN_TILE_DIM\n#define IN_TILE_DIM 32\n#endif\n#define OUT_TILE_DIM (IN_TILE_DIM - 4)\n\n"+fixtureSig, "NAME", name) + `{
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int first = blockIdx.z * OUT_TILE_DIM;
    const int j = blockIdx.y * OUT_TILE_DIM + ty - 2;
    const int k = blockIdx.x * OUT_TILE_DIM + tx - 2;
    const long long row = nx;
    const long long plane = (long long)ny * nx;
` + pre + `    const bool inner = ty >= 2 && ty < IN_TILE_DIM - 2 && tx >= 2 && tx < IN_TILE_DIM - 2 &&
                       j >= 2 && j < ny - 2 && k >= 2 && k < nx - 2;
    for (int i = first; i < first + OUT_TILE_DIM; ++i) {
        if (inner && i >= 2 && i < nz - 2) {
            const long long at = i * plane + j * row + k;
` + strings.ReplaceAll(star13, "        ", "            ") + extra + `            out[at] = acc;
        }
    }
}
`
}

// plainChallenge is the basic kernel with a launch of one thread per
// point.
func plainChallenge() string {
	return "#define BLOCK_X 32\n#define BLOCK_Y 4\n#define BLOCK_Z 2\n#define TILE_X 32\n#define TILE_Y 4\n#define TILE_Z 2\n\n" +
		strings.ReplaceAll(fixtureSig, "NAME", "challenge") + `{
    const int i = blockIdx.z * blockDim.z + threadIdx.z;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 2 || i >= nz - 2 || j < 2 || j >= ny - 2 || k < 2 || k >= nx - 2) {
        return;
    }
    const long long row = nx;
    const long long plane = (long long)ny * nx;
    const long long at = i * plane + j * row + k;
` + star13 + `    out[at] = acc;
}
`
}

// Shared memory used as a dodge: a plane written and never read, or read
// into the output for show (0 × a shared value: the compiler must keep it,
// as 0 × NaN is not 0).
const (
	decoyTiled   = "    __shared__ float tile_s[IN_TILE_DIM][IN_TILE_DIM][IN_TILE_DIM];\n    if (i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx) {\n        tile_s[tz][ty][tx] = in[i * plane + j * row + k];\n    }\n    __syncthreads();\n"
	showTiled    = "        acc += 0.0f * tile_s[tz][ty][tx];\n"
	decoyColumns = "    __shared__ float plane_s[5][IN_TILE_DIM][IN_TILE_DIM];\n    if (j >= 0 && j < ny && k >= 0 && k < nx) {\n        plane_s[0][ty][tx] = in[j * row + k];\n    }\n    __syncthreads();\n"
	showColumns  = "            acc += 0.0f * plane_s[0][ty][tx];\n"
)

// The method check's plain kernels compute the star from global memory:
// exercise 20's solution. This file is built with the tag hidden, which the
// students' release leaves out, and sets methodFixtures.
func init() { methodFixtures = hiddenMethodFixtures }

// hiddenMethodFixtures returns the method check's submissions, named, made
// from the reference solutions ref (read here when nil).
func hiddenMethodFixtures(t *testing.T, ref map[string]string) map[string]methodFixture {
	t.Helper()
	if ref == nil {
		ref = map[string]string{}
		for _, s := range Specs() {
			ref[s.ID] = instructorFile(t, s.ID)
		}
	}
	out := map[string]methodFixture{}
	add := func(name, id, expect, names, text string) {
		out[name] = methodFixture{Exercise: id, Expect: expect, Names: names, text: text}
	}
	// The plain kernel, and shared memory written never read or read for
	// show, in each exercise that teaches a technique.
	add("method-21-plain", "21_cuda_tiled", "correct-only", "shared-memory tiling", plainTiled("", ""))
	add("method-21-decoy", "21_cuda_tiled", "correct-only", "shared-memory tiling", plainTiled(decoyTiled, ""))
	add("method-21-show", "21_cuda_tiled", "correct-only", "global loads per output point", plainTiled(decoyTiled, showTiled))
	for _, c := range []struct{ id, name, tech string }{
		{"22_cuda_coarsened", "coarsened", "thread coarsening in z"},
		{"23_cuda_register_tiled", "register_tiled", "register tiling"},
		{"24_cuda_find_the_bug", "coarsened", "the given kernel, fixed"},
	} {
		n := c.id[:2]
		add("method-"+n+"-plain", c.id, "correct-only", c.tech, plainColumns(c.name, "", ""))
		add("method-"+n+"-decoy", c.id, "correct-only", c.tech, plainColumns(c.name, decoyColumns, ""))
		add("method-"+n+"-show", c.id, "correct-only", "global loads per output point", plainColumns(c.name, decoyColumns, showColumns))
	}
	add("method-25-plain", "25_cuda_challenge", "correct-only", "reuse of the inputs", plainChallenge())
	// The other technique in the exercise's place: five shared planes for
	// register tiling, one shared plane for coarsening.
	add("method-23-coarsened", "23_cuda_register_tiled", "lose-method", "keeps the four z neighbours in registers",
		strings.Replace(ref["22_cuda_coarsened"], "void coarsened(", "void register_tiled(", 1))
	add("method-22-registers", "22_cuda_coarsened", "lose-method", "the technique reads at least 12",
		strings.Replace(ref["23_cuda_register_tiled"], "void register_tiled(", "void coarsened(", 1))
	// One column, and zeros on every other plane: at most a tenth.
	stores := map[string][2]string{
		"20_cuda_basic":          {"out[at] = acc;", "acc"},
		"21_cuda_tiled":          {"out[i * plane + j * row + k] = acc;", "acc"},
		"22_cuda_coarsened":      {"out[i * plane + col] = acc;", "acc"},
		"23_cuda_register_tiled": {"out[i * plane + col] = acc;", "acc"},
	}
	for id, st := range stores {
		n := id[:2]
		lhs, _, _ := strings.Cut(st[0], " = ")
		add("method-"+n+"-onecolumn", id, "tenth", "", replaceOnce(t, id+" one column", ref[id], st[0], "if (j == 2 && k == 2) { "+st[0]+" }"))
		add("method-"+n+"-zeros", id, "tenth", "", replaceOnce(t, id+" zeros", ref[id], st[0], lhs+" = (i % 2) ? 0.0f : "+st[1]+";"))
	}
	fix := ref["24_cuda_find_the_bug"]
	add("method-24-onecolumn", "24_cuda_find_the_bug", "tenth", "", replaceOnce(t, "24 one column", fix, "\n            out[i * sz + j * sy + k] = c0", "\n            if (j == 2 && k == 2) out[i * sz + j * sy + k] = c0"))
	add("method-24-zeros", "24_cuda_find_the_bug", "tenth", "", replaceOnce(t, "24 zeros", fix, "\n            out[i * sz + j * sy + k] = c0", "\n            out[i * sz + j * sy + k] = (i % 2) ? 0.0f : c0"))
	ch := ref["25_cuda_challenge"]
	add("method-25-onecolumn", "25_cuda_challenge", "tenth", "", replaceOnce(t, "25 one column", ch, "out[p] = c0 * c", "if (j == 2 && k == 2) out[p] = c0 * c"))
	add("method-25-zeros", "25_cuda_challenge", "tenth", "", replaceOnce(t, "25 zeros", ch, "out[p] = c0 * c", "out[p] = (i % 2) ? 0.0f : c0 * c"))
	return out
}

// The method fixtures are what they claim: the plain kernels have no
// shared memory, the dodges declare it, the one-column and zeros kernels
// differ from the solution by their store.
func TestMethodFixtures(t *testing.T) {
	fx := methodFixtures(t, nil)
	for name, f := range fx {
		s, ok := Lookup(f.Exercise)
		require.True(t, ok, name)
		assert.Contains(t, f.text, `extern "C" __global__ void `+s.Entry()+"(", name)
		switch {
		case strings.HasSuffix(name, "-plain"):
			assert.NotContains(t, f.text, "__shared__", name)
			assert.Equal(t, "correct-only", f.Expect, name)
		case strings.HasSuffix(name, "-decoy"), strings.HasSuffix(name, "-show"):
			assert.Contains(t, f.text, "__shared__", name)
		case strings.HasSuffix(name, "-onecolumn"):
			assert.Contains(t, f.text, "j == 2 && k == 2", name)
		}
		if s.Shape == FromFile {
			_, _, err := ChallengeLaunch(f.text)
			assert.NoError(t, err, name)
		}
	}
	assert.Contains(t, fx["method-21-show"].text, "0.0f * tile_s", "the show reads the tile into the output")
}
