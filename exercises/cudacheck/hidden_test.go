//go:build hidden

package cudacheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// TestIndexPlanes works out on the CPU, point by point, what a kernel with
// 32-bit indices (unsigned int i·sz + j·sy + k, as in fix.cu's broken
// kernel) does at N = 1700: every point of the high plane has its index
// wrapped, none of the low planes' has, and no wrapped index lands in a
// compared plane. The z loop mistake writes only the planes blockIdx.z·28
// (blockIdx.z·30 with a halo of one): the compared planes are among them.
func TestIndexPlanes(t *testing.T) {
	n := IndexN
	sz, sy := uint32(n*n), uint32(n)
	wrapped := func(i, j, k int) int { return int(uint32(i)*sz + uint32(j)*sy + uint32(k)) }
	for _, p := range indexPlane {
		assert.Zero(t, p%28, "plane %d is written by the z loop mistake", p)
		assert.Zero(t, p%30, "plane %d is written by the z loop mistake with a halo of one", p)
		assert.Less(t, p, n-Radius)
	}
	for _, p := range lowPlanes {
		for _, j := range []int{Radius, n / 2, n - 1 - Radius} {
			for _, k := range []int{Radius, n / 3, n - 1 - Radius} {
				assert.Equal(t, (p*n+j)*n+k, wrapped(p, j, k), "plane %d is below 2³²", p)
			}
		}
	}
	for j := Radius; j < n-Radius; j++ {
		for k := Radius; k < n-Radius; k++ {
			w := wrapped(highPlane, j, k)
			if w == (highPlane*n+j)*n+k {
				t.Fatalf("plane %d: (j=%d, k=%d) is not wrapped", highPlane, j, k)
			}
			if p := w / (n * n); p >= lowPlanes[0] {
				t.Fatalf("plane %d: (j=%d, k=%d) wraps into plane %d, at or above the lowest compared one", highPlane, j, k, p)
			}
		}
	}
	assert.Equal(t, 1486, (1<<32)/(n*n))
}

// The 64-bit index mistake, modelled by the CPU stand-in, loses the
// hidden check named for it; the correct kernel and the other seed-style
// mistakes keep it.
func TestIndexMistakeLosesItsHiddenCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("computes four planes of a 1700³ grid on the CPU, for each of six kernels")
	}
	spec, _ := Lookup("24_cuda_find_the_bug")
	for _, mode := range []string{FakeHonest, FakeIndex32, FakeZLoop, FakeHalo, FakeSwap, FakeRace} {
		r := Grade(fakeCfg(t, FakeHonest), spec, findBugSource(mode))
		require.Equal(t, grading.Graded, r.Status, "%s: %s", mode, r.Message)
		c := checkByID(r, "index-64bit")
		require.Equal(t, "index-64bit", c.ID)
		if mode == FakeIndex32 {
			assert.False(t, c.Passed, mode)
			assert.Contains(t, c.Message, "are unwritten or wrong in plane i = 1680", mode)
			for _, w := range fixWords {
				assert.NotContains(t, c.Message, w, mode)
			}
			for _, other := range r.Checks {
				if other.ID != "index-64bit" {
					assert.True(t, other.Passed, "%s keeps %s: %s", mode, other.ID, other.Message)
				}
			}
			continue
		}
		assert.True(t, c.Passed, "%s keeps index-64bit: %s", mode, c.Message)
	}
}

// A kernel that writes nothing has no column right in the low planes to
// compare the high plane with: the index check scores 0, not a pass by
// default.
func TestIndexCheckOfAKernelThatWritesNothingScoresZero(t *testing.T) {
	spec, _ := Lookup("24_cuda_find_the_bug")
	r := Grade(fakeCfg(t, FakeHonest), spec, findBugSource(FakeNothing))
	require.Equal(t, grading.Graded, r.Status, r.Message)
	c := checkByID(r, "index-64bit")
	require.Equal(t, "index-64bit", c.ID)
	assert.False(t, c.Passed)
	assert.Zero(t, c.Points)
	assert.Contains(t, c.Message, "has nothing to be compared with")
}
