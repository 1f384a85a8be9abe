package fig

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ColorBarWidth is the width that WithColorBar gives the bar, its ticks
// and its label.
const ColorBarWidth = 1.1 * vg.Inch

// WithColorBar draws p with a vertical colour bar at its right: the colour
// map cm over [cm.Min(), cm.Max()], its axis labelled label. The bar keeps
// p's vertical padding so that the two line up.
func WithColorBar(p *plot.Plot, cm palette.ColorMap, label string) Drawer {
	return colorBarred{p: p, cm: cm, label: label}
}

type colorBarred struct {
	p     *plot.Plot
	cm    palette.ColorMap
	label string
}

// Draw draws the plot and, to its right, the bar.
func (d colorBarred) Draw(c draw.Canvas) {
	main := draw.Crop(c, 0, -ColorBarWidth, 0, 0)
	d.p.Draw(main)
	bar := NewPlot("", "", d.label)
	// The bar's title line keeps it level with the plot's data area.
	bar.Title.Text = " "
	bar.Title.TextStyle = d.p.Title.TextStyle
	bar.HideX()
	bar.X.Label.Text = " "
	bar.Add(&plotter.ColorBar{ColorMap: d.cm, Vertical: true})
	bar.Y.Min, bar.Y.Max = d.cm.Min(), d.cm.Max()
	side := draw.Crop(c, c.Max.X-c.Min.X-ColorBarWidth, 0, 0, 0)
	bar.Draw(side)
}
