package nbrun

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"stencillab.dev/figures/fig"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/lab/sim"
)

// This file is what notebook 07b calls: the temporally blocked step's
// simulated runs, its recorded GPU benches, the Python peers and the
// limits of its tile as k grows.

// TemporalBenchGlob names the recorded benches of the temporal step:
// `stencil bench -steps S -json` runs (bench/temporal-gpu.sh), one file
// per grid side, in figures/data.
const TemporalBenchGlob = "figures/data/temporal_*.json"

// PeersGlob names the recorded runs of bench/peers.py in figures/data.
const PeersGlob = "figures/data/peers_*.json"

// TemporalSim is one simulated pass of the temporal step with k time steps,
// checked against k reference sweeps.
type TemporalSim struct {
	K         int
	N         int
	Loads     int64   // global loads, elements
	Stores    int64   // global stores, elements
	Flops     int64   // operations performed
	OpPerByte float64 // operations over bytes loaded
	MaxDiff   float64 // against lab.Advance of k sweeps
}

// MaxTemporalK bounds the time steps of one simulated pass of the temporal
// step (SimulateTemporal's k).
const MaxTemporalK = 64

// SimulateTemporal runs one pass of the temporal step on an n³ grid on the
// simulator for each k, and checks each against k reference sweeps with
// the boundary fixed.
func SimulateTemporal(n int, ks []int) ([]TemporalSim, error) {
	if n < 3 || n > MaxSimN {
		return nil, fmt.Errorf("nbrun: temporal: N = %d: want 3 to %d: %w", n, MaxSimN, lab.ErrSize)
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("nbrun: temporal: no k to simulate: %w", lab.ErrSize)
	}
	for _, k := range ks {
		if k < 1 || k > MaxTemporalK {
			return nil, fmt.Errorf("nbrun: temporal: k = %d time steps a pass: want 1 to %d: %w", k, MaxTemporalK, lab.ErrSize)
		}
	}
	src, err := lab.NewCube[float32](n)
	if err != nil {
		return nil, err
	}
	src.FillRandom(Seed)
	c := lab.DistinctCoeffs()
	var out []TemporalSim
	for _, k := range ks {
		res, err := lab.Execute(lab.Run{Step: "temporal", Backend: lab.Sim, Config: lab.Config{Tile: k}, Src: src, C: c, Steps: k,
			Progress: sim.PrintProgress(ProgressOutput)})
		if err != nil {
			return nil, fmt.Errorf("nbrun: temporal at k = %d: %w", k, err)
		}
		want := src.Clone()
		if err := lab.Advance(lab.SevenPoint[float32], want, src, c, k); err != nil {
			return nil, err
		}
		d, err := lab.Compare3(res.Out, want)
		if err != nil {
			return nil, err
		}
		st := res.Stats
		out = append(out, TemporalSim{K: k, N: n, Loads: st.GlobalLoads, Stores: st.GlobalStores, Flops: st.Flops,
			OpPerByte: st.OpPerByte(), MaxDiff: d.MaxAbs})
	}
	return out, nil
}

// TemporalSimTable formats simulated passes, one line per k: the traffic
// per interior point and time step, which one sweep keeps at one load and
// one store.
func TemporalSimTable(runs []TemporalSim) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%3s %12s %12s %14s %10s %10s %10s\n", "k", "loads/pt/step", "stores/pt/step", "ops/pt/step", "OP/B", "useful OP/B", "max diff")
	for _, r := range runs {
		pts := float64((r.N-2)*(r.N-2)*(r.N-2)) * float64(r.K)
		_, useful := lab.TemporalIntensity(lab.TemporalSimTile, r.K)
		fmt.Fprintf(&s, "%3d %12.3f %12.3f %14.2f %10.2f %10.2f %10.2g\n", r.K, float64(r.Loads)/pts, float64(r.Stores)/pts,
			float64(r.Flops)/pts, r.OpPerByte, useful, r.MaxDiff)
	}
	return s.String()
}

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

// TemporalTiles are the GPU tiles (TB_BX×TB_BY input points) whose limits
// the notebook shows.
var TemporalTiles = [][2]int{{64, 32}, {128, 16}, {128, 32}, {32, 32}}

// HopperSharedOptin is the shared memory a block may use on an H100 or
// H200 after opting in: 227 KiB.
const HopperSharedOptin = 227 * 1024

