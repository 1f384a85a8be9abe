package fig

import (
	"fmt"

	"stencillab.dev/lab"
)

// Stencils1D draws Fig. 8.2: the 1D three-, five- and seven-point stencils
// (orders 1, 2 and 3), each with the central-difference coefficients that
// lab.CentralDifference derives for the first and second derivative.
func Stencils1D() (*Diagram, error) {
	const (
		span   = 4 // cells on each side of the centre
		rowH   = 3.6
		labelW = 4.6
	)
	d := NewDiagram("One-dimensional stencils and their central-difference weights", -labelW, -3*rowH+0.6, 2*span+4.2, 0.2)
	for r := 1; r <= 3; r++ {
		first, err := lab.CentralDifference(1, r)
		if err != nil {
			return nil, fmt.Errorf("fig: 1D stencils: %w", err)
		}
		second, err := lab.CentralDifference(2, r)
		if err != nil {
			return nil, fmt.Errorf("fig: 1D stencils: %w", err)
		}
		top := -float64(r-1) * rowH // top of the cell row
		y := top - 1
		name := fmt.Sprintf("(%c) %s-point", 'A'+r-1, numberWord(first.Points()))
		d.Add(Label(-labelW, top-0.35, 11, name).Align(0, -0.5).Bold())
		d.Add(Label(-labelW, top-0.95, 9.5, fmt.Sprintf("order %d: radius %d", r, r)).Align(0, -0.5).Colored(Muted))
		d.Add(Label(-labelW, y-0.75, 9.5, "h·f′ ≈").Align(0, -0.5))
		d.Add(Label(-labelW, y-1.45, 9.5, "h²·f″ ≈").Align(0, -0.5))
		for m := -span; m <= span; m++ {
			x := float64(m + span)
			fill, line := CellFill, CellLine
			switch {
			case m == 0:
				fill, line = PaleVermillion, Vermillion
			case m >= -r && m <= r:
				fill, line = PaleBlue, Blue
			}
			cell(d, x, y, fill, line, 1)
		}
		for i, m := range first.Offsets {
			x := float64(m+span) + 0.5
			d.Add(Label(x, y+0.5, 9, offsetLabel("k", m)))
			d.Add(Label(x, y-0.75, 9.5, fraction(first.Coeffs[i])))
			d.Add(Label(x, y-1.45, 9.5, fraction(second.Coeffs[i])))
		}
		d.Add(Label(2*span+1.6, y-0.75, 9, accuracy(first.Order())).Align(0, -0.5).Colored(Muted))
		d.Add(Label(2*span+1.6, y-1.45, 9, accuracy(second.Order())).Align(0, -0.5).Colored(Muted))
	}
	return d, nil
}

// accuracy names the order of accuracy of a difference formula.
func accuracy(order int) string {
	return "error ~ h" + superscript(order)
}

// superscript writes n in superscript digits.
func superscript(n int) string {
	sup := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	out := ""
	for _, r := range fmt.Sprint(n) {
		out += string(sup[r-'0'])
	}
	return out
}

// coeffLabel names coefficient m of a stencil: c0, c1, …
func coeffLabel(m int) string { return fmt.Sprintf("c%d", m) }

// StencilShapes draws Fig. 8.3: (A) the 2D five-point and (B) nine-point
// stencils, (C) the 3D seven-point and (D) thirteen-point stencils in an
// isometric projection. The points are the offsets of lab.FivePoint,
// lab.NinePoint, lab.SevenPointStencil and lab.ThirteenPoint, each labelled
// with the index of its coefficient.
func StencilShapes() (*Diagram, error) {
	d := NewDiagram("Stencils in two and three dimensions", 0, -0.6, 22, 23.4)
	five := lab.FivePoint([5]float64{})
	nine := lab.NinePoint([9]float64{})
	seven := lab.SevenPointStencil(lab.Coeffs{})
	thirteen := lab.ThirteenPoint([13]float64{})
	stencil2D(d, Pt{5.5, 14.6}, five, "(A)")
	stencil2D(d, Pt{16.5, 14.6}, nine, "(B)")
	stencil3D(d, Pt{5.5, 0}, seven, "(C)")
	stencil3D(d, Pt{16.5, 0}, thirteen, "(D)")
	return d, nil
}

