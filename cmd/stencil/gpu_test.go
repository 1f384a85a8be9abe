package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
)

func TestGPUFieldsUseTheMedianKernelTime(t *testing.T) {
	geo := gpu.Geometry{Grid: [3]int{64, 64, 64}, Block: [3]int{8, 8, 8}, SharedBytes: 0}
	m := gpu.Measurement{Geometry: geo, Millis: []float64{0.9, 0.5, 0.6}, Median: 0.6}
	interior := 510 * 510 * 510
	fs := gpuFields(m, interior)
	got := map[string]any{}
	for _, f := range fs {
		got[f.Key] = f.Value
	}
	require.Contains(t, got, "kernel_ms")
	assert.Equal(t, 0.6, got["kernel_ms"])
	assert.InDelta(t, 8*float64(interior)/0.6e6, got["kernel_gbps"], 1e-6)
	assert.InDelta(t, 13*float64(interior)/0.6e6, got["kernel_gflops"], 1e-6)
	assert.Equal(t, "64x64x64", got["grid"])
	assert.Equal(t, "8x8x8", got["block"])
	assert.Empty(t, gpuFields(gpu.Measurement{}, interior))
}

func TestRunGPUWithoutDriverFailsWithTheMessage(t *testing.T) {
	if _, err := gpu.Default(); err == nil {
		t.Skip("a GPU is present: the no-driver path cannot be seen here")
	}
	code, out, errOut := stencil("run", "-backend", "gpu", "-n", "16")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "no NVIDIA driver found")
}