// TemporalLimit is what one tile of the temporal kernel holds at k on the
// GPU, from its launch plan at N = 512.
type TemporalLimit struct {
	BX, BY, K    int
	March        int // the default march at k (MarchDefine): 1 for k ≤ 4, 2 above
	Threads      int
	SharedBytes  int     // dynamic shared memory per block: 3k planes of the tile for march 1, 2k for marches 0 and 2
	HeldRegs     int     // registers each thread holds across planes: 4 a register slot, 3 slots a time step for march 1, 2 for 0 and 2
	OutputShare  float64 // outputs over input points of the tile
	ReadsPerStep float64 // DRAM bytes read and written per output point and time step, ideal caching
	Err          string  // why the tile has no output at this k
}

// TemporalLimits works out, without a device, what each tile needs and
// gives at each k: the launch from gpu.PlanLaunch at N = 512, with the
// march it chooses at k.
func TemporalLimits(ks []int) []TemporalLimit {
	var out []TemporalLimit
	for _, t := range TemporalTiles {
		for _, k := range ks {
			l := TemporalLimit{BX: t[0], BY: t[1], K: k}
			p, err := gpu.PlanLaunch("temporal", gpu.Options{Tile: k, Defines: []gpu.Define{
				{Name: "TB_BX", Value: fmt.Sprint(t[0])}, {Name: "TB_BY", Value: fmt.Sprint(t[1])}}}, 512, 512, 512)
			if err != nil {
				l.Err = err.Error()
				out = append(out, l)
				continue
			}
			for _, d := range p.Defines {
				if d.Name == MarchDefine {
					l.March, _ = strconv.Atoi(d.Value)
				}
			}
			// Each time level keeps a float4 (4 registers) in each of its
			// register slots: three for march 1, two for marches 0 and 2.
			slots := 2
			if l.March == 1 {
				slots = 3
			}
			l.HeldRegs = 4 * slots * k
			g := p.Geometry
			l.Threads, l.SharedBytes = g.Threads(), g.DynamicShared
			halo := (k + 3) / 4 * 4
			ox, oy := t[0]-2*halo, t[1]-2*k
			l.OutputShare = float64(ox*oy) / float64(t[0]*t[1])
			// Each input point read once per pass, each output written
			// once: 4/share + 4 bytes per output point, over k steps.
			l.ReadsPerStep = (4/l.OutputShare + 4) / float64(k)
			out = append(out, l)
		}
	}
	return out
}

// TemporalLimitsTable formats TemporalLimits.
func TemporalLimitsTable(ls []TemporalLimit) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%-7s %3s %5s %7s %10s %9s %9s %10s\n", "tile", "k", "march", "threads", "shared KiB", "held regs", "outputs", "B/pt/step")
	for _, l := range ls {
		tile := fmt.Sprintf("%dx%d", l.BX, l.BY)
		if l.Err != "" {
			fmt.Fprintf(&s, "%-7s %3d  no output: TB_BY must exceed 2k\n", tile, l.K)
			continue
		}
		over := ""
		if l.SharedBytes > HopperSharedOptin {
			over = fmt.Sprintf("  over the %d KiB a Hopper block may have", HopperSharedOptin/1024)
		}
		fmt.Fprintf(&s, "%-7s %3d %5d %7d %10.0f %9d %8.0f%% %10.2f%s\n", tile, l.K, l.March, l.Threads, float64(l.SharedBytes)/1024, l.HeldRegs,
			100*l.OutputShare, l.ReadsPerStep, over)
	}
	return s.String()
}

// TemporalLimitsChart draws the ideal DRAM bytes per point and time step of
// each tile against k, with one sweep's 8 bytes; a tile whose shared memory
// exceeds HopperSharedOptin at some k is left out there.
func TemporalLimitsChart(ls []TemporalLimit) (*plot.Plot, error) {
	p := fig.NewPlot("Temporal blocking on the GPU: DRAM bytes per point and time step, ideal caching",
		"k, time steps per pass", "bytes per point and time step")
	p.Add(plotter.NewGrid())
	byTile := map[[2]int]plotter.XYs{}
	var order [][2]int
	kmax := 0
	for _, l := range ls {
		if l.Err != "" || l.SharedBytes > HopperSharedOptin {
			continue
		}
		key := [2]int{l.BX, l.BY}
		if _, ok := byTile[key]; !ok {
			order = append(order, key)
		}
		byTile[key] = append(byTile[key], plotter.XY{X: float64(l.K), Y: l.ReadsPerStep})
		kmax = max(kmax, l.K)
	}
	styles := []fig.StepStyle{}
	for _, name := range []string{"temporal", "fast", "tiled", "register_tiled"} {
		st, err := fig.Style(name)
		if err != nil {
			return nil, err
		}
		styles = append(styles, st)
	}
	for i, key := range order {
		ln, pts, err := plotter.NewLinePoints(byTile[key])
		if err != nil {
			return nil, fmt.Errorf("nbrun: limits chart: %w", err)
		}
		st := styles[i%len(styles)]
		ln.Color, ln.Width = st.Color, 2
		pts.Color, pts.Shape, pts.Radius = st.Color, st.Glyph, 3
		p.Add(ln, pts)
		p.Legend.Add(fmt.Sprintf("%d×%d input tile", key[0], key[1]), ln, pts)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("nbrun: limits chart: no tile with an output within %d KiB of shared memory among %d limits", HopperSharedOptin/1024, len(ls))
	}
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 8}, {X: float64(max(kmax, 2)), Y: 8}})
	if err != nil {
		return nil, err
	}
	one.Color, one.Dashes = fig.Muted, []vg.Length{4, 3}
	p.Add(one)
	p.Legend.Add("one sweep: 8 B", one)
	p.Legend.Left, p.Legend.Top = false, true
	p.Y.Min = 0
	return p, nil
}