func caption(points, radius int) string {
	return fmt.Sprintf("%s-point (order %d)", numberWord(points), radius)
}

// stencil2D draws a 2D stencil on a grid two cells wider than its reach,
// x to the right and y up, with its caption centred at base and the grid
// standing on it.
func stencil2D(d *Diagram, base Pt, s lab.Stencil2, tag string) {
	r := s.Radius()
	n := 2*r + 3
	x0, y0 := base.X-float64(n)/2, base.Y+1
	gridCells(d, x0, y0, n, n, CellFill, CellLine, 0.6)
	mid := float64(r + 1)
	for m, o := range s.Offsets {
		fill, line := PaleBlue, Blue
		if o == [2]int{} {
			fill, line = PaleVermillion, Vermillion
		}
		x, y := x0+mid+float64(o[1]), y0+mid+float64(o[0])
		cell(d, x, y, fill, line, 1.2)
		d.Add(Label(x+0.5, y+0.5, 9, coeffLabel(m)))
	}
	d.Add(Label(base.X, base.Y, 10.5, fmt.Sprintf("%s 2D %s", tag, caption(len(s.Offsets), r))).Bold())
	ax := Pt{x0 - 1.6, y0}
	d.Add(Arrow(ax, Pt{ax.X + 1.1, ax.Y}).Stroked(Muted, 0.8), Label(ax.X+1.3, ax.Y, 8.5, "x").Align(0, -0.5).Italic().Colored(Muted))
	d.Add(Arrow(ax, Pt{ax.X, ax.Y + 1.1}).Stroked(Muted, 0.8), Label(ax.X, ax.Y+1.3, 8.5, "y").Align(-0.5, 0).Italic().Colored(Muted))
}

// stencil3D draws a 3D stencil of cubes in the cabinet projection, with
// its caption centred at base and the drawing standing on it. Neighbours
// along x and y sit 1.9 units apart; along z, 3.8 units, which the
// projection halves, so that no cube hides another.
func stencil3D(d *Diagram, base Pt, s lab.Stencil3, tag string) {
	const step, size = 1.9, 0.9
	r := float64(s.Radius())
	reach := (r + 0.7) * step
	var local Diagram
	for _, ax := range []struct {
		v    [3]float64
		name string
	}{{[3]float64{1, 0, 0}, "x"}, {[3]float64{0, 1, 0}, "y"}, {[3]float64{0, 0, 2}, "z"}} {
		p := oblique(-reach*ax.v[0], -reach*ax.v[1], -reach*ax.v[2])
		q := oblique(reach*ax.v[0], reach*ax.v[1], reach*ax.v[2])
		local.Add(Arrow(p, q).Stroked(Muted, 0.8))
		local.Add(Label(q.X+0.3, q.Y+0.3, 8.5, ax.name).Italic().Colored(Muted))
	}
	var cubes []cube3
	for m, o := range s.Offsets {
		fill := PaleBlue
		if o == [3]int{} {
			fill = PaleVermillion
		}
		cubes = append(cubes, cube3{
			x: float64(o[2]) * step, y: float64(o[1]) * step, z: 2 * float64(o[0]) * step,
			size: size, fill: fill, label: coeffLabel(m),
		})
	}
	addCubes(&local, Pt{}, cubes)
	lo, hi := bounds(local.Shapes)
	d.Add(translate(local.Shapes, base.X-(lo.X+hi.X)/2, base.Y+1-lo.Y)...)
	d.Add(Label(base.X, base.Y, 10.5, fmt.Sprintf("%s 3D %s", tag, caption(len(s.Offsets), int(r)))).Bold())
}
