package nbrun

import (
	"errors"
	"fmt"
	"go/ast"
	"io"
	"math"
	"os"
	"path/filepath"
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
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/draw"
	"stencillab.dev/notebooks/nbrun/exercise"
	"stencillab.dev/notebooks/nbrun/model"
	"stencillab.dev/notebooks/nbrun/predict"
	"stencillab.dev/notebooks/nbrun/run"
	"stencillab.dev/notebooks/nbrun/widgets"
)

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
func badResults() map[string]run.Result {
	cube := func(n int) *lab.Grid3[float32] {
		g, _ := lab.NewCube[float32](n)
		return g
	}
	return map[string]run.Result{
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
		add(fmt.Sprintf("run.Bench/n=%d,reps=%d", c.n, c.reps), true, func() error { return second(run.Bench(c.n, c.reps)) })
	}
	add("data.RepoRoot/no arguments", false, ignore(func() { _, _ = data.RepoRoot() }))
	add("data.MeasuredBench/no arguments", false, ignore(func() { _, _ = data.MeasuredBench() }))
	for _, n := range []int{-1, 0, huge} {
		add(fmt.Sprintf("data.MeasuredDRAM/n=%d", n), true, func() error { return second(data.MeasuredDRAM(n)) })
	}
	add("data.RecordedRuns/nil bench", false, ignore(func() { data.RecordedRuns(nil) }))
	add("data.RecordedRuns/empty bench", false, ignore(func() { data.RecordedRuns(&fig.Bench{}) }))
	add("model.ModelShare/unknown kernel", true, func() error { return second(model.ModelShare("tiledd", 512, 8)) })
	add("model.ModelShare/empty kernel", true, func() error { return second(model.ModelShare("", 512, 8)) })
	add("model.ModelShare/negative n", true, func() error { return second(model.ModelShare("tiled", -512, 8)) })
	add("model.ModelShare/negative tile", true, func() error { return second(model.ModelShare("tiled", 512, -8)) })
	add("model.ModelShare/huge n", true, func() error { return second(model.ModelShare("tiled", huge, 8)) })
	add("model.CompareModel/nil", true, func() error { return second(model.CompareModel(nil)) })
	add("model.CompareModel/unknown kernel", false, func() error {
		return second(model.CompareModel([]data.HopperRun{{Kernel: "nope", Config: "T = -3", PctCopy: math.NaN()}}))
	})
	add("model.CompareModel/negative tile", true, func() error {
		return second(model.CompareModel([]data.HopperRun{{Kernel: "tiled", Config: "T = -3"}}))
	})
	add("data.FromBench/nil bench", false, ignore(func() { data.FromBench(nil, 512) }))
	add("data.FromBench/negative n", false, ignore(func() { data.FromBench(&fig.Bench{Results: []fig.BenchResult{{Kernel: "tiled", N: -1}}}, -1) }))
	add("data.IsMissing/nil", false, ignore(func() { data.IsMissing(nil) }))
	add("draw.KernelSummary/nil bench", false, func() error { return second(draw.KernelSummary(nil)) })
	add("draw.KernelSummary/negative tile", true, func() error {
		return second(draw.KernelSummary(&fig.Bench{Results: []fig.BenchResult{{Kernel: "tiled", N: draw.SummaryN, Tile: -3}}}))
	})
	add("draw.KernelSummary/huge tile", true, func() error {
		return second(draw.KernelSummary(&fig.Bench{Results: []fig.BenchResult{{Kernel: "coarsened", N: draw.SummaryN, Tile: huge}}}))
	})

	// cards.go
	add("data.CardRuns/no arguments", false, ignore(func() { _, _ = data.CardRuns() }))
	oddCards := []data.CardRun{{}, {Card: "x", File: "f", N: -1, CopyMs: math.NaN(), Fast: &benchfile.Run{}}, {Card: "x", N: huge, Temporal: &benchfile.Run{N: -huge}}}
	add("data.CardFastTable/odd", false, ignore(func() { _ = data.CardFastTable(oddCards) }))
	add("data.CardTemporalTable/odd", false, ignore(func() { _ = data.CardTemporalTable(oddCards) }))
	add("data.CardRun.Recorded/zero", false, ignore(func() { _ = data.CardRun{}.Recorded() }))
	add("data.CardRun.Speedup/zero runs", false, ignore(func() { _, _ = data.CardRun{Fast: &benchfile.Run{}, Temporal: &benchfile.Run{}}.Speedup() }))
	add("data.CardRun.TemporalMarch/odd defines", false, ignore(func() {
		_, _ = data.CardRun{Temporal: &benchfile.Run{Defines: []string{"", "=", "TB_V=", "TB_V=99999999999999999999"}}}.TemporalMarch()
	}))
	add("data.CardRun.MarchSpeedup/zero runs", false, ignore(func() {
		_, _ = data.CardRun{Fast: &benchfile.Run{}, Marches: []data.MarchRun{{March: -1}}}.MarchSpeedup(-1)
	}))

	// charts.go
	add("draw.TrafficPlot/no runs", true, func() error { return second(draw.TrafficPlot()) })
	for name, r := range badResults() {
		add("draw.TrafficPlot/"+name, true, func() error { return second(draw.TrafficPlot(r)) })
	}
	add("draw.TrafficHeight/negative", false, ignore(func() { draw.TrafficHeight(-7) }))
	add("draw.ModelVsMeasured/nil", true, func() error { return second(draw.ModelVsMeasured(nil, "")) })
	add("draw.ModelVsMeasured/unknown kernel", true, func() error {
		return second(draw.ModelVsMeasured([]data.HopperRun{{Kernel: "nope", PctCopy: math.Inf(1)}}, "x"))
	})
	for _, pct := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1} {
		add(fmt.Sprintf("draw.ModelVsMeasured/share %v", pct), true, func() error {
			return second(draw.ModelVsMeasured([]data.HopperRun{{Kernel: "tiled", Config: "T = 8", PctCopy: 40}, {Kernel: "basic", PctCopy: pct}}, "x"))
		})
	}
	add("draw.ModelVsMeasured/negative tile", true, func() error {
		return second(draw.ModelVsMeasured([]data.HopperRun{{Kernel: "tiled", Config: "T = -1", PctCopy: -5}}, "x"))
	})
	add("draw.Broken/empty", true, func() error { return second(draw.Broken("")) })
	add("draw.Broken/unknown", true, func() error { return second(draw.Broken("tiled_no_barier")) })
	add("draw.ShowBroken/nil writer", true, func() error { return second(draw.ShowBroken(nil, "tiled_no_barrier", 8, 0)) })
	add("draw.ShowBroken/unknown", true, func() error { return second(draw.ShowBroken(io.Discard, "nope", 8, 0)) })
	add("draw.ShowBroken/n too small", true, func() error { return second(draw.ShowBroken(io.Discard, "tiled_no_barrier", 2, 0)) })
	add("draw.ShowBroken/n too large", true, func() error { return second(draw.ShowBroken(io.Discard, "tiled_no_barrier", huge, 0)) })
	add("draw.ShowBroken/negative tile", true, func() error { return second(draw.ShowBroken(io.Discard, "tiled_no_barrier", 8, -1)) })
	add("draw.ShowBroken/failing writer", true, func() error {
		return second(draw.ShowBroken(failing{}, "coarsened_block_34x34", 8, 0))
	})

	// cuda.go
	add("exercise.CUDAExercise/unknown exercise", true, func() error { return second(exercise.CUDAExercise("../../etc", "")) })
	add("exercise.CUDAExercise/empty", true, func() error { return second(exercise.CUDAExercise("", "")) })

	// diffmap.go
	add("run.Class.String/negative", false, ignore(func() { _ = run.Class(-1).String() }))
	add("run.Class.String/past the last", false, ignore(func() { _ = run.Class(1 << 20).String() }))
	for name, r := range badResults() {
		// A GPU run has an output and a reference to compare: only its
		// counts are missing.
		bad := name != "gpu run"
		add("run.Result.Classify/"+name, bad, func() error { return second(r.Classify(1, 1, 1)) })
		add("run.Result.Count/"+name, bad, func() error { return second(r.Count()) })
		add("draw.DiffMap/"+name, bad, func() error { return second(draw.DiffMap(r, 1)) })
		if bad { // drawing a good one would show it
			add("draw.ShowDiff/"+name, true, func() error { return draw.ShowDiff(r) })
		}
		add("run.Result.N/"+name, false, ignore(func() { r.N() }))
		add("run.Result.Tile/"+name, false, ignore(func() { r.Tile() }))
		add("run.Result.OK/"+name, false, ignore(func() { r.OK() }))
		add("run.Result.Summary/"+name, false, ignore(func() { _ = r.Summary() }))
		add("run.Result.Counters/"+name, false, ignore(func() { _ = r.Counters() }))
		add("run.Result.Hazards/"+name, false, ignore(func() { _ = r.Hazards(-1) }))
	}
	good := func() (run.Result, error) { return run.Simulate("tiled", 6, 0) }
	for _, p := range [][3]int{{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {6, 0, 0}, {0, 6, 0}, {0, 0, 6}, {huge, huge, huge}, {math.MinInt, 0, 0}} {
		add(fmt.Sprintf("run.Result.Classify/point %v", p), true, func() error {
			r, err := good()
			if err != nil {
				return fmt.Errorf("the good run failed, so the call was not made: %w", err)
			}
			return second(r.Classify(p[0], p[1], p[2]))
		})
	}
	for _, k := range []int{-1, 6, huge} {
		add(fmt.Sprintf("draw.DiffMap/slice %d", k), true, func() error {
			r, err := good()
			if err != nil {
				return fmt.Errorf("the good run failed, so the call was not made: %w", err)
			}
			return second(draw.DiffMap(r, k))
		})
	}
	add("run.Result.Hazards/huge", false, ignore(func() { r, _ := good(); _ = r.Hazards(huge) }))

	// intensity.go
	add("model.IntensitySweep/no tiles", true, func() error { return second(model.IntensitySweep("tiled", 8, nil)) })
	add("model.IntensitySweep/unknown step", true, func() error { return second(model.IntensitySweep("tiledd", 8, []int{4})) })
	add("model.IntensitySweep/negative tile", true, func() error { return second(model.IntensitySweep("tiled", 8, []int{-4})) })
	add("model.IntensitySweep/tile over the limits", true, func() error { return second(model.IntensitySweep("tiled", 8, []int{huge})) })
	add("model.IntensitySweep/n too large", true, func() error { return second(model.IntensitySweep("tiled", huge, []int{4})) })
	add("model.IntensitySweep/step without a simulated kernel", true, func() error { return second(model.IntensitySweep("fast", 8, []int{4})) })
	add("draw.IntensityPlot/no points", true, func() error { return second(draw.IntensityPlot("tiled", 8, nil)) })
	add("draw.IntensityPlot/unknown step", true, func() error {
		return second(draw.IntensityPlot("nope", 8, []model.IntensityPoint{{T: 4}}))
	})
	add("draw.IntensityPlot/odd points", false, func() error {
		return second(draw.IntensityPlot("tiled", -8, []model.IntensityPoint{{T: -4, Counted: math.NaN(), Model: math.Inf(1)}, {T: huge}}))
	})

	// leaderboard.go
	add("exercise.ReadLeaderboard/empty path", true, func() error { return second(exercise.ReadLeaderboard("", "")) })
	add("exercise.ReadLeaderboard/a folder", true, func() error { return second(exercise.ReadLeaderboard(".", "x")) })
	add("draw.LeaderboardDiagram/nil", false, func() error { return second(draw.LeaderboardDiagram(nil)) })
	for name, e := range map[string]exercise.LeaderboardEntry{"NaN share": {Pct: math.NaN()}, "infinite share": {Pct: math.Inf(1)},
		"negative share": {Pct: -1e300}, "NaN time": {Pct: 50, Millis: math.NaN()}, "infinite time": {Pct: 50, Millis: math.Inf(-1)}} {
		add("draw.LeaderboardDiagram/"+name, true, func() error {
			return second(draw.LeaderboardDiagram([]exercise.LeaderboardEntry{{Pct: 80, Millis: 1}, e}))
		})
	}
	add("exercise.ShowLeaderboard/empty path", false, func() error { return exercise.ShowLeaderboard("", "") })

	// nbrun.go
	add("run.Where/no arguments", false, ignore(func() { _, _ = run.Where() }))
	add("run.HasGPU/no arguments", false, ignore(func() { run.HasGPU() }))
	for _, c := range []struct {
		step    string
		n, tile int
	}{{"", 8, 0}, {"tiledd", 8, 0}, {"tiled", -1, 0}, {"tiled", 2, 0}, {"tiled", huge, 0}, {"tiled", 8, -1}, {"tiled", 8, huge}, {"sevenpoint", 8, 0}} {
		add(fmt.Sprintf("run.Sweep/%q,n=%d,tile=%d", c.step, c.n, c.tile), true, func() error { return second(run.Sweep(c.step, c.n, c.tile)) })
		add(fmt.Sprintf("run.Simulate/%q,n=%d,tile=%d", c.step, c.n, c.tile), true, func() error { return second(run.Simulate(c.step, c.n, c.tile)) })
	}
	add("run.Sweep/several time steps a pass", true, func() error { return second(run.Sweep("temporal", 8, 0)) })
	add("run.Simulate/no simulated kernel", true, func() error { return second(run.Simulate("fast", 8, 0)) })
	for name, k := range map[string]lab.StencilKernel{"nil": nil, "set-up panics": panicking, "set-up indexes nil": indexing,
		"thread writes a nil map": threadPanic, "no body": noBody} {
		add("run.SimulateKernel/"+name, true, func() error { return second(run.SimulateKernel("mine", k, 6, 0)) })
	}
	add("run.SimulateKernel/empty name, bad n", true, func() error { return second(run.SimulateKernel("", lab.TiledKernel, -6, 0)) })
	add("run.SimulateKernel/negative tile", true, func() error { return second(run.SimulateKernel("mine", lab.TiledKernel, 6, -3)) })
	add("run.Written/NaN", false, ignore(func() { run.Written(float32(math.NaN())) }))

	// notebook.go: Notebook is a variable; its Write is the export.
	add("widgets.Notebook.Write/nil", false, ignore(func() { _, _ = widgets.Notebook.Write(nil) }))

	// predict.go
	add("predict.Predict/empty", false, ignore(func() { predict.Predict("", "", math.NaN(), math.NaN(), math.NaN()) }))
	add("predict.Predict/infinities", false, ignore(func() { predict.Predict("q", "q", math.Inf(1), math.Inf(-1), -1) }))

	// questions.go, leaks.go
	add("predict.Check/unknown notebook", false, ignore(func() { predict.Check("99", "q1", 3) }))
	add("predict.Check/unknown question", false, ignore(func() { predict.Check("04", "", math.Inf(1)) }))
	add("predict.Check/question with no number", false, ignore(func() { predict.Check("01", "q2", 1) }))
	add("data.StepsPerPass/zero run", false, ignore(func() { data.StepsPerPass(benchfile.Run{}) }))
	add("data.StepsPerPass/negative tile", false, ignore(func() { data.StepsPerPass(benchfile.Run{Kernel: "temporal", Tile: -4}) }))
	add("model.TileOf/zero run", false, ignore(func() { model.TileOf(data.HopperRun{}) }))
	add("model.TileOf/unknown step", false, ignore(func() { model.TileOf(data.HopperRun{Kernel: "tiledd", Config: "T = -3"}) }))
	for name, r := range badResults() {
		add("run.Result.CheckGrids/"+name, name != "gpu run", r.CheckGrids)
	}
	add("nbrun.Check/unknown question", false, ignore(func() { Check("04", "", math.NaN()) }))
	add("predict.Reveal/unknown", false, ignore(func() { predict.Reveal("", "") }))
	add("predict.LookupQuestion/unknown", true, func() error { _, err := predict.LookupQuestion("04", "nope"); return err })
	add("predict.Questions/all", false, ignore(func() { _ = predict.Questions() }))
	add("predict.Question.Graded/zero", false, ignore(func() { _ = predict.Question{}.Graded() }))
	add("predict.Question.Tolerance/NaN", false, ignore(func() { _ = predict.Question{Tol: math.NaN(), RelTol: -1}.Tolerance(math.Inf(1)) }))
	add("predict.AnswerLeaks/bad numbers", false, ignore(func() {
		_ = predict.AnswerLeaks(strings.Repeat("9", 400)+" 1,000,000,000 \xff\xfe 1e999", predict.Question{Forms: []string{"", "\xff"}}, math.NaN(), math.Inf(1), -5)
	}))

	// temporal.go
	for _, c := range []struct {
		n  int
		ks []int
	}{{-1, []int{2}}, {huge, []int{2}}, {8, nil}, {8, []int{0}}, {8, []int{-2}}, {8, []int{huge}}} {
		add(fmt.Sprintf("model.SimulateTemporal/n=%d,ks=%v", c.n, c.ks), true, func() error { return second(model.SimulateTemporal(c.n, c.ks)) })
	}
	add("model.TemporalSimTable/nil", false, ignore(func() { _ = model.TemporalSimTable(nil) }))
	add("model.TemporalSimTable/odd runs", false, ignore(func() {
		_ = model.TemporalSimTable([]model.TemporalSim{{K: 0, N: 0}, {K: -3, N: 2}, {K: huge, N: -huge}})
	}))
	add("data.TemporalBenches/no arguments", false, ignore(func() { _, _ = data.TemporalBenches() }))
	add("data.TemporalBenchTable/nil file", false, ignore(func() { _ = data.TemporalBenchTable([]*benchfile.File{nil, {}}) }))
	add("data.FastRun/nil file", false, ignore(func() { data.FastRun(nil, 512) }))
	add("data.BestTemporal/nil file", false, ignore(func() { data.BestTemporal([]*benchfile.File{nil}) }))
	add("data.RecordedPeers/no arguments", false, ignore(func() { _, _ = data.RecordedPeers() }))
	add("data.PeersTable/odd", false, ignore(func() { _ = data.PeersTable([]data.Peers{{}, {Runs: []data.PeersAtN{{N: -1}}}}) }))
	add("data.RecordedEBISU/no arguments", false, ignore(func() { _, _ = data.RecordedEBISU() }))
	add("data.EBISUTable/odd", false, ignore(func() {
		_ = data.EBISUTable([]data.EBISURun{{}, {Rows: []data.EBISURow{{N: -1, EBISU: -1, Star13: 1}}}})
	}))
	add("model.TemporalLimits/odd k", false, ignore(func() { model.TemporalLimits([]int{0, -1, huge}) }))
	add("model.TemporalLimitsTable/odd", false, ignore(func() { _ = model.TemporalLimitsTable([]model.TemporalLimit{{}, {BX: -1, K: -1, Err: "x"}}) }))
	add("draw.TemporalLimitsChart/nil", true, func() error { return second(draw.TemporalLimitsChart(nil)) })
	add("draw.TemporalLimitsChart/only errors", true, func() error { return second(draw.TemporalLimitsChart([]model.TemporalLimit{{Err: "no output"}})) })
	add("draw.PeersChart/nothing", true, func() error { return second(draw.PeersChart(nil, nil, 512)) })
	add("draw.PeersChart/nil file", true, func() error { return second(draw.PeersChart([]data.Peers{{}}, []*benchfile.File{nil}, -1)) })
	add("data.BestTemporalSummary/nil file", false, ignore(func() { _ = data.BestTemporalSummary([]*benchfile.File{nil}) }))

	// live.go
	add("widgets.LiveBrowser/no arguments", false, ignore(func() { widgets.LiveBrowser() }))
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
		add("widgets.SliderFigure/"+c.name, true, func() error {
			return widgets.SliderFigure(c.label, c.min, c.max, c.value, c.draw, vg.Length(c.w), vg.Length(c.h))
		})
	}
	for _, d := range []time.Duration{-time.Second, time.Hour} {
		add(fmt.Sprintf("widgets.AnimateZMarch/delay %v", d), true, func() error { return widgets.AnimateZMarch(d) })
	}
	add("widgets.ShowThreads/unknown", true, func() error { return widgets.ShowThreads("tiledd") })
	add("widgets.ShowThreads/empty", true, func() error { return widgets.ShowThreads("") })

	// multigpu.go, multigpu_bench.go
	add("model.HaloRatio/zeros", false, ignore(func() { model.HaloRatio(0, 0, 0, 0) }))
	add("model.HaloRatio/negative and NaN", false, ignore(func() { model.HaloRatio(-512, -4, math.NaN(), -1) }))
	add("data.H200CopyGBps/no such N", true, func() error { return second(data.H200CopyGBps(-1)) })
	add("model.HaloModelTable/empty and bad", false, ignore(func() { model.HaloModelTable(nil, []int{0, -2}, math.Inf(1), 0) }))
	add("widgets.AnimateHaloExchange/too few planes", true, func() error { return widgets.AnimateHaloExchange(4, 3, 2, 0) })
	add("widgets.AnimateHaloExchange/too many ranks", true, func() error { return widgets.AnimateHaloExchange(40, 9, 1, 0) })
	add("widgets.AnimateHaloExchange/negative delay", true, func() error { return widgets.AnimateHaloExchange(14, 3, 1, -time.Second) })
	add("model.PartsTable/nil", false, ignore(func() { model.PartsTable(nil) }))
	add("model.RunSplitCPU/unknown step", true, func() error { return second(model.RunSplitCPU("referense", 16, 2, 0, 0)) })
	add("model.RunSplitCPU/no split", true, func() error { return second(model.RunSplitCPU("reference", 16, -3, 0, 0)) })
	add("model.RunSplitCPU/too many ranks", true, func() error { return second(model.RunSplitCPU("reference", 8, 7, 0, 0)) })
	add("model.RunSplitCPU/huge grid", true, func() error { return second(model.RunSplitCPU("reference", huge, 2, 0, 0)) })
	add("model.RunSplitCPU/py not dividing", true, func() error { return second(model.RunSplitCPU("reference", 16, 4, 3, 0)) })
	add("model.SplitRun.String/zero", false, ignore(func() { _ = model.SplitRun{}.String() }))
	add("model.SplitRun.MaxHalo/zero", false, ignore(func() { model.SplitRun{}.MaxHalo() }))
	add("model.BusiestHalo/zeros", false, ignore(func() { model.BusiestHalo(0, 0, 0) }))
	add("model.BestPencils/huge", false, ignore(func() { model.BestPencils(512, huge) }))
	add("model.BestPencils/negative", false, ignore(func() { model.BestPencils(-1, -8) }))
	add("draw.PencilsChart/no ranks", true, func() error { return second(draw.PencilsChart(66, nil, nil)) })
	add("draw.PencilsChart/zero ranks", true, func() error { return second(draw.PencilsChart(66, []int{0, 4}, nil)) })
	add("draw.PencilsChart/small N", true, func() error { return second(draw.PencilsChart(2, []int{2, 4}, nil)) })
	add("data.MultiGPUBenches/no arguments", false, ignore(func() { _, _ = data.MultiGPUBenches() }))
	add("data.ComputeOnly/zero", false, ignore(func() { data.ComputeOnly(benchfile.Scale{}) }))
	add("data.ComputeOnly/NaN times", false, ignore(func() {
		data.ComputeOnly(benchfile.Scale{GPUs: 2, BaseGPUs: 1, BaseMs: math.NaN(), RankMs: []lab.RankTime{{Compute: math.NaN()}}})
	}))
	add("data.ScalingTable/nil bench", false, ignore(func() { data.ScalingTable([]*benchfile.File{nil}) }))
	add("draw.ScalingChart/nil", true, func() error { return second(draw.ScalingChart(nil)) })
	add("draw.ScalingChart/nil bench", true, func() error { return second(draw.ScalingChart([]*benchfile.File{nil})) })
	add("data.TimelineRun/nil bench", false, ignore(func() { data.TimelineRun([]*benchfile.File{nil}) }))
	add("draw.TimelineChart/no times", true, func() error { return second(draw.TimelineChart("", benchfile.Scale{})) })
	add("draw.TimelineChart/NaN times", true, func() error {
		return second(draw.TimelineChart("", benchfile.Scale{GPUs: 2, RankMs: []lab.RankTime{{Compute: math.NaN()}, {Wait: -1}}}))
	})

	// multigpu_peers.go
	add("data.ReadShardedJAX/empty path", true, func() error { return second(data.ReadShardedJAX("")) })
	add("data.ReadShardedJAX/no such file", true, func() error { return second(data.ReadShardedJAX("docs/no_such_file.json")) })
	add("data.ReadShardedJAX/a folder", true, func() error { return second(data.ReadShardedJAX("docs")) })
	add("data.ReadShardedJAX/not a comparison", true, func() error { return second(data.ReadShardedJAX("go.mod")) })
	add("data.ShardedJAXTable/empty path", false, func() error { return second(data.ShardedJAXTable("")) })
	add("data.ShardedJAXTable/a folder", true, func() error { return second(data.ShardedJAXTable("docs")) })
	add("data.ShardedJAX.String/nil", false, ignore(func() { _ = (*data.ShardedJAX)(nil).String() }))
	add("data.ShardedJAX.String/odd rows", false, ignore(func() {
		_ = (&data.ShardedJAX{Rows: []data.ShardedJAXRow{{}, {N: -1, GPUs: huge, HasLab: true, LabGpts: math.NaN(), HasJAX: true, JAXGpts: math.Inf(1), JAXEff: -1},
			{HasJAX: true, JAXErr: "x"}}, Skipped: -3}).String()
	}))
	add("data.ShardedJAXRow.Ratio/zero", false, ignore(func() { _, _ = data.ShardedJAXRow{}.Ratio() }))
	add("data.ShardedJAXRow.Ratio/NaN and zero rates", false, ignore(func() {
		_, _ = data.ShardedJAXRow{HasLab: true, HasJAX: true, LabGpts: math.NaN(), JAXGpts: 0}.Ratio()
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
		var r *run.Result
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

// exportNames lists the exported functions of the façade and of each
// sub-package, and the exported methods of their exported types, each
// named with its package ("run.Result.Classify"), from their source files;
// the Write of the exported variable widgets.Notebook counts as
// "widgets.Notebook.Write".
func exportNames(t *testing.T) []string {
	t.Helper()
	root, err := os.Getwd()
	require.NoError(t, err)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	dirs := []string{"."}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			dirs = append(dirs, e.Name())
		}
	}
	var names []string
	for _, dir := range dirs {
		t.Chdir(filepath.Join(root, dir))
		pkg := dir
		if dir == "." {
			pkg = "nbrun"
		}
		for _, n := range badcall.Exports(t) {
			recv, method, isMethod := strings.Cut(n, ".")
			switch {
			case !isMethod || ast.IsExported(recv):
				names = append(names, pkg+"."+n)
			case recv == "notebookWriter":
				names = append(names, pkg+".Notebook."+method)
			}
		}
	}
	slices.Sort(names)
	return names
}

// TestEveryExportHasBadCalls checks that badCalls calls every export of
// the package, so that a new export must be added to it.
func TestEveryExportHasBadCalls(t *testing.T) {
	exports := exportNames(t)
	require.Contains(t, exports, "run.Sweep", "the parser finds the exports")
	require.Contains(t, exports, "run.Result.Classify")
	require.Contains(t, exports, "draw.DiffMap", "the parser reads every sub-package")
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
		t.Logf("  %-30s %3d calls", e, count[e])
	}
}
