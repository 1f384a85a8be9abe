package lab

import (
	"fmt"
	"stencillab.dev/lab/sim"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTiledKernelMatchesReference(t *testing.T) {
	for _, n := range []int{3, 4, 7, 31, 67} {
		for _, T := range []int{4, 8, 10} {
			t.Run(fmt.Sprintf("N=%d/T=%d", n, T), func(t *testing.T) {
				checkKernel(t, "tiled", TiledKernel, n, T)
			})
		}
	}
}

func TestTiledKernelSharedTraffic(t *testing.T) {
	const n, T = 29, 7
	sc := newSweepCase(t, n)
	s := &simT{tile: T}
	require.NoError(t, s.Run(TiledKernel, sc.dst, sc.src, sc.c))
	st := s.Last()
	// Every global load goes to in_s; every output reads in_s seven times.
	assert.Equal(t, st.GlobalLoads, st.SharedStores)
	assert.Equal(t, 7*int64((n-2)*(n-2)*(n-2)), st.SharedLoads)
	c, err := Cost("tiled", T)
	require.NoError(t, err)
	assert.Equal(t, c.SharedBytes, st.SharedBytesPerBlock)
	assert.Equal(t, sim.Dim3{X: T, Y: T, Z: T}, st.Block)
	// (29−2)/5 + 1 = 6 blocks along each axis.
	assert.Equal(t, sim.Dim3{X: 6, Y: 6, Z: 6}, st.Grid)
}

func TestTiledKernelRejectsLargeTiles(t *testing.T) {
	sc := newSweepCase(t, 12)
	s := &simT{tile: 11}
	err := s.Run(TiledKernel, sc.dst, sc.src, sc.c)
	require.ErrorIs(t, err, sim.ErrLimit)
	assert.Contains(t, err.Error(), "block 11×11×11 = 1331 threads exceeds 1024")
	// Nothing ran: the interior is still NaN.
	assert.True(t, sc.dst.At(5, 5, 5) != sc.dst.At(5, 5, 5))
	// T = 10 is the largest tile within 1024 threads, as MaxTile says.
	T, bound, err := MaxTile("tiled", sim.DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, 10, T)
	assert.Equal(t, "threads", bound)
}
