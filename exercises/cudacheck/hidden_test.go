//go:build hidden

package cudacheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexPlanes works out on the CPU, point by point, what a kernel with
// 32-bit indices (unsigned int i·sz + j·sy + k, as in fix.cu's broken
// kernel) does at N = 1700: every point of the planes checkIndex64
// compares has its index wrapped, and no wrapped index lands in them, so
// they stay unwritten; the planes below 1486 are untouched by the mistake.
// The z loop mistake writes only the planes blockIdx.z·30: the compared
// planes are among them.
func TestIndexPlanes(t *testing.T) {
	n := IndexN
	sz, sy := uint32(n*n), uint32(n)
	wrapped := func(i, j, k int) int { return int(uint32(i)*sz + uint32(j)*sy + uint32(k)) }
	const tile = 30
	zloopWrites := map[int]bool{}
	for bz := 0; bz < (n-1+tile-1)/tile; bz++ {
		zloopWrites[bz*tile] = true
	}
	maxWrapped := 0
	for i := 1; i < n-1; i++ {
		for _, j := range []int{1, n / 2, n - 2} {
			for _, k := range []int{1, n / 3, n - 2} {
				true64 := (i*n+j)*n + k
				if w := wrapped(i, j, k); w != true64 {
					maxWrapped = max(maxWrapped, w)
				}
			}
		}
	}
	require.Positive(t, maxWrapped)
	assert.Less(t, maxWrapped/(n*n), indexPlanes[0], "a wrapped index lands below the compared planes")
	assert.Equal(t, 212, wrapped(n-2, n-2, n-2)/(n*n), "the last interior point wraps to plane 212")
	for _, i := range indexPlanes {
		assert.True(t, zloopWrites[i], "plane %d is written by the z loop mistake", i)
		assert.Less(t, i, n-1)
		for j := 1; j < n-1; j++ {
			for k := 1; k < n-1; k++ {
				if w := wrapped(i, j, k); w == (i*n+j)*n+k || w/(n*n) >= indexPlanes[0] {
					t.Fatalf("plane %d: (j=%d, k=%d) is not moved out of the compared planes (wrapped %d)", i, j, k, w)
				}
			}
		}
	}
	for _, j := range []int{1, n - 2} {
		assert.Equal(t, (1485*n+j)*n+1, wrapped(1485, j, 1), "plane 1485 is below 2³²")
	}
	assert.Equal(t, 1486, (1<<32)/(n*n))
}
