package fig

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"stencillab.dev/lab"
)

// SinePoints is the number of grid points of Fig. 8.1: spacing π/6 on
// [0, π].
const SinePoints = 7

// piTicks labels the multiples of π/6 on [0, π].
func piTicks() plot.ConstantTicks {
	labels := []string{"0", "π/6", "π/3", "π/2", "2π/3", "5π/6", "π"}
	t := make(plot.ConstantTicks, len(labels))
	for k, l := range labels {
		t[k] = plot.Tick{Value: float64(k) * math.Pi / 6, Label: l}
	}
	return t
}

func unitTicks() plot.ConstantTicks {
	return plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.5, Label: "0.5"}, {Value: 1, Label: "1"}}
}

// Sine draws Fig. 8.1: (A) sin x as a continuous function on [0, π], (B) a
// regular grid of spacing π/6 on that interval and (C) the discrete
// representation, the seven values lab.Discretize samples there.
func Sine() (*Panels, error) {
	g, err := lab.Discretize(math.Sin, 0, math.Pi, SinePoints)
	if err != nil {
		return nil, fmt.Errorf("fig: sine: %w", err)
	}
	pad := 0.55 * g.H
	xmin, xmax := -pad, math.Pi+pad

	// (A) the continuous function.
	a := NewPlot("(A) sin x, a continuous function on 0 ≤ x ≤ π", "", "sin x")
	curve := plotter.NewFunction(math.Sin)
	curve.XMin, curve.XMax, curve.Samples = 0, math.Pi, 200
	curve.LineStyle = lineStyle(Blue, 2, false)
	a.Add(plotter.NewGrid(), curve)
	a.X.Tick.Marker = piTicks()
	a.Y.Tick.Marker = unitTicks()
	a.X.Min, a.X.Max, a.Y.Min, a.Y.Max = xmin, xmax, -0.08, 1.15

	// (B) the grid: seven points, constant spacing h = π/6.
	b := NewPlot(fmt.Sprintf("(B) a regular grid of %d points, spacing h = π/6", g.N), "", "")
	var o Overlay
	for k := range g.N {
		x := g.X(k)
		o.Add(Line(Pt{x, -0.02}, Pt{x, 0.98}).Stroked(CellLine, 0.8).Dashed())
		o.Add(Circle(x, 0, 0.045).Filled(Vermillion))
		o.Add(Label(x, 1.05, 10, fmt.Sprintf("x%s", subscript(k))).Italic())
	}
	y := 0.5
	o.Add(Arrow(Pt{g.X(2) + g.H/2, y}, Pt{g.X(2), y}).Stroked(Ink, 1))
	o.Add(Arrow(Pt{g.X(2) + g.H/2, y}, Pt{g.X(3), y}).Stroked(Ink, 1))
	o.Add(Label(g.X(2)+g.H/2, y+0.1, 10, "h = π/6").Colored(Ink))
	b.Add(&o)
	b.X.Tick.Marker = piTicks()
	b.HideY()
	b.X.Min, b.X.Max, b.Y.Min, b.Y.Max = xmin, xmax, -0.08, 1.15

	// (C) the discrete representation: one value per grid point.
	c := NewPlot("(C) the discrete representation: F[k] = sin(k·π/6)", "", "")
	var v Overlay
	for k, f := range g.Data {
		x := g.X(k)
		v.Add(Rect(x-g.H/2, 0.35, x+g.H/2, 0.75).Filled(PaleBlue).Stroked(Ink, 0.8))
		v.Add(Label(x, 0.55, 11, fmt.Sprintf("%.2f", f)))
		v.Add(Label(x, 0.18, 9, fmt.Sprintf("F[%d]", k)).Colored(Muted))
	}
	c.Add(&v)
	c.HideAxes()
	c.X.Min, c.X.Max, c.Y.Min, c.Y.Max = xmin, xmax, 0, 1
	return &Panels{Cols: 1, Align: true, Items: []Drawer{a, b, c}}, nil
}

func subscript(k int) string {
	const digits = "₀₁₂₃₄₅₆₇₈₉"
	s := fmt.Sprint(k)
	out := ""
	for _, r := range s {
		d := int(r - '0')
		out += string([]rune(digits)[d])
	}
	return out
}
