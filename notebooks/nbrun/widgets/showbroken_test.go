package widgets

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/draw"
)

func TestShowBroken(t *testing.T) {
	var w bytes.Buffer
	r, err := draw.ShowBroken(&w, "coarsened_loop_closes_early", 34, 0)
	require.NoError(t, err)
	assert.Contains(t, w.String(), "from: study notes, day 22")
	assert.Contains(t, w.String(), "0 right, 1024 wrong, 31744 never written, 0 boundary points written")
	assert.Equal(t, 32, r.Tile())

	w.Reset()
	_, err = draw.ShowBroken(&w, "coarsened_block_34x34", 34, 0)
	require.NoError(t, err, "a refused launch is the lesson, not an error")
	assert.Contains(t, w.String(), "launch error: ")
	assert.Contains(t, w.String(), "1156 threads exceeds 1024")
	assert.Contains(t, w.String(), "nothing ran")

	w.Reset()
	_, err = draw.ShowBroken(&w, "tiled_no_barrier", 20, 0)
	require.NoError(t, err)
	assert.Contains(t, w.String(), "hazards: ")
	assert.Contains(t, w.String(), "race: thread")

	w.Reset()
	_, err = draw.ShowBroken(Notebook, "tiled_no_barrier", 20, 0)
	assert.NoError(t, err, "outside a notebook Notebook is standard output")

	_, err = draw.ShowBroken(&w, "no_such_kernel", 20, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown)
	_, err = draw.ShowBroken(&w, "tiled_no_barrier", 2, 0)
	assert.ErrorIs(t, err, lab.ErrSize)
}
