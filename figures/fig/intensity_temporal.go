package fig

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"stencillab.dev/lab"
)

// TemporalKs are the time steps per pass the temporal intensity chart
// simulates.
var TemporalKs = []int{1, 2, 3, 4, 6, 8, 10}

// SimulatedTemporalIntensity runs the temporally blocked step on the
// simulator on an n×n×n grid for each k of TemporalKs, one pass of k time
// steps each, and returns the intensity each launch counted (Measured.T
// holds k).
func SimulatedTemporalIntensity(n int) ([]Measured, error) {
	simMu.Lock()
	defer simMu.Unlock()
	key := -n // the chapter kernels' counts use n itself
	if m, ok := simCache[key]; ok {
		return slices.Clone(m), nil
	}
	src, err := lab.NewCube[float32](n)
	if err != nil {
		return nil, fmt.Errorf("fig: simulated temporal intensity: %w", err)
	}
	src.FillRandom(8)
	var out []Measured
	for _, k := range TemporalKs {
		res, err := lab.Execute(lab.Run{Step: temporalStep, Backend: lab.Sim, Config: lab.Config{Tile: k}, Src: src, C: lab.DistinctCoeffs(), Steps: k})
		if err != nil {
			return nil, fmt.Errorf("fig: simulated intensity of %s at k = %d: %w", temporalStep, k, err)
		}
		out = append(out, Measured{Kernel: temporalStep, N: n, T: k, OpPerByte: res.Stats.OpPerByte()})
	}
	simCache[key] = out
	return slices.Clone(out), nil
}

// temporalStep is the lab's temporally blocked step.
const temporalStep = "temporal"

// IntensityTemporal draws the arithmetic intensity of temporal blocking
// against k, the time steps one pass advances, past the 13/4 = 3.25 OP/B
// that bounds any single sweep: the operations performed per byte loaded,
// 13k(T−2)²/4T², and the useful ones, those that end in an output,
// 13k(T−2k)²/4T², for the simulated kernel's T×T tile
// (lab.TemporalIntensity), and the simulator's counts when given.
func IntensityTemporal(measured []Measured) (*plot.Plot, error) {
	T := lab.TemporalSimTile
	kmax := (T - 1) / 2
	st, err := Style(temporalStep)
	if err != nil {
		return nil, fmt.Errorf("fig: temporal intensity: %w", err)
	}
	p := NewPlot(fmt.Sprintf("Temporal blocking: intensity against the time steps per pass (%d×%d tile)", T, T),
		"k, time steps per pass over the grid", "OP/B: operations per byte loaded")
	p.X.Min, p.X.Max, p.Y.Min = 0, float64(kmax)+0.5, 0
	p.Add(plotter.NewGrid())
	var perf, useful plotter.XYs
	for k := 1; k <= kmax; k++ {
		a, u := lab.TemporalIntensity(T, k)
		perf = append(perf, plotter.XY{X: float64(k), Y: a})
		useful = append(useful, plotter.XY{X: float64(k), Y: u})
	}
	lp, err := plotter.NewLine(perf)
	if err != nil {
		return nil, fmt.Errorf("fig: temporal intensity: %w", err)
	}
	lp.LineStyle = lineStyle(st.Color, 2, false)
	lu, err := plotter.NewLine(useful)
	if err != nil {
		return nil, fmt.Errorf("fig: temporal intensity: %w", err)
	}
	lu.LineStyle = lineStyle(Vermillion, 2, false)
	limit, err := plotter.NewLine(plotter.XYs{{X: 0, Y: lab.IntensityLimit}, {X: float64(kmax) + 0.5, Y: lab.IntensityLimit}})
	if err != nil {
		return nil, fmt.Errorf("fig: temporal intensity: %w", err)
	}
	limit.LineStyle = lineStyle(Muted, 1, true)
	p.Add(limit, lp, lu)
	p.Legend.Add(fmt.Sprintf("performed: 13k(T−2)² / 4T², T = %d", T), lp)
	p.Legend.Add("useful (ends in an output): 13k(T−2k)² / 4T²", lu)
	var o Overlay
	o.Add(Label(float64(kmax)*0.98, lab.IntensityLimit+0.3, 9, fmt.Sprintf("one sweep's limit 13/4 = %.2f", lab.IntensityLimit)).Align(-1, 0).Bold())
	best, bestK := 0.0, 0
	for _, xy := range useful {
		if xy.Y > best {
			best, bestK = xy.Y, int(xy.X)
		}
	}
	o.Add(Label(float64(bestK), best+0.5, 9, fmt.Sprintf("useful peaks at k = %d: %.2f OP/B", bestK, best)).Align(-0.5, 0).Bold().Colored(Vermillion))
	var pts plotter.XYs
	n := 0
	for _, m := range measured {
		if m.Kernel == temporalStep && m.OpPerByte > 0 {
			pts = append(pts, plotter.XY{X: float64(m.T), Y: m.OpPerByte})
			n = m.N
		}
	}
	if len(pts) > 0 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("fig: temporal intensity: %w", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Length(st.Radius + 1), Shape: st.Glyph}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("performed, counted by the simulator on N = %d", n), s)
	}
	var xt plot.ConstantTicks
	for k := 1; k <= kmax; k++ {
		xt = append(xt, plot.Tick{Value: float64(k), Label: fmt.Sprint(k)})
	}
	p.X.Tick.Marker = xt
	p.Add(&o)
	return p, nil
}
