package fig

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Measured is an arithmetic intensity counted by the simulator: the
// operations over the bytes loaded from global memory of one launch of a
// kernel with tile T on an N×N×N grid.
type Measured struct {
	Kernel    string
	N, T      int
	OpPerByte float64
}

// SimN is the grid side of the simulated points of the intensity chart:
// small enough to simulate in well under a second.
const SimN = 34

// SimulatedIntensity runs the chapter's kernels on lab's simulated GPU on
// an n×n×n grid and returns the intensity each launch counted, for the
// tiles the intensity chart shows. On a small grid the blocks at the faces
// load partial tiles, so the counts fall below the model's, which is
// for a block far from the faces.
func SimulatedIntensity(n int) ([]Measured, error) {
	simMu.Lock()
	defer simMu.Unlock()
	if m, ok := simCache[n]; ok {
		return slices.Clone(m), nil
	}
	m, err := simulate(n)
	if err != nil {
		return nil, err
	}
	simCache[n] = m
	return slices.Clone(m), nil
}

// The simulator is deterministic, so its counts are kept for the process:
// the generator and the tests draw the intensity chart more than once.
var (
	simMu    sync.Mutex
	simCache = map[int][]Measured{}
)

func simulate(n int) ([]Measured, error) {
	src, err := lab.NewCube[float32](n)
	if err != nil {
		return nil, fmt.Errorf("fig: simulated intensity: %w", err)
	}
	src.FillRandom(8)
	dst := src.Clone()
	var out []Measured
	for _, name := range lab.Names3(lab.Simulated) {
		style, err := Style(name)
		if err != nil {
			return nil, fmt.Errorf("fig: simulated intensity: %w", err)
		}
		for _, t := range style.SimTiles {
			res, err := lab.Execute(lab.Run{Step: name, Backend: lab.Sim, Config: lab.Config{Tile: t}, Src: src, Dst: dst.Clone(), C: lab.DistinctCoeffs()})
			if err != nil {
				return nil, fmt.Errorf("fig: simulated intensity of %s at T = %d: %w", name, t, err)
			}
			out = append(out, Measured{Kernel: name, N: n, T: t, OpPerByte: res.Stats.OpPerByte()})
		}
	}
	return out, nil
}

// tileLimit is one vertical line of the intensity chart: the largest tile
// a kernel can use under one hardware limit.
type tileLimit struct {
	T      int
	what   string
	kernel string
}

// tileLimits returns, for each kernel of the model with an input tile
// (not a block edge), the largest T under the thread limit alone and under
// the shared-memory limit alone, both from lab.MaxTile with the limits of
// sim.DefaultLimits.
func tileLimits() ([]tileLimit, error) {
	def := sim.DefaultLimits()
	threadsOnly := sim.Limits{MaxThreads: def.MaxThreads, MaxSharedBytes: math.MaxInt32}
	sharedOnly := sim.Limits{MaxThreads: math.MaxInt32, MaxSharedBytes: def.MaxSharedBytes}
	var out []tileLimit
	for _, k := range tiledModel() {
		t, _, err := lab.MaxTile(k, threadsOnly)
		if err != nil {
			return nil, err
		}
		out = append(out, tileLimit{t, fmt.Sprintf("%d threads", def.MaxThreads), k})
		t, _, err = lab.MaxTile(k, sharedOnly)
		if err != nil {
			return nil, err
		}
		out = append(out, tileLimit{t, fmt.Sprintf("%d KiB shared", def.MaxSharedBytes/1024), k})
	}
	return out, nil
}

// tiledModel returns the steps of the model whose intensity is the slides'
// 3.25·(1 − 2/T)³: the kernels with an input tile and its halo.
func tiledModel() []string {
	return lab.Names3(func(s lab.Step3) bool {
		c, err := lab.Cost(s.Name, 8)
		return err == nil && math.Abs(c.OpPerByte()-lab.IntensityTiled(8)) < 1e-12
	})
}

