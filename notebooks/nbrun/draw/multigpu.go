package draw

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/model"
)

// PencilsChart draws the model's halo of the busiest rank, in units of
// N², against the number of ranks, for z-slabs and the best pencils;
// counted marks the CPU ranks' busiest halo (slabs, pencils) at g ranks.
func PencilsChart(n int, gs []int, counted map[int][2]float64) (*plot.Plot, error) {
	if n < 3 || len(gs) == 0 || slices.ContainsFunc(gs, func(g int) bool { return g < 1 || g > lab.MaxRanks }) {
		return nil, fmt.Errorf("nbrun: pencils chart: N = %d over ranks %v: want N ≥ 3 and counts of 1 … %d", n, gs, lab.MaxRanks)
	}
	p := fig.NewPlot(fmt.Sprintf("The busiest rank's halo per exchange, slabs and pencils (N = %d, h = 1)", n),
		"ranks G", "halo points / N²")
	p.Add(plotter.NewGrid())
	nn := float64(n) * float64(n)
	var slab, pen plotter.XYs
	for _, g := range gs {
		slab = append(slab, plotter.XY{X: float64(g), Y: model.BusiestHalo(n, g, 1) / nn})
		if pz, py := model.BestPencils(n, g); py > 1 {
			pen = append(pen, plotter.XY{X: float64(g), Y: model.BusiestHalo(n, pz, py) / nn})
		}
	}
	for i, s := range []struct {
		name string
		xy   plotter.XYs
	}{{"z-slabs (model)", slab}, {"best pencils pz×py (model)", pen}} {
		ln, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return nil, fmt.Errorf("nbrun: pencils chart: %w", err)
		}
		ln.Color, ln.Width = fig.Series[i], 2
		pts.Color, pts.Radius = fig.Series[i], 3
		p.Add(ln, pts)
		p.Legend.Add(s.name, ln, pts)
	}
	for i, name := range []string{"z-slabs, CPU ranks counted", "pencils, CPU ranks counted"} {
		var xy plotter.XYs
		for _, g := range gs {
			if v, ok := counted[g]; ok {
				xy = append(xy, plotter.XY{X: float64(g), Y: v[i]})
			}
		}
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, fmt.Errorf("nbrun: pencils chart: %w", err)
		}
		sc.Color, sc.Radius = fig.Series[i], 5
		sc.Shape = draw.CrossGlyph{}
		p.Add(sc)
		p.Legend.Add(name, sc)
	}
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 2.6
	var yt []plot.Tick
	for v := 0.0; v <= 2.5; v += 0.5 {
		yt = append(yt, plot.Tick{Value: v, Label: fmt.Sprintf("%.1f", v)})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.ConstantTicks(ticksAt(gs))
	return p, nil
}

func ticksAt(gs []int) []plot.Tick {
	var t []plot.Tick
	for _, g := range gs {
		t = append(t, plot.Tick{Value: float64(g), Label: fmt.Sprint(g)})
	}
	return t
}
