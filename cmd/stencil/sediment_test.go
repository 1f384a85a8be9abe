package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	gsed "stencillab.dev/gpu/sediment"
)

func TestSedimentCPUJSON(t *testing.T) {
	code, out, errOut := stencil("sediment", "-nx", "60", "-ny", "41", "-steps", "200", "-json")
	require.Equal(t, 0, code, errOut)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj), out)
	for _, k := range []string{"nx", "ny", "steps", "backend", "variant", "dt", "dt_limit", "seconds", "gflops", "mass0", "mass", "mass_drift", "s_min", "s_max"} {
		assert.Contains(t, obj, k)
	}
	assert.Equal(t, "reference", obj["variant"])
	assert.InDelta(t, 0, obj["mass_drift"], 1e-12, "zero-flux boundary")
	assert.GreaterOrEqual(t, obj["s_min"], 0.0)
	assert.LessOrEqual(t, obj["s_max"], 1.0)
	assert.LessOrEqual(t, obj["dt"], obj["dt_limit"])
	secs := obj["seconds"].(float64)
	assert.InDelta(t, 89*60*41*200/secs/1e9, obj["gflops"], 1e-9*obj["gflops"].(float64))
}

func TestSedimentDeltaInflow(t *testing.T) {
	code, out, errOut := stencil("sediment", "-nx", "32", "-ny", "48", "-steps", "50", "-scenario", "delta", "-json")
	require.Equal(t, 0, code, errOut)
	var obj struct {
		Dt        float64 `json:"dt"`
		Inflow    float64 `json:"inflow"`
		MassDrift float64 `json:"mass_drift"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &obj))
	// The river: the middle eighth of 48 rows, 6 faces of rate 0.04 and
	// spacing 1.
	assert.InDelta(t, 50*obj.Dt*6*0.04, obj.Inflow, 1e-12)
	assert.InDelta(t, 0, obj.MassDrift, 1e-12)
}

func TestSedimentSummary(t *testing.T) {
	code, out, _ := stencil("sediment", "-nx", "20", "-ny", "20", "-steps", "3")
	require.Equal(t, 0, code)
	for _, s := range []string{"Su et al., ICCS 2013", "20×20 interior points", "Mass drift:", "Sand fraction:", "GFLOP/s"} {
		assert.Contains(t, out, s)
	}
}

func TestSedimentBadInputExits2WithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"sediment", "-nx", "0"},
		{"sediment", "-steps", "-1"},
		{"sediment", "-backend", "sim"},
		{"sediment", "-variant", "opt9"},
		{"sediment", "-scenario", "lake"},
		{"sediment", "-scenario", "delta", "-nx", "4"},
		{"sediment", "-bench"},
		{"sediment", "-bench", "-backend", "gpu", "-tune", "8"},
		{"sediment", "-nx", "300000", "-ny", "300000"}, // beyond lab.MaxPoints
		{"sediment", "extra"},
		{"sediment", "-frobnicate"},
	} {
		code, out, errOut := stencil(args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "%v: %q", args, errOut)
		assert.True(t, strings.HasPrefix(errOut, "stencil sediment: "), "%v: %q", args, errOut)
	}
}

func TestParseTune(t *testing.T) {
	got, err := parseTune("32x4, 16x2x3f,64x8f")
	require.NoError(t, err)
	assert.Equal(t, []gsed.Options{{RY: 32, Warps: 4}, {RY: 16, Warps: 2, MinBlocks: 3, FastDiv: true},
		{RY: 64, Warps: 8, FastDiv: true}}, got)
	for _, bad := range []string{"32", "32x", "x4", "32x4x1x2", "32x0", "32x33", "0x4", "32x4x-1", "32x4x65", "32x4ff"} {
		_, err := parseTune(bad)
		assert.Error(t, err, bad)
	}
}

func TestSedimentGPUWithoutDriver(t *testing.T) {
	_, noGPU := gpu.Default()
	if !errors.Is(noGPU, gpu.ErrNoGPU) {
		t.Skip("this machine has a GPU; the test checks the message where there is none")
	}
	code, out, errOut := stencil("sediment", "-backend", "gpu", "-nx", "16", "-ny", "16")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, noGPU.Error())
}
