package data

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"stencillab.dev/lab/benchfile"
)

// TemporalBenchGlob names the recorded benches of the temporal step:
// `stencil bench -steps S -json` runs (bench/temporal-gpu.sh), one file
// per grid side, in figures/data.
const TemporalBenchGlob = "figures/data/temporal_*.json"

// PeersGlob names the recorded runs of bench/peers.py in figures/data.
const PeersGlob = "figures/data/peers_*.json"

// repoGlob returns the files of the repository matching a glob relative
// to its root, sorted.
func repoGlob(glob string) ([]string, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	return globIn(root, glob)
}

// globIn returns the files under root matching a glob relative to it,
// sorted.
func globIn(root, glob string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
	if err != nil {
		return nil, fmt.Errorf("nbrun: %s: %w", glob, err)
	}
	sort.Strings(files)
	return files, nil
}

// TemporalBenches returns the recorded benches of TemporalBenchGlob; none
// (and no error) while nothing is recorded.
func TemporalBenches() ([]*benchfile.File, error) {
	return globBenches(TemporalBenchGlob, func(f string) ([]*benchfile.File, error) {
		b, err := loadBench(f)
		if err != nil {
			return nil, fmt.Errorf("nbrun: %s: %w", filepath.Base(f), err)
		}
		return []*benchfile.File{b}, nil
	})
}

// globBenches reads the benches of every file of the repository matching
// glob, files in sorted order, each through read.
func globBenches(glob string, read func(path string) ([]*benchfile.File, error)) ([]*benchfile.File, error) {
	files, err := repoGlob(glob)
	if err != nil {
		return nil, err
	}
	var out []*benchfile.File
	for _, f := range files {
		bs, err := read(f)
		if err != nil {
			return nil, err
		}
		out = append(out, bs...)
	}
	return out, nil
}

// TemporalBenchTable formats recorded benches: for each grid side the
// float4 copy, the interior copy, then each run with its time steps, its
// effective bandwidth (8 bytes per interior point and time step), its
// shares of both copies and its points per second against the fast
// sweep's in the same file. The shares of a temporally blocked run may pass
// 100 %: it reads and writes each point less than once a time step.
func TemporalBenchTable(bs []*benchfile.File) string {
	var s strings.Builder
	for _, b := range bs {
		if b == nil {
			continue
		}
		fmt.Fprintf(&s, "%s, %s\n", b.Device, b.Command)
		fmt.Fprintf(&s, "%-40s %5s %5s %9s %8s %7s %7s %7s\n", "kernel", "N", "steps", "median ms", "GB/s", "% copy", "% int", "× fast")
		for _, c := range b.Copies {
			fmt.Fprintf(&s, "%-40s %5d %5s %9.4f %8.0f %7.1f %7s %7s\n", "copy (float4)", c.N, "-", c.MedianMs, c.GBps, 100.0, "-", "-")
			for _, r := range b.Results {
				if r.N != c.N {
					continue
				}
				fast, ok := FastRun(b, r.N)
				speed := "-"
				if ok {
					speed = fmt.Sprintf("%.2f", r.PointsPerSecond()/fast.PointsPerSecond())
				}
				fmt.Fprintf(&s, "%-40s %5d %5d %9.4f %8.0f %7.1f %7.1f %7s\n", r.Label, r.N, r.TimeSteps(), r.MedianMs, r.GBps,
					r.PctCopy, r.PctInterior, speed)
			}
		}
		s.WriteString("\n")
	}
	return s.String()
}

// FastRun returns the fast sweep's run at its default configuration at n,
// the yardstick of the speed-ups; none in a nil bench.
func FastRun(b *benchfile.File, n int) (benchfile.Run, bool) {
	if b == nil {
		return benchfile.Run{}, false
	}
	for _, r := range b.Results {
		if r.N == n && r.Kernel == "fast" && r.Label == r.Kernel {
			return r, true
		}
	}
	return benchfile.Run{}, false
}

