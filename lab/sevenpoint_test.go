package lab

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomDistinctCoeffs draws seven coefficients and makes sure no two are
// equal, so that a swap of any two changes the result.
func randomDistinctCoeffs(seed uint64) Coeffs {
	r := rand.New(rand.NewPCG(seed, 99))
	var c Coeffs
	for i := range c {
		c[i] = 0.05 + 0.9*r.Float64()/7 + float64(i)*0.13
	}
	r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	return c
}

// plainSevenPoint is the chapter's Fig. 8.6 loop written out with the
// mapping of Coeffs, independent of the fast sweep's row slicing.
func plainSevenPoint(dst, src *Grid3[float64], c Coeffs) {
	for i := 1; i < src.NZ-1; i++ {
		for j := 1; j < src.NY-1; j++ {
			for k := 1; k < src.NX-1; k++ {
				dst.Set(i, j, k, c[0]*src.At(i, j, k)+
					c[1]*src.At(i, j, k-1)+c[2]*src.At(i, j, k+1)+
					c[3]*src.At(i, j-1, k)+c[4]*src.At(i, j+1, k)+
					c[5]*src.At(i-1, j, k)+c[6]*src.At(i+1, j, k))
			}
		}
	}
}

func TestSevenPointMatchesGenericSweepAndPlainLoop(t *testing.T) {
	for _, dims := range [][3]int{{3, 3, 3}, {4, 5, 6}, {7, 3, 9}, {31, 17, 12}, {67, 13, 29}} {
		c := randomDistinctCoeffs(uint64(dims[0]*1000 + dims[1]))
		src, err := NewGrid3[float64](dims[0], dims[1], dims[2])
		require.NoError(t, err)
		src.FillRandom(uint64(dims[2]))
		fast := src.Clone()
		generic := src.Clone()
		plain := src.Clone()
		for _, g := range []*Grid3[float64]{fast, generic, plain} {
			for i := range g.Data { // boundary values that are not src's
				g.Data[i] = -7
			}
		}
		require.NoError(t, SevenPoint(fast, src, c))
		require.NoError(t, Sweep3(generic, src, SevenPointStencil(c)))
		plainSevenPoint(plain, src, c)

		d, err := Compare3(fast, plain)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-14, "fast vs plain loop %v", dims)
		d, err = Compare3(generic, plain)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-14, "generic sweep vs plain loop %v", dims)

		// Boundary cells hold boundary conditions: untouched.
		for i := 0; i < src.NZ; i++ {
			for j := 0; j < src.NY; j++ {
				for k := 0; k < src.NX; k++ {
					if i == 0 || j == 0 || k == 0 || i == src.NZ-1 || j == src.NY-1 || k == src.NX-1 {
						require.Equal(t, -7.0, fast.At(i, j, k))
						require.Equal(t, -7.0, generic.At(i, j, k))
					}
				}
			}
		}
	}
}

func TestSevenPointMappingShowsASwap(t *testing.T) {
	// With distinct coefficients, swapping c3 and c4 must change the result.
	c := DistinctCoeffs()
	swapped := c
	swapped[3], swapped[4] = c[4], c[3]
	src, _ := NewCube[float32](8)
	src.FillRandom(3)
	a, b := src.Clone(), src.Clone()
	require.NoError(t, SevenPoint(a, src, c))
	require.NoError(t, SevenPoint(b, src, swapped))
	d, _ := Compare3(a, b)
	assert.Greater(t, d.MaxAbs, 1e-3)
	// And the mapping itself: a single 1 at (i, j−1, k) feeds c3 into (i, j, k).
	unit, _ := NewCube[float64](5)
	unit.Set(2, 1, 2, 1)
	out, _ := NewCube[float64](5)
	require.NoError(t, SevenPoint(out, unit, c))
	assert.Equal(t, c[3], out.At(2, 2, 2), "src(i, j−1, k) is weighted by c3")
	assert.Equal(t, c[0], out.At(2, 1, 2), "the centre is weighted by c0")
	unit.Set(2, 1, 2, 0)
	unit.Set(2, 3, 2, 1)
	require.NoError(t, SevenPoint(out, unit, c))
	assert.Equal(t, c[4], out.At(2, 2, 2), "src(i, j+1, k) is weighted by c4")
}

