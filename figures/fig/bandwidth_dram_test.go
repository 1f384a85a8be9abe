package fig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
)

// TestBandwidthNamesCards: a roofline placed by DRAM traffic of another
// card says so in the chart's title and the roofline's x label.
func TestBandwidthNamesCards(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dram.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"device": "NVIDIA H100 80GB HBM3", "runs": [{"kernel": "basic", "n": 10, "dram_bytes": 4096}]}`), 0o644))
	dev, err := LoadDRAMDevice(path)
	require.NoError(t, err)
	assert.Equal(t, "NVIDIA H100 80GB HBM3", dev)
	d, err := LoadDRAMTraffic(path, 10)
	require.NoError(t, err)

	b := &Bench{Device: "NVIDIA H200", Results: []BenchResult{{Kernel: "basic", N: 10, Tile: 8, MedianMs: 1, GBps: 100, GFlops: 160, CopyGBps: 200, PctCopy: 50}}}
	p, err := BandwidthWith(b, BandwidthOptions{N: 10, DRAM: d, DRAMDevice: dev})
	require.NoError(t, err)
	assert.Equal(t, "Measured on NVIDIA H200; DRAM bytes (B's x) on NVIDIA H100", p.Title)
	assert.Equal(t, "OP per DRAM byte (NVIDIA H100)", rooflineXLabel(t, p))

	same, err := BandwidthWith(b, BandwidthOptions{N: 10, DRAM: d, DRAMDevice: "NVIDIA H200"})
	require.NoError(t, err)
	assert.Equal(t, "Measured on NVIDIA H200", same.Title)

	plain, err := BandwidthWith(b, BandwidthOptions{N: 10})
	require.NoError(t, err)
	assert.Equal(t, "Measured on NVIDIA H200", plain.Title)
	assert.Equal(t, "OP per byte moved", rooflineXLabel(t, plain))

	require.NoError(t, os.WriteFile(path, []byte(`{"runs": []}`), 0o644))
	_, err = LoadDRAMDevice(path)
	assert.ErrorIs(t, err, ErrBench)
	_, err = LoadDRAMDevice(filepath.Join(dir, "none.json"))
	assert.Error(t, err)
}

func rooflineXLabel(t *testing.T, p *Panels) string {
	t.Helper()
	require.Len(t, p.Items, 2)
	pl, ok := p.Items[1].(*plot.Plot)
	require.True(t, ok, "the roofline is a plot: %T", p.Items[1])
	return pl.X.Label.Text
}
