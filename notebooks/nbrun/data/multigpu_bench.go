package data

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"stencillab.dev/lab/benchfile"
)

// MultiGPUGlob is where the measured multi-GPU benches live, relative to
// the repository. Each file holds the JSON of one `stencil bench -gpus …
// -json` (a benchfile.File with its scaling list), or an object of such
// benches by name ({"strong": …, "weak": …}, as scripts/multigpu-gpu.sh
// gathers them into bench.json).
const MultiGPUGlob = "notebooks/data/multigpu_gpu*.json"

// MultiGPUBenches reads every committed multi-GPU bench, those of a file
// of several in the order of their names; none is no error.
func MultiGPUBenches() ([]*benchfile.File, error) {
	return globBenches(MultiGPUGlob, readBenches)
}

// readBenches reads one file of MultiGPUGlob: a bench, or an object of
// benches by name. It keeps those with scaling runs.
func readBenches(path string) ([]*benchfile.File, error) {
	data, err := readData(path)
	if err != nil {
		return nil, fmt.Errorf("nbrun: %s: %w", filepath.Base(path), err)
	}
	var named map[string]json.RawMessage
	if json.Unmarshal(data, &named) != nil || named["scaling"] != nil || named["results"] != nil {
		named = map[string]json.RawMessage{"": data}
	}
	names := slices.Sorted(maps.Keys(named))
	var out []*benchfile.File
	for _, name := range names {
		b, err := benchfile.Read(bytes.NewReader(named[name]))
		if err != nil {
			return nil, fmt.Errorf("nbrun: %s %s: %w", filepath.Base(path), name, err)
		}
		if len(b.Scaling) > 0 {
			out = append(out, b)
		}
	}
	return out, nil
}

// ComputeOnly is the efficiency a scaling run would have if its exchange
// cost nothing: its slowest rank's compute against the base run.
func ComputeOnly(s benchfile.Scale) (float64, bool) {
	c := 0.0
	for _, r := range s.RankMs {
		c = max(c, r.Compute)
	}
	if c <= 0 || s.BaseMs <= 0 {
		return 0, false
	}
	return s.EfficiencyAt(c), true
}

// ScalingTable prints the scaling runs of the benches: time, efficiency,
// and the compute-only efficiency beside it.
func ScalingTable(bs []*benchfile.File) string {
	var b strings.Builder
	for _, f := range bs {
		if f == nil {
			continue
		}
		fmt.Fprintf(&b, "%s, %s\n", f.Device, f.Command)
		fmt.Fprintf(&b, "%-10s %-10s %5s %6s %5s %4s %10s %8s %14s %12s\n", "kernel", "overlap", "N", "nz", "weak", "GPUs", "median ms", "eff %", "compute-only %", "halo MB/step")
		for _, s := range f.Scaling {
			co := "-"
			if v, ok := ComputeOnly(s); ok {
				co = fmt.Sprintf("%.1f", 100*v)
			}
			overlap := s.Overlap
			if overlap == "" {
				overlap = "default"
			}
			fmt.Fprintf(&b, "%-10s %-10s %5d %6d %5v %4d %10.3f %8.1f %14s %12.2f\n", s.Kernel, overlap, s.N, s.NZ, s.Weak, s.GPUs, s.MedianMs, 100*s.Efficiency, co, s.HaloBytesPerStep/1e6)
		}
	}
	return b.String()
}

// TimelineRun returns the run whose timeline the notebook draws: strong
// scaling on the most GPUs at the smallest N, with per-GPU times, the
// backend's default overlap first.
func TimelineRun(bs []*benchfile.File) (benchfile.Scale, string, bool) {
	var best benchfile.Scale
	device, found := "", false
	better := func(s benchfile.Scale) bool {
		switch {
		case !found:
			return true
		case (s.Overlap == "") != (best.Overlap == ""):
			return s.Overlap == ""
		case s.GPUs != best.GPUs:
			return s.GPUs > best.GPUs
		}
		return s.N < best.N
	}
	for _, b := range bs {
		if b == nil {
			continue
		}
		for _, s := range b.Scaling {
			if s.Weak || len(s.RankMs) == 0 || s.GPUs < 2 {
				continue
			}
			if better(s) {
				best, device, found = s, b.Device, true
			}
		}
	}
	return best, device, found
}
