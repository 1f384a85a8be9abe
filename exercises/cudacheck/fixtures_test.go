package cudacheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/release"
)

// The submissions the GPU machine grades to show the checks at work: the
// reference solutions, each seed mistake alone, a kernel that faults, one
// that hangs, one that does not compile, and a class of five. They are made
// here from the instructor's files, so that no solution is committed twice.

// envFixtures names the folder TestFixtures writes them to.
const envFixtures = "STENCILLAB_CUDA_FIXTURES"

// replaceOnce replaces old by new in s, and fails when old is not there
// exactly once: a fixture that silently stayed the solution would prove
// nothing.
func replaceOnce(t *testing.T, what, s, old, new string) string {
	t.Helper()
	require.Equal(t, 1, strings.Count(s, old), "%s: %q", what, old)
	return strings.Replace(s, old, new, 1)
}

func instructorFile(t *testing.T, id string) string {
	t.Helper()
	s, _ := Lookup(id)
	b, err := os.ReadFile(filepath.Join("..", id, s.File))
	require.NoError(t, err)
	if !release.HasSolution(b) {
		t.Skip("needs the instructor's files: this is a student release")
	}
	return string(b)
}

func studentFile(t *testing.T, id string) string {
	t.Helper()
	b, err := release.StripText(id, []byte(instructorFile(t, id)))
	require.NoError(t, err)
	return string(b)
}

