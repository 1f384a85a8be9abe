package cudacheck

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// The fast sweep is the reference's, on odd shapes with thirteen distinct
// coefficients; the boundary is left alone.
func TestSweep13IsTheReference(t *testing.T) {
	r := newRand(9)
	for _, s := range [][3]int{{5, 5, 5}, {7, 11, 13}, {23, 6, 17}, {9, 31, 8}, {4, 9, 9}} {
		src, err := seededGrid(s[0], s[1], s[2], r.Uint64())
		require.NoError(t, err)
		c := distinctCoeffs(r, 0.01)
		want, _ := lab.NewGrid3[float32](s[0], s[1], s[2])
		got, _ := lab.NewGrid3[float32](s[0], s[1], s[2])
		for i := range want.Data {
			want.Data[i], got.Data[i] = -7, -7
		}
		if min(s[0], s[1], s[2]) >= 5 {
			require.NoError(t, lab.Sweep3(want, src.Grid3, lab.ThirteenPoint(c)))
		}
		require.NoError(t, Sweep13(got, src.Grid3, c))
		for i := range want.Data {
			require.InDelta(t, want.Data[i], got.Data[i], 1e-6, "%v at %d", s, i)
		}
	}
	a, _ := lab.NewGrid3[float32](5, 5, 5)
	b, _ := lab.NewGrid3[float32](5, 5, 6)
	require.Error(t, Sweep13(a, b, Coeffs13{}))
	require.ErrorIs(t, Sweep13(a, a, Coeffs13{}), lab.ErrMismatch)
}

// The inputs along one axis vary along that axis only, and are the
// all-axes input's values at the axis's indices.
func TestInputsAlongOneAxis(t *testing.T) {
	nz, ny, nx := 4, 5, 6
	for _, along := range []string{"x", "y", "z"} {
		g, err := seededAlong(nz, ny, nx, 3, along)
		require.NoError(t, err)
		for i := range nz {
			for j := range ny {
				for k := range nx {
					idx := map[string]int{"x": k, "y": j, "z": i}[along]
					require.Equal(t, inputValue(3, uint64(idx)), g.At(i, j, k), along)
				}
			}
		}
	}
	_, err := seededAlong(4, 5, 6, 3, "w")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the axes are x, y and z")
}

// findBugSource is a fix.cu for the CPU stand-in with one of its modelled
// mistakes.
func findBugSource(mode string) []byte {
	if mode == "" {
		return []byte("// a correct kernel\n")
	}
	return []byte("// a kernel\n// stand-in: " + mode + "\n")
}

// fixWords are what a message of exercise 24 must not say: the mistakes'
// names and their fixes.
var fixWords = []string{"swap", "exchange", "barrier", "syncthreads", "OUT_TILE_DIM", "IN_TILE_DIM", "64-bit", "long long", "halo", "z loop", "race"}

// Each seed-style mistake of exercise 24, modelled alone by the CPU
// stand-in, loses the check named for it, and the checks of the other
// mistakes pass; every message states a symptom and names no fix. The
// correct kernel gets every point. The z loop that closes early writes
// one plane of each block's 28: no point has both its z neighbours
// written, so the check of the block's waits has nothing to judge and
// scores nothing (partial credit only for verified partial work).
func TestSeedMistakesLoseTheCheckNamedForThem(t *testing.T) {
	spec, ok := Lookup("24_cuda_find_the_bug")
	require.True(t, ok)
	honest := Grade(fakeCfg(t, FakeHonest), spec, findBugSource(""))
	require.Equal(t, grading.Graded, honest.Status, honest.Message)
	assert.Equal(t, honest.MaxPoints, honest.Points)
	named := map[string]struct{ check, says, also string }{
		FakeZLoop: {"every-plane", "are never written", "barriers"},
		FakeHalo:  {"every-column", "they include every point of rows j = 28, 29", ""},
		FakeSwap:  {"one-axis", "inputs that vary along y only", ""},
		FakeRace:  {"barriers", "inputs that vary along z only", ""},
	}
	for mode, want := range named {
		r := Grade(fakeCfg(t, FakeHonest), spec, findBugSource(mode))
		require.Equal(t, grading.Graded, r.Status, "%s: %s", mode, r.Message)
		for _, c := range r.Checks {
			switch c.ID {
			case want.check:
				assert.False(t, c.Passed, "%s loses %s", mode, c.ID)
				assert.Contains(t, c.Message, want.says, mode)
			case "method":
				// judged on the counted grid, as large as the timed one:
				// a mistake that does not show there (a halo of one on a
				// grid of one tile) leaves the technique to be judged
			case "values", "performance", want.also:
				assert.False(t, c.Passed, "%s: the whole sweep is wrong", mode)
			default:
				assert.True(t, c.Passed, "%s keeps %s: %s", mode, c.ID, c.Message)
			}
			if c.ID == "performance" {
				continue // it names the checks that must pass first
			}
			for _, w := range fixWords {
				assert.NotContains(t, strings.ToLower(c.Message), strings.ToLower(w), "%s: %s names a fix", mode, c.ID)
			}
		}
	}
}

// The halo mistake's unwritten columns, worked out from the launch: rows
// and columns 28 and 29 of each 30 are never written.
func TestHaloOfOneLeavesTwoRowsOfEachTile(t *testing.T) {
	h := &cpuHost{mode: FakeHalo}
	at := func(i, j, k int) float32 { return 1 }
	var c Coeffs13
	var holes []int
	for j := 2; j < 68; j++ {
		if _, ok := h.point(at, c, [3]int{70, 70, 70}, 32, 10, j, 10); !ok {
			holes = append(holes, j)
		}
	}
	assert.Equal(t, []int{28, 29, 58, 59}, holes)
}

// A kernel that writes nothing scores no check of exercise 24: each check
// that judges the points written asks that some be written.
func TestFindBugKernelThatWritesNothingScoresZero(t *testing.T) {
	spec, _ := Lookup("24_cuda_find_the_bug")
	r := Grade(fakeCfg(t, FakeHonest), spec, findBugSource(FakeNothing))
	require.Equal(t, grading.Graded, r.Status, r.Message)
	require.NotEmpty(t, r.Checks)
	for _, c := range r.Checks {
		assert.False(t, c.Passed, "%s: %s", c.ID, c.Message)
		assert.Zero(t, c.Points, c.ID)
	}
	assert.Zero(t, r.Points)
}
