package gpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStreamLaunch sweeps on two streams of different priority at once,
// into two outputs, and compares both with the default stream's sweep bit
// for bit.
func TestStreamLaunch(t *testing.T) {
	d := device(t)
	k, err := d.Stencil3("fast", Options{})
	require.NoError(t, err)
	const nz, ny, nx = 37, 29, 44
	seed := freshSeed()
	c := randomCoeffs(seed)
	src, err := d.Alloc(nz * ny * nx)
	require.NoError(t, err)
	defer src.Free()
	require.NoError(t, src.FillRandom(seed))
	var outs [3]*Buffer
	for i := range outs {
		outs[i], err = d.Alloc(nz * ny * nx)
		require.NoError(t, err)
		defer outs[i].Free()
		require.NoError(t, outs[i].Poison())
	}
	_, err = k.Launch(outs[0], src, nz, ny, nx, c)
	require.NoError(t, err)
	var streams []*Stream
	for i, high := range []bool{false, true} {
		s, err := d.NewStream(high)
		require.NoError(t, err)
		defer s.Close()
		streams = append(streams, s)
		_, err = k.LaunchAsync(s, outs[1+i], src, nz, ny, nx, c)
		require.NoError(t, err)
	}
	// Non-blocking streams: the default stream's copies do not wait for
	// them, so synchronise first.
	for _, s := range streams {
		require.NoError(t, s.Synchronize())
	}
	want := make([]float32, nz*ny*nx)
	require.NoError(t, outs[0].Download(0, want))
	for i := 1; i < 3; i++ {
		got := make([]float32, nz*ny*nx)
		require.NoError(t, outs[i].Download(0, got))
		for j := range got {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				require.Failf(t, "stream launch differs", "stream %d, point %d: %g, default stream %g", i, j, got[j], want[j])
			}
		}
	}
	s, err := d.NewStream(false)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice")
	_, err = k.LaunchAsync(s, outs[1], src, nz, ny, nx, c)
	assert.Error(t, err, "a closed stream")
}
