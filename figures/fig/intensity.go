package fig

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"stencillab.dev/lab"
)

// KernelColor is the colour of a step in every chart: basic vermillion,
// tiled blue, coarsened green, register_tiled purple, anything else orange.
func KernelColor(kernel string) color.Color {
	switch kernel {
	case lab.KernelBasic:
		return Vermillion
	case lab.KernelTiled:
		return Blue
	case lab.KernelCoarsened:
		return Green
	case lab.KernelRegisterTiled:
		return Purple
	case "copy":
		return Ink
	}
	return Orange
}

// kernelGlyph is the marker of a step in every chart.
func kernelGlyph(kernel string) draw.GlyphDrawer {
	switch kernel {
	case lab.KernelBasic:
		return draw.TriangleGlyph{}
	case lab.KernelTiled:
		return draw.RingGlyph{}
	case lab.KernelCoarsened:
		return draw.BoxGlyph{}
	case lab.KernelRegisterTiled:
		return draw.CrossGlyph{}
	}
	return draw.PyramidGlyph{}
}

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

// simTiles are the tiles the intensity chart simulates for each kernel.
var simTiles = []struct {
	kernel string
	tiles  []int
}{
	{lab.KernelBasic, []int{8}},
	{lab.KernelTiled, []int{4, 6, 8, 10}},
	{lab.KernelCoarsened, []int{8, 16, 32}},
	{lab.KernelRegisterTiled, []int{8, 16, 32}},
}

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
	for _, kt := range simTiles {
		k, err := lab.SimKernel(kt.kernel)
		if err != nil {
			return nil, fmt.Errorf("fig: simulated intensity: %w", err)
		}
		for _, t := range kt.tiles {
			s := lab.NewSimulator(lab.Config{Tile: t})
			if err := s.Run(k, dst, src, lab.DistinctCoeffs()); err != nil {
				return nil, fmt.Errorf("fig: simulated intensity of %s at T = %d: %w", kt.kernel, t, err)
			}
			out = append(out, Measured{Kernel: kt.kernel, N: n, T: t, OpPerByte: s.Last().OpPerByte()})
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

// tileLimits returns, for each tiled kernel, the largest T under the
// thread limit alone and under the shared-memory limit alone, both from
// lab.MaxTile with the limits of lab.DefaultLimits.
func tileLimits() ([]tileLimit, error) {
	def := lab.DefaultLimits()
	threadsOnly := lab.Limits{MaxThreads: def.MaxThreads, MaxSharedBytes: math.MaxInt32}
	sharedOnly := lab.Limits{MaxThreads: math.MaxInt32, MaxSharedBytes: def.MaxSharedBytes}
	var out []tileLimit
	for _, k := range []string{lab.KernelTiled, lab.KernelCoarsened, lab.KernelRegisterTiled} {
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

// kernelTitle is the name of a step in a chart's legend.
func kernelTitle(k string) string {
	switch k {
	case lab.KernelRegisterTiled:
		return "register tiled"
	}
	return k
}

// Intensity draws the arithmetic intensity of the chapter's kernels
// against the input tile dimension T, as the lecture slides analyse it:
// the basic kernel's 13/28 ≈ 0.46 OP/B, and 3.25·(1 − 2/T)³ for the
// tiled, coarsened and register-tiled kernels, which load the same T³
// inputs for (T − 2)³ outputs (1.37 at T = 8, 2.68 at T = 32, tending to
// 3.25). Vertical lines mark the largest T each kernel can use under the
// 1024-thread and 48 KiB shared-memory limits of lab.DefaultLimits. The
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
	p.Legend.Add("tiled, coarsened, register tiled: 13(T−2)³ / 4T³", model)
	p.Legend.Add("basic: 13 / 28, whatever the block", basic)

	// Hardware limits.
	lims, err := tileLimits()
	if err != nil {
		return nil, fmt.Errorf("fig: intensity: %w", err)
	}
	var o Overlay
	xt := plot.ConstantTicks{{Value: 3, Label: "3"}, {Value: 4, Label: "4"}, {Value: 8, Label: "8"}, {Value: 16, Label: "16"},
		{Value: 32, Label: "32"}, {Value: 64, Label: "64"}, {Value: 128}}
	for _, l := range lims {
		if l.T > tmax {
			continue
		}
		shared := strings.Contains(l.what, "shared")
		if l.kernel == lab.KernelRegisterTiled && !shared {
			continue // the same thread limit as coarsened
		}
		// Each line rises to the curve: the best the kernel reaches there.
		clr := KernelColor(l.kernel)
		ln := Line(Pt{float64(l.T), 0}, Pt{float64(l.T), lab.IntensityTiled(float64(l.T))}).Stroked(clr, 1.2)
		if shared {
			ln = ln.Dashed()
		}
		o.Add(ln)
		who := kernelTitle(l.kernel)
		if l.kernel == lab.KernelCoarsened && !shared {
			who = "coarsened, reg. tiled"
		}
		o.Add(Label(float64(l.T)*0.985, 0.06, 7.5, who+": "+l.what).Align(0, 0).Rotated(math.Pi / 2).Colored(clr))
		if !slices.ContainsFunc(xt, func(t plot.Tick) bool { return t.Value == float64(l.T) }) {
			xt = append(xt, plot.Tick{Value: float64(l.T), Label: fmt.Sprint(l.T)})
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
		s.GlyphStyle = draw.GlyphStyle{Color: KernelColor(k), Radius: 3.2, Shape: kernelGlyph(k)}
		if k == lab.KernelTiled {
			s.GlyphStyle.Radius = 5.5 // a ring around the coarsened kernel's equal counts
		}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("%s, counted by the simulator on N = %d", kernelTitle(k), n), s)
	}
	if len(order) > 0 {
		o.Add(Label(tmin*1.02, 3.6, 8.5, fmt.Sprintf("The simulator counts whole launches on N = %d: the blocks at", n)).Align(0, -0.5).Colored(Muted))
		o.Add(Label(tmin*1.02, 3.43, 8.5, "the grid's faces load partial tiles, so it counts fewer OP/B.").Align(0, -0.5).Colored(Muted))
	}
	p.Add(&o)
	return p, nil
}
