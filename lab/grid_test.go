package lab

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGrid3IndexIsChapterRowMajor(t *testing.T) {
	g, err := NewGrid3[float32](4, 5, 6)
	require.NoError(t, err)
	// The chapter's index i*N*N + j*N + k generalised to NY, NX.
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			for k := 0; k < 6; k++ {
				assert.Equal(t, i*5*6+j*6+k, g.Index(i, j, k))
			}
		}
	}
	g.Set(2, 3, 4, 7)
	assert.Equal(t, float32(7), g.Data[2*30+3*6+4])
	assert.Equal(t, float32(7), g.At(2, 3, 4))
	assert.Equal(t, 2*3*4, g.Interior())
}

func TestNewCubeRejectsSmallSides(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 2} {
		_, err := NewCube[float64](n)
		require.Error(t, err, "n = %d", n)
		assert.ErrorIs(t, err, ErrSize)
		assert.Contains(t, err.Error(), "below 3")
	}
	g, err := NewCube[float64](3)
	require.NoError(t, err)
	assert.Equal(t, 27, g.Len())
	_, err = NewGrid3[float32](0, 4, 4)
	assert.ErrorIs(t, err, ErrSize)
	_, err = NewGrid3[float32](1<<12, 1<<12, 1<<13) // 2³⁷ points, beyond MaxPoints
	assert.ErrorContains(t, err, "exceeds the limit")
}

func TestFillRandomIsSeededAndSpread(t *testing.T) {
	a, _ := NewCube[float32](9)
	b, _ := NewCube[float32](9)
	c, _ := NewCube[float32](9)
	a.FillRandom(7)
	b.FillRandom(7)
	c.FillRandom(8)
	assert.Equal(t, a.Data, b.Data)
	assert.NotEqual(t, a.Data, c.Data)
	var lo, hi float32 = 1, -1
	zeros := 0
	for _, v := range a.Data {
		lo, hi = min(lo, v), max(hi, v)
		if v == 0 {
			zeros++
		}
	}
	assert.GreaterOrEqual(t, lo, float32(-1))
	assert.Less(t, hi, float32(1))
	assert.Less(t, lo, float32(-0.5), "values should spread over [-1, 1)")
	assert.Greater(t, hi, float32(0.5))
	assert.Zero(t, zeros)
}

func TestCompare(t *testing.T) {
	want := []float64{1, 2, 3, 4}
	got := []float64{1, 2.5, 3, 4}
	d, err := Compare(got, want)
	require.NoError(t, err)
	assert.InDelta(t, 0.5, d.MaxAbs, 1e-15)
	assert.Equal(t, 1, d.Worst)
	assert.InDelta(t, 0.5/math.Sqrt(30), d.RelL2, 1e-15)

	d, err = Compare(want, want)
	require.NoError(t, err)
	assert.Zero(t, d.MaxAbs)
	assert.Equal(t, -1, d.Worst)

	g, _ := NewCube[float32](3)
	w, _ := NewCube[float32](3)
	g.Poison()
	d, err = Compare3(g, w)
	require.NoError(t, err)
	assert.True(t, math.IsInf(d.MaxAbs, 1), "a NaN where a number is wanted is an infinite error")

	_, err = Compare([]float32{1}, []float32{1, 2})
	assert.ErrorIs(t, err, ErrMismatch)
}

func TestMismatchedGrids(t *testing.T) {
	a, _ := NewGrid3[float32](4, 4, 4)
	b, _ := NewGrid3[float32](4, 4, 5)
	err := SevenPoint(a, b, DistinctCoeffs())
	require.ErrorIs(t, err, ErrMismatch)
	assert.Contains(t, err.Error(), "4×4×4 does not match grid 4×4×5")
	_, err = Compare3(a, b)
	assert.ErrorIs(t, err, ErrMismatch)
	assert.ErrorIs(t, SevenPoint(a, a, DistinctCoeffs()), ErrMismatch, "aliasing dst and src")
	assert.ErrorIs(t, SevenPoint(nil, a, DistinctCoeffs()), ErrMismatch)

	p, _ := NewGrid2[float64](4, 4)
	q, _ := NewGrid2[float64](5, 4)
	assert.ErrorIs(t, Sweep2(p, q, FivePoint([5]float64{1, 1, 1, 1, 1})), ErrMismatch)
}
