package halo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// TestDecomposeTilesTheInterior checks on random shapes that the owned
// boxes cover every interior point exactly once, that the counts along
// each axis differ by at most one, and that the local boxes, neighbours
// and places follow their definitions.
func TestDecomposeTilesTheInterior(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 27))
	ran := 0
	for range 400 {
		nz, ny, nx := 3+rng.IntN(40), 3+rng.IntN(20), 3+rng.IntN(9)
		py := 1 + rng.IntN(3)
		ranks := py * (1 + rng.IntN(5))
		h := 1 + rng.IntN(4)
		parts, err := Decompose(nz, ny, nx, ranks, py, h)
		pz := ranks / py
		if (pz > 1 && pz*h > nz-2) || (py > 1 && py*h > ny-2) {
			require.ErrorIs(t, err, lab.ErrSize, "%d×%d×%d over %d ranks (%d along y), halo %d", nz, ny, nx, ranks, py, h)
			continue
		}
		require.NoError(t, err)
		require.Len(t, parts, ranks)
		ran++
		owner := make([]int, nz*ny)
		for i := range owner {
			owner[i] = -1
		}
		zCounts, yCounts := map[int]bool{}, map[int]bool{}
		for r, p := range parts {
			assert.Equal(t, r, p.Rank)
			assert.Equal(t, ranks, p.Ranks)
			assert.Equal(t, r/py, p.IZ)
			assert.Equal(t, r%py, p.IY)
			assert.Equal(t, max(p.Z0-h, 0), p.LZ0)
			assert.Equal(t, min(p.Z1+h, nz), p.LZ1)
			assert.Equal(t, max(p.Y0-h, 0), p.LY0)
			assert.Equal(t, min(p.Y1+h, ny), p.LY1)
			assert.Equal(t, ifElse(p.IZ > 0, r-py, -1), p.Down)
			assert.Equal(t, ifElse(p.IZ < pz-1, r+py, -1), p.Up)
			assert.Equal(t, ifElse(p.IY > 0, r-1, -1), p.South)
			assert.Equal(t, ifElse(p.IY < py-1, r+1, -1), p.North)
			if pz > 1 {
				assert.GreaterOrEqual(t, p.Z1-p.Z0, h)
			}
			if py > 1 {
				assert.GreaterOrEqual(t, p.Y1-p.Y0, h)
			}
			zCounts[p.Z1-p.Z0] = true
			yCounts[p.Y1-p.Y0] = true
			for z := p.Z0; z < p.Z1; z++ {
				for y := p.Y0; y < p.Y1; y++ {
					require.Equal(t, -1, owner[z*ny+y], "(%d, %d) owned twice", z, y)
					owner[z*ny+y] = r
				}
			}
		}
		for z := range nz {
			for y := range ny {
				interior := z >= 1 && z <= nz-2 && y >= 1 && y <= ny-2
				assert.Equal(t, interior, owner[z*ny+y] >= 0, "(%d, %d) of %d×%d", z, y, nz, ny)
			}
		}
		assert.LessOrEqual(t, spread(zCounts), 1)
		assert.LessOrEqual(t, spread(yCounts), 1)
	}
	assert.Greater(t, ran, 100)
}

