package draw

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/data/datatest"
)

func TestScalingOutputs(t *testing.T) {
	b := datatest.ScalingBench()
	table := data.ScalingTable([]*benchfile.File{b})
	assert.Contains(t, table, "NVIDIA H100 80GB HBM3")
	assert.Contains(t, table, "compute-only %")
	p, err := ScalingChart([]*benchfile.File{b})
	require.NoError(t, err)
	_, err = fig.PNG(p, fig.Wide, fig.Tall, 72)
	require.NoError(t, err)
	s, _, _ := data.TimelineRun([]*benchfile.File{b})
	d, err := TimelineChart(b.Device, s)
	require.NoError(t, err)
	_, err = fig.PNG(d, fig.Wide, fig.Tall, 72)
	require.NoError(t, err)
	_, err = TimelineChart(b.Device, benchfile.Scale{Kernel: "fast", GPUs: 2})
	assert.ErrorContains(t, err, "no per-GPU times")
}
