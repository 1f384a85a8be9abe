package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunSimJSONCountsTraffic(t *testing.T) {
	code, out, errOut := stencil("run", "-backend", "sim", "-kernel", "tiled", "-n", "20", "-tile", "8", "-json", "-reps", "1", "-check")
	require.Equal(t, 0, code, errOut)
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &obj), out)
	// N = 20, T = 8: (20−2)/6 + 1 = 4 blocks per axis, loading 4·8 − 1
	// − (4·6 + 1 − 20) = 26 points per axis, 26³ loads of 4 bytes.
	loads := 26.0 * 26 * 26
	interior := 18.0 * 18 * 18
	assert.Equal(t, 4*loads, obj["global_load_bytes"])
	assert.Equal(t, 4*interior, obj["global_store_bytes"])
	assert.Equal(t, 4*loads, obj["shared_store_bytes"])     // each load goes to in_s
	assert.Equal(t, 4*7*interior, obj["shared_load_bytes"]) // seven reads per output
	assert.Equal(t, 13*interior, obj["flops"])
	assert.InDelta(t, 13*interior/(4*loads), obj["op_per_byte"], 1e-12)
	assert.InDelta(t, 13*interior/(4*loads), obj["model_op_per_byte"], 1e-12)
	assert.Equal(t, "4×4×4", obj["grid"])
	assert.Equal(t, "8×8×8", obj["block"])
	assert.Less(t, obj["max_abs_err"].(float64), 1e-5)
}

func TestRunSimSummaryAndAlias(t *testing.T) {
	code, out, errOut := stencil("run", "-backend", "sim", "-kernel", "register", "-n", "17", "-reps", "1")
	require.Equal(t, 0, code, errOut)
	for _, s := range []string{"Global loads:", "Global stores:", "Shared loads:", "Shared stores:", "Flops:", "OP/B measured", "Model intensity:", "32×32 = 1024 threads", "1×1×1 = 1 block,"} {
		assert.Contains(t, out, s)
	}
	for _, k := range []string{"basic", "coarsened"} {
		code, _, errOut := stencil("run", "-backend", "sim", "-kernel", k, "-n", "9", "-reps", "1")
		assert.Equal(t, 0, code, errOut)
	}
}

func TestRunSimRejectsLargeBlocks(t *testing.T) {
	for _, c := range []struct {
		kernel, tile, want string
	}{
		{"coarsened", "34", "block 34×34 = 1156 threads exceeds 1024"},
		{"tiled", "11", "block 11×11×11 = 1331 threads exceeds 1024"},
		{"register_tiled", "40", "block 40×40 = 1600 threads exceeds 1024"},
	} {
		code, out, errOut := stencil("run", "-backend", "sim", "-kernel", c.kernel, "-tile", c.tile, "-n", "64")
		assert.NotEqual(t, 0, code, c.kernel)
		assert.Empty(t, out)
		assert.Contains(t, errOut, c.want)
	}
	code, _, errOut := stencil("run", "-backend", "sim", "-kernel", "reference", "-n", "9")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, `step "reference" on backend "sim"`)
	assert.Contains(t, errOut, "it runs on: cpu")
}

func TestRunSimReportsWarpRequests(t *testing.T) {
	code, out, errOut := stencil("run", "-backend", "sim", "-kernel", "tiled", "-n", "20", "-tile", "8", "-json", "-reps", "1")
	require.Equal(t, 0, code, errOut)
	var obj struct {
		SectorsPerRequest float64 `json:"global_load_sectors_per_request"`
		Conflicts         float64 `json:"shared_load_bank_conflicts"`
		Worst             string  `json:"global_load_worst_site"`
		Memory            struct {
			GlobalLoads struct {
				Requests, Threads, Sectors float64
			} `json:"global_loads"`
			Sites []struct {
				File string
				Line int
				Kind string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &obj), out)
	// Every one of the 26³ loads of the launch (TestRunSimJSONCountsTraffic)
	// is a thread of one warp request.
	assert.Equal(t, 26.0*26*26, obj.Memory.GlobalLoads.Threads)
	assert.InDelta(t, obj.Memory.GlobalLoads.Sectors/obj.Memory.GlobalLoads.Requests, obj.SectorsPerRequest, 1e-12)
	// A warp of the 8×8×8 block reads 32 consecutive words of in_s.
	assert.Zero(t, obj.Conflicts)
	assert.Equal(t, "lab/tiled.go", obj.Worst[:len("lab/tiled.go")])
	assert.Len(t, obj.Memory.Sites, 10, "one global load, one shared store, seven shared loads and a global store")

	code, out, errOut = stencil("run", "-backend", "sim", "-kernel", "basic", "-block", "32x8x1", "-n", "20", "-reps", "1")
	require.Equal(t, 0, code, errOut)
	for _, s := range []string{"Global load requests:", "sectors of 32 B per request (ideal 4)", "worst site:", "lab/basic.go:", "Global bytes used:"} {
		assert.Contains(t, out, s)
	}
	assert.NotContains(t, out, "Shared load requests:", "the basic kernel has no shared memory")
}
