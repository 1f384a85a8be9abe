package fig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadDRAMTraffic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dram.json")
	// 10 bytes for each of the 8³ interior points of N = 10, 8 for fast.
	require.NoError(t, os.WriteFile(path, []byte(`{"device": "x", "runs": [
		{"kernel": "basic", "n": 10, "dram_bytes": 5120},
		{"kernel": "fast", "n": 10, "dram_bytes": 4096},
		{"kernel": "temporal", "n": 10, "time_steps": 4, "dram_bytes": 4096},
		{"kernel": "temporal", "label": "temporal[tile=8]", "n": 10, "time_steps": 8, "dram_bytes": 4096},
		{"kernel": "basic", "n": 12, "dram_bytes": 1}]}`), 0o644))
	d, err := LoadDRAMTraffic(path, 10)
	require.NoError(t, err)
	// temporal: 8 bytes a point over 4 time steps; its variant left out.
	assert.Equal(t, DRAMTraffic{"basic": 10, "fast": 8, "temporal": 2}, d)

	_, err = LoadDRAMTraffic(path, 64)
	assert.ErrorContains(t, err, "no runs at N = 64")
	_, err = LoadDRAMTraffic(filepath.Join(t.TempDir(), "none.json"), 10)
	assert.Error(t, err)

	basic := BenchResult{Kernel: "basic", N: 10, Tile: 8}
	x, byCount := rooflineX(basic, d)
	assert.InDelta(t, 1.3, x, 1e-12, "13 operations over 10 measured bytes")
	assert.False(t, byCount)
	x, byCount = rooflineX(basic, nil)
	assert.InDelta(t, 13.0/32, x, 1e-12, "the chapter's count: 7 loads and a store of 4 bytes")
	assert.True(t, byCount)

	b := &Bench{Device: "NVIDIA H200", Results: []BenchResult{
		{Kernel: "basic", N: 10, Tile: 8, MedianMs: 1, GBps: 1000, GFlops: 1625, CopyGBps: 4000, PctCopy: 25},
	}}
	_, err = BandwidthWith(b, BandwidthOptions{N: 10, DRAM: d})
	require.NoError(t, err)
	_, err = BandwidthWith(b, BandwidthOptions{N: 512})
	assert.ErrorContains(t, err, "no results at N = 512")
}
