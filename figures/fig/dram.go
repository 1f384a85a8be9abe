package fig

import (
	"encoding/json"
	"fmt"
	"os"
)

// DRAMFile is the format LoadDRAMTraffic reads: the DRAM bytes a profiler
// measured for one sweep of each kernel, for example ncu's
// dram__bytes_read.sum + dram__bytes_write.sum:
//
//	{"device": "NVIDIA H200", "command": "…",
//	 "runs": [{"kernel": "basic", "n": 512, "dram_bytes": 1.2e9}, …]}
type DRAMFile struct {
	Device  string    `json:"device"`
	Command string    `json:"command"`
	Runs    []DRAMRun `json:"runs"`
}

// DRAMRun is one kernel's measured DRAM traffic for one pass over an n×n×n
// grid: one sweep, or TimeSteps time steps for a temporally blocked step.
// Label names a configuration other than the kernel's default (a variant,
// say "temporal[tile=8]"); LoadDRAMTraffic keeps the defaults only.
type DRAMRun struct {
	Kernel    string  `json:"kernel"`
	Label     string  `json:"label,omitempty"`
	N         int     `json:"n"`
	TimeSteps int     `json:"time_steps,omitempty"`
	DRAMBytes float64 `json:"dram_bytes"`
}

// LoadDRAMTraffic reads a DRAMFile and returns the traffic of its runs at
// grid side n in bytes per interior point and time step, (n−2)³ points, for
// BandwidthOptions.DRAM: the kernels' default configurations, runs with a
// Label left out.
func LoadDRAMTraffic(path string, n int) (DRAMTraffic, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fig: DRAM traffic: %w", err)
	}
	var f DRAMFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("fig: DRAM traffic %s: %w", path, err)
	}
	if n < 3 {
		return nil, fmt.Errorf("fig: DRAM traffic at N = %d: need N ≥ 3: %w", n, ErrBench)
	}
	interior := float64(n-2) * float64(n-2) * float64(n-2)
	t := DRAMTraffic{}
	for i, r := range f.Runs {
		if r.N != n || (r.Label != "" && r.Label != r.Kernel) {
			continue
		}
		if r.Kernel == "" || !(r.DRAMBytes > 0) {
			return nil, fmt.Errorf("fig: DRAM traffic %s: run %d: need a kernel and dram_bytes > 0: %w", path, i, ErrBench)
		}
		t[r.Kernel] = r.DRAMBytes / interior / float64(max(r.TimeSteps, 1))
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("fig: DRAM traffic %s: no runs at N = %d: %w", path, n, ErrBench)
	}
	return t, nil
}
