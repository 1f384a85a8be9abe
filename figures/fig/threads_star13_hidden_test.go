//go:build hidden

package fig

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab/sim"
)

// TestStar13RecordIsFresh checks that the committed record of the Star13
// figure's launch is what a fresh trace of the kernel records, byte for
// byte, so that it cannot go stale; with -regen it rewrites the record.
func TestStar13RecordIsFresh(t *testing.T) {
	fresh, err := RecordStar13()
	require.NoError(t, err)
	if *regen {
		require.NoError(t, os.WriteFile(Star13RecordFile, fresh, 0o644))
		return
	}
	onDisk, err := os.ReadFile(Star13RecordFile)
	require.NoError(t, err)
	assert.Equal(t, string(fresh), string(onDisk), "%s is stale: run go run -tags hidden ./figures", Star13RecordFile)
	assert.Equal(t, string(onDisk), string(star13Record), "the embedded record is the file")

	s, err := threadSpecOf(Star13)
	require.NoError(t, err)
	traced, err := TraceBlock(s.step, s.tile, s.n, s.blockIdx, s.plane)
	require.NoError(t, err)
	recorded, err := recordedStar13()
	require.NoError(t, err)
	assert.Equal(t, traced, recorded, "the record parses back to the trace")
}

// TestStar13KernelMatchesReference runs the tiled thirteen-point kernel on
// tiles and grid sides that do not divide one another; TraceBlock checks
// each launch's result against the CPU reference and refuses a mismatch.
func TestStar13KernelMatchesReference(t *testing.T) {
	require.True(t, Star13Traceable())
	for _, c := range []struct{ tile, n int }{{5, 7}, {6, 9}, {7, 11}, {8, 13}, {9, 10}} {
		bt, err := TraceBlock(Star13, c.tile, c.n, sim.Dim3{}, 2)
		require.NoError(t, err, "tile %d, n %d", c.tile, c.n)
		loads, outputs := expectRoles(threadSpec{step: Star13, tile: c.tile, n: c.n, plane: 2}, bt.Block)
		assert.Equal(t, loads, bt.Loads, "tile %d, n %d", c.tile, c.n)
		assert.Equal(t, outputs, bt.Outputs, "tile %d, n %d", c.tile, c.n)
	}
}
