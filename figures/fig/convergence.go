package fig

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"stencillab.dev/lab"
)

// ConvergenceSeries is the error of one central-difference stencil on
// sin x at a sequence of spacings.
type ConvergenceSeries struct {
	Stencil lab.Stencil1
	H       []float64 // spacings, largest first
	Err     []float64 // largest |approximation − exact| over [0, π] at each spacing
	// RoundOff marks the spacings where rounding, not truncation, dominates
	// the error: where it is below ten times eps·Σ|c|/h^d, the error that
	// rounding the samples alone can cause.
	RoundOff []bool
	Slope    float64 // least-squares slope of log Err against log H over the other spacings
}

// eps is the spacing of float64 numbers near 1.
const eps = 0x1p-52

// convergenceSteps are the spacings π/n of the convergence chart.
var convergenceSteps = []int{8, 16, 32, 64, 128}

// Convergence1D measures how the error of the 1D derivative stencils of
// radius 1, 2 and 3 falls with the spacing h, for the first (derivative 1)
// or second (derivative 2) derivative of sin x. It samples sin on [−π, 2π]
// with spacing π/n, so that every point of [0, π] has its full stencil,
// applies lab.Derivative and compares with cos x or −sin x on [0, π]. The
// fitted slopes are close to the orders 2, 4 and 6.
func Convergence1D(derivative int) ([]ConvergenceSeries, error) {
	exact := math.Cos
	if derivative == 2 {
		exact = func(x float64) float64 { return -math.Sin(x) }
	}
	var out []ConvergenceSeries
	for r := 1; r <= 3; r++ {
		s, err := lab.CentralDifference(derivative, r)
		if err != nil {
			return nil, fmt.Errorf("fig: convergence: %w", err)
		}
		cs := ConvergenceSeries{Stencil: s}
		for _, n := range convergenceSteps {
			g, err := lab.Discretize(math.Sin, -math.Pi, 2*math.Pi, 3*n+1)
			if err != nil {
				return nil, fmt.Errorf("fig: convergence: %w", err)
			}
			d, err := lab.NewGrid1[float64](g.N, g.X0, g.H)
			if err != nil {
				return nil, fmt.Errorf("fig: convergence: %w", err)
			}
			if err := lab.Derivative(d, g, s); err != nil {
				return nil, fmt.Errorf("fig: convergence: %w", err)
			}
			worst := 0.0
			for k := n; k <= 2*n; k++ {
				worst = math.Max(worst, math.Abs(d.Data[k]-exact(g.X(k))))
			}
			cs.H = append(cs.H, g.H)
			cs.Err = append(cs.Err, worst)
		}
		sum := 0.0
		for _, c := range s.Coeffs {
			sum += math.Abs(c)
		}
		var lx, ly []float64
		for i, h := range cs.H {
			floor := 10 * eps * sum / math.Pow(h, float64(derivative))
			cs.RoundOff = append(cs.RoundOff, cs.Err[i] < floor)
			if !cs.RoundOff[i] {
				lx, ly = append(lx, math.Log(h)), append(ly, math.Log(cs.Err[i]))
			}
		}
		if len(lx) < 2 {
			return nil, fmt.Errorf("fig: convergence of %s: fewer than two spacings free of round-off", s.Name)
		}
		_, cs.Slope = stat.LinearRegression(lx, ly, nil, false)
		out = append(out, cs)
	}
	return out, nil
}

// decades puts a tick at every power of ten, labelled 1e−4 and so on (the
// font has no superscript minus).
type decades struct{}

// Ticks implements plot.Ticker.
func (decades) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	if !(min > 0) || !(max >= min) {
		return ticks
	}
	for e := math.Ceil(math.Log10(min)); e <= math.Floor(math.Log10(max)); e++ {
		label := ""
		if int(e)%2 == 0 {
			label = fmt.Sprintf("1e%d", int(e))
			if e < 0 {
				label = fmt.Sprintf("1e−%d", -int(e))
			}
		}
		ticks = append(ticks, plot.Tick{Value: math.Pow(10, e), Label: label})
	}
	return ticks
}

// convergencePlot draws the series of one derivative.
func convergencePlot(title, ylabel string, series []ConvergenceSeries) (*plot.Plot, error) {
	p := NewPlot(title, "spacing h", ylabel)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Y.Tick.Marker = decades{}
	var ht plot.ConstantTicks
	for _, n := range convergenceSteps {
		ht = append(ht, plot.Tick{Value: math.Pi / float64(n), Label: fmt.Sprintf("π/%d", n)})
	}
	p.X.Tick.Marker = ht
	p.X.Min, p.X.Max = math.Pi/160, math.Pi/6.4
	p.Y.Min, p.Y.Max = 1e-14, 1
	p.Add(plotter.NewGrid())
	p.Legend.Left, p.Legend.Top = false, false
	p.Legend.XOffs, p.Legend.YOffs = -6, 6
	roundOff := false
	for i, s := range series {
		pts := make(plotter.XYs, len(s.H))
		for k := range s.H {
			pts[k] = plotter.XY{X: s.H[k], Y: s.Err[k]}
		}
		l, m, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("fig: convergence: %w", err)
		}
		clr := Series[i%len(Series)]
		l.LineStyle = lineStyle(clr, 1.6, false)
		m.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: 3, Shape: draw.CircleGlyph{}}
		m.GlyphStyleFunc = func(k int) draw.GlyphStyle {
			if s.RoundOff[k] {
				return draw.GlyphStyle{Color: clr, Radius: 4, Shape: draw.RingGlyph{}}
			}
			return m.GlyphStyle
		}
		p.Add(l, m)
		p.Legend.Add(fmt.Sprintf("%s-point: slope %.2f (order %d)", numberWord(s.Stencil.Points()), s.Slope, s.Stencil.Order()), l, m)
		if slices.Contains(s.RoundOff, true) {
			roundOff = true
		}
	}
	if roundOff {
		var o Overlay
		o.Add(Label(math.Pi/150, 1.5e-1, 8.5, "ring: rounding dominates,").Align(0, 0).Colored(Muted))
		o.Add(Label(math.Pi/150, 2.5e-2, 8.5, "left out of the slope").Align(0, 0).Colored(Muted))
		p.Add(&o)
	}
	return p, nil
}

// Convergence draws the error of the three-, five- and seven-point central
// differences on sin x against the spacing h, log-log, for the first and
// the second derivative: straight lines of slopes close to 2, 4 and 6.
func Convergence() (*Panels, error) {
	first, err := Convergence1D(1)
	if err != nil {
		return nil, err
	}
	second, err := Convergence1D(2)
	if err != nil {
		return nil, err
	}
	a, err := convergencePlot("(A) first derivative", "largest error", first)
	if err != nil {
		return nil, err
	}
	b, err := convergencePlot("(B) second derivative", "largest error", second)
	if err != nil {
		return nil, err
	}
	return &Panels{Title: "Largest error of the central differences on sin x over [0, π]: h², h⁴ and h⁶", Cols: 2, Items: []Drawer{a, b}}, nil
}
