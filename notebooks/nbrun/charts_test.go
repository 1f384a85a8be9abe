package nbrun

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
)

func TestTrafficPlot(t *testing.T) {
	basic, err := Simulate("basic", 20, 8)
	require.NoError(t, err)
	tiled, err := Simulate("tiled", 20, 8)
	require.NoError(t, err)
	p, err := TrafficPlot(basic, tiled)
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, TrafficHeight(2), 60)
	require.NoError(t, err)
	assert.Greater(t, TrafficHeight(4), TrafficHeight(2))

	_, err = TrafficPlot()
	assert.Error(t, err)
	_, err = TrafficPlot(Result{Result: lab.Result{Step: "basic", Backend: lab.GPU, NZ: 20, NY: 20, NX: 20}})
	assert.Error(t, err, "a GPU run has no counts to draw")
	assert.Equal(t, "basic, 8×8×8 blocks", label(basic))
	assert.Equal(t, "tiled, T = 8", label(tiled))
}

func TestModelVsMeasured(t *testing.T) {
	_, runs := recorded(t)
	p, err := ModelVsMeasured(runs, "the H200")
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, fig.Tall, 60)
	require.NoError(t, err)
	_, err = ModelVsMeasured(nil, "nothing")
	assert.Error(t, err)
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.5} {
		odd := append([]HopperRun(nil), runs...)
		odd[len(odd)-1].PctCopy = v
		_, err := ModelVsMeasured(odd, "the H200")
		assert.ErrorContains(t, err, "want a finite share of at least 0 %", "share %v", v)
	}
}

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

func TestShowBroken(t *testing.T) {
	var w bytes.Buffer
	r, err := ShowBroken(&w, "coarsened_loop_closes_early", 34, 0)
	require.NoError(t, err)
	assert.Contains(t, w.String(), "from: study notes, day 22")
	assert.Contains(t, w.String(), "0 right, 1024 wrong, 31744 never written, 0 boundary points written")
	assert.Equal(t, 32, r.Tile())

	w.Reset()
	_, err = ShowBroken(&w, "coarsened_block_34x34", 34, 0)
	require.NoError(t, err, "a refused launch is the lesson, not an error")
	assert.Contains(t, w.String(), "launch error: ")
	assert.Contains(t, w.String(), "1156 threads exceeds 1024")
	assert.Contains(t, w.String(), "nothing ran")

	w.Reset()
	_, err = ShowBroken(&w, "tiled_no_barrier", 20, 0)
	require.NoError(t, err)
	assert.Contains(t, w.String(), "hazards: ")
	assert.Contains(t, w.String(), "race: thread")

	w.Reset()
	_, err = ShowBroken(Notebook, "tiled_no_barrier", 20, 0)
	assert.NoError(t, err, "outside a notebook Notebook is standard output")

	_, err = ShowBroken(&w, "no_such_kernel", 20, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown)
	_, err = ShowBroken(&w, "tiled_no_barrier", 2, 0)
	assert.ErrorIs(t, err, lab.ErrSize)
}
