package lab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab/sim"
)

// cut returns two 4×4×4 grids cut from one array, src at offset 0 and dst
// at offset off: for 0 < off < 64 their elements overlap.
func cut(off int) (dst, src *Grid3[float32]) {
	buf := make([]float32, 64+off)
	for i := range buf {
		buf[i] = float32(i%7) - 3
	}
	src = &Grid3[float32]{NZ: 4, NY: 4, NX: 4, Data: buf[:64]}
	dst = &Grid3[float32]{NZ: 4, NY: 4, NX: 4, Data: buf[off : off+64]}
	return dst, src
}

func TestOverlapByAddressRange(t *testing.T) {
	buf := make([]float32, 100)
	assert.True(t, Overlap(buf[0:64], buf[1:65]))
	assert.True(t, Overlap(buf[36:100], buf[0:64]))
	assert.True(t, Overlap(buf[63:64], buf[0:64]), "one shared element")
	assert.False(t, Overlap(buf[0:50], buf[50:100]), "adjacent, not overlapping")
	assert.False(t, Overlap(buf[0:0], buf[0:10]), "empty")
	assert.False(t, Overlap(make([]float32, 64), make([]float32, 64)))
}

// Grids cut from one array at offsets 1 and 36 are refused by the CPU
// sweeps and the simulated tiled kernel, which used to return nil with
// most interior points wrong; grids that merely sit side by side are not.
func TestOverlappingGridsAreRefused(t *testing.T) {
	c := DistinctCoeffs()
	for _, off := range []int{1, 36, 0} {
		dst, src := cut(off)
		err := SevenPointThreads(dst, src, c, 1)
		require.ErrorIs(t, err, ErrMismatch, "offset %d", off)
		if off > 0 {
			assert.ErrorContains(t, err, "dst and src share memory")
		}
		assert.ErrorIs(t, SevenPointThreads(dst, src, c, 4), ErrMismatch, "offset %d", off)
		assert.ErrorIs(t, Sweep3(dst, src, SevenPointStencil(c)), ErrMismatch, "offset %d", off)
		_, err = Simulate(&sim.Simulator{}, TiledKernel, Config{Tile: 4}, dst, src, c)
		assert.ErrorIs(t, err, ErrMismatch, "offset %d", off)
		_, err = Execute(Run{Step: "tiled", Backend: Sim, Src: src, Dst: dst, C: c})
		assert.ErrorIs(t, err, ErrMismatch, "offset %d", off)
	}
	// Side by side in one array (offset 64): no overlap, a valid sweep.
	dst, src := cut(64)
	require.NoError(t, SevenPointThreads(dst, src, c, 1))
	want := &Grid3[float32]{NZ: 4, NY: 4, NX: 4, Data: make([]float32, 64)}
	require.NoError(t, Sweep3(want, src, SevenPointStencil(c)))
	for i := 1; i < 3; i++ {
		for j := 1; j < 3; j++ {
			for k := 1; k < 3; k++ {
				assert.InDelta(t, want.At(i, j, k), dst.At(i, j, k), 1e-6)
			}
		}
	}
	// 1D and 2D sweeps too.
	buf := make([]float64, 40)
	a := &Grid2[float64]{NY: 5, NX: 5, Data: buf[:25]}
	b := &Grid2[float64]{NY: 5, NX: 5, Data: buf[7:32]}
	assert.ErrorIs(t, Sweep2(b, a, FivePoint([5]float64{1, 2, 3, 4, 5})), ErrMismatch)
}
