package draw

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/model"
	"stencillab.dev/notebooks/nbrun/run"
)

// label names a simulated run in a chart: its step and tile.
func label(r run.Result) string {
	if s, err := lab.LookupStep3(r.Step); err == nil && s.BlockShape {
		return fmt.Sprintf("%s, %s blocks", r.Step, r.Launch.Geometry.Block.Shape())
	}
	return fmt.Sprintf("%s, T = %d", r.Step, r.Tile())
}

// TrafficPlot draws, for simulated runs, the global-memory bytes each
// interior output point costs: loaded and stored, as the simulator counted
// them, against the ideal of one 4-byte read and one 4-byte write per
// point. Runs on the GPU, which count nothing, are an error.
func TrafficPlot(rs ...run.Result) (*plot.Plot, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("nbrun: traffic plot: no runs")
	}
	p := fig.NewPlot("Global-memory traffic per output point, as counted", "bytes per interior point", "")
	names := make([]string, len(rs))
	var o fig.Overlay
	xmax := 8.0
	for i, r := range rs {
		if r.Backend != lab.Sim || r.Stats.GlobalStores == 0 {
			return nil, fmt.Errorf("nbrun: traffic plot: %s has no simulator counts", r.Step)
		}
		if r.Interior() <= 0 {
			return nil, fmt.Errorf("nbrun: traffic plot: %s ran on a %d×%d×%d grid, which has no interior point: %w",
				r.Step, r.NZ, r.NY, r.NX, lab.ErrSize)
		}
		y := float64(len(rs) - 1 - i)
		names[len(rs)-1-i] = label(r)
		inner := float64(r.Interior())
		load := float64(r.Stats.GlobalLoadBytes) / inner
		store := float64(r.Stats.GlobalStoreBytes) / inner
		c, err := fig.KernelColor(r.Step)
		if err != nil {
			return nil, fmt.Errorf("nbrun: traffic plot: %w", err)
		}
		o.Add(fig.Rect(0, y-0.3, load, y+0.3).Filled(c))
		o.Add(fig.Rect(load, y-0.3, load+store, y+0.3).Filled(fig.Shade(c, 0.6)))
		o.Add(fig.Label(load+store+0.3, y, 8.5, fmt.Sprintf("%.1f B loaded + %.0f B stored", load, store)).Align(0, -0.5))
		xmax = math.Max(xmax, load+store)
	}
	o.Add(fig.Line(fig.Pt{X: 8, Y: -0.6}, fig.Pt{X: 8, Y: float64(len(rs)) - 0.45}).Stroked(fig.Ink, 1.2).Dashed())
	o.Add(fig.Label(8, float64(len(rs))-0.4, 8.5, "ideal: 4 B in, 4 B out").Align(0, 0))
	p.Add(verticalGrid(), &o)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(rs))
	p.X.Min, p.X.Max = 0, xmax*1.55
	step := 4
	for xmax*1.55/float64(step) > 8 {
		step *= 2
	}
	p.X.Tick.Marker = integerTicks(0, int(xmax*1.55), step)
	return p, nil
}

// TrafficHeight is a good height for TrafficPlot of n runs.
func TrafficHeight(n int) vg.Length {
	return vg.Length(1.2+0.45*float64(n)) * vg.Inch
}

// ModelVsMeasured draws each run's share of the copy bandwidth next to
// what the chapter's traffic model (ModelShare, no cache) predicts, at
// N = 512; measured is what the measured bars are called in the title,
// e.g. "the H200".
func ModelVsMeasured(runs []data.HopperRun, measured string) (*plot.Plot, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("nbrun: model against measurement: no runs")
	}
	p := fig.NewPlot(fmt.Sprintf("Share of copy bandwidth at N = 512: model against %s", measured), "% of the copy kernel's GB/s", "")
	names := make([]string, len(runs))
	var o fig.Overlay
	for _, r := range runs {
		if math.IsNaN(r.PctCopy) || math.IsInf(r.PctCopy, 0) || r.PctCopy < 0 {
			return nil, fmt.Errorf("nbrun: model against measurement: %s %s: share of the copy %v: want a finite share of at least 0 %%", r.Kernel, r.Config, r.PctCopy)
		}
	}
	for i, r := range runs {
		y := float64(len(runs) - 1 - i)
		names[len(runs)-1-i] = r.Kernel + "\n" + r.Config
		c, err := fig.KernelColor(r.Kernel)
		if err != nil {
			return nil, fmt.Errorf("nbrun: model against measurement: %w", err)
		}
		o.Add(fig.Rect(0, y+0.02, r.PctCopy, y+0.36).Filled(c))
		o.Add(barLabel(r.PctCopy, y+0.19, fmt.Sprintf("measured %.0f %%", r.PctCopy), fig.Ink))
		if tile, ok := model.TileOf(r); ok {
			m, err := model.ModelShare(r.Kernel, 512, tile)
			if err != nil {
				return nil, err
			}
			o.Add(fig.Rect(0, y-0.36, m, y-0.02).Filled(fig.Shade(c, 0.65)).Stroked(c, 0.6))
			o.Add(barLabel(m, y-0.19, fmt.Sprintf("model %.0f %%", m), fig.Muted))
		} else {
			o.Add(fig.Label(1, y-0.19, 8, "no model: outside the chapter").Align(0, -0.5).Colored(fig.Muted))
		}
	}
	o.Add(fig.Line(fig.Pt{X: 100, Y: -0.6}, fig.Pt{X: 100, Y: float64(len(runs)) - 0.45}).Stroked(fig.Ink, 1.2).Dashed())
	o.Add(fig.Label(100, float64(len(runs))-0.4, 8.5, "copy").Align(-0.5, 0))
	p.Add(verticalGrid(), &o)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(len(runs))
	p.X.Min, p.X.Max = 0, 112
	p.X.Tick.Marker = integerTicks(0, 100, 20)
	return p, nil
}

