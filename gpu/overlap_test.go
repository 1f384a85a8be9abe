package gpu

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/lab"
)

// The host-side checks refuse device buffers whose memory intersects, not
// only the same buffer; no driver is needed to check them.
func TestGridBuffersOverlapByRange(t *testing.T) {
	d := &Device{}
	base := uint64(1 << 20)
	src := &Buffer{d: d, ptr: base, n: 64}
	for _, off := range []uint64{0, 1, 36, 63} {
		dst := &Buffer{d: d, ptr: base + 4*off, n: 64}
		err := d.checkGridBuffers("seven-point sweep", dst, src, 4, 4, 4)
		assert.ErrorIs(t, err, lab.ErrMismatch, "offset %d floats", off)
		assert.ErrorContains(t, err, "share memory", "offset %d floats", off)
	}
	apart := &Buffer{d: d, ptr: base + 4*64, n: 64}
	assert.NoError(t, d.checkGridBuffers("seven-point sweep", apart, src, 4, 4, 4))
	_, _, _, err := d.copyLaunch(&Buffer{d: d, ptr: base + 4, n: 64}, src)
	assert.ErrorContains(t, err, "share memory")
}

// Device memory is checked before the two buffers of a sweep are
// allocated; the refusal names the largest cube that fits.
func TestDeviceMemoryNamesTheLargestFit(t *testing.T) {
	err := checkFitsTo("basic on a 2400×2400×2400 grid (source and destination)", 2*4*2400*2400*2400, 100e9, 141e9, lab.CubeFit(2))
	assert.ErrorIs(t, err, lab.ErrMemory)
	// 8·N³ ≤ 100e9 up to N = 2320 (2320³ = 1.2487e10, 2321³ = 1.2503e10).
	assert.EqualError(t, err, "gpu: basic on a 2400×2400×2400 grid (source and destination) needs 110.6 GB of device memory, more than the 100.0 GB free (of 141.0 GB): N ≤ 2320 fits")
}