// runStamp names a bench run by the time it was recorded, "11-25 20:27
// UTC" for "2026-11-25T20:27:59Z"; a date it cannot read is kept as written.
func runStamp(date string) string {
	t, err := time.Parse(time.RFC3339, date)
	if err != nil {
		if date == "" {
			return "undated run"
		}
		return date
	}
	return t.UTC().Format("01-02 15:04 UTC")
}

// cardsOf names the cards the peers and benches were measured on, in
// order and once each: "NVIDIA H100 80GB HBM3"; "an unnamed GPU" when none
// says.
func cardsOf(ps []Peers, bs []*benchfile.File) string {
	var cards []string
	add := func(d string) {
		if d = strings.TrimSpace(d); d != "" && !slices.Contains(cards, d) {
			cards = append(cards, d)
		}
	}
	for _, p := range ps {
		add(p.Device)
	}
	for _, b := range bs {
		if b != nil {
			add(b.Device)
		}
	}
	if len(cards) == 0 {
		return "an unnamed GPU"
	}
	return strings.Join(cards, " and ")
}

// PeersChart draws, for one grid side, the share of the copy each peer
// reaches (from RecordedPeers) beside the lab's fast sweep and its best
// temporal run (from TemporalBenches, when they hold that side): one bar
// each, points per second at 8 bytes per point and time step over the copy
// measured in the same process.
func PeersChart(ps []Peers, bs []*benchfile.File, n int) (*plot.Plot, error) {
	type bar struct {
		name string
		pct  float64
	}
	var bars []bar
	for _, p := range ps {
		for _, at := range p.Runs {
			for _, r := range at.Peers {
				if at.N == n && r.Error == "" {
					bars = append(bars, bar{r.Name, r.PctCopy})
				}
			}
		}
	}
	// Each file with a fast run at n gives a bar; when several do, each
	// bar names its run by the time it was recorded.
	var fastFiles []*benchfile.File
	for _, b := range bs {
		if _, ok := FastRun(b, n); ok {
			fastFiles = append(fastFiles, b)
		}
	}
	for _, b := range fastFiles {
		fast, _ := FastRun(b, n)
		name := "lab fast"
		if len(fastFiles) > 1 {
			name += "\n" + runStamp(b.Date)
		}
		bars = append(bars, bar{name, fast.PctCopy})
	}
	if best, ok := BestTemporal(bs)[n]; ok {
		bars = append(bars, bar{fmt.Sprintf("lab temporal k=%d", stepsPerPass(best.Run)), best.Run.PctCopy})
	}
	if len(bars) == 0 {
		return nil, fmt.Errorf("nbrun: peers chart: nothing recorded at N = %d", n)
	}
	var vals plotter.Values
	var names []string
	for _, b := range bars {
		vals = append(vals, b.pct)
		names = append(names, b.name)
	}
	p := fig.NewPlot(fmt.Sprintf("The seven-point sweep at N = %d on %s: share of a copy in the same process", n, cardsOf(ps, bs)), "", "% of the copy's bandwidth (8 B per point and step)")
	st, err := fig.Style("temporal")
	if err != nil {
		return nil, err
	}
	bc, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return nil, fmt.Errorf("nbrun: peers chart: %w", err)
	}
	bc.Color = st.Color
	bc.LineStyle.Width = 0
	p.Add(plotter.NewGrid(), bc)
	p.NominalX(names...)
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 100}, {X: float64(len(bars)) - 0.5, Y: 100}})
	if err != nil {
		return nil, err
	}
	one.Color, one.Dashes = fig.Muted, []vg.Length{4, 3}
	p.Add(one)
	p.Y.Min = 0
	return p, nil
}

// stepsPerPass is the k of a temporal run: its tile, or 1.
func stepsPerPass(r benchfile.Run) int {
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
