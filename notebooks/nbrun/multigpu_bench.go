package nbrun

import (
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"stencillab.dev/figures/fig"
	"stencillab.dev/lab/benchfile"
)

// The measured multi-GPU runs of notebook 11: the scaling list of
// `stencil bench -gpus … -json` (benchfile.Scale), with each GPU's
// compute, exchange and wait time.

// MultiGPUGlob is where the measured multi-GPU benches live, relative to
// the repository: the JSON of `stencil bench -gpus … -json`
// (benchfile.File, its scaling list).
const MultiGPUGlob = "notebooks/data/multigpu_gpu*.json"

// MultiGPUBenches reads every committed multi-GPU bench; none is no error.
func MultiGPUBenches() ([]*benchfile.File, error) {
	files, err := repoGlob(MultiGPUGlob)
	if err != nil {
		return nil, err
	}
	var out []*benchfile.File
	for _, f := range files {
		b, err := benchfile.Load(f)
		if err != nil {
			return nil, fmt.Errorf("nbrun: %w", err)
		}
		if len(b.Scaling) > 0 {
			out = append(out, b)
		}
	}
	return out, nil
}

// ComputeOnly is the efficiency a scaling run would have if its exchange
// cost nothing: its slowest rank's compute against the base run.
func ComputeOnly(s benchfile.Scale) (float64, bool) {
	c := 0.0
	for _, r := range s.RankMs {
		c = max(c, r.Compute)
	}
	if c <= 0 || s.BaseMs <= 0 {
		return 0, false
	}
	if s.Weak {
		return s.BaseMs / c, true
	}
	return float64(s.BaseGPUs) * s.BaseMs / (float64(s.GPUs) * c), true
}

// ScalingTable prints the scaling runs of the benches: time, efficiency,
// and the compute-only efficiency beside it.
func ScalingTable(bs []*benchfile.File) string {
	var b strings.Builder
	for _, f := range bs {
		fmt.Fprintf(&b, "%s, %s\n", f.Device, f.Command)
		fmt.Fprintf(&b, "%-10s %5s %6s %5s %4s %10s %8s %13s %12s\n", "kernel", "N", "nz", "weak", "GPUs", "median ms", "eff %", "compute-only %", "halo MB/step")
		for _, s := range f.Scaling {
			co := "-"
			if v, ok := ComputeOnly(s); ok {
				co = fmt.Sprintf("%.1f", 100*v)
			}
			fmt.Fprintf(&b, "%-10s %5d %6d %5v %4d %10.3f %8.1f %13s %12.2f\n", s.Kernel, s.N, s.NZ, s.Weak, s.GPUs, s.MedianMs, 100*s.Efficiency, co, s.HaloBytesPerStep/1e6)
		}
	}
	return b.String()
}

// ScalingChart draws the efficiency of each series of scaling runs (a
// kernel, N and weak or strong) against the GPUs, with its compute-only
// efficiency dashed beside it.
func ScalingChart(f *benchfile.File) (*plot.Plot, error) {
	p := fig.NewPlot("Scaling on "+f.Device+": efficiency, and what compute alone would give", "GPUs", "efficiency %")
	p.Add(plotter.NewGrid())
	type key struct {
		kernel string
		n      int
		weak   bool
	}
	var order []key
	eff, comp := map[key]plotter.XYs{}, map[key]plotter.XYs{}
	var gs []int
	for _, s := range f.Scaling {
		k := key{s.Kernel, s.N, s.Weak}
		if _, ok := eff[k]; !ok {
			order = append(order, k)
		}
		eff[k] = append(eff[k], plotter.XY{X: float64(s.GPUs), Y: 100 * s.Efficiency})
		if v, ok := ComputeOnly(s); ok {
			comp[k] = append(comp[k], plotter.XY{X: float64(s.GPUs), Y: 100 * v})
		}
		if !slices.Contains(gs, s.GPUs) {
			gs = append(gs, s.GPUs)
		}
	}
	slices.Sort(gs)
	for i, k := range order {
		c := fig.Series[i%len(fig.Series)]
		name := fmt.Sprintf("%s, strong N = %d", k.kernel, k.n)
		if k.weak {
			name = fmt.Sprintf("%s, weak %d²×%d·G", k.kernel, k.n, k.n)
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
	for i, r := range s.RankMs {
		y := float64(n - 1 - i)
		x := 0.0
		for _, part := range []struct {
			ms float64
			c  fig.Shape
		}{{r.Compute, fig.Rect(0, 0, 0, 0).Filled(fig.PaleBlue).Stroked(fig.Blue, 0.6)},
			{r.Exchange, fig.Rect(0, 0, 0, 0).Filled(fig.PaleOrange).Stroked(fig.Orange, 0.6)},
			{r.Wait, fig.Rect(0, 0, 0, 0).Filled(fig.PaleGrey).Stroked(fig.Muted, 0.6)}} {
			w := part.ms * scale
			if w > 0 {
				sh := part.c
				sh.Pts = []fig.Pt{{X: x, Y: y + 0.1}, {X: x + w, Y: y + 0.8}}
				d.Add(sh)
			}
			x += w
		}
		d.Add(fig.Label(-0.3, y+0.45, 9, fmt.Sprintf("GPU %d", i)).Align(-1, -0.5))
	}
	d.Add(fig.Label(0, -0.5, 8.5, "0 ms").Align(0, -0.5).Colored(fig.Muted))
	d.Add(fig.Label(width, -0.5, 8.5, fmt.Sprintf("%.3f ms", total)).Align(-1, -0.5).Colored(fig.Muted))
	for i, k := range []struct {
		c    fig.Shape
		text string
	}{{fig.Rect(0, 0, 0, 0).Filled(fig.PaleBlue).Stroked(fig.Blue, 0.6), "compute"},
		{fig.Rect(0, 0, 0, 0).Filled(fig.PaleOrange).Stroked(fig.Orange, 0.6), "exchange"},
		{fig.Rect(0, 0, 0, 0).Filled(fig.PaleGrey).Stroked(fig.Muted, 0.6), "wait for the slowest"}} {
		x := float64(i) * 5.5
		sh := k.c
		sh.Pts = []fig.Pt{{X: x, Y: -1.8}, {X: x + 0.7, Y: -1.3}}
		d.Add(sh, fig.Label(x+1, -1.55, 8.5, k.text).Align(0, -0.5))
	}
	return d, nil
}

// TimelineRun returns the run of b whose timeline the notebook draws:
// strong scaling on the most GPUs at the smallest N, with per-GPU times.
func TimelineRun(b *benchfile.File) (benchfile.Scale, bool) {
	var best benchfile.Scale
	found := false
	for _, s := range b.Scaling {
		if s.Weak || len(s.RankMs) == 0 || s.GPUs < 2 {
			continue
		}
		if !found || s.GPUs > best.GPUs || (s.GPUs == best.GPUs && s.N < best.N) {
			best, found = s, true
		}
	}
	return best, found
}
