package lab

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The parallel reference of the thirteen-point star is the plain loop of
// Sweep3 with ThirteenPoint, on odd shapes, and leaves the boundary shell,
// two points deep, as it was.
func TestThirteenPointSweepIsSweep3(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2))
	c := DistinctCoeffs13()
	seen := map[float64]bool{}
	for _, v := range c {
		seen[v] = true
	}
	assert.Len(t, seen, 13, "thirteen distinct coefficients")
	for _, shape := range [][3]int{{5, 5, 5}, {6, 9, 7}, {17, 5, 31}, {33, 34, 35}} {
		src, err := NewGrid3[float32](shape[0], shape[1], shape[2])
		require.NoError(t, err)
		for i := range src.Data {
			src.Data[i] = float32(2*r.Float64() - 1)
		}
		got, want := src.Clone(), src.Clone()
		for i := range got.Data {
			got.Data[i], want.Data[i] = -7, -7
		}
		require.NoError(t, ThirteenPointSweep(got, src, c))
		require.NoError(t, Sweep3(want, src, ThirteenPoint(c)))
		d, err := Compare3(got, want)
		require.NoError(t, err)
		assert.LessOrEqual(t, d.MaxAbs, 1e-6, "%v", shape)
		assert.Equal(t, float32(-7), got.At(1, 2, 2), "boundary shell untouched")
		assert.Equal(t, float32(-7), got.At(2, 2, shape[2]-2), "boundary shell untouched")
	}
	g, _ := NewCube[float32](4)
	assert.ErrorIs(t, ThirteenPointSweep(g, g.Clone(), c), ErrSize)
	assert.ErrorIs(t, ThirteenPointSweep(g, g, c), ErrSize)
	h, _ := NewCube[float32](6)
	assert.ErrorIs(t, ThirteenPointSweep(h, h, c), ErrMismatch)
}

// Advance13 is that many sweeps of Sweep3, ping-ponging, the boundary
// shell fixed.
func TestAdvance13(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	c := DistinctCoeffs13()
	src, err := NewGrid3[float32](9, 11, 10)
	require.NoError(t, err)
	for i := range src.Data {
		src.Data[i] = float32(2*r.Float64() - 1)
	}
	got := src.Clone()
	require.NoError(t, Advance13(got, src, c, 3))
	cur, next := src.Clone(), src.Clone()
	for range 3 {
		require.NoError(t, Sweep3(next, cur, ThirteenPoint(c)))
		cur, next = next, cur
	}
	d, err := Compare3(got, cur)
	require.NoError(t, err)
	assert.LessOrEqual(t, d.MaxAbs, 1e-5)
	assert.Equal(t, src.At(0, 5, 5), got.At(0, 5, 5))
	assert.Equal(t, src.At(4, 1, 5), got.At(4, 1, 5))
	assert.Error(t, Advance13(got, src, c, 0))
}

// A step of radius 2 is device code only: the parts that take the
// seven-point star's coefficients are refused, and a radius other than 1
// or 2 too; the registered thirteen-point steps keep out of the
// seven-point predicates.
func TestRadiusTwoSteps(t *testing.T) {
	base := Step3{Step: Step{Name: "x13", Title: "t", Notebook: "n"}, Radius: 2, CUDA: CUDA{File: "x.cu", Entry: "x"}}
	assert.NoError(t, base.validate())
	withSweep := base
	withSweep.Sweep = SevenPoint[float32]
	assert.ErrorIs(t, withSweep.validate(), ErrIncomplete)
	three := base
	three.Radius = 3
	assert.ErrorIs(t, three.validate(), ErrIncomplete)
	noCUDA := base
	noCUDA.CUDA, noCUDA.Sweep = CUDA{}, nil
	assert.ErrorIs(t, noCUDA.validate(), ErrIncomplete)
	var thirteen int
	for _, s := range Steps3() {
		if s.StarRadius() == Radius13 {
			thirteen++
			assert.False(t, SevenPointStep(s), s.Name)
			assert.True(t, OnGPU(s), s.Name)
			assert.Nil(t, s.Sweep, s.Name)
			assert.Nil(t, s.Kernel, s.Name)
		} else {
			assert.True(t, SevenPointStep(s), s.Name)
		}
	}
	assert.Equal(t, 2, thirteen, "a single sweep and a temporal step")
}
