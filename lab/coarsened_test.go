package lab

import (
	"fmt"
	"stencillab.dev/lab/sim"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCoarsenedKernelMatchesReference(t *testing.T) {
	for _, n := range []int{3, 4, 7, 31, 67} {
		for _, T := range []int{8, 16, 32} {
			t.Run(fmt.Sprintf("N=%d/T=%d", n, T), func(t *testing.T) {
				checkKernel(t, "coarsened", CoarsenedKernel, n, T)
			})
		}
	}
}

func TestCoarsenedKernelLaunch(t *testing.T) {
	k, err := CoarsenedKernel(StencilArgs{NZ: 64, NY: 64, NX: 64})
	require.NoError(t, err)
	// Default T = 32: 32×32 blocks, (64−2)/30 + 1 = 3 along each axis.
	assert.Equal(t, sim.Dim3{X: 32, Y: 32, Z: 1}, k.Block)
	assert.Equal(t, sim.Dim3{X: 3, Y: 3, Z: 3}, k.Grid)

	sc := newSweepCase(t, 20)
	s := &simT{tile: 12}
	require.NoError(t, s.Run(CoarsenedKernel, sc.dst, sc.src, sc.c))
	c, err := Cost("coarsened", 12)
	require.NoError(t, err)
	assert.Equal(t, c.SharedBytes, s.Last().SharedBytesPerBlock) // three planes
	assert.Equal(t, c.Threads, s.Last().Block.Size())
}

func TestCoarsenedKernelRejectsTheNotesBlock(t *testing.T) {
	sc := newSweepCase(t, 40)
	s := &simT{tile: 34}
	err := s.Run(CoarsenedKernel, sc.dst, sc.src, sc.c)
	require.ErrorIs(t, err, sim.ErrLimit)
	assert.Contains(t, err.Error(), "block 34×34 = 1156 threads exceeds 1024")
}
