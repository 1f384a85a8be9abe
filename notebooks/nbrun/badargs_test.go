package nbrun

import (
	"errors"
	"fmt"
	"go/ast"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"

	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
	"stencillab.dev/lab/badcall"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/lab/sim"
)

// A notebook's kernel is one process: a panic in the package kills it and
// every variable the student had. These tests call every exported function
// and method of the package with bad arguments, each call in a child
// process (this test binary run again with badCallEnv naming the call), so
// that a panic, even one no recover could catch, fails the call's subtest
// instead of the test binary.

// badCallEnv names the call a child process makes.
const badCallEnv = "NBRUN_BAD_CALL"

// harnessPanic is the name of a call that panics, which the child runs to
// show that the parent sees a panic.
const harnessPanic = "!panic"

// badCall is one call of an export with bad arguments.
type badCall struct {
	name    string       // "Export/what is bad": the export, as exportNames lists it, then the case
	call    func() error // the call; nil error for an export that returns none
	wantErr bool         // the export must return an error
}

// export is the export a call exercises: its name up to the first "/".
func (c badCall) export() string { name, _, _ := strings.Cut(c.name, "/"); return name }

// failing is a writer that refuses every write.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("write refused") }

// badResults are Results no run returns: empty, half-filled, inconsistent.
func badResults() map[string]Result {
	cube := func(n int) *lab.Grid3[float32] {
		g, _ := lab.NewCube[float32](n)
		return g
	}
	return map[string]Result{
		"zero":          {},
		"no reference":  {Result: lab.Result{Step: "tiled", NZ: 4, NY: 4, NX: 4, Out: cube(4)}},
		"no output":     {Result: lab.Result{Step: "tiled", NZ: 4, NY: 4, NX: 4}, Want: cube(4)},
		"short output":  {Result: lab.Result{Step: "tiled", NZ: 4, NY: 4, NX: 4, Out: &lab.Grid3[float32]{NZ: 4, NY: 4, NX: 4, Data: make([]float32, 5)}}, Want: cube(4)},
		"N past output": {Result: lab.Result{Step: "tiled", NZ: 9, NY: 9, NX: 9, Out: cube(4)}, Want: cube(4)},
		"not a cube":    {Result: lab.Result{Step: "tiled", NZ: 3, NY: 4, NX: 5, Out: &lab.Grid3[float32]{NZ: 3, NY: 4, NX: 5, Data: make([]float32, 60)}}, Want: &lab.Grid3[float32]{NZ: 3, NY: 4, NX: 5, Data: make([]float32, 60)}},
		"gpu run":       {Result: lab.Result{Step: "tiled", Backend: lab.GPU, NZ: 4, NY: 4, NX: 4, Out: cube(4)}, Want: cube(4)},
		"flat sim run":  {Result: lab.Result{Step: "tiled", Backend: lab.Sim, NZ: 1, NY: 1, NX: 1, Stats: sim.Stats{GlobalStores: 1}}},
	}
}