func TestSevenPointThreadCountsAgree(t *testing.T) {
	src, _ := NewGrid3[float32](23, 11, 19)
	src.FillRandom(5)
	c := randomDistinctCoeffs(5)
	one, many := src.Clone(), src.Clone()
	require.NoError(t, SevenPointThreads(one, src, c, 1))
	require.NoError(t, SevenPointThreads(many, src, c, 7))
	assert.Equal(t, one.Data, many.Data)
}

func TestSevenPointRejectsTinyGrids(t *testing.T) {
	a, _ := NewGrid3[float32](2, 5, 5)
	b, _ := NewGrid3[float32](2, 5, 5)
	err := SevenPoint(a, b, DistinctCoeffs())
	assert.ErrorIs(t, err, ErrSize)
	assert.Contains(t, err.Error(), "below 3")
}

func TestSweep2FivePointFixedBoundary(t *testing.T) {
	src, _ := NewGrid2[float64](6, 9)
	src.FillRandom(11)
	dst := src.Clone()
	c := [5]float64{0.4, 0.1, 0.2, 0.05, 0.25}
	require.NoError(t, Sweep2(dst, src, FivePoint(c)))
	for j := 0; j < 6; j++ {
		for k := 0; k < 9; k++ {
			if j == 0 || k == 0 || j == 5 || k == 8 {
				assert.Equal(t, src.At(j, k), dst.At(j, k))
				continue
			}
			want := c[0]*src.At(j, k) + c[1]*src.At(j, k-1) + c[2]*src.At(j, k+1) + c[3]*src.At(j-1, k) + c[4]*src.At(j+1, k)
			assert.InDelta(t, want, dst.At(j, k), 1e-15)
		}
	}
	// Radius-2 stencils leave two boundary layers.
	nine := NinePoint([9]float64{1, 1, 1, 1, 1, 1, 1, 1, 1})
	assert.Equal(t, 2, nine.Radius())
	dst2 := src.Clone()
	require.NoError(t, Sweep2(dst2, src, nine))
	assert.Equal(t, src.At(1, 4), dst2.At(1, 4))
	assert.NotEqual(t, src.At(2, 4), dst2.At(2, 4))
	thirteen := ThirteenPoint([13]float64{})
	assert.Equal(t, 2, thirteen.Radius())
	assert.Len(t, thirteen.Offsets, 13)
	assert.False(t, math.IsNaN(dst2.At(3, 4)))
}

// TestSevenPointFloat32RowsMatchPlainLoop covers the float32 row paths
// (the AVX2 rows of the assembly, or of GOEXPERIMENT=simd): rows of lengths that
// are and are not multiples of the vector width, against the float64
// plain loop.
func TestSevenPointFloat32RowsMatchPlainLoop(t *testing.T) {
	for _, nx := range []int{3, 9, 10, 17, 18, 19, 29, 34, 40, 67} {
		src, err := NewGrid3[float32](5, 6, nx)
		require.NoError(t, err)
		src.FillRandom(uint64(nx))
		c := randomDistinctCoeffs(uint64(nx) + 3)
		got := src.Clone()
		require.NoError(t, SevenPoint(got, src, c))
		want := Convert[float64](src)
		plainSevenPoint(want, Convert[float64](src), c)
		d, err := Compare(Convert[float64](got).Data, want.Data)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 2e-6, "nx = %d", nx)
	}
}

func TestGenericSweepsRefuseAliasedGrids(t *testing.T) {
	g2, _ := NewGrid2[float32](5, 5)
	assert.ErrorIs(t, Sweep2(g2, g2, FivePoint([5]float64{1, 1, 1, 1, 1})), ErrMismatch)
	g3, _ := NewCube[float32](5)
	assert.ErrorIs(t, Sweep3(g3, g3, SevenPointStencil(DistinctCoeffs())), ErrMismatch)
}
