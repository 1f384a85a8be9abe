package draw

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/model"
)

// TemporalLimitsChart draws the ideal DRAM bytes per point and time step of
// each tile against k, with one sweep's 8 bytes; a tile whose shared memory
// exceeds HopperSharedOptin at some k is left out there.
func TemporalLimitsChart(ls []model.TemporalLimit) (*plot.Plot, error) {
	p := fig.NewPlot("Temporal blocking on the GPU: DRAM bytes per point and time step, ideal caching",
		"k, time steps per pass", "bytes per point and time step")
	p.Add(plotter.NewGrid())
	byTile := map[[2]int]plotter.XYs{}
	var order [][2]int
	kmax := 0
	for _, l := range ls {
		if l.Err != "" || l.SharedBytes > model.HopperSharedOptin {
			continue
		}
		key := [2]int{l.BX, l.BY}
		if _, ok := byTile[key]; !ok {
			order = append(order, key)
		}
		byTile[key] = append(byTile[key], plotter.XY{X: float64(l.K), Y: l.ReadsPerStep})
		kmax = max(kmax, l.K)
	}
	styles := []fig.StepStyle{}
	for _, name := range []string{"temporal", "fast", "tiled", "register_tiled"} {
		st, err := fig.Style(name)
		if err != nil {
			return nil, err
		}
		styles = append(styles, st)
	}
	for i, key := range order {
		ln, pts, err := plotter.NewLinePoints(byTile[key])
		if err != nil {
			return nil, fmt.Errorf("nbrun: limits chart: %w", err)
		}
		st := styles[i%len(styles)]
		ln.Color, ln.Width = st.Color, 2
		pts.Color, pts.Shape, pts.Radius = st.Color, st.Glyph, 3
		p.Add(ln, pts)
		p.Legend.Add(fmt.Sprintf("%d×%d input tile", key[0], key[1]), ln, pts)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("nbrun: limits chart: no tile with an output within %d KiB of shared memory among %d limits", model.HopperSharedOptin/1024, len(ls))
	}
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 8}, {X: float64(max(kmax, 2)), Y: 8}})
	if err != nil {
		return nil, err
	}
	one.Color, one.Dashes = fig.Muted, []vg.Length{4, 3}
	p.Add(one)
	p.Legend.Add("one sweep: 8 B", one)
	p.Legend.Left, p.Legend.Top = false, true
	p.Y.Min = 0
	return p, nil
}

// runStamp names a bench run by the time it was recorded, "11-25 20:27
// UTC" for "2026-11-25T20:27:59Z"; a date it cannot read is kept as written.
func runStamp(date string) string {
	t, err := time.Parse(time.RFC3339, date)
	if err != nil {
		if date == "" {
			return "undated run"
		}
		return date
	}
	return t.UTC().Format("01-02 15:04 UTC")
}

// cardsOf names the cards the peers and benches were measured on, in
// order and once each: "NVIDIA H100 80GB HBM3"; "an unnamed GPU" when none
// says.
func cardsOf(ps []data.Peers, bs []*benchfile.File) string {
	var cards []string
	add := func(d string) {
		if d = strings.TrimSpace(d); d != "" && !slices.Contains(cards, d) {
			cards = append(cards, d)
		}
	}
	for _, p := range ps {
		add(p.Device)
	}
	for _, b := range bs {
		if b != nil {
			add(b.Device)
		}
	}
	if len(cards) == 0 {
		return "an unnamed GPU"
	}
	return strings.Join(cards, " and ")
}

// PeersChart draws, for one grid side, the share of the copy each peer
// reaches (from RecordedPeers) beside the lab's fast sweep and its best
// temporal run (from TemporalBenches, when they hold that side): one bar
// each, points per second at 8 bytes per point and time step over the copy
// measured in the same process.
func PeersChart(ps []data.Peers, bs []*benchfile.File, n int) (*plot.Plot, error) {
	type bar struct {
		name string
		pct  float64
	}
	var bars []bar
	for _, p := range ps {
		for _, at := range p.Runs {
			for _, r := range at.Peers {
				if at.N == n && r.Error == "" {
					bars = append(bars, bar{r.Name, r.PctCopy})
				}
			}
		}
	}
	// Each file with a fast run at n gives a bar; when several do, each
	// bar names its run by the time it was recorded.
	var fastFiles []*benchfile.File
	for _, b := range bs {
		if _, ok := data.FastRun(b, n); ok {
			fastFiles = append(fastFiles, b)
		}
	}
	for _, b := range fastFiles {
		fast, _ := data.FastRun(b, n)
		name := "lab fast"
		if len(fastFiles) > 1 {
			name += "\n" + runStamp(b.Date)
		}
		bars = append(bars, bar{name, fast.PctCopy})
	}
	if best, ok := data.BestTemporal(bs)[n]; ok {
		bars = append(bars, bar{fmt.Sprintf("lab temporal k=%d", data.StepsPerPass(best.Run)), best.Run.PctCopy})
	}
	if len(bars) == 0 {
		return nil, fmt.Errorf("nbrun: peers chart: nothing recorded at N = %d", n)
	}
	var vals plotter.Values
	var names []string
	for _, b := range bars {
		vals = append(vals, b.pct)
		names = append(names, b.name)
	}
	p := fig.NewPlot(fmt.Sprintf("The seven-point sweep at N = %d on %s: share of a copy in the same process", n, cardsOf(ps, bs)), "", "% of the copy's bandwidth (8 B per point and step)")
	st, err := fig.Style("temporal")
	if err != nil {
		return nil, err
	}
	bc, err := plotter.NewBarChart(vals, vg.Points(28))
	if err != nil {
		return nil, fmt.Errorf("nbrun: peers chart: %w", err)
	}
	bc.Color = st.Color
	bc.LineStyle.Width = 0
	p.Add(plotter.NewGrid(), bc)
	p.NominalX(names...)
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 100}, {X: float64(len(bars)) - 0.5, Y: 100}})
	if err != nil {
		return nil, err
	}
	one.Color, one.Dashes = fig.Muted, []vg.Length{4, 3}
	p.Add(one)
	p.Y.Min = 0
	return p, nil
}