// badCalls lists every call the tests make. Every export of the package
// has at least one (TestEveryExportHasBadCalls).
func badCalls() []badCall {
	var cs []badCall
	add := func(name string, wantErr bool, call func() error) {
		cs = append(cs, badCall{name: name, call: call, wantErr: wantErr})
	}
	ignore := func(f func()) func() error { return func() error { f(); return nil } }
	second := func(_ any, err error) error { return err }
	panicking := func(lab.StencilArgs) (sim.Kernel, error) { panic("a student's kernel panics in its set-up") }
	var nilSlice []int
	indexing := func(a lab.StencilArgs) (sim.Kernel, error) {
		return sim.Kernel{Grid: sim.Dim3{X: nilSlice[a.NX]}}, nil
	}
	threadPanic := func(lab.StencilArgs) (sim.Kernel, error) {
		return sim.Kernel{Name: "mine", Grid: sim.Dim3{X: 1, Y: 1, Z: 1}, Block: sim.Dim3{X: 4, Y: 1, Z: 1},
			Body: func(*sim.Thread) { var m map[string]int; m["x"]++ }}, nil
	}
	noBody := func(lab.StencilArgs) (sim.Kernel, error) { return sim.Kernel{}, nil }
	huge := 1 << 40

	// bench.go
	for _, c := range []struct{ n, reps int }{{-1, 3}, {0, 3}, {huge, 3}, {16, 0}, {16, -5}, {16, 99999999999999}} {
		add(fmt.Sprintf("Bench/n=%d,reps=%d", c.n, c.reps), true, func() error { return second(Bench(c.n, c.reps)) })
	}
	add("RepoRoot/no arguments", false, ignore(func() { _, _ = RepoRoot() }))
	add("MeasuredBench/no arguments", false, ignore(func() { _, _ = MeasuredBench() }))
	for _, n := range []int{-1, 0, huge} {
		add(fmt.Sprintf("MeasuredDRAM/n=%d", n), true, func() error { return second(MeasuredDRAM(n)) })
	}
	add("RecordedRuns/nil bench", false, ignore(func() { RecordedRuns(nil) }))
	add("RecordedRuns/empty bench", false, ignore(func() { RecordedRuns(&fig.Bench{}) }))
	add("ModelShare/unknown kernel", true, func() error { return second(ModelShare("tiledd", 512, 8)) })
	add("ModelShare/empty kernel", true, func() error { return second(ModelShare("", 512, 8)) })
	add("ModelShare/negative n", true, func() error { return second(ModelShare("tiled", -512, 8)) })
	add("ModelShare/negative tile", true, func() error { return second(ModelShare("tiled", 512, -8)) })
	add("ModelShare/huge n", true, func() error { return second(ModelShare("tiled", huge, 8)) })
	add("CompareModel/nil", true, func() error { return second(CompareModel(nil)) })
	add("CompareModel/unknown kernel", false, func() error {
		return second(CompareModel([]HopperRun{{Kernel: "nope", Config: "T = -3", PctCopy: math.NaN()}}))
	})
	add("CompareModel/negative tile", true, func() error {
		return second(CompareModel([]HopperRun{{Kernel: "tiled", Config: "T = -3"}}))
	})
	add("FromBench/nil bench", false, ignore(func() { FromBench(nil, 512) }))
	add("FromBench/negative n", false, ignore(func() { FromBench(&fig.Bench{Results: []fig.BenchResult{{Kernel: "tiled", N: -1}}}, -1) }))
	add("IsMissing/nil", false, ignore(func() { IsMissing(nil) }))
	add("KernelSummary/nil bench", false, func() error { return second(KernelSummary(nil)) })
	add("KernelSummary/negative tile", true, func() error {
		return second(KernelSummary(&fig.Bench{Results: []fig.BenchResult{{Kernel: "tiled", N: SummaryN, Tile: -3}}}))
	})
	add("KernelSummary/huge tile", true, func() error {
		return second(KernelSummary(&fig.Bench{Results: []fig.BenchResult{{Kernel: "coarsened", N: SummaryN, Tile: huge}}}))
	})

	// cards.go
	add("CardRuns/no arguments", false, ignore(func() { _, _ = CardRuns() }))
	oddCards := []CardRun{{}, {Card: "x", File: "f", N: -1, CopyMs: math.NaN(), Fast: &benchfile.Run{}}, {Card: "x", N: huge, Temporal: &benchfile.Run{N: -huge}}}
	add("CardFastTable/odd", false, ignore(func() { _ = CardFastTable(oddCards) }))
	add("CardTemporalTable/odd", false, ignore(func() { _ = CardTemporalTable(oddCards) }))
	add("CardRun.Recorded/zero", false, ignore(func() { _ = CardRun{}.Recorded() }))
	add("CardRun.Speedup/zero runs", false, ignore(func() { _, _ = CardRun{Fast: &benchfile.Run{}, Temporal: &benchfile.Run{}}.Speedup() }))
	add("CardRun.TemporalMarch/odd defines", false, ignore(func() {
		_, _ = CardRun{Temporal: &benchfile.Run{Defines: []string{"", "=", "TB_V=", "TB_V=99999999999999999999"}}}.TemporalMarch()
	}))
	add("CardRun.MarchSpeedup/zero runs", false, ignore(func() {
		_, _ = CardRun{Fast: &benchfile.Run{}, Marches: []MarchRun{{March: -1}}}.MarchSpeedup(-1)
	}))

	// charts.go
	add("TrafficPlot/no runs", true, func() error { return second(TrafficPlot()) })
	for name, r := range badResults() {
		add("TrafficPlot/"+name, true, func() error { return second(TrafficPlot(r)) })
	}
	add("TrafficHeight/negative", false, ignore(func() { TrafficHeight(-7) }))
	add("ModelVsMeasured/nil", true, func() error { return second(ModelVsMeasured(nil, "")) })
	add("ModelVsMeasured/unknown kernel", true, func() error {
		return second(ModelVsMeasured([]HopperRun{{Kernel: "nope", PctCopy: math.Inf(1)}}, "x"))
	})
	for _, pct := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1} {
		add(fmt.Sprintf("ModelVsMeasured/share %v", pct), true, func() error {
			return second(ModelVsMeasured([]HopperRun{{Kernel: "tiled", Config: "T = 8", PctCopy: 40}, {Kernel: "basic", PctCopy: pct}}, "x"))
		})
	}
	add("ModelVsMeasured/negative tile", true, func() error {
		return second(ModelVsMeasured([]HopperRun{{Kernel: "tiled", Config: "T = -1", PctCopy: -5}}, "x"))
	})
	add("Broken/empty", true, func() error { return second(Broken("")) })
	add("Broken/unknown", true, func() error { return second(Broken("tiled_no_barier")) })
	add("ShowBroken/nil writer", true, func() error { return second(ShowBroken(nil, "tiled_no_barrier", 8, 0)) })
	add("ShowBroken/unknown", true, func() error { return second(ShowBroken(io.Discard, "nope", 8, 0)) })
	add("ShowBroken/n too small", true, func() error { return second(ShowBroken(io.Discard, "tiled_no_barrier", 2, 0)) })
	add("ShowBroken/n too large", true, func() error { return second(ShowBroken(io.Discard, "tiled_no_barrier", huge, 0)) })
	add("ShowBroken/negative tile", true, func() error { return second(ShowBroken(io.Discard, "tiled_no_barrier", 8, -1)) })
	add("ShowBroken/failing writer", true, func() error {
		return second(ShowBroken(failing{}, "coarsened_block_34x34", 8, 0))
	})

	// cuda.go
	add("CUDAExercise/unknown exercise", true, func() error { return second(CUDAExercise("../../etc", "")) })
	add("CUDAExercise/empty", true, func() error { return second(CUDAExercise("", "")) })

	// diffmap.go
	add("Class.String/negative", false, ignore(func() { _ = Class(-1).String() }))
	add("Class.String/past the last", false, ignore(func() { _ = Class(1 << 20).String() }))
	for name, r := range badResults() {
		// A GPU run has an output and a reference to compare: only its
		// counts are missing.
		bad := name != "gpu run"
		add("Result.Classify/"+name, bad, func() error { return second(r.Classify(1, 1, 1)) })
		add("Result.Count/"+name, bad, func() error { return second(r.Count()) })
		add("DiffMap/"+name, bad, func() error { return second(DiffMap(r, 1)) })
		if bad { // drawing a good one would show it
			add("ShowDiff/"+name, true, func() error { return ShowDiff(r) })
		}
		add("Result.N/"+name, false, ignore(func() { r.N() }))
		add("Result.Tile/"+name, false, ignore(func() { r.Tile() }))
		add("Result.OK/"+name, false, ignore(func() { r.OK() }))
		add("Result.Summary/"+name, false, ignore(func() { _ = r.Summary() }))
		add("Result.Counters/"+name, false, ignore(func() { _ = r.Counters() }))
		add("Result.Hazards/"+name, false, ignore(func() { _ = r.Hazards(-1) }))
	}
	good := func() (Result, error) { return Simulate("tiled", 6, 0) }
	for _, p := range [][3]int{{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {6, 0, 0}, {0, 6, 0}, {0, 0, 6}, {huge, huge, huge}, {math.MinInt, 0, 0}} {
		add(fmt.Sprintf("Result.Classify/point %v", p), true, func() error {
			r, err := good()
			if err != nil {
				return fmt.Errorf("the good run failed, so the call was not made: %w", err)
			}
			return second(r.Classify(p[0], p[1], p[2]))
		})
	}
	for _, k := range []int{-1, 6, huge} {
		add(fmt.Sprintf("DiffMap/slice %d", k), true, func() error {
			r, err := good()
			if err != nil {
				return fmt.Errorf("the good run failed, so the call was not made: %w", err)
			}
			return second(DiffMap(r, k))
		})
	}
	add("Result.Hazards/huge", false, ignore(func() { r, _ := good(); _ = r.Hazards(huge) }))

	// intensity.go
	add("IntensitySweep/no tiles", true, func() error { return second(IntensitySweep("tiled", 8, nil)) })
	add("IntensitySweep/unknown step", true, func() error { return second(IntensitySweep("tiledd", 8, []int{4})) })
	add("IntensitySweep/negative tile", true, func() error { return second(IntensitySweep("tiled", 8, []int{-4})) })
	add("IntensitySweep/tile over the limits", true, func() error { return second(IntensitySweep("tiled", 8, []int{huge})) })
	add("IntensitySweep/n too large", true, func() error { return second(IntensitySweep("tiled", huge, []int{4})) })
	add("IntensitySweep/step without a simulated kernel", true, func() error { return second(IntensitySweep("fast", 8, []int{4})) })
	add("IntensityPlot/no points", true, func() error { return second(IntensityPlot("tiled", 8, nil)) })
	add("IntensityPlot/unknown step", true, func() error {
		return second(IntensityPlot("nope", 8, []IntensityPoint{{T: 4}}))
	})
	add("IntensityPlot/odd points", false, func() error {
		return second(IntensityPlot("tiled", -8, []IntensityPoint{{T: -4, Counted: math.NaN(), Model: math.Inf(1)}, {T: huge}}))
	})

	// leaderboard.go
	add("ReadLeaderboard/empty path", true, func() error { return second(ReadLeaderboard("", "")) })
	add("ReadLeaderboard/a folder", true, func() error { return second(ReadLeaderboard(".", "x")) })
	add("LeaderboardDiagram/nil", false, func() error { return second(LeaderboardDiagram(nil)) })
	for name, e := range map[string]LeaderboardEntry{"NaN share": {Pct: math.NaN()}, "infinite share": {Pct: math.Inf(1)},
		"negative share": {Pct: -1e300}, "NaN time": {Pct: 50, Millis: math.NaN()}, "infinite time": {Pct: 50, Millis: math.Inf(-1)}} {
		add("LeaderboardDiagram/"+name, true, func() error { return second(LeaderboardDiagram([]LeaderboardEntry{{Pct: 80, Millis: 1}, e})) })
	}
	add("ShowLeaderboard/empty path", false, func() error { return ShowLeaderboard("", "") })

	// nbrun.go
	add("Where/no arguments", false, ignore(func() { _, _ = Where() }))
	add("HasGPU/no arguments", false, ignore(func() { HasGPU() }))
	for _, c := range []struct {
		step    string
		n, tile int
	}{{"", 8, 0}, {"tiledd", 8, 0}, {"tiled", -1, 0}, {"tiled", 2, 0}, {"tiled", huge, 0}, {"tiled", 8, -1}, {"tiled", 8, huge}, {"sevenpoint", 8, 0}} {
		add(fmt.Sprintf("Sweep/%q,n=%d,tile=%d", c.step, c.n, c.tile), true, func() error { return second(Sweep(c.step, c.n, c.tile)) })
		add(fmt.Sprintf("Simulate/%q,n=%d,tile=%d", c.step, c.n, c.tile), true, func() error { return second(Simulate(c.step, c.n, c.tile)) })
	}
	add("Sweep/several time steps a pass", true, func() error { return second(Sweep("temporal", 8, 0)) })
	add("Simulate/no simulated kernel", true, func() error { return second(Simulate("fast", 8, 0)) })
	for name, k := range map[string]lab.StencilKernel{"nil": nil, "set-up panics": panicking, "set-up indexes nil": indexing,
		"thread writes a nil map": threadPanic, "no body": noBody} {
		add("SimulateKernel/"+name, true, func() error { return second(SimulateKernel("mine", k, 6, 0)) })
	}
	add("SimulateKernel/empty name, bad n", true, func() error { return second(SimulateKernel("", lab.TiledKernel, -6, 0)) })
	add("SimulateKernel/negative tile", true, func() error { return second(SimulateKernel("mine", lab.TiledKernel, 6, -3)) })
	add("Written/NaN", false, ignore(func() { Written(float32(math.NaN())) }))

	// notebook.go: Notebook is a variable; its Write is the export.
	add("Notebook.Write/nil", false, ignore(func() { _, _ = Notebook.Write(nil) }))

	// predict.go
	add("Predict/empty", false, ignore(func() { Predict("", "", math.NaN(), math.NaN(), math.NaN()) }))
	add("Predict/infinities", false, ignore(func() { Predict("q", "q", math.Inf(1), math.Inf(-1), -1) }))

	// questions.go, leaks.go
	add("Check/unknown notebook", false, ignore(func() { Check("99", "q1", 3) }))
	add("Check/unknown question", false, ignore(func() { Check("04", "", math.Inf(1)) }))
	add("Check/question with no number", false, ignore(func() { Check("01", "q2", 1) }))
	add("Reveal/unknown", false, ignore(func() { Reveal("", "") }))
	add("LookupQuestion/unknown", true, func() error { _, err := LookupQuestion("04", "nope"); return err })
	add("Questions/all", false, ignore(func() { _ = Questions() }))
	add("Question.Graded/zero", false, ignore(func() { _ = Question{}.Graded() }))
	add("Question.Tolerance/NaN", false, ignore(func() { _ = Question{Tol: math.NaN(), RelTol: -1}.Tolerance(math.Inf(1)) }))
	add("AnswerLeaks/bad numbers", false, ignore(func() {
		_ = AnswerLeaks(strings.Repeat("9", 400)+" 1,000,000,000 \xff\xfe 1e999", Question{Forms: []string{"", "\xff"}}, math.NaN(), math.Inf(1), -5)
	}))

	// temporal.go
	for _, c := range []struct {
		n  int
		ks []int
	}{{-1, []int{2}}, {huge, []int{2}}, {8, nil}, {8, []int{0}}, {8, []int{-2}}, {8, []int{huge}}} {
		add(fmt.Sprintf("SimulateTemporal/n=%d,ks=%v", c.n, c.ks), true, func() error { return second(SimulateTemporal(c.n, c.ks)) })
	}
	add("TemporalSimTable/nil", false, ignore(func() { _ = TemporalSimTable(nil) }))
	add("TemporalSimTable/odd runs", false, ignore(func() { _ = TemporalSimTable([]TemporalSim{{K: 0, N: 0}, {K: -3, N: 2}, {K: huge, N: -huge}}) }))
	add("TemporalBenches/no arguments", false, ignore(func() { _, _ = TemporalBenches() }))
	add("TemporalBenchTable/nil file", false, ignore(func() { _ = TemporalBenchTable([]*benchfile.File{nil, {}}) }))
	add("FastRun/nil file", false, ignore(func() { FastRun(nil, 512) }))
	add("BestTemporal/nil file", false, ignore(func() { BestTemporal([]*benchfile.File{nil}) }))
	add("RecordedPeers/no arguments", false, ignore(func() { _, _ = RecordedPeers() }))
	add("PeersTable/odd", false, ignore(func() { _ = PeersTable([]Peers{{}, {Runs: []PeersAtN{{N: -1}}}}) }))
	add("TemporalLimits/odd k", false, ignore(func() { TemporalLimits([]int{0, -1, huge}) }))
	add("TemporalLimitsTable/odd", false, ignore(func() { _ = TemporalLimitsTable([]TemporalLimit{{}, {BX: -1, K: -1, Err: "x"}}) }))
	add("TemporalLimitsChart/nil", true, func() error { return second(TemporalLimitsChart(nil)) })
	add("TemporalLimitsChart/only errors", true, func() error { return second(TemporalLimitsChart([]TemporalLimit{{Err: "no output"}})) })
	add("PeersChart/nothing", true, func() error { return second(PeersChart(nil, nil, 512)) })
	add("PeersChart/nil file", true, func() error { return second(PeersChart([]Peers{{}}, []*benchfile.File{nil}, -1)) })
	add("BestTemporalSummary/nil file", false, ignore(func() { _ = BestTemporalSummary([]*benchfile.File{nil}) }))

	// live.go
	add("LiveBrowser/no arguments", false, ignore(func() { LiveBrowser() }))
	okDraw := func(int) (fig.Drawer, error) { return fig.ZMarch(0) }
	for _, c := range []struct {
		name            string
		label           string
		min, max, value int
		draw            func(int) (fig.Drawer, error)
		w, h            float64
	}{
		{"empty label", "", 0, 4, 2, okDraw, 100, 100},
		{"nil draw", "T", 0, 4, 2, nil, 100, 100},
		{"min above max", "T", 4, 0, 2, okDraw, 100, 100},
		{"value outside", "T", 0, 4, 9, okDraw, 100, 100},
		{"too many positions", "T", 0, huge, 2, okDraw, 100, 100},
		{"draw fails", "T", 0, 4, 2, func(int) (fig.Drawer, error) { return nil, errors.New("no") }, 100, 100},
		{"draw returns nil", "T", 0, 4, 2, func(int) (fig.Drawer, error) { return nil, nil }, 100, 100},
		{"draw panics", "T", 0, 4, 2, func(int) (fig.Drawer, error) { panic("a student's drawing panics") }, 100, 100},
		{"negative size", "T", 0, 4, 2, okDraw, -1, 100},
		{"huge size", "T", 0, 4, 2, okDraw, 1e9, 1e9},
	} {
		add("SliderFigure/"+c.name, true, func() error {
			return SliderFigure(c.label, c.min, c.max, c.value, c.draw, vg.Length(c.w), vg.Length(c.h))
		})
	}
	for _, d := range []time.Duration{-time.Second, time.Hour} {
		add(fmt.Sprintf("AnimateZMarch/delay %v", d), true, func() error { return AnimateZMarch(d) })
	}
	add("ShowThreads/unknown", true, func() error { return ShowThreads("tiledd") })
	add("ShowThreads/empty", true, func() error { return ShowThreads("") })

	// multigpu.go, multigpu_bench.go
	add("HaloRatio/zeros", false, ignore(func() { HaloRatio(0, 0, 0, 0) }))
	add("HaloRatio/negative and NaN", false, ignore(func() { HaloRatio(-512, -4, math.NaN(), -1) }))
	add("H200CopyGBps/no such N", true, func() error { return second(H200CopyGBps(-1)) })
	add("HaloModelTable/empty and bad", false, ignore(func() { HaloModelTable(nil, []int{0, -2}, math.Inf(1), 0) }))
	add("AnimateHaloExchange/too few planes", true, func() error { return AnimateHaloExchange(4, 3, 2, 0) })
	add("AnimateHaloExchange/too many ranks", true, func() error { return AnimateHaloExchange(40, 9, 1, 0) })
	add("AnimateHaloExchange/negative delay", true, func() error { return AnimateHaloExchange(14, 3, 1, -time.Second) })
	add("PartsTable/nil", false, ignore(func() { PartsTable(nil) }))
	add("RunSplitCPU/unknown step", true, func() error { return second(RunSplitCPU("referense", 16, 2, 0, 0)) })
	add("RunSplitCPU/no split", true, func() error { return second(RunSplitCPU("reference", 16, -3, 0, 0)) })
	add("RunSplitCPU/too many ranks", true, func() error { return second(RunSplitCPU("reference", 8, 7, 0, 0)) })
	add("RunSplitCPU/huge grid", true, func() error { return second(RunSplitCPU("reference", huge, 2, 0, 0)) })
	add("RunSplitCPU/py not dividing", true, func() error { return second(RunSplitCPU("reference", 16, 4, 3, 0)) })
	add("SplitRun.String/zero", false, ignore(func() { _ = SplitRun{}.String() }))
	add("SplitRun.MaxHalo/zero", false, ignore(func() { SplitRun{}.MaxHalo() }))
	add("BusiestHalo/zeros", false, ignore(func() { BusiestHalo(0, 0, 0) }))
	add("BestPencils/huge", false, ignore(func() { BestPencils(512, huge) }))
	add("BestPencils/negative", false, ignore(func() { BestPencils(-1, -8) }))
	add("PencilsChart/no ranks", true, func() error { return second(PencilsChart(66, nil, nil)) })
	add("PencilsChart/zero ranks", true, func() error { return second(PencilsChart(66, []int{0, 4}, nil)) })
	add("PencilsChart/small N", true, func() error { return second(PencilsChart(2, []int{2, 4}, nil)) })
	add("MultiGPUBenches/no arguments", false, ignore(func() { _, _ = MultiGPUBenches() }))
	add("ComputeOnly/zero", false, ignore(func() { ComputeOnly(benchfile.Scale{}) }))
	add("ComputeOnly/NaN times", false, ignore(func() {
		ComputeOnly(benchfile.Scale{GPUs: 2, BaseGPUs: 1, BaseMs: math.NaN(), RankMs: []lab.RankTime{{Compute: math.NaN()}}})
	}))
	add("ScalingTable/nil bench", false, ignore(func() { ScalingTable([]*benchfile.File{nil}) }))
	add("ScalingChart/nil", true, func() error { return second(ScalingChart(nil)) })
	add("ScalingChart/nil bench", true, func() error { return second(ScalingChart([]*benchfile.File{nil})) })
	add("TimelineRun/nil bench", false, ignore(func() { TimelineRun([]*benchfile.File{nil}) }))
	add("TimelineChart/no times", true, func() error { return second(TimelineChart("", benchfile.Scale{})) })
	add("TimelineChart/NaN times", true, func() error {
		return second(TimelineChart("", benchfile.Scale{GPUs: 2, RankMs: []lab.RankTime{{Compute: math.NaN()}, {Wait: -1}}}))
	})

	// multigpu_peers.go
	add("ReadShardedJAX/empty path", true, func() error { return second(ReadShardedJAX("")) })
	add("ReadShardedJAX/no such file", true, func() error { return second(ReadShardedJAX("docs/no_such_file.json")) })
	add("ReadShardedJAX/a folder", true, func() error { return second(ReadShardedJAX("docs")) })
	add("ReadShardedJAX/not a comparison", true, func() error { return second(ReadShardedJAX("go.mod")) })
	add("ShardedJAXTable/empty path", false, func() error { return second(ShardedJAXTable("")) })
	add("ShardedJAXTable/a folder", true, func() error { return second(ShardedJAXTable("docs")) })
	add("ShardedJAX.String/nil", false, ignore(func() { _ = (*ShardedJAX)(nil).String() }))
	add("ShardedJAX.String/odd rows", false, ignore(func() {
		_ = (&ShardedJAX{Rows: []ShardedJAXRow{{}, {N: -1, GPUs: huge, HasLab: true, LabGpts: math.NaN(), HasJAX: true, JAXGpts: math.Inf(1), JAXEff: -1},
			{HasJAX: true, JAXErr: "x"}}, Skipped: -3}).String()
	}))
	add("ShardedJAXRow.Ratio/zero", false, ignore(func() { _, _ = ShardedJAXRow{}.Ratio() }))
	add("ShardedJAXRow.Ratio/NaN and zero rates", false, ignore(func() {
		_, _ = ShardedJAXRow{HasLab: true, HasJAX: true, LabGpts: math.NaN(), JAXGpts: 0}.Ratio()
	}))
	return cs
}