// barLabel writes a bar's value after its end, or inside it near the end
// when the bar reaches the copy line at 100 %.
func barLabel(end, y float64, text string, c color.Color) fig.Shape {
	if end > 72 {
		return fig.Label(end-1, y, 8, text).Align(-1, -0.5).Colored(c)
	}
	return fig.Label(end+1, y, 8, text).Align(0, -0.5).Colored(c)
}

// verticalGrid is a grid of vertical lines only: horizontal ones would run
// through the labels of a bar chart.
func verticalGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Horizontal.Color = nil
	return g
}

// integerTicks puts a tick labelled with its integer value at from,
// from+step, … up to to.
func integerTicks(from, to, step int) plot.ConstantTicks {
	var ts plot.ConstantTicks
	for v := from; v <= to; v += step {
		ts = append(ts, plot.Tick{Value: float64(v), Label: fmt.Sprint(v)})
	}
	return ts
}

// Broken returns the broken kernel of lab.BrokenKernels with that name.
func Broken(name string) (lab.Broken, error) {
	var names []string
	for _, b := range lab.BrokenKernels() {
		if b.Name == name {
			return b, nil
		}
		names = append(names, b.Name)
	}
	return lab.Broken{}, fmt.Errorf("nbrun: no broken kernel %q (there are %v): %w", name, names, lab.ErrUnknown)
}

// ShowBroken runs a broken kernel on the simulator and presents it as a
// lesson: where the mistake comes from and what it is, the launch's error
// if any, the hazard reports, and a DiffMap of the output against the
// reference, shown in the notebook. The kernel's own failure is part of
// the lesson and not an error; an unknown name or an impossible grid is.
func ShowBroken(w io.Writer, name string, n, tile int) (run.Result, error) {
	if w == nil {
		return run.Result{}, fmt.Errorf("nbrun: show broken kernel %s: nil writer (nbrun.Notebook writes into the notebook)", name)
	}
	b, err := Broken(name)
	if err != nil {
		return run.Result{}, err
	}
	r, err := run.SimulateKernel(b.Name, b.Kernel, n, tile)
	if r.Out == nil {
		return r, err
	}
	// One Write, so that on Notebook the text stays above the picture.
	var t strings.Builder
	fmt.Fprintf(&t, "%s\n  from: %s\n  the mistake: %s\n  how it shows: %s\n\n", b.Name, b.From, b.Bug, b.Caught)
	if err != nil {
		fmt.Fprintf(&t, "launch error: %v\n", r.Err)
	}
	if h := r.Hazards(3); h != "" {
		fmt.Fprintln(&t, h)
	}
	if r.Err != nil {
		t.WriteByte('\n')
	}
	if r.Stats.BlocksRun == 0 {
		fmt.Fprintln(&t, "nothing ran, so there is no output to compare")
		_, err := io.WriteString(w, t.String())
		return r, err
	}
	c, cerr := r.Count()
	if cerr != nil {
		return r, cerr
	}
	fmt.Fprintf(&t, "output against lab.SevenPoint: %d right, %d wrong, %d never written, %d boundary points written\n",
		c[run.Right], c[run.Wrong], c[run.Unwritten], c[run.BoundaryWritten])
	if _, err := io.WriteString(w, t.String()); err != nil {
		return r, err
	}
	return r, ShowDiff(r)
}
