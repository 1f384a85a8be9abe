package draw

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/notebooks/nbrun/data"
)

// ScalingChart draws the efficiency of each series of scaling runs of
// the benches (a kernel, N, strong or weak, an overlap variant) against
// the GPUs, with its compute-only efficiency dashed beside it.
func ScalingChart(bs []*benchfile.File) (*plot.Plot, error) {
	bs = slices.DeleteFunc(slices.Clone(bs), func(b *benchfile.File) bool { return b == nil })
	device := ""
	if len(bs) > 0 {
		device = bs[0].Device
	}
	p := fig.NewPlot("Scaling on "+device+": efficiency, and what compute alone would give", "GPUs", "efficiency %")
	p.Add(plotter.NewGrid())
	type key struct {
		kernel, overlap string
		n               int
		weak            bool
	}
	var order []key
	eff, comp := map[key]plotter.XYs{}, map[key]plotter.XYs{}
	var gs []int
	for _, b := range bs {
		for _, s := range b.Scaling {
			k := key{s.Kernel, s.Overlap, s.N, s.Weak}
			if _, ok := eff[k]; !ok {
				order = append(order, k)
			}
			eff[k] = append(eff[k], plotter.XY{X: float64(s.GPUs), Y: 100 * s.Efficiency})
			if v, ok := data.ComputeOnly(s); ok {
				comp[k] = append(comp[k], plotter.XY{X: float64(s.GPUs), Y: 100 * v})
			}
			if !slices.Contains(gs, s.GPUs) {
				gs = append(gs, s.GPUs)
			}
		}
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("nbrun: scaling chart: no scaling run in %d benches", len(bs))
	}
	slices.Sort(gs)
	for i, k := range order {
		c := fig.Series[i%len(fig.Series)]
		name := fmt.Sprintf("%s, strong N = %d", k.kernel, k.n)
		if k.weak {
			name = fmt.Sprintf("%s, weak %d²×%d·G", k.kernel, k.n, k.n)
		}
		if k.overlap != "" {
			name += ", overlap " + k.overlap
		}
		ln, pts, err := plotter.NewLinePoints(eff[k])
		if err != nil {
			return nil, fmt.Errorf("nbrun: scaling chart: %w", err)
		}
		ln.Color, ln.Width, pts.Color, pts.Radius = c, 2, c, 3
		p.Add(ln, pts)
		p.Legend.Add(name, ln, pts)
		if len(comp[k]) > 0 {
			cl, err := plotter.NewLine(comp[k])
			if err != nil {
				return nil, fmt.Errorf("nbrun: scaling chart: %w", err)
			}
			cl.Color, cl.Width, cl.Dashes = c, 1.2, []vg.Length{4, 3}
			p.Add(cl)
			p.Legend.Add(name+", compute only", cl)
		}
	}
	p.Legend.Top, p.Legend.Left = false, true
	p.Y.Min, p.Y.Max = 0, 110
	p.X.Tick.Marker = plot.ConstantTicks(ticksAt(gs))
	return p, nil
}

// TimelineChart draws, for one scaling run, each GPU's time of one
// repetition as a bar of compute, exchange and wait.
func TimelineChart(device string, s benchfile.Scale) (*fig.Diagram, error) {
	if len(s.RankMs) == 0 {
		return nil, fmt.Errorf("nbrun: timeline: the run of %s on %d GPUs recorded no per-GPU times", s.Kernel, s.GPUs)
	}
	total := 0.0
	for _, r := range s.RankMs {
		total = max(total, r.Compute+r.Exchange+r.Wait)
	}
	if !(total > 0) {
		return nil, fmt.Errorf("nbrun: timeline: the run of %s on %d GPUs has no time", s.Kernel, s.GPUs)
	}
	const width = 16.0
	scale := width / total
	n := len(s.RankMs)
	d := fig.NewDiagram(fmt.Sprintf("One repetition of %s at N = %d on %d GPUs, per GPU\n(%s)", s.Kernel, s.N, s.GPUs, device),
		-2.6, -2.4, width+0.6, float64(n)+0.2)
	// The bars' parts, in the order they are drawn and listed.
	keys := []struct {
		c    fig.Shape
		text string
	}{{fig.Rect(0, 0, 0, 0).Filled(fig.PaleBlue).Stroked(fig.Blue, 0.6), "compute"},
		{fig.Rect(0, 0, 0, 0).Filled(fig.PaleOrange).Stroked(fig.Orange, 0.6), "exchange"},
		{fig.Rect(0, 0, 0, 0).Filled(fig.PaleGrey).Stroked(fig.Muted, 0.6), "wait for the slowest"}}
	for i, r := range s.RankMs {
		y := float64(n - 1 - i)
		x := 0.0
		for j, ms := range []float64{r.Compute, r.Exchange, r.Wait} {
			w := ms * scale
			if w > 0 {
				sh := keys[j].c
				sh.Pts = []fig.Pt{{X: x, Y: y + 0.1}, {X: x + w, Y: y + 0.8}}
				d.Add(sh)
			}
			x += w
		}
		d.Add(fig.Label(-0.3, y+0.45, 9, fmt.Sprintf("GPU %d", i)).Align(-1, -0.5))
	}
	d.Add(fig.Label(0, -0.5, 8.5, "0 ms").Align(0, -0.5).Colored(fig.Muted))
	d.Add(fig.Label(width, -0.5, 8.5, fmt.Sprintf("%.3f ms", total)).Align(-1, -0.5).Colored(fig.Muted))
	for i, k := range keys {
		x := float64(i) * 5.5
		sh := k.c
		sh.Pts = []fig.Pt{{X: x, Y: -1.8}, {X: x + 0.7, Y: -1.3}}
		d.Add(sh, fig.Label(x+1, -1.55, 8.5, k.text).Align(0, -0.5))
	}
	return d, nil
}