// fixtures returns the submissions: folder → file (relative to it) → text.
func fixtures(t *testing.T) map[string]map[string]string {
	ref := map[string]string{}
	for _, s := range Specs() {
		ref[s.ID] = instructorFile(t, s.ID)
	}
	path := func(id string) string {
		s, _ := Lookup(id)
		return filepath.Join("exercises", id, s.File)
	}
	fix := ref["24_cuda_find_the_bug"]
	// Each seed-style mistake of exercise 24 alone, put into the solution.
	halo := func(s string) string {
		return replaceOnce(t, "halo", s, "const int OUT_TILE_DIM = IN_TILE_DIM - 4;", "const int OUT_TILE_DIM = IN_TILE_DIM - 2;")
	}
	swap := func(s string) string {
		return replaceOnce(t, "c9 c10", s, "+ c9 * inCurr_s[ty - 2][tx] + c10 * inCurr_s[ty + 2][tx]", "+ c9 * inCurr_s[ty + 2][tx] + c10 * inCurr_s[ty - 2][tx]")
	}
	barrier := func(s string) string {
		return replaceOnce(t, "barrier", s, "        __syncthreads();\n        inPrev2_s[ty][tx] = inPrev_s[ty][tx];", "        inPrev2_s[ty][tx] = inPrev_s[ty][tx];")
	}
	index32 := func(s string) string {
		s = replaceOnce(t, "sy", s, "const long long sy = (long long)nx;", "const unsigned int sy = nx;")
		return replaceOnce(t, "sz", s, "const long long sz = sy * ny;", "const unsigned int sz = ny * nx;")
	}
	// The z loop mistake alone: the students' broken kernel with the
	// other mistakes fixed.
	zloop := studentFile(t, "24_cuda_find_the_bug")
	zloop = replaceOnce(t, "halo back", zloop, "const int OUT_TILE_DIM = IN_TILE_DIM - 2;", "const int OUT_TILE_DIM = IN_TILE_DIM - 4;")
	zloop = replaceOnce(t, "c9 c10 back", zloop, "+ c9 * inCurr_s[ty + 2][tx] + c10 * inCurr_s[ty - 2][tx]", "+ c9 * inCurr_s[ty - 2][tx] + c10 * inCurr_s[ty + 2][tx]")
	zloop = replaceOnce(t, "sy back", zloop, "const unsigned int sy = nx;", "const long long sy = (long long)nx;")
	zloop = replaceOnce(t, "sz back", zloop, "const unsigned int sz = ny * nx;", "const long long sz = sy * ny;")
	zloop = replaceOnce(t, "barrier back", zloop, "    }\n    inPrev2_s[ty][tx] = inPrev_s[ty][tx];", "    }\n    __syncthreads();\n    inPrev2_s[ty][tx] = inPrev_s[ty][tx];")

	basic := ref["20_cuda_basic"]
	fault := replaceOnce(t, "fault", basic, "out[at] = acc;", "out[at + (1LL << 40)] = acc;")
	// The hanging kernel spins on the clock (which only grows) and writes
	// through a volatile pointer each turn: a loop the compiler can neither
	// prove finite nor remove (a volatile local, or an empty loop, it may).
	hang := replaceOnce(t, "hang", basic, "    // BEGIN SOLUTION\n", "    // BEGIN SOLUTION\n"+
		"    for (const long long t0 = clock64(); clock64() >= t0;) {\n        ((volatile float*)out)[0] = c0;\n    }\n")
	broken := replaceOnce(t, "compile", basic, "const long long at = i * plane + j * row + k;", "const long long at = i * plane + j * row + k\n")
	basicSwap := replaceOnce(t, "basic c3 c4", basic, "acc += c3 * in[at - row] + c4 * in[at + row];", "acc += c3 * in[at + row] + c4 * in[at - row];")
	ch := ref["25_cuda_challenge"]
	chShallow := replaceOnce(t, "tile z", ch, "\n#define TILE_Z 64\n", "\n#define TILE_Z 8\n")
	chSwap := replaceOnce(t, "challenge c3", ch, "+ c3 * __ldg(&in[p - sy])", "+ c3 * __ldg(&in[p + sy])")
	chSwap = replaceOnce(t, "challenge c4", chSwap, "+ c4 * __ldg(&in[p + sy])", "+ c4 * __ldg(&in[p - sy])")
	chBig := replaceOnce(t, "bx", ch, "\n#define BLOCK_X 32\n", "\n#define BLOCK_X 64\n")
	chBig = replaceOnce(t, "by", chBig, "\n#define BLOCK_Y 8\n", "\n#define BLOCK_Y 32\n")
	chBig = replaceOnce(t, "tx", chBig, "\n#define TILE_X 32\n", "\n#define TILE_X 64\n")
	chBig = replaceOnce(t, "ty", chBig, "\n#define TILE_Y 8\n", "\n#define TILE_Y 32\n")
	tiled := ref["21_cuda_tiled"]
	// For compute-sanitizer: reads past the end of the input on small
	// grids, one and 64 floats past it (inside the allocation's padding or
	// its page: no fault, right values, but memcheck sees them); their value
	// feeds a store, so that the loads stay in the code. And the tiled
	// kernel without its barrier (a shared-memory race for racecheck).
	oob := replaceOnce(t, "oob", basic, "    // BEGIN SOLUTION\n", "    // BEGIN SOLUTION\n"+
		"    if ((long long)nz * ny * nx < 1000000 && blockIdx.x + blockIdx.y + blockIdx.z + threadIdx.x + threadIdx.y + threadIdx.z == 0) {\n"+
		"        const long long n = (long long)nz * ny * nx;\n"+
		"        const float past = in[n] + in[n + 64];\n"+
		"        if (past == 1.5e38f) {\n            out[0] = past;\n        }\n    }\n")
	racy := replaceOnce(t, "racy", tiled, "    __syncthreads();\n", "")

	// For compute-sanitizer, evasion: a read past the end of the input
	// (no fault: the grids of the values checks are small) on every grid
	// but those the sanitizer used to watch (3³, 9×11×13, 21×19×37): it
	// loses memcheck only if the sanitizer watches the graded launches.
	evade := replaceOnce(t, "evade", basic, "    // BEGIN SOLUTION\n", "    // BEGIN SOLUTION\n"+
		"    const long long cells = (long long)nz * ny * nx;\n"+
		"    if (cells != 27 && cells != 9 * 11 * 13 && cells != 21 * 19 * 37 && cells < 1000000 &&\n"+
		"        blockIdx.x + blockIdx.y + blockIdx.z + threadIdx.x + threadIdx.y + threadIdx.z == 0) {\n"+
		"        const float past = in[cells] + in[cells + 64];\n"+
		"        if (past == 1.5e38f) {\n            out[0] = past;\n        }\n    }\n")
	// A kernel that reads the clock could tell a watched run by its speed:
	// the sanitizer's points are refused.
	clock := replaceOnce(t, "clock", basic, "    // BEGIN SOLUTION\n", "    // BEGIN SOLUTION\n"+
		"    if (clock64() == 42) {\n        out[0] = c0;\n    }\n")

	out := map[string]map[string]string{
		"ref":          {},
		"seed-zloop":   {path("24_cuda_find_the_bug"): zloop},
		"seed-halo":    {path("24_cuda_find_the_bug"): halo(fix)},
		"seed-swap":    {path("24_cuda_find_the_bug"): swap(fix)},
		"seed-barrier": {path("24_cuda_find_the_bug"): barrier(fix)},
		"seed-index":   {path("24_cuda_find_the_bug"): index32(fix)},
		"fault":        {path("20_cuda_basic"): fault, path("21_cuda_tiled"): tiled},
		"hang":         {path("20_cuda_basic"): hang, path("21_cuda_tiled"): tiled},
		"compile":      {path("20_cuda_basic"): broken},
		"sanitize":     {path("20_cuda_basic"): oob, path("21_cuda_tiled"): racy},
		"class/alice":  {path("20_cuda_basic"): basic, path("25_cuda_challenge"): ch},
		"class/bob":    {path("20_cuda_basic"): basicSwap, path("25_cuda_challenge"): studentFile(t, "25_cuda_challenge")},
		"class/carol":  {path("25_cuda_challenge"): chShallow},
		"class/dave":   {path("20_cuda_basic"): basic, path("25_cuda_challenge"): chSwap},
		"class/erin":   {path("20_cuda_basic"): broken, path("25_cuda_challenge"): chBig},
	}
	for id, text := range ref {
		out["ref"][path(id)] = text
	}
	out["sanitize-evade"] = map[string]string{path("20_cuda_basic"): evade, path("21_cuda_tiled"): tiled}
	out["sanitize-clock"] = map[string]string{path("20_cuda_basic"): clock}
	for name, f := range methodFixtures(t, ref) {
		out[name] = map[string]string{path(f.Exercise): f.text}
	}
	return out
}