// flatModel returns the steps of the model whose intensity is the slides'
// 13/28 whatever the block: one thread per point, seven loads each.
func flatModel() []string {
	return lab.Names3(func(s lab.Step3) bool {
		c, err := lab.Cost(s.Name, 8)
		return err == nil && math.Abs(c.OpPerByte()-lab.IntensityBasic()) < 1e-12
	})
}

// stylesOf returns the styles of steps, or the error of the first without
// one.
func stylesOf(steps []string) ([]StepStyle, error) {
	var ss []StepStyle
	for _, s := range steps {
		st, err := Style(s)
		if err != nil {
			return nil, err
		}
		ss = append(ss, st)
	}
	return ss, nil
}

// Intensity draws the arithmetic intensity of the chapter's kernels
// against the input tile dimension T, as the lecture slides analyse it:
// the basic kernel's 13/28 ≈ 0.46 OP/B, and 3.25·(1 − 2/T)³ for the
// tiled, coarsened and register-tiled kernels, which load the same T³
// inputs for (T − 2)³ outputs (1.37 at T = 8, 2.68 at T = 32, tending to
// 3.25). Vertical lines mark the largest T each kernel can use under the
// 1024-thread and 48 KiB shared-memory limits of sim.DefaultLimits. The
// measured points, from SimulatedIntensity, are drawn when given.
func Intensity(measured []Measured) (*plot.Plot, error) {
	const tmin, tmax = 3, 128
	p := NewPlot("Arithmetic intensity of the seven-point kernels", "input tile dimension T (IN_TILE_DIM), log scale", "OP/B: operations per byte loaded")
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = tmin, tmax, 0, 4.8
	var yt plot.ConstantTicks
	for y := 0.0; y <= 3.5; y += 0.5 {
		yt = append(yt, plot.Tick{Value: y, Label: fmt.Sprintf("%.1f", y)})
	}
	p.Y.Tick.Marker = yt
	p.Add(plotter.NewGrid())

	// The model: one curve for the three tiled kernels, a constant for basic.
	var curve plotter.XYs
	for i := 0; i <= 300; i++ {
		t := tmin * math.Pow(float64(tmax)/tmin, float64(i)/300)
		curve = append(curve, plotter.XY{X: t, Y: lab.IntensityTiled(t)})
	}
	model, err := plotter.NewLine(curve)
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	model.LineStyle = lineStyle(Blue, 2, false)
	basic, err := plotter.NewLine(plotter.XYs{{X: tmin, Y: lab.IntensityBasic()}, {X: tmax, Y: lab.IntensityBasic()}})
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	basic.LineStyle = lineStyle(Vermillion, 2, false)
	limit, err := plotter.NewLine(plotter.XYs{{X: tmin, Y: lab.IntensityLimit}, {X: tmax, Y: lab.IntensityLimit}})
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	limit.LineStyle = lineStyle(Muted, 1, true)
	p.Add(limit, basic, model)
	tiled, err := stylesOf(tiledModel())
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	flat, err := stylesOf(flatModel())
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	p.Legend.Add(titles(tiled, false)+": 13(T−2)³ / 4T³", model)
	p.Legend.Add(titles(flat, false)+": 13 / 28, whatever the block", basic)

	// Hardware limits.
	lims, err := tileLimits()
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	var o Overlay
	xt := plot.ConstantTicks{{Value: 3, Label: "3"}, {Value: 4, Label: "4"}, {Value: 8, Label: "8"}, {Value: 16, Label: "16"},
		{Value: 32, Label: "32"}, {Value: 64, Label: "64"}, {Value: 128}}
	// Kernels that reach a limit at the same T share one line and label.
	type key struct {
		T    int
		what string
	}
	shared := map[key][]StepStyle{}
	var keys []key
	for _, l := range lims {
		st, err := Style(l.kernel)
		if err != nil {
			return nil, fmt.Errorf("fig: intensity: %w", err)
		}
		k := key{l.T, l.what}
		if _, ok := shared[k]; !ok {
			keys = append(keys, k)
		}
		shared[k] = append(shared[k], st)
	}
	for _, k := range keys {
		if k.T > tmax {
			continue
		}
		sts := shared[k]
		dashed := strings.Contains(k.what, "shared")
		// Each line rises to the curve: the best the kernel reaches there.
		clr := sts[0].Color
		ln := Line(Pt{float64(k.T), 0}, Pt{float64(k.T), lab.IntensityTiled(float64(k.T))}).Stroked(clr, 1.2)
		if dashed {
			ln = ln.Dashed()
		}
		o.Add(ln)
		who := sts[0].Title
		if len(sts) > 1 {
			who = titles(sts, true)
		}
		o.Add(Label(float64(k.T)*0.985, 0.06, 7.5, who+": "+k.what).Align(0, 0).Rotated(math.Pi / 2).Colored(clr))
		if !slices.ContainsFunc(xt, func(t plot.Tick) bool { return t.Value == float64(k.T) }) {
			xt = append(xt, plot.Tick{Value: float64(k.T), Label: fmt.Sprint(k.T)})
		}
	}
	sort.Slice(xt, func(a, b int) bool { return xt[a].Value < xt[b].Value })
	p.X.Tick.Marker = xt
	// The slides' values.
	slide := plotter.XYs{{X: 8, Y: lab.IntensityTiled(8)}, {X: 32, Y: lab.IntensityTiled(32)}}
	marks, err := plotter.NewScatter(slide)
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	marks.GlyphStyle = draw.GlyphStyle{Color: Ink, Radius: 3.5, Shape: draw.CircleGlyph{}}
	p.Add(marks)
	o.Add(Label(8*1.06, lab.IntensityTiled(8)+0.12, 9, fmt.Sprintf("%.2f at T = 8", lab.IntensityTiled(8))).Align(-1, 0).Bold())
	o.Add(Label(32*0.95, lab.IntensityTiled(32)+0.1, 9, fmt.Sprintf("%.2f at T = 32", lab.IntensityTiled(32))).Align(-1, 0).Bold())
	o.Add(Label(tmax*0.97, lab.IntensityLimit+0.07, 9, fmt.Sprintf("limit 13/4 = %.2f", lab.IntensityLimit)).Align(-1, 0).Bold())
	o.Add(Label(tmin*1.02, lab.IntensityBasic()+0.07, 9, fmt.Sprintf("%.2f", lab.IntensityBasic())).Align(0, 0).Bold())

	// The simulator's counts.
	byKernel := map[string]plotter.XYs{}
	var order []string
	n := 0
	for _, m := range measured {
		if m.T < tmin || m.T > tmax || !(m.OpPerByte > 0) {
			continue
		}
		if _, ok := byKernel[m.Kernel]; !ok {
			order = append(order, m.Kernel)
		}
		byKernel[m.Kernel] = append(byKernel[m.Kernel], plotter.XY{X: float64(m.T), Y: m.OpPerByte})
		n = m.N
	}
	for _, k := range order {
		s, err := plotter.NewScatter(byKernel[k])
		if err != nil {
			return nil, fmt.Errorf("fig: intensity: %w", err)
		}
		st, err := Style(k)
		if err != nil {
			return nil, fmt.Errorf("fig: intensity: %w", err)
		}
		// The tiled kernel's ring is larger: it circles the coarsened
		// kernel's equal counts.
		s.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: vg.Length(st.Radius), Shape: st.Glyph}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("%s, counted by the simulator on N = %d", st.Title, n), s)
	}
	if len(order) > 0 {
		o.Add(Label(tmin*1.02, 3.6, 8.5, fmt.Sprintf("The simulator counts whole launches on N = %d: the blocks at", n)).Align(0, -0.5).Colored(Muted))
		o.Add(Label(tmin*1.02, 3.43, 8.5, "the grid's faces load partial tiles, so it counts fewer OP/B.").Align(0, -0.5).Colored(Muted))
	}
	p.Add(&o)
	return p, nil
}