func ifElse(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

func spread(m map[int]bool) int {
	lo, hi := 1<<30, -1
	for k := range m {
		lo, hi = min(lo, k), max(hi, k)
	}
	return hi - lo
}

// TestDecomposeBalancesLongerFirst checks the balance on a case worked by
// hand: 10 interior planes over 4 ranks are 3, 3, 2, 2.
func TestDecomposeBalancesLongerFirst(t *testing.T) {
	parts, err := Decompose(12, 5, 5, 4, 1, 2)
	require.NoError(t, err)
	var bounds [][2]int
	for _, p := range parts {
		bounds = append(bounds, [2]int{p.Z0, p.Z1})
		assert.Equal(t, [2]int{1, 4}, [2]int{p.Y0, p.Y1}, "slabs own every interior row")
		assert.Equal(t, [2]int{0, 5}, [2]int{p.LY0, p.LY1}, "slabs hold every row")
	}
	assert.Equal(t, [][2]int{{1, 4}, {4, 7}, {7, 9}, {9, 11}}, bounds)
}

func TestDecomposeNamesTheLimit(t *testing.T) {
	for _, c := range []struct {
		nz, ny, nx, ranks, py, h int
		want                     string
	}{
		{12, 9, 9, 4, 1, 4, "4 ranks along z × halo 4 need at least 16 interior planes; the grid has 10"},
		{12, 5, 9, 4, 2, 2, "2 ranks along y × halo 2 need at least 4 interior rows; the grid has 3"},
		{2, 9, 9, 1, 1, 1, "every side must be at least 3"},
		{9, 9, 9, 0, 1, 1, "the count must be from 1 to 4096"},
		{9, 9, 9, 5000, 1, 1, "the count must be from 1 to 4096"},
		{9, 9, 9, 4, 3, 1, "3 ranks along y do not divide 4 ranks"},
		{9, 9, 9, 2, -1, 1, "want 0 to 2 along y"},
		{9, 9, 9, 2, 1, 0, "the halo must be at least 1 plane"},
		{1 << 20, 1 << 20, 1 << 20, 2, 1, 1, "exceeds the limit of 68719476736 points"},
		// 2 × 2⁶² wraps to a negative int64: the check divides instead.
		{13, 11, 9, 2, 1, 1 << 62, "2 ranks along z × halo 4611686018427387904 need more than 9223372036854775807 interior planes"},
		{13, 11, 9, 2, 1, math.MaxInt64, "2 ranks along z × halo 9223372036854775807 need more than 9223372036854775807 interior planes"},
		{13, 11, 9, 2, 2, math.MaxInt64, "2 ranks along y × halo 9223372036854775807 need more than 9223372036854775807 interior rows"},
	} {
		_, err := Decompose(c.nz, c.ny, c.nx, c.ranks, c.py, c.h)
		require.ErrorIs(t, err, lab.ErrSize, "%+v", c)
		assert.Contains(t, err.Error(), c.want)
	}
}

// TestVolume checks the surface to volume of slabs against its closed
// form: an inner slab of an N³ grid owns m·(N−2)² points and receives two
// halos of h·N² points.
func TestVolume(t *testing.T) {
	const n, g, h = 18, 4, 2
	parts, err := Decompose(n, n, n, g, 1, h)
	require.NoError(t, err)
	s := Volume(parts)
	require.Len(t, s, g)
	for i, v := range s {
		m := int64(parts[i].Z1 - parts[i].Z0)
		assert.Equal(t, m*(n-2)*(n-2), v.Interior)
		sides := int64(2)
		if i == 0 || i == g-1 {
			sides = 1
		}
		assert.Equal(t, sides*h*n*n, v.Halo)
		assert.InDelta(t, float64(sides*h*n*n)/float64(m*(n-2)*(n-2)), v.Ratio, 1e-12)
	}
	// One rank receives nothing.
	one, err := Decompose(n, n, n, 1, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(0), Volume(one)[0].Halo)
}

// With one rank along an axis a halo of any size, however large, is
// clipped by the grid's faces: the local box is the whole grid, as the
// smallest halo that reaches the faces gives.
func TestDecomposeClipsAHugeHalo(t *testing.T) {
	for _, h := range []int{11, 12, 1 << 40, math.MaxInt64} {
		parts, err := Decompose(13, 11, 9, 1, 0, h)
		require.NoError(t, err, "halo %d", h)
		require.Len(t, parts, 1)
		p := parts[0]
		assert.Equal(t, [4]int{0, 13, 0, 11}, [4]int{p.LZ0, p.LZ1, p.LY0, p.LY1}, "halo %d", h)
		assert.Equal(t, 13*11*9, p.LocalLen())
		assert.Equal(t, h, p.Halo)
		assert.NoError(t, checkPart(p, 9))
	}
}
