package fig

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Pt is a point in a diagram's own units, y up.
type Pt struct{ X, Y float64 }

// Kind says what a Shape is.
type Kind int

// The kinds of shape a Diagram draws.
const (
	KindRect    Kind = iota // Pts[0] and Pts[1] are opposite corners
	KindPolygon             // Pts are the vertices of a closed polygon
	KindLine                // Pts are the vertices of an open polyline
	KindArrow               // a polyline with an arrow head at its last point
	KindCircle              // a circle of radius R units centred at Pts[0]
	KindText                // Text anchored at Pts[0]
)

var kindNames = [...]string{"rect", "polygon", "line", "arrow", "circle", "text"}

// String returns the kind's name: rect, polygon, line, arrow, circle or text.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Shape is one element of a Diagram: its geometry is in diagram units, its
// line widths and font sizes in points, so that text stays readable at any
// scale. Shapes are values; the methods Filled, Stroked, Dashed, Bold,
// Italic, Colored and Align return modified copies.
type Shape struct {
	Kind   Kind
	Pts    []Pt
	Fill   color.Color // nil: not filled
	Line   color.Color // nil: not stroked
	Width  vg.Length   // line width in points
	Dash   bool
	R      float64 // circle radius in units
	Text   string
	Size   vg.Length // font size in points
	XAlign float64   // text: 0 left, −0.5 centre, −1 right of the anchor
	YAlign float64   // text: 0 above, −0.5 centred on, −1 below the anchor
	IsBold bool
	IsItal bool
	Rot    float64 // text rotation in radians
}

// Rect returns an unfilled, unstroked rectangle with corners (x0, y0) and
// (x1, y1).
func Rect(x0, y0, x1, y1 float64) Shape {
	return Shape{Kind: KindRect, Pts: []Pt{{x0, y0}, {x1, y1}}}
}

// Polygon returns an unfilled, unstroked closed polygon.
func Polygon(pts ...Pt) Shape { return Shape{Kind: KindPolygon, Pts: pts} }

// Line returns a polyline in Ink, 1 point wide.
func Line(pts ...Pt) Shape { return Shape{Kind: KindLine, Pts: pts, Line: Ink, Width: 1} }

// Arrow returns a polyline in Ink, 1 point wide, with a head at its end.
func Arrow(pts ...Pt) Shape { return Shape{Kind: KindArrow, Pts: pts, Line: Ink, Width: 1} }

// Circle returns an unfilled, unstroked circle of radius r units.
func Circle(x, y, r float64) Shape { return Shape{Kind: KindCircle, Pts: []Pt{{x, y}}, R: r} }

// Label returns size-point text in Ink centred on (x, y).
func Label(x, y float64, size vg.Length, text string) Shape {
	return Shape{Kind: KindText, Pts: []Pt{{x, y}}, Text: text, Size: size, XAlign: -0.5, YAlign: -0.5, Fill: Ink}
}

// Filled returns s filled with c.
func (s Shape) Filled(c color.Color) Shape { s.Fill = c; return s }

// Stroked returns s outlined in c, w points wide.
func (s Shape) Stroked(c color.Color, w vg.Length) Shape { s.Line, s.Width = c, w; return s }

// Dashed returns s with a dashed outline.
func (s Shape) Dashed() Shape { s.Dash = true; return s }

// Bold returns text s in bold.
func (s Shape) Bold() Shape { s.IsBold = true; return s }

// Italic returns text s in italics.
func (s Shape) Italic() Shape { s.IsItal = true; return s }

// Colored returns text s in c.
func (s Shape) Colored(c color.Color) Shape { s.Fill = c; return s }

// Align returns text s with the given alignment: x 0 puts the anchor at the
// left edge, −0.5 at the centre, −1 at the right edge; y likewise from the
// bottom.
func (s Shape) Align(x, y float64) Shape { s.XAlign, s.YAlign = x, y; return s }

// Rotated returns text s rotated by rad radians about its anchor.
func (s Shape) Rotated(rad float64) Shape { s.Rot = rad; return s }

// Diagram is a schematic drawing: shapes in the diagram's own units, drawn
// in order and scaled uniformly (same scale in x and y) so that the view
// box Min–Max fits the canvas below the title.
type Diagram struct {
	Title  string
	Min    Pt // lower-left corner of the view box
	Max    Pt // upper-right corner of the view box
	Shapes []Shape
}

// NewDiagram returns an empty diagram with the given title and view box.
func NewDiagram(title string, x0, y0, x1, y1 float64) *Diagram {
	return &Diagram{Title: title, Min: Pt{x0, y0}, Max: Pt{x1, y1}}
}

// Add appends shapes to the diagram.
func (d *Diagram) Add(s ...Shape) { d.Shapes = append(d.Shapes, s...) }

