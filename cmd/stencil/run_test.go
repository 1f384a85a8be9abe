package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

func stencil(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = dispatch(args, &o, &e)
	return code, o.String(), e.String()
}

func TestRunReferenceJSON(t *testing.T) {
	code, out, errOut := stencil("run", "-kernel", "reference", "-backend", "cpu", "-n", "40", "-json", "-check", "-reps", "1")
	require.Equal(t, 0, code, errOut)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj), out)
	for _, k := range []string{"kernel", "backend", "n", "tile", "ms", "gbps", "gflops", "max_abs_err"} {
		assert.Contains(t, obj, k)
	}
	assert.Equal(t, "reference", obj["kernel"])
	assert.Equal(t, "cpu", obj["backend"])
	assert.Equal(t, 40.0, obj["n"])
	ms := obj["ms"].(float64)
	require.Greater(t, ms, 0.0)
	interior := 38.0 * 38 * 38
	assert.InDelta(t, 8*interior/(ms*1e6), obj["gbps"], 1e-9*obj["gbps"].(float64))
	assert.InDelta(t, 13*interior/(ms*1e6), obj["gflops"], 1e-9*obj["gflops"].(float64))
	// float32 arithmetic against a float64 sweep on data of order one.
	assert.Less(t, obj["max_abs_err"].(float64), 1e-5)
}

func TestRunWithoutCheckHasNullError(t *testing.T) {
	code, out, _ := stencil("run", "-n", "5", "-json", "-reps", "1")
	require.Equal(t, 0, code)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj))
	assert.Contains(t, obj, "max_abs_err")
	assert.Nil(t, obj["max_abs_err"])
}

func TestRunSummary(t *testing.T) {
	code, out, _ := stencil("run", "-n", "12", "-check", "-reps", "1")
	require.Equal(t, 0, code)
	for _, s := range []string{"Grid size:", "12×12×12", "Time:", "Throughput:", "GB/s", "GFLOP/s", "Max abs error:"} {
		assert.Contains(t, out, s)
	}
}

func TestRunBadInputExits2WithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-n", "2"},
		{"run", "-n", "-5"},
		{"run", "-foo"},
		{"run", "-kernel", "nope"},
		{"run", "-backend", "tpu"},
		{"run", "-tile", "-1"},
		{"run", "-reps", "0"},
		{"run", "-n", "abc"},
		{"run", "extra"},
		{"run", "-block", "32x8"},
		{"run", "-block", "0x8x1"},
		{"run", "-block", "64x32x1"},
		{"run", "-kernel", "tiled", "-backend", "sim", "-block", "32x8x1"},
		{"nosuchcommand"},
	} {
		code, out, errOut := stencil(args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out, "%v", args)
		assert.Equal(t, 1, strings.Count(strings.TrimRight(errOut, "\n"), "\n")+1, "one line for %v: %q", args, errOut)
	}
	_, _, errOut := stencil("run", "-n", "2")
	assert.Contains(t, errOut, "N ≥ 3")
}

func TestStepsListsTheCatalogue(t *testing.T) {
	code, out, _ := stencil("steps")
	require.Equal(t, 0, code)
	for _, s := range lab.Steps() {
		assert.Contains(t, out, s.Name)
	}
}

func TestRunBlockShapesTheBasicKernel(t *testing.T) {
	code, out, errOut := stencil("run", "-kernel", "basic", "-backend", "sim", "-block", "32x8x1", "-n", "20", "-json", "-reps", "1", "-check")
	require.Equal(t, 0, code, errOut)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj), out)
	assert.Equal(t, "32×8", obj["block"], "the launch's block")
	// ⌈20/32⌉ × ⌈20/8⌉ × ⌈20/1⌉ blocks.
	assert.Equal(t, "1×3×20", obj["grid"])
	assert.Less(t, obj["max_abs_err"].(float64), 1e-5)
}
