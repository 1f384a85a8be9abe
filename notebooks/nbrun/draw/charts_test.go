package draw

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/run"
)

func TestTrafficPlot(t *testing.T) {
	basic, err := run.Simulate("basic", 20, 8)
	require.NoError(t, err)
	tiled, err := run.Simulate("tiled", 20, 8)
	require.NoError(t, err)
	p, err := TrafficPlot(basic, tiled)
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, TrafficHeight(2), 60)
	require.NoError(t, err)
	assert.Greater(t, TrafficHeight(4), TrafficHeight(2))

	_, err = TrafficPlot()
	assert.Error(t, err)
	_, err = TrafficPlot(run.Result{Result: lab.Result{Step: "basic", Backend: lab.GPU, NZ: 20, NY: 20, NX: 20}})
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
		odd := append([]data.HopperRun(nil), runs...)
		odd[len(odd)-1].PctCopy = v
		_, err := ModelVsMeasured(odd, "the H200")
		assert.ErrorContains(t, err, "want a finite share of at least 0 %", "share %v", v)
	}
}
