package cudacheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The PTX NVRTC wrote on an NVIDIA H200 (CUDA 13) for the reference
// solutions and some method fixtures (testdata/ptx, written by the GPU
// script's TestDumpPTX; the .file lines cut to the file's name).
func realPTX(t *testing.T, name, entry string) (*ptxEntry, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ptx", name+".ptx"))
	require.NoError(t, err)
	e, err := parsePTX(string(b), entry)
	require.NoError(t, err, name)
	return e, string(b)
}

func sharedBytes(e *ptxEntry) int {
	n := 0
	for _, s := range e.shared {
		n += s.bytes
	}
	return n
}

// The references' PTX has what their method checks look for: the static
// part of each judge passes with the technique's own counts.
func TestReferencePTXPassesTheStaticChecks(t *testing.T) {
	for _, c := range []struct {
		file, id string
		shared   float64
	}{
		{"ref_tiled", "21_cuda_tiled", 13},
		{"ref_coarsened", "22_cuda_coarsened", 13},
		{"ref_register_tiled", "23_cuda_register_tiled", 8},
		{"ref_fix", "24_cuda_find_the_bug", 13},
		{"ref_challenge", "25_cuda_challenge", 0},
	} {
		s, _ := Lookup(c.id)
		m := s.method()
		e, text := realPTX(t, c.file, s.Entry())
		assert.Empty(t, e.audit(m.Exchange), c.file)
		d := [3]int{2*s.Tile + 9, 2*s.Tile + 13, 2*s.Tile + 17}
		ins := &Inspection{Dims: d, SharedLoads: c.shared, Barriers: 1, StaticShared: sharedBytes(e), PTX: text, GlobalLoads: 9}
		if m.Shape != FromFile {
			ins.Technique = techniqueLoads(s.Tile, d)
			ins.GlobalLoads = ins.Technique
		}
		assert.Empty(t, m.judge(s, ins), c.file)
		// The same PTX with the plain kernel's counts loses.
		ins.GlobalLoads, ins.SharedLoads = plainLoads, 0
		assert.NotEmpty(t, m.judge(s, ins), c.file)
	}
	e, _ := realPTX(t, "ref_fix", "coarsened")
	for _, a := range []string{"inPrev2_s", "inPrev_s", "inCurr_s", "inNext_s", "inNext2_s"} {
		sh, ok := e.sharedArray(a)
		require.True(t, ok, a)
		assert.Equal(t, 32*32*4, sh.bytes, a)
		r, w := e.arrayUse(sh.name)
		assert.True(t, r && w, "%s read %v written %v", a, r, w)
	}
	e, _ = realPTX(t, "ref_coarsened", "coarsened")
	assert.True(t, e.planeLoop(true))
	assert.Equal(t, []ptxShared{{"_ZZ9coarsenedE1s", 5 * 32 * 32 * 4}}, e.shared)
	e, _ = realPTX(t, "ref_tiled", "tiled")
	assert.True(t, e.sharedFeedsOutput())
	assert.Empty(t, e.loops, "the tiled kernel has no loop")
}

// The dodges' PTX: the plain kernel and the decoy (whose shared array the
// compiler dropped, as it is never read) have no shared value reaching
// the output; the show's 0 × shared value does reach it, and only its
// global loads give it away; the plain kernel in fix.cu has none of the
// given arrays; exercise 23's kernel handed in for 22 keeps one plane.
func TestDodgePTX(t *testing.T) {
	e, _ := realPTX(t, "method_21_plain_tiled", "tiled")
	assert.False(t, e.sharedFeedsOutput())
	assert.Empty(t, e.shared)
	e, _ = realPTX(t, "method_21_decoy_tiled", "tiled")
	assert.False(t, e.sharedFeedsOutput())
	e, _ = realPTX(t, "method_21_show_tiled", "tiled")
	assert.True(t, e.sharedFeedsOutput())
	e, _ = realPTX(t, "method_24_plain_fix", "coarsened")
	_, ok := e.sharedArray("inCurr_s")
	assert.False(t, ok)
	assert.False(t, e.planeLoop(false))
	e, _ = realPTX(t, "method_22_registers_coarsened", "coarsened")
	assert.Equal(t, 32*32*4, sharedBytes(e))
	e, _ = realPTX(t, "method_23_coarsened_register_tiled", "register_tiled")
	assert.Equal(t, 5*32*32*4, sharedBytes(e))
	e, _ = realPTX(t, "sanitize_clock_basic", "basic")
	assert.Contains(t, strings.Join(e.audit(true), "\n"), "special register %clock64")
}

// Every real PTX instruments: one counting instruction per counted one,
// the original text kept line for line.
func TestInstrumentRealPTX(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "ptx", "*.ptx"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var entry string
		for _, l := range strings.Split(string(b), "\n") {
			if m := entryRE.FindStringSubmatch(l); m != nil {
				entry = m[1]
				break
			}
		}
		require.NotEmpty(t, entry, f)
		e, err := parsePTX(string(b), entry)
		require.NoError(t, err, f)
		counted := 0
		for _, in := range e.body {
			if c, n := in.counterOf(); c >= 0 && n > 0 {
				counted++
			}
		}
		out, err := instrumentPTX(string(b), entry, 1<<40)
		require.NoError(t, err, f)
		var kept []string
		added := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "%slcnt") || strings.Contains(l, "%slidx") {
				added++
				continue
			}
			kept = append(kept, l)
		}
		assert.Equal(t, string(b), strings.Join(kept, "\n"), f)
		assert.Equal(t, counted+12, added, f)
		assert.Positive(t, counted, f)
	}
}
