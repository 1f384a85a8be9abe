package draw

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
)

// The summary's numbers are the cost model's, worked out again here from
// the block's geometry for the two kernels the chapter counts by hand.
func TestKernelSummaryCountsAsTheChapter(t *testing.T) {
	b := &fig.Bench{Device: "NVIDIA H200", Results: []fig.BenchResult{
		{Kernel: "tiled", N: SummaryN, Tile: 8, PctCopy: 17.9},
		{Kernel: "basic", N: SummaryN, Tile: 8, GBps: 1000, CopyGBps: 4000},
	}}
	s, err := KernelSummary(b)
	require.NoError(t, err)
	lines := strings.Split(s, "\n")
	row := func(kernel string) string {
		for _, l := range lines {
			if strings.HasPrefix(l, kernel+" ") {
				return l
			}
		}
		t.Fatalf("no row for %s in\n%s", kernel, s)
		return ""
	}
	// Tiled, T = 8: 8³ threads, 8³ floats of shared memory, 6³ outputs
	// from 8³ loads.
	T := 8
	out, loads := (T-2)*(T-2)*(T-2), T*T*T
	tiled := row("tiled")
	assert.Contains(t, tiled, fmt.Sprintf(" %d ", T*T*T))
	assert.Contains(t, tiled, fmt.Sprintf(" %d ", 4*T*T*T))
	assert.Contains(t, tiled, fmt.Sprintf("13·%d/(4·%d) = %.2f", out, loads, 13*float64(out)/(4*float64(loads))))
	assert.Contains(t, tiled, fmt.Sprintf("%.2f", float64(loads)/float64(out)))
	assert.True(t, strings.HasSuffix(strings.TrimSpace(tiled), "17.9"), tiled)
	// Basic: seven loads per point, the share worked out from the
	// bandwidths.
	basic := row("basic")
	assert.Contains(t, basic, "7.00")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(basic), "25.0"), basic)
	assert.Contains(t, s, "NVIDIA H200")
	// Every kernel of the model has a row, also without a bench.
	none, err := KernelSummary(nil)
	require.NoError(t, err)
	for _, step := range lab.Steps3() {
		if lab.InModel(step) {
			assert.Contains(t, none, step.Name+" ")
		}
	}
	assert.Contains(t, none, "no recorded run")
}
