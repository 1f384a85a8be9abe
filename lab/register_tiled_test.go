package lab

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegisterTiledKernelMatchesReference(t *testing.T) {
	for _, n := range []int{3, 4, 7, 31, 67} {
		for _, T := range []int{8, 16, 32} {
			t.Run(fmt.Sprintf("N=%d/T=%d", n, T), func(t *testing.T) {
				checkKernel(t, "register_tiled", RegisterTiledKernel, n, T)
			})
		}
	}
}

func TestRegisterTiledKernelSharesOnePlane(t *testing.T) {
	const n, T = 26, 10
	sc := newSweepCase(t, n)
	s := &simT{tile: T}
	require.NoError(t, s.Run(RegisterTiledKernel, sc.dst, sc.src, sc.c))
	st := s.Last()
	c, err := Cost("register_tiled", T)
	require.NoError(t, err)
	assert.Equal(t, c.SharedBytes, st.SharedBytesPerBlock)
	// The centre and the z neighbours come from registers: four shared
	// loads per output, against seven for the coarsened kernel.
	assert.Equal(t, 4*int64((n-2)*(n-2)*(n-2)), st.SharedLoads)

	require.NoError(t, s.Run(CoarsenedKernel, sc.dst, sc.src, sc.c))
	assert.Equal(t, 3*c.SharedBytes, s.Last().SharedBytesPerBlock)
	assert.Greater(t, s.Last().SharedLoads, 7*int64((n-2)*(n-2)*(n-2)))
}