// TestBadArgumentChild makes, in a child process, the call badCallEnv
// names, and prints what it returned. Run directly it skips.
func TestBadArgumentChild(t *testing.T) {
	name := os.Getenv(badCallEnv)
	if name == "" {
		t.Skip("run by TestBadArgumentsDoNotPanic in a child process, with " + badCallEnv + " naming a call")
	}
	if name == harnessPanic {
		var r *Result
		_ = r.N() // a nil pointer dereference, as a careless export would make
	}
	badcall.Child(t, badCallEnv, asCalls(badCalls()))
}

// asCalls returns the calls as badcall's.
func asCalls(cs []badCall) []badcall.Call {
	out := make([]badcall.Call, len(cs))
	for i, c := range cs {
		out[i] = badcall.Call{Name: c.name, Call: c.call, WantErr: c.wantErr}
	}
	return out
}

// TestBadArgumentsDoNotPanic makes each bad call in a child process and
// checks that it returned, without a panic, and returned an error where
// the export has one to return.
func TestBadArgumentsDoNotPanic(t *testing.T) {
	if os.Getenv(badCallEnv) != "" {
		t.Skip("in a child process")
	}
	// The harness sees a panic: the child dies and says so.
	out, err := badcall.Spawn(t, badCallEnv, "TestBadArgumentChild", harnessPanic)
	require.Error(t, err, "a child that panics fails")
	require.Contains(t, out, "panic:")
	require.NotContains(t, out, badcall.Mark)

	calls := badCalls()
	returned := badcall.Run(t, badCallEnv, "TestBadArgumentChild", asCalls(calls))
	for _, c := range calls {
		if ret, ok := returned[c.name]; ok && c.wantErr {
			assert.NotContains(t, ret, "the good run failed", c.name)
		}
	}
}