// TestFixtures checks that each fixture differs from the solution by its
// one mistake, and writes them where STENCILLAB_CUDA_FIXTURES says (for the
// GPU machine, which has no Go).
func TestFixtures(t *testing.T) {
	fx := fixtures(t)
	assert.Len(t, fx, 17+len(methodFixtures(t, nil)))
	zl := fx["seed-zloop"][filepath.Join("exercises", "24_cuda_find_the_bug", "fix.cu")]
	assert.Contains(t, zl, "    }\n    __syncthreads();\n    const int i = iStart;", "the z loop closes before computing")
	assert.NotContains(t, zl, "unsigned")
	assert.Contains(t, zl, "IN_TILE_DIM - 4;")
	hang := fx["hang"][filepath.Join("exercises", "20_cuda_basic", "basic.cu")]
	assert.Contains(t, hang, "clock64() >= t0", "the hanging kernel loops on the clock")
	assert.NotContains(t, hang, "volatile int", "a volatile local may be dropped, and the loop with it")
	oob := fx["sanitize"][filepath.Join("exercises", "20_cuda_basic", "basic.cu")]
	assert.Contains(t, oob, "in[n] + in[n + 64]", "the memcheck kernel reads past the input")
	for _, files := range fx {
		for _, text := range files {
			_, _, err := ChallengeLaunch(text)
			if strings.Contains(text, "void challenge(") {
				assert.NoError(t, err)
			}
		}
	}
	dir := os.Getenv(envFixtures)
	if dir == "" {
		return
	}
	for name, f := range methodFixtures(t, nil) {
		b, err := json.MarshalIndent(f, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "expect.json"), b, 0o644))
	}
	for sub, files := range fx {
		for rel, text := range files {
			p := filepath.Join(dir, sub, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		}
	}
}
