package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompareGatesTheRegionOnly(t *testing.T) {
	const n, lo, steps = 8, 2, 2
	want := make([]float32, n*n*n)
	for i := range want {
		want[i] = float32(i%7) - 3
	}
	got := append([]float32(nil), want...)
	g := Compare(got, want, n, lo, steps)
	require.True(t, g.Pass)
	require.Equal(t, (n-2*lo)*(n-2*lo)*(n-2*lo), g.Points)
	require.Equal(t, 3.0, g.Scale) // the largest |i%7 − 3|
	require.InDelta(t, Tolerance*steps*3, g.Tol, 1e-12)

	// A difference outside the region is not compared.
	got[(1*n+1)*n+1] += 100
	require.True(t, Compare(got, want, n, lo, steps).Pass)

	// One inside fails, and is found where it is.
	got[(3*n+4)*n+5] += 0.5
	g = Compare(got, want, n, lo, steps)
	require.False(t, g.Pass)
	require.Equal(t, 0.5, g.MaxAbsErr)
	require.Equal(t, [3]int{3, 4, 5}, g.Worst)

	// A NaN anywhere fails, even outside the region.
	got = append([]float32(nil), want...)
	got[0] = float32(math.NaN())
	g = Compare(got, want, n, lo, steps)
	require.False(t, g.Pass)
	require.Equal(t, 1, g.NonFinite)
}

func TestParseResult(t *testing.T) {
	var r Record
	ok := ParseResult("x\nEBISU_RESULT nx=512 steps=8 depth=8 tile_x=64 tile_y=32 grid=8,16,1 median_ms=1.5 min_ms=1.25 times_ms=1.5,1.25,2\n", &r)
	require.True(t, ok)
	require.Equal(t, 8, r.Depth)
	require.Equal(t, [3]int{8, 16, 1}, r.Grid)
	require.Equal(t, 1.5, r.MedianMs)
	require.Equal(t, []float64{1.5, 1.25, 2}, r.TimesMs)
	require.False(t, ParseResult("the launch failed\n", &Record{}))
}