// exportNames lists the exported functions of the package and the exported
// methods of its exported types ("Result.Classify"), from its source files;
// the Write of the exported variable Notebook counts as "Notebook.Write".
func exportNames(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, n := range badcall.Exports(t) {
		recv, method, isMethod := strings.Cut(n, ".")
		switch {
		case !isMethod || ast.IsExported(recv):
			names = append(names, n)
		case recv == "notebookWriter":
			names = append(names, "Notebook."+method)
		}
	}
	slices.Sort(names)
	return names
}

// TestEveryExportHasBadCalls checks that badCalls calls every export of
// the package, so that a new export must be added to it.
func TestEveryExportHasBadCalls(t *testing.T) {
	exports := exportNames(t)
	require.Contains(t, exports, "Sweep", "the parser finds the exports")
	require.Contains(t, exports, "Result.Classify")
	called, count := map[string]bool{}, map[string]int{}
	for _, c := range badCalls() {
		called[c.export()] = true
		count[c.export()]++
	}
	for _, e := range exports {
		assert.True(t, called[e], "export %s has no call in badCalls: add one with bad arguments", e)
	}
	for e := range called {
		assert.Contains(t, exports, e, "badCalls names %s, which is not an export of the package", e)
	}
	t.Logf("%d bad calls over %d exports", len(badCalls()), len(exports))
	for _, e := range exports {
		t.Logf("  %-22s %3d calls", e, count[e])
	}
}

func TestNearMissStepNames(t *testing.T) {
	_, err := Simulate("tiledd", 8, 0)
	assert.ErrorIs(t, err, lab.ErrUnknown)
	assert.ErrorContains(t, err, `did you mean "tiled"?`)
	_, err = Sweep("coarsend", 8, 0)
	assert.ErrorContains(t, err, `did you mean "coarsened"?`)
	_, err = Simulate("tiled_no_barier", 8, 0)
	assert.ErrorContains(t, err, `did you mean "tiled_no_barrier"?`)
}

func TestStudentKernelPanicIsAnError(t *testing.T) {
	k := func(a lab.StencilArgs) (sim.Kernel, error) { return sim.Kernel{}, fmt.Errorf("%d", []int{}[a.NX]) }
	r, err := SimulateKernel("mine", k, 6, 0)
	assert.ErrorIs(t, err, sim.ErrFault)
	assert.ErrorContains(t, err, "panicked")
	assert.False(t, r.OK())
}
