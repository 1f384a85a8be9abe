package multi

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// Environment of the scaling measurement (TestMultiScaling).
const (
	// envScalingJSON, when set, runs the measurement and writes its rows there.
	envScalingJSON = "STENCIL_SCALING_JSON"
	// envScalingParts picks what to measure, comma-separated (default
	// all): strong, weak, temporal, overlap.
	envScalingParts = "STENCIL_SCALING"
	// envScalingSteps is the time steps of one timed run (default 20).
	envScalingSteps = "STENCIL_SCALING_STEPS"
	// envScalingReps is the timed runs of each row (default 10).
	envScalingReps = "STENCIL_SCALING_REPS"
)

// ScalingRow is one measured configuration of a split run.
type ScalingRow struct {
	Kind       string  `json:"kind"` // strong, weak, temporal or overlap
	Step       string  `json:"step"`
	NZ         int     `json:"nz"`
	NY         int     `json:"ny"`
	NX         int     `json:"nx"`
	GPUs       int     `json:"gpus"`
	Overlap    string  `json:"overlap"`
	Steps      int     `json:"steps"`
	Reps       int     `json:"reps"`
	MsPerStep  float64 `json:"ms_per_step"`    // median run / steps
	Gpts       float64 `json:"gpts"`           // interior point updates per second, 10⁹
	Efficiency float64 `json:"efficiency"`     // against the 1-GPU row of the same kernel and kind
	Compute    float64 `json:"compute_ms"`     // per step, mean over ranks, of the median run
	Exchange   float64 `json:"exchange_ms"`    // per step
	Wait       float64 `json:"wait_ms"`        // per run: waiting for the slowest rank, mean over ranks
	ComputeMax float64 `json:"compute_max_ms"` // per step, the slowest rank's compute
	Device     string  `json:"device"`
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	require.NoError(t, err, "%s=%q", name, s)
	return v
}

