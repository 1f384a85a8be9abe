package run

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"stencillab.dev/lab"
)

func TestDefaultTile(t *testing.T) {
	// A broken kernel, a step, or a kernel of one's own under a step's
	// name, run with tile 0, take the step's default.
	for name, want := range map[string]int{"tiled_no_barrier": 8, "register_tiled_no_second_barrier": 32, "coarsened": 32, "basic": 8} {
		r, _ := Simulate(name, 12, 0)
		assert.Equal(t, want, r.Tile(), name)
	}
	_, err := Simulate("tiledx", 12, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown)
}
