package data

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
)

func TestRecordedRuns(t *testing.T) {
	b := &fig.Bench{Results: []fig.BenchResult{
		{Kernel: "basic", N: 512, Tile: 8, MedianMs: 0.6, GBps: 1600, CopyGBps: 4000, PctCopy: 40},
		{Kernel: "tiled", N: 512, Tile: 8, MedianMs: 1.3, GBps: 800, CopyGBps: 4000, PctCopy: 20},
	}}
	assert.Equal(t, []HopperRun{
		{Kernel: "basic", Config: "8×8×8 blocks", Ms: 0.6, PctCopy: 40},
		{Kernel: "tiled", Config: "T = 8", Ms: 1.3, PctCopy: 20},
	}, RecordedRuns(b))
}

func TestFromBench(t *testing.T) {
	b := &fig.Bench{Results: []fig.BenchResult{
		{Kernel: "tiled", N: 256, MedianMs: 1, GBps: 1, CopyGBps: 2},
		{Kernel: "tiled", N: 512, Tile: 8, MedianMs: 1.3, GBps: 800, CopyGBps: 4000},
		{Kernel: "basic", N: 512, MedianMs: 0.6, GBps: 1600, CopyGBps: 4000, PctCopy: 40},
		{Kernel: "fast", N: 512, Tile: 16, MedianMs: 0.3, GBps: 3200, CopyGBps: 4000},
		{Kernel: "fast", N: 1024, MedianMs: 2.3, GBps: 3600, CopyGBps: 4000},
	}}
	assert.Equal(t, []HopperRun{{Kernel: "fast", Config: "2.5D, z-marching", Ms: 2.3, PctCopy: 90}}, FromBench(b, 1024),
		"fast at its default tile 0 has its planes per block chosen per grid")
	runs := FromBench(b, 512)
	assert.Equal(t, []HopperRun{
		{Kernel: "basic", Config: "8×8×8 blocks", Ms: 0.6, PctCopy: 40},
		{Kernel: "tiled", Config: "T = 8", Ms: 1.3, PctCopy: 20},
		{Kernel: "fast", Config: "16 z planes per block", Ms: 0.3, PctCopy: 80},
	}, runs)
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "notebooks", "nbrun", "doc.go"))
	assert.NoError(t, err)
	assert.True(t, declaresModule("// c\nmodule stencillab.dev\n\ngo 1.24\n", "stencillab.dev"))
	assert.False(t, declaresModule("module stencillab.dev/x\n", "stencillab.dev"))
}

func TestMeasuredBench(t *testing.T) {
	root, err := RepoRoot()
	require.NoError(t, err)
	_, statErr := os.Stat(filepath.Join(root, BenchFile))
	b, err := MeasuredBench()
	if errors.Is(statErr, os.ErrNotExist) {
		assert.True(t, IsMissing(err), "%v", err)
		return
	}
	require.NoError(t, err)
	assert.NotEmpty(t, b.Results)
}

// Once the bench file is in the repository, notebook 07 reads it, draws it
// and takes the fast kernel's share from it. The file here has the shape
// `stencil bench -json` writes, extra fields included.
func TestMeasuredBenchReadsTheFile(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module stencillab.dev\n\ngo 1.24.4\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "figures", "data"), 0o755))
	const report = `{"device": "NVIDIA H200", "command": "stencil bench", "copy": [{"n": 512, "gbps": 4200}],
 "results": [
  {"kernel": "basic", "label": "basic", "n": 512, "tile": 8, "median_ms": 0.644, "gbps": 1650, "gflops": 2700, "copy_gbps": 4200, "pct_copy": 39.3},
  {"kernel": "fast", "label": "fast", "n": 512, "tile": 16, "median_ms": 0.31, "gbps": 3400, "gflops": 5600, "copy_gbps": 4200, "pct_copy": 81}
 ]}`
	require.NoError(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(BenchFile)), []byte(report), 0o644))
	sub := filepath.Join(root, "notebooks")
	require.NoError(t, os.Mkdir(sub, 0o755))
	t.Chdir(sub)

	b, err := MeasuredBench()
	require.NoError(t, err)
	assert.Equal(t, "NVIDIA H200", b.Device)
	require.Len(t, b.Results, 2)
	runs := FromBench(b, 512)
	require.Len(t, runs, 2)
	assert.Equal(t, HopperRun{Kernel: "fast", Config: "16 z planes per block", Ms: 0.31, PctCopy: 81}, runs[1])
	p, err := fig.Bandwidth(b)
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, fig.Tall, 60)
	require.NoError(t, err)
}
