package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

func TestGPUFieldsUseTheMedianKernelTime(t *testing.T) {
	geo := lab.Geometry{Grid: sim.Dim3{X: 64, Y: 64, Z: 64}, Block: sim.Dim3{X: 8, Y: 8, Z: 8}}
	res := lab.Result{NZ: 512, NY: 512, NX: 512, Launch: lab.Launch{Geometry: geo, Millis: 0.6}, Millis: []float64{0.9, 0.5, 0.6}}
	interior := 510 * 510 * 510
	fs := gpuFields(res)
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
	assert.Empty(t, gpuFields(lab.Result{}))
}

func TestRunGPUWithoutDriverFailsWithTheMessage(t *testing.T) {
	_, noGPU := gpu.Default()
	if noGPU == nil {
		t.Skip("a GPU is present: the no-driver path cannot be seen here")
	}
	code, out, errOut := stencil("run", "-backend", "gpu", "-kernel", "tiled", "-n", "16")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, noGPU.Error())
}