// BestTemporal returns, for each grid side of the benches, the temporal
// run with the most points per second and its speed-up over the fast
// sweep of the same file.
func BestTemporal(bs []*benchfile.File) map[int]struct {
	Run     benchfile.Run
	Speedup float64
} {
	best := map[int]struct {
		Run     benchfile.Run
		Speedup float64
	}{}
	for _, b := range bs {
		if b == nil {
			continue
		}
		for _, r := range b.Results {
			fast, ok := FastRun(b, r.N)
			if r.Kernel != "temporal" || !ok {
				continue
			}
			sp := r.PointsPerSecond() / fast.PointsPerSecond()
			if cur, ok := best[r.N]; !ok || sp > cur.Speedup {
				best[r.N] = struct {
					Run     benchfile.Run
					Speedup float64
				}{r, sp}
			}
		}
	}
	return best
}

// Peers is a run of bench/peers.py: the sweep in PyTorch and JAX against a
// copy in the same process, per grid side.
type Peers struct {
	Device   string            `json:"device"`
	Versions map[string]string `json:"versions"`
	Runs     []PeersAtN        `json:"runs"`
}

// PeersAtN is one grid side of a peers run.
type PeersAtN struct {
	N     int       `json:"n"`
	Copy  PeerRun   `json:"copy"`
	Peers []PeerRun `json:"peers"`
}

// PeerRun is one implementation (or the copy) at one grid side; Error is
// set for one that failed (out of memory, say).
type PeerRun struct {
	Name      string  `json:"name"`
	N         int     `json:"n"`
	MedianMs  float64 `json:"median_ms"`
	GBps      float64 `json:"gbps"`
	PctCopy   float64 `json:"pct_copy"`
	MaxAbsErr float64 `json:"max_abs_err"`
	TimedWith string  `json:"timed_with"`
	Error     string  `json:"error"`
}

// RecordedPeers returns the runs of PeersGlob; none while nothing is
// recorded.
func RecordedPeers() ([]Peers, error) {
	files, err := repoGlob(PeersGlob)
	if err != nil {
		return nil, err
	}
	var ps []Peers
	for _, f := range files {
		b, err := readData(f)
		if err != nil {
			return nil, fmt.Errorf("nbrun: %s: %w", filepath.Base(f), err)
		}
		var p Peers
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, fmt.Errorf("nbrun: %s: %w", filepath.Base(f), err)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// PeersTable formats recorded peers.
func PeersTable(ps []Peers) string {
	var s strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&s, "%s (torch %s, jax %s)\n", p.Device, p.Versions["torch"], p.Versions["jax"])
		fmt.Fprintf(&s, "%-16s %5s %10s %8s %7s %9s  %s\n", "implementation", "N", "median ms", "GB/s", "% copy", "max err", "timed with")
		for _, at := range p.Runs {
			fmt.Fprintf(&s, "%-16s %5d %10.4f %8.0f %7s %9s\n", "copy ("+at.Copy.Name+")", at.N, at.Copy.MedianMs, at.Copy.GBps, "-", "-")
			for _, r := range at.Peers {
				if r.Error != "" {
					fmt.Fprintf(&s, "%-16s %5d  failed: %.60s\n", r.Name, at.N, r.Error)
					continue
				}
				fmt.Fprintf(&s, "%-16s %5d %10.4f %8.0f %7.1f %9.2g  %s\n", r.Name, at.N, r.MedianMs, r.GBps, r.PctCopy, r.MaxAbsErr, r.TimedWith)
			}
		}
	}
	return s.String()
}

// stepsPerPass is the k of a temporal run: its tile, or 1.
func StepsPerPass(r benchfile.Run) int {
	if r.Kernel == "temporal" && r.Tile > 0 {
		return r.Tile
	}
	return 1
}

// BestTemporalSummary writes, for each grid side in increasing order, the
// best temporal run and its speed-up over the fast sweep (BestTemporal).
func BestTemporalSummary(bs []*benchfile.File) string {
	best := BestTemporal(bs)
	ns := make([]int, 0, len(best))
	for n := range best {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var s strings.Builder
	for _, n := range ns {
		b := best[n]
		fmt.Fprintf(&s, "N = %d: the best temporal run, %s, does %.2f× the fast sweep's points per second\n", n, b.Run.Label, b.Speedup)
	}
	return s.String()
}
