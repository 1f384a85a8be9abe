package data

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/notebooks/nbrun/data/datatest"
)

func TestComputeOnly(t *testing.T) {
	b := datatest.ScalingBench()
	for _, s := range b.Scaling {
		got, ok := ComputeOnly(s)
		require.True(t, ok)
		slowest := s.RankMs[0].Compute // rank 0 computes longest
		want := float64(s.BaseGPUs) * s.BaseMs / (float64(s.GPUs) * slowest)
		if s.Weak {
			want = s.BaseMs / slowest
		}
		assert.InDelta(t, want, got, 1e-12, "%d GPUs, N = %d, weak %v", s.GPUs, s.N, s.Weak)
		assert.GreaterOrEqual(t, got, s.Efficiency*0.9, "compute alone is no slower than the whole step")
	}
	_, ok := ComputeOnly(benchfile.Scale{GPUs: 2, BaseGPUs: 1, BaseMs: 1})
	assert.False(t, ok, "no per-GPU times, no compute-only line")
}

func TestTimelineRun(t *testing.T) {
	s, device, ok := TimelineRun([]*benchfile.File{datatest.ScalingBench()})
	require.True(t, ok)
	assert.Equal(t, "NVIDIA H100 80GB HBM3", device)
	assert.Equal(t, 4, s.GPUs)
	assert.Equal(t, 512, s.N)
	assert.False(t, s.Weak)
	_, _, ok = TimelineRun([]*benchfile.File{{}})
	assert.False(t, ok)
}

// TestReadBenches reads a bench file and an object of benches by name,
// as scripts/multigpu-gpu.sh gathers them, and keeps every scaling run.
func TestReadBenches(t *testing.T) {
	dir := t.TempDir()
	one, err := json.Marshal(datatest.ScalingBench())
	require.NoError(t, err)
	plain := filepath.Join(dir, "multigpu_gpu.json")
	require.NoError(t, os.WriteFile(plain, one, 0o644))
	bs, err := readBenches(plain)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	assert.Len(t, bs[0].Scaling, len(datatest.ScalingBench().Scaling))

	named := filepath.Join(dir, "multigpu_gpu_all.json")
	require.NoError(t, os.WriteFile(named, []byte(`{"weak": `+string(one)+`, "strong": `+string(one)+`}`), 0o644))
	bs, err = readBenches(named)
	require.NoError(t, err)
	assert.Len(t, bs, 2)

	bad := filepath.Join(dir, "multigpu_gpu_bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"strong": {"scaling": [{"kernel": "fast"}]}}`), 0o644))
	_, err = readBenches(bad)
	assert.ErrorContains(t, err, "strong")
}