// titleStyle is the style of a diagram's title.
func titleStyle() draw.TextStyle {
	s := TextStyle(12, Ink)
	s.Font = Face(12, true, false)
	s.XAlign, s.YAlign = draw.XCenter, draw.YTop
	return s
}

// frame maps diagram units onto a canvas: a uniform scale for diagrams,
// the axes' transforms for overlays on a plot.
type frame struct {
	scale float64 // points per unit in x, for circle radii
	x, y  func(float64) vg.Length
}

func (f frame) at(p Pt) vg.Point { return vg.Point{X: f.x(p.X), Y: f.y(p.Y)} }

func linearFrame(scale float64, origin vg.Point, min Pt) frame {
	return frame{
		scale: scale,
		x:     func(v float64) vg.Length { return origin.X + vg.Length((v-min.X)*scale) },
		y:     func(v float64) vg.Length { return origin.Y + vg.Length((v-min.Y)*scale) },
	}
}

// layout returns the frame that fits the view box into c below the title,
// with a small margin.
func (d *Diagram) layout(c draw.Canvas) frame {
	const margin = 4
	top := c.Max.Y - margin
	if d.Title != "" {
		top -= titleStyle().Height(d.Title) + 6
	}
	w := float64(c.Max.X - c.Min.X - 2*margin)
	h := float64(top - c.Min.Y - margin)
	vw, vh := d.Max.X-d.Min.X, d.Max.Y-d.Min.Y
	if vw <= 0 || vh <= 0 || w <= 0 || h <= 0 {
		return linearFrame(0, c.Min, d.Min)
	}
	s := math.Min(w/vw, h/vh)
	ox := c.Min.X + margin + vg.Length((w-vw*s)/2)
	oy := c.Min.Y + margin + vg.Length((h-vh*s)/2)
	return linearFrame(s, vg.Point{X: ox, Y: oy}, d.Min)
}

func (s Shape) textStyle() draw.TextStyle {
	clr := s.Fill
	if clr == nil {
		clr = Ink
	}
	size := s.Size
	if size <= 0 {
		size = 10
	}
	t := TextStyle(size, clr)
	t.Font = Face(size, s.IsBold, s.IsItal)
	t.XAlign, t.YAlign = draw.XAlignment(s.XAlign), draw.YAlignment(s.YAlign)
	t.Rotation = s.Rot
	return t
}

// Draw draws the diagram on c. A diagram with an empty view box draws only
// its title.
func (d *Diagram) Draw(c draw.Canvas) {
	if d.Title != "" {
		c.FillText(titleStyle(), vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, d.Title)
	}
	f := d.layout(c)
	if f.scale == 0 {
		return
	}
	for _, s := range d.Shapes {
		s.draw(c, f)
	}
}

func (s Shape) path(f frame, closed bool) vg.Path {
	var p vg.Path
	for i, q := range s.Pts {
		if i == 0 {
			p.Move(f.at(q))
		} else {
			p.Line(f.at(q))
		}
	}
	if closed {
		p.Close()
	}
	return p
}

func (s Shape) stroke(c draw.Canvas, p vg.Path) {
	if s.Line == nil {
		return
	}
	c.SetLineStyle(lineStyle(s.Line, s.width(), s.Dash))
	c.Stroke(p)
}

func (s Shape) width() vg.Length {
	if s.Width <= 0 {
		return 1
	}
	return s.Width
}

