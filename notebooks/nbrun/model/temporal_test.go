package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/run"
)

func TestSimulateTemporal(t *testing.T) {
	runs, err := SimulateTemporal(13, []int{1, 2})
	require.NoError(t, err)
	require.Len(t, runs, 2)
	for _, r := range runs {
		// One block covers the 13³ grid: every point loaded once, every
		// interior point stored once, whatever k.
		assert.Equal(t, int64(13*13*13), r.Loads)
		assert.Equal(t, int64(11*11*11), r.Stores)
		assert.LessOrEqual(t, r.MaxDiff, run.Tolerance*float64(r.K))
	}
	assert.Greater(t, runs[1].OpPerByte, runs[0].OpPerByte)
	assert.Contains(t, TemporalSimTable(runs), "loads/pt/step")
	_, err = SimulateTemporal(2, []int{1})
	assert.ErrorIs(t, err, lab.ErrSize)
}
