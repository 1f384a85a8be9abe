package star_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
)

// The constants agree with the lab's thirteen-point stencil, counted
// here point by point.
func TestConstantsCountTheStar(t *testing.T) {
	var c star.Coeffs
	s := lab.ThirteenPoint(c)
	assert.Len(t, c, len(s.Offsets), "one coefficient per point")
	assert.Equal(t, len(s.Offsets), star.Points)
	reach := 0
	for _, o := range s.Offsets {
		for _, d := range o {
			reach = max(reach, d, -d)
		}
	}
	assert.Equal(t, reach, star.Radius)
	assert.Equal(t, s.Radius(), star.Radius, "the lab's own reach")
	multiplies, adds := len(s.Offsets), len(s.Offsets)-1
	assert.Equal(t, multiplies+adds, star.Flops)
	assert.Equal(t, 25, star.Flops, "13 multiplies and 12 adds")
}

// A tile of the default sizes fits CUDA's limits: at most 1024 threads
// per block, and the coarsened kernel's five planes within 48 KiB.
func TestDefaultTilesFitTheDevice(t *testing.T) {
	assert.LessOrEqual(t, star.BasicBlockDim*star.BasicBlockDim*star.BasicBlockDim, 1024)
	assert.LessOrEqual(t, star.TiledDefaultTile*star.TiledDefaultTile*star.TiledDefaultTile, 1024)
	assert.Greater(t, star.TiledDefaultTile, 2*star.Radius, "an output tile is left")
	assert.LessOrEqual(t, star.CoarsenedDefaultTile*star.CoarsenedDefaultTile, 1024)
	assert.LessOrEqual(t, 5*star.CoarsenedDefaultTile*star.CoarsenedDefaultTile*4, 48*1024)
}
