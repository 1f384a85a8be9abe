package draw

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
	"stencillab.dev/notebooks/nbrun/model"
)

// IntensityPlot draws an intensity sweep against T: the slides' curve
// 3.25·(1 − 2/T)³ for a block far from the faces, the launch model at
// n with its face blocks, the simulator's counts, the basic kernel's
// 13/28 and the limit 3.25 for reference, and a dashed line at the largest
// tile the kernel can launch with CUDA's default limits.
func IntensityPlot(step string, n int, pts []model.IntensityPoint) (*plot.Plot, error) {
	if len(pts) == 0 {
		return nil, fmt.Errorf("nbrun: intensity plot of %s: no points", step)
	}
	maxT, bound, err := lab.MaxTile(step, sim.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("nbrun: intensity plot: %w", err)
	}
	p := fig.NewPlot(fmt.Sprintf("Arithmetic intensity of %s against the tile T (N = %d)", step, n),
		"input tile dimension T (IN_TILE_DIM)", "OP/B (operations per byte loaded)")
	p.Add(plotter.NewGrid())
	hi := float64(max(pts[len(pts)-1].T, maxT) + 1)

	slide := plotter.NewFunction(func(t float64) float64 { return lab.IntensityTiled(t) })
	slide.XMin, slide.XMax, slide.Samples = 3, hi, 200
	slide.Color, slide.Width = fig.Muted, vg.Points(1.5)
	p.Add(slide)
	p.Legend.Add("slides: 3.25·(1 − 2/T)³, a block far from the faces", slide)

	model, counted := make(plotter.XYs, len(pts)), make(plotter.XYs, len(pts))
	for i, q := range pts {
		model[i] = plotter.XY{X: float64(q.T), Y: q.Model}
		counted[i] = plotter.XY{X: float64(q.T), Y: q.Counted}
	}
	ml, err := plotter.NewLine(model)
	if err != nil {
		return nil, fmt.Errorf("nbrun: intensity plot: %w", err)
	}
	clr, err := fig.KernelColor(step)
	if err != nil {
		return nil, fmt.Errorf("nbrun: intensity plot: %w", err)
	}
	ml.Color, ml.Width, ml.Dashes = clr, vg.Points(1.5), []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(ml)
	p.Legend.Add(fmt.Sprintf("model of the whole launch at N = %d (lab.IntensityN)", n), ml)
	cs, err := plotter.NewScatter(counted)
	if err != nil {
		return nil, fmt.Errorf("nbrun: intensity plot: %w", err)
	}
	cs.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	p.Add(cs)
	p.Legend.Add("counted by the simulator", cs)

	refs := []struct {
		y     float64
		label string
		at    fig.Shape
	}{
		// The basic kernel's label sits under its line, a third of the way
		// along, clear of the curves that cross the line near T = 4; the
		// limit's at the right end, above everything.
		{lab.IntensityBasic(), "basic kernel, 13/28 = 0.46", fig.Label(3+0.35*(hi-3), lab.IntensityBasic()-0.06, 8, "").Align(0, -1)},
		{lab.IntensityLimit, "limit as T grows, 13/4 = 3.25", fig.Label(hi-0.1, lab.IntensityLimit+0.06, 8, "").Align(-1, 0)},
	}
	for _, ref := range refs {
		l, err := plotter.NewLine(plotter.XYs{{X: 2.5, Y: ref.y}, {X: hi, Y: ref.y}})
		if err != nil {
			return nil, fmt.Errorf("nbrun: intensity plot: %w", err)
		}
		l.Color, l.Width, l.Dashes = fig.Muted, vg.Points(0.8), []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		label := ref.at
		label.Text = ref.label
		p.Add(&fig.Overlay{Shapes: []fig.Shape{label.Colored(fig.Muted)}})
	}
	if float64(maxT) < hi {
		v, err := plotter.NewLine(plotter.XYs{{X: float64(maxT), Y: 0}, {X: float64(maxT), Y: 3.1}})
		if err != nil {
			return nil, fmt.Errorf("nbrun: intensity plot: %w", err)
		}
		v.Color, v.Width, v.Dashes = fig.Ink, vg.Points(0.8), []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(v)
		p.Add(&fig.Overlay{Shapes: []fig.Shape{
			fig.Label(float64(maxT)-0.15, 0.12, 8, fmt.Sprintf("largest T = %d (%s)", maxT, bound)).Align(-1, 0)}})
	}
	var ticks plot.ConstantTicks
	first, every := 3, 1
	if hi > 16 {
		first, every = 4, 4
	}
	for t := first; float64(t) < hi; t += every {
		ticks = append(ticks, plot.Tick{Value: float64(t), Label: fmt.Sprint(t)})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = 2.5, hi
	p.Y.Min, p.Y.Max = 0, 3.5
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.YOffs = -vg.Points(30) // under the 3.25 line and its label
	return p, nil
}