func (s Shape) draw(c draw.Canvas, f frame) {
	switch s.Kind {
	case KindRect:
		if len(s.Pts) < 2 {
			return
		}
		a, b := s.Pts[0], s.Pts[1]
		r := Polygon(Pt{a.X, a.Y}, Pt{b.X, a.Y}, Pt{b.X, b.Y}, Pt{a.X, b.Y})
		r.Fill, r.Line, r.Width, r.Dash = s.Fill, s.Line, s.Width, s.Dash
		r.draw(c, f)
	case KindPolygon:
		if len(s.Pts) < 3 {
			return
		}
		p := s.path(f, true)
		if s.Fill != nil {
			c.SetColor(s.Fill)
			c.Fill(p)
		}
		s.stroke(c, p)
	case KindLine:
		if len(s.Pts) < 2 {
			return
		}
		s.stroke(c, s.path(f, false))
	case KindArrow:
		if len(s.Pts) < 2 {
			return
		}
		n := len(s.Pts)
		tip, from := f.at(s.Pts[n-1]), f.at(s.Pts[n-2])
		dx, dy := float64(tip.X-from.X), float64(tip.Y-from.Y)
		l := math.Hypot(dx, dy)
		if l == 0 {
			return
		}
		ux, uy := dx/l, dy/l
		head := 3.5 + 2.5*float64(s.width())
		base := vg.Point{X: tip.X - vg.Length(ux*head), Y: tip.Y - vg.Length(uy*head)}
		// Stop the shaft at the base of the head so that the tip stays sharp.
		var p vg.Path
		for i := 0; i < n-1; i++ {
			if i == 0 {
				p.Move(f.at(s.Pts[i]))
			} else {
				p.Line(f.at(s.Pts[i]))
			}
		}
		p.Line(base)
		if s.Line != nil {
			c.SetLineStyle(lineStyle(s.Line, s.width(), s.Dash))
			c.Stroke(p)
			half := head * 0.45
			var h vg.Path
			h.Move(tip)
			h.Line(vg.Point{X: base.X - vg.Length(uy*half), Y: base.Y + vg.Length(ux*half)})
			h.Line(vg.Point{X: base.X + vg.Length(uy*half), Y: base.Y - vg.Length(ux*half)})
			h.Close()
			c.SetColor(s.Line)
			c.Fill(h)
		}
	case KindCircle:
		if len(s.Pts) < 1 || s.R <= 0 {
			return
		}
		ctr := f.at(s.Pts[0])
		r := vg.Length(s.R * f.scale)
		var p vg.Path
		p.Move(vg.Point{X: ctr.X + r, Y: ctr.Y})
		p.Arc(ctr, r, 0, 2*math.Pi)
		p.Close()
		if s.Fill != nil {
			c.SetColor(s.Fill)
			c.Fill(p)
		}
		s.stroke(c, p)
	case KindText:
		if len(s.Pts) < 1 || s.Text == "" {
			return
		}
		c.FillText(s.textStyle(), f.at(s.Pts[0]), s.Text)
	}
}

// TextBox is where one text of a diagram lands on a canvas.
type TextBox struct {
	Text string
	Box  vg.Rectangle
}

// TextBoxes returns the rectangle each text of the diagram, the title
// included, covers when the diagram is drawn on a w×h canvas. Tests use it
// to check that no text is clipped and no two texts overlap.
func (d *Diagram) TextBoxes(w, h vg.Length) []TextBox {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}
	var out []TextBox
	if d.Title != "" {
		ts := titleStyle()
		at := vg.Point{X: w / 2, Y: h - 4}
		out = append(out, TextBox{d.Title, shift(ts.Rectangle(d.Title), at)})
	}
	f := d.layout(c)
	for _, s := range d.Shapes {
		if s.Kind != KindText || len(s.Pts) == 0 || s.Text == "" {
			continue
		}
		out = append(out, TextBox{s.Text, shift(s.textStyle().Rectangle(s.Text), f.at(s.Pts[0]))})
	}
	return out
}

func shift(r vg.Rectangle, p vg.Point) vg.Rectangle {
	return vg.Rectangle{Min: r.Min.Add(p), Max: r.Max.Add(p)}
}

// Geometry returns a text description of the diagram, one shape per line
// with coordinates rounded to 0.001 units. It does not depend on fonts or
// rasterisation, so golden tests compare it exactly.
func (d *Diagram) Geometry() string {
	var b strings.Builder
	fmt.Fprintf(&b, "title %q\nview %s %s\n", d.Title, fmtPt(d.Min), fmtPt(d.Max))
	for _, s := range d.Shapes {
		b.WriteString(s.Kind.String())
		for _, p := range s.Pts {
			b.WriteString(" " + fmtPt(p))
		}
		if s.Fill != nil {
			b.WriteString(" fill=" + hexColor(s.Fill))
		}
		if s.Line != nil {
			fmt.Fprintf(&b, " line=%s/%.2g", hexColor(s.Line), float64(s.width()))
		}
		if s.Dash {
			b.WriteString(" dashed")
		}
		if s.Kind == KindCircle {
			fmt.Fprintf(&b, " r=%.3f", s.R)
		}
		if s.Kind == KindText {
			fmt.Fprintf(&b, " %q size=%.3g align=%.2g,%.2g", s.Text, float64(s.Size), s.XAlign, s.YAlign)
			if s.IsBold {
				b.WriteString(" bold")
			}
			if s.IsItal {
				b.WriteString(" italic")
			}
			if s.Rot != 0 {
				fmt.Fprintf(&b, " rot=%.3f", s.Rot)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func fmtPt(p Pt) string {
	return fmt.Sprintf("(%s,%s)", fmtNum(p.X), fmtNum(p.Y))
}

func fmtNum(x float64) string {
	s := fmt.Sprintf("%.3f", x)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

func hexColor(c color.Color) string {
	r, g, b, a := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x%02x", r>>8, g>>8, b>>8, a>>8)
}
