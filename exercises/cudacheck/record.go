package cudacheck

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// The reference kernels' measured shares of the float4 copy, the one place
// the performance thresholds come from (Spec.Threshold is three quarters of
// the share, rounded to the nearest 5 %).
//
//go:embed cuda13_record.json
var recordJSON []byte

// Measurement is the record of the reference kernels' speed on one GPU:
// each reference solution of exercises 20–24 graded there at N ≈ PerfN,
// its share of the float4 copy in the same process.
type Measurement struct {
	Card    string `json:"card"`    // the GPU, as the driver names it
	Command string `json:"command"` // how the numbers were measured
	Date    string `json:"date"`
	N       int    `json:"n"`
	Results []struct {
		Kernel string  `json:"kernel"`
		Pct    float64 `json:"pct_copy"` // percent of the float4 copy
		Ms     float64 `json:"ms"`       // per launch
		Grid   string  `json:"grid"`     // the timed grid nz×ny×nx
	} `json:"results"`
}

// Record returns the measurement the thresholds come from, read from the
// embedded file on first use (Specs, and so Lookup and IsCUDA, ask for it
// at every call). Its Results are shared: read them, do not change them.
func Record() Measurement { return record() }

var record = sync.OnceValue(func() Measurement {
	var m Measurement
	if err := json.Unmarshal(recordJSON, &m); err != nil {
		panic(fmt.Sprintf("cudacheck: cuda13_record.json: %v", err))
	}
	return m
})

// Share returns the recorded share of the copy (a fraction) of the
// reference kernel named kernel, the lowest where it was measured more
// than once (so that the reference passes on a slow draw of the timed
// grid); 0 when it is not recorded.
func (m Measurement) Share(kernel string) float64 {
	share := 0.0
	for _, r := range m.Results {
		if r.Kernel == kernel && (share == 0 || r.Pct/100 < share) {
			share = r.Pct / 100
		}
	}
	return share
}
