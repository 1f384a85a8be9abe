package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/notebooks/nbrun/data"
)

// loadsPerAxis counts the (block, thread) pairs along one axis of a tiled
// launch whose point lies in the grid: the kernel loads one element for
// each such pair in all three axes.
func loadsPerAxis(n, tile int) int {
	out := tile - 2
	blocks := (n-2)/out + 1
	count := 0
	for b := range blocks {
		for t := range tile {
			if p := b*out + t - 1; p >= 0 && p < n {
				count++
			}
		}
	}
	return count
}

func TestModelShare(t *testing.T) {
	basic, err := ModelShare("basic", 512, 8)
	require.NoError(t, err)
	assert.InDelta(t, 25, basic, 1e-9, "8 ideal bytes over 7 loads and 1 store of 4 bytes")
	tiled, err := ModelShare("tiled", 512, 8)
	require.NoError(t, err)
	l := float64(loadsPerAxis(512, 8))
	out := 510.0 * 510 * 510
	assert.InDelta(t, 100*2*out/(l*l*l+out), tiled, 1e-9)
	_, err = ModelShare("fast", 512, 8)
	assert.Error(t, err)
}

// recorded returns the runs of notebook 07 from the committed bench file.
func recorded(t *testing.T) (*fig.Bench, []data.HopperRun) {
	t.Helper()
	b, err := data.MeasuredBench()
	require.NoError(t, err)
	return b, data.RecordedRuns(b)
}

func TestCompareModel(t *testing.T) {
	b, runs := recorded(t)
	s, err := CompareModel(runs)
	require.NoError(t, err)
	lines := strings.Split(s, "\n")
	at512 := map[string]fig.BenchResult{}
	for _, r := range b.Results {
		if r.N == 512 {
			at512[r.Kernel] = r
		}
	}
	// The record holds steps the lab registers (recorded ⊆ registered),
	// not necessarily all of them: a step added since has no run.
	var recordedSteps []string
	for _, step := range gpu.Steps3() {
		if _, ok := at512[step]; ok {
			recordedSteps = append(recordedSteps, step)
		}
	}
	assert.Len(t, recordedSteps, len(at512), "every kernel recorded at N = 512 is a registered step")
	require.Len(t, lines, len(recordedSteps)+1, "a header and the recorded steps")
	basic, tiled, fast := at512["basic"], at512["tiled"], at512["fast"]
	assert.Regexp(t, fmt.Sprintf(`^basic\s+8×8×8 blocks\s+%.3f\s+25 %%\s+%.0f %%$`, basic.MedianMs, basic.PctCopy), lines[1])
	assert.Regexp(t, fmt.Sprintf(`^tiled\s+T = 8\s+%.3f\s+\d+ %%\s+%.0f %%$`, tiled.MedianMs, tiled.PctCopy), lines[2])
	assert.Regexp(t, fmt.Sprintf(`^fast\s+.*%.3f\s+–\s+%.0f %%$`, fast.MedianMs, fast.PctCopy), lines[len(lines)-1])
}