// TestMultiScaling measures (it asserts nothing about speed) the split
// runs of the acceptance: strong scaling of fast at N = 512 and
// 1024, weak scaling 512²×512·G, the temporal step with deep halos at N =
// 1024, and each overlap variant; every row against the 1-GPU run of the
// same kernel in this process.
func TestMultiScaling(t *testing.T) {
	path := os.Getenv(envScalingJSON)
	if path == "" {
		t.Skip("set " + envScalingJSON + "=FILE to measure the split's scaling")
	}
	devs := gpus(t, 1)
	if n, _ := gpu.DeviceCount(); n > 1 {
		devs = seq(min(n, 4))
	}
	counts := []int{1}
	for _, g := range []int{2, 4} {
		if g <= len(devs) {
			counts = append(counts, g)
		} else {
			t.Logf("skipped: the rows on %d GPUs (this machine has %d)", g, len(devs))
		}
	}
	parts := os.Getenv(envScalingParts)
	want := func(p string) bool { return parts == "" || strings.Contains(","+parts+",", ","+p+",") }
	steps := envInt(t, envScalingSteps, 20)
	reps := envInt(t, envScalingReps, 10)
	var rows []ScalingRow
	var timeline any
	grids := map[[3]int]*lab.Grid3[float32]{}
	grid := func(nz, ny, nx int) *lab.Grid3[float32] {
		k := [3]int{nz, ny, nx}
		if g := grids[k]; g != nil {
			return g
		}
		clear(grids) // one at a time: N = 1024 is 4 GB
		g, err := lab.NewGrid3[float32](nz, ny, nx)
		require.NoError(t, err)
		fillFast(g, 1)
		grids[k] = g
		return g
	}
	c := lab.DistinctCoeffs()
	measure := func(kind, step string, nz, ny, nx, g int, overlap *Overlap, steps int) ScalingRow {
		m, err := NewMulti(MultiConfig{Step: step, Devices: devs[:g], Overlap: overlap, NZ: nz, NY: ny, NX: nx})
		require.NoError(t, err, "%s %s %dx%dx%d on %d GPUs, %s", kind, step, nz, ny, nx, g, overlap)
		defer m.Close()
		require.NoError(t, m.Load(grid(nz, ny, nx)))
		var runs [][]RankTimes
		for r := range 2 + reps {
			rt, err := m.Run(c, steps)
			require.NoError(t, err)
			if r >= 2 {
				runs = append(runs, rt)
			}
		}
		ms := make([]float64, len(runs))
		for i, rt := range runs {
			ms[i], _ = rankTimes(rt)
		}
		med := gpu.Summarize(gpu.Geometry{}, ms).Median
		// The rank times of the run nearest the median.
		best := 0
		for i := range ms {
			if abs(ms[i]-med) < abs(ms[best]-med) {
				best = i
			}
		}
		_, lrt := rankTimes(runs[best])
		row := ScalingRow{Kind: kind, Step: m.step, NZ: nz, NY: ny, NX: nx, GPUs: g, Overlap: m.Overlap().Name(), Steps: steps, Reps: reps,
			MsPerStep: med / float64(steps), Device: m.Device()}
		row.Gpts = float64(nz-2) * float64(ny-2) * float64(nx-2) * float64(steps) / (med * 1e6)
		for i, r := range lrt {
			row.Compute += r.Compute / float64(steps) / float64(g)
			row.Exchange += r.Exchange / float64(steps) / float64(g)
			row.Wait += r.Wait / float64(g)
			row.ComputeMax = max(row.ComputeMax, runs[best][i].Compute/float64(steps))
		}
		if kind == "strong" && g == len(devs) && nz == 512 {
			timeline = map[string]any{"step": m.step, "n": nz, "gpus": g, "overlap": m.Overlap().Name(), "device": m.Device(),
				"ranks": runs[best]}
		}
		t.Logf("%-8s %-8s %4d×%4d×%4d %d GPU %-5s %8.3f ms/step %7.1f Gpt/s compute %.3f exchange %.3f wait %.3f",
			kind, m.step, nz, ny, nx, g, row.Overlap, row.MsPerStep, row.Gpts, row.Compute, row.Exchange, row.Wait)
		return row
	}
	eff := func(rs []ScalingRow, weak bool) []ScalingRow {
		for i := range rs {
			if rs[0].GPUs != 1 {
				break
			}
			if weak {
				rs[i].Efficiency = rs[0].MsPerStep / rs[i].MsPerStep
			} else {
				rs[i].Efficiency = rs[0].MsPerStep / (float64(rs[i].GPUs) * rs[i].MsPerStep)
			}
		}
		return rs
	}
	if want("strong") {
		for _, n := range []int{512, 1024} {
			var rs []ScalingRow
			for _, g := range counts {
				rs = append(rs, measure("strong", "fast", n, n, n, g, None, steps))
			}
			rows = append(rows, eff(rs, false)...)
		}
	}
	if want("weak") {
		var rs []ScalingRow
		for _, g := range counts {
			rs = append(rs, measure("weak", "fast", 512*g, 512, 512, g, None, steps))
		}
		rows = append(rows, eff(rs, true)...)
	}
	if want("temporal") {
		var rs []ScalingRow
		tsteps := (steps + 3) / 4 * 4
		for _, g := range counts {
			rs = append(rs, measure("temporal", "temporal", 1024, 1024, 1024, g, None, tsteps))
		}
		rows = append(rows, eff(rs, false)...)
		one := rs[0]
		for _, g := range counts[1:] {
			r := measure("temporal", "temporal", 1024, 1024, 1024, g, Copy, tsteps)
			r.Efficiency = one.MsPerStep / (float64(g) * r.MsPerStep)
			rows = append(rows, r)
		}
	}
	if want("overlap") {
		for _, n := range []int{512, 1024} {
			one := measure("overlap", "fast", n, n, n, 1, None, steps)
			for _, g := range counts[1:] {
				for _, ov := range overlaps {
					r := measure("overlap", "fast", n, n, n, g, ov, steps)
					r.Efficiency = one.MsPerStep / (float64(g) * r.MsPerStep)
					rows = append(rows, r)
				}
			}
		}
	}
	lib, ver, _ := NCCLVersion()
	out := map[string]any{"nccl": ver, "nccl_library": lib, "rows": rows, "timeline": timeline}
	b, err := json.MarshalIndent(out, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	for _, r := range rows {
		fmt.Printf("%-8s %-8s %4d×%4d×%4d %d GPU %-5s %8.3f ms/step %7.1f Gpt/s eff %5.1f%%\n",
			r.Kind, r.Step, r.NZ, r.NY, r.NX, r.GPUs, r.Overlap, r.MsPerStep, r.Gpts, 100*r.Efficiency)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
