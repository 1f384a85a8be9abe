package fig

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// Overlay is a plotter that draws Shapes in the data coordinates of a plot:
// labels, arrows and boxes on a chart. It does not change the plot's axis
// ranges.
type Overlay struct {
	Shapes []Shape
}

// Add appends shapes to the overlay.
func (o *Overlay) Add(s ...Shape) { o.Shapes = append(o.Shapes, s...) }

// Plot implements plot.Plotter.
func (o *Overlay) Plot(c draw.Canvas, p *plot.Plot) {
	x, y := p.Transforms(&c)
	f := frame{x: x, y: y}
	if p.X.Max > p.X.Min {
		f.scale = float64(x(p.X.Max)-x(p.X.Min)) / (p.X.Max - p.X.Min)
	}
	for _, s := range o.Shapes {
		s.draw(c, f)
	}
}
