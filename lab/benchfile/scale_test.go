package benchfile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// A bench of splits only (stencil bench -gpus) reads back with its
// scaling section, and a bad scaling record is refused naming its field.
func TestReadScaling(t *testing.T) {
	// Strong scaling at N = 512 on 1 and 4 GPUs: 0.384 and 0.125 ms.
	t1, t4 := 0.384, 0.125
	pts := 510.0 * 510 * 510
	f := File{Device: "NVIDIA H100", Scaling: []Scale{
		{Kernel: "fast", N: 512, NZ: 512, GPUs: 1, Devices: []int{0}, MedianMs: t1, PointsPerSec: pts / (t1 * 1e-3), BaseGPUs: 1, BaseMs: t1, Efficiency: 1},
		{Kernel: "fast", N: 512, NZ: 512, GPUs: 4, Devices: []int{0, 1, 2, 3}, MedianMs: t4, PointsPerSec: pts / (t4 * 1e-3), BaseGPUs: 1, BaseMs: t1,
			Efficiency: t1 / (4 * t4), RankMs: []lab.RankTime{{Compute: 0.1, Exchange: 0.02, Wait: 0.005}}},
	}}
	b, err := json.Marshal(f)
	require.NoError(t, err)
	g, err := Read(strings.NewReader(string(b)))
	require.NoError(t, err)
	assert.Equal(t, f.Scaling, g.Scaling)
	assert.InDelta(t, 0.768, g.Scaling[1].Efficiency, 1e-12)

	for field, bad := range map[string]Scale{
		"no kernel name":   {N: 512, NZ: 512, GPUs: 1, BaseGPUs: 1, MedianMs: 1, PointsPerSec: 1, BaseMs: 1},
		"nz = 2":           {Kernel: "fast", N: 512, NZ: 2, GPUs: 1, BaseGPUs: 1, MedianMs: 1, PointsPerSec: 1, BaseMs: 1},
		"0 GPUs":           {Kernel: "fast", N: 512, NZ: 512, BaseGPUs: 1, MedianMs: 1, PointsPerSec: 1, BaseMs: 1},
		"must be positive": {Kernel: "fast", N: 512, NZ: 512, GPUs: 2, BaseGPUs: 1, PointsPerSec: 1, BaseMs: 1},
		"efficiency -1":    {Kernel: "fast", N: 512, NZ: 512, GPUs: 2, BaseGPUs: 1, MedianMs: 1, PointsPerSec: 1, BaseMs: 1, Efficiency: -1},
	} {
		b, err := json.Marshal(File{Scaling: []Scale{bad}})
		require.NoError(t, err)
		_, err = Read(strings.NewReader(string(b)))
		require.ErrorIs(t, err, ErrInvalid, field)
		assert.Contains(t, err.Error(), field)
	}
}

// EfficiencyAt: strong scaling weighs the time by the GPUs, weak does not;
// seven times on 2 to 8 GPUs against a base on 2.
func TestEfficiencyAt(t *testing.T) {
	const baseMs = 0.91
	for i, ms := range []float64{0.13, 0.29, 0.37, 0.41, 0.53, 0.67, 0.71} {
		g := i + 2
		strong := Scale{GPUs: g, BaseGPUs: 2, BaseMs: baseMs}
		assert.InDelta(t, 2*baseMs/(float64(g)*ms), strong.EfficiencyAt(ms), 1e-12, "strong on %d", g)
		weak := strong
		weak.Weak = true
		assert.InDelta(t, baseMs/ms, weak.EfficiencyAt(ms), 1e-12, "weak on %d", g)
	}
}
