package fig

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/vg"
)

// gridCells adds an nx×ny block of unit cells with lower-left corner
// (x0, y0), every cell filled with fill and outlined in line.
func gridCells(d *Diagram, x0, y0 float64, nx, ny int, fill, line color.Color, w vg.Length) {
	for j := range ny {
		for k := range nx {
			d.Add(Rect(x0+float64(k), y0+float64(j), x0+float64(k+1), y0+float64(j+1)).Filled(fill).Stroked(line, w))
		}
	}
}

// cell adds one unit cell at (x, y).
func cell(d *Diagram, x, y float64, fill, line color.Color, w vg.Length) {
	d.Add(Rect(x, y, x+1, y+1).Filled(fill).Stroked(line, w))
}

// fraction writes x as a small fraction, e.g. −1/12 or 4/3, with a
// typographic minus; values that are no fraction with a denominator up to
// 720 are written with three decimals.
func fraction(x float64) string {
	sign := ""
	if x < 0 {
		sign, x = "−", -x
	}
	for q := 1; q <= 720; q++ {
		p := math.Round(x * float64(q))
		if math.Abs(x-p/float64(q)) < 1e-9 {
			if p == 0 {
				return "0"
			}
			if q == 1 {
				return fmt.Sprintf("%s%.0f", sign, p)
			}
			return fmt.Sprintf("%s%.0f/%d", sign, p, q)
		}
	}
	return fmt.Sprintf("%s%.3f", sign, x)
}

// numberWord spells the small counts of the chapter's captions.
func numberWord(n int) string {
	words := map[int]string{3: "three", 5: "five", 7: "seven", 9: "nine", 13: "thirteen"}
	if w, ok := words[n]; ok {
		return w
	}
	return fmt.Sprint(n)
}

// offsetLabel writes an index plus an offset: k, k+1, k−2.
func offsetLabel(idx string, off int) string {
	switch {
	case off == 0:
		return idx
	case off < 0:
		return fmt.Sprintf("%s−%d", idx, -off)
	}
	return fmt.Sprintf("%s+%d", idx, off)
}

// oblique is the projection of the z axis in the 3D drawings: z recedes up
// and to the right at 45°, shortened to half (a cabinet projection), so the
// front face of a cube is a true square and its top and right faces show.
func oblique(x, y, z float64) Pt {
	const depth = 0.5
	return Pt{x + depth*z*math.Sqrt2/2, y + depth*z*math.Sqrt2/2}
}

// cube3 is a cube to draw in oblique projection.
type cube3 struct {
	x, y, z float64 // centre
	size    float64
	fill    color.Color
	label   string // drawn on the front face
}

// Shade returns c mixed with white (f > 0) or black (f < 0) by |f|: the
// paler or darker partner of a colour, for the second bar of a pair, a
// shaded face of a cube or a value that is only a little off.
func Shade(c color.Color, f float64) color.NRGBA {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 {
		x := float64(v >> 8)
		if f > 0 {
			x += (255 - x) * f
		} else {
			x *= 1 + f
		}
		return uint8(math.Round(x))
	}
	return color.NRGBA{R: mix(r), G: mix(g), B: mix(b), A: 0xff}
}

// addCubes draws cubes in the cabinet projection, far to near (larger z
// first) so that nearer cubes cover farther ones, each with its three
// visible faces: the front in the cube's colour, carrying the label, the
// top lighter and the right side darker.
func addCubes(d *Diagram, off Pt, cubes []cube3) {
	cs := append([]cube3(nil), cubes...)
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].z != cs[b].z {
			return cs[a].z > cs[b].z
		}
		if cs[a].y != cs[b].y {
			return cs[a].y > cs[b].y
		}
		return cs[a].x > cs[b].x
	})
	at := func(x, y, z float64) Pt {
		p := oblique(x, y, z)
		return Pt{p.X + off.X, p.Y + off.Y}
	}
	for _, c := range cs {
		h := c.size / 2
		x0, x1, y0, y1, z0, z1 := c.x-h, c.x+h, c.y-h, c.y+h, c.z-h, c.z+h
		top := Polygon(at(x0, y1, z0), at(x1, y1, z0), at(x1, y1, z1), at(x0, y1, z1))
		right := Polygon(at(x1, y0, z0), at(x1, y0, z1), at(x1, y1, z1), at(x1, y1, z0))
		front := Polygon(at(x0, y0, z0), at(x1, y0, z0), at(x1, y1, z0), at(x0, y1, z0))
		d.Add(top.Filled(Shade(c.fill, 0.4)).Stroked(Ink, 0.6),
			right.Filled(Shade(c.fill, -0.22)).Stroked(Ink, 0.6),
			front.Filled(c.fill).Stroked(Ink, 0.6))
		if c.label != "" {
			p := at(c.x, c.y, z0)
			d.Add(Label(p.X, p.Y, 8, c.label))
		}
	}
}

// bounds returns the smallest box holding the points of the shapes; text
// counts by its anchor only.
func bounds(shapes []Shape) (lo, hi Pt) {
	lo, hi = Pt{math.Inf(1), math.Inf(1)}, Pt{math.Inf(-1), math.Inf(-1)}
	for _, s := range shapes {
		for _, p := range s.Pts {
			r := 0.0
			if s.Kind == KindCircle {
				r = s.R
			}
			lo = Pt{math.Min(lo.X, p.X-r), math.Min(lo.Y, p.Y-r)}
			hi = Pt{math.Max(hi.X, p.X+r), math.Max(hi.Y, p.Y+r)}
		}
	}
	return lo, hi
}

// translate returns copies of the shapes moved by (dx, dy).
func translate(shapes []Shape, dx, dy float64) []Shape {
	out := make([]Shape, len(shapes))
	for i, s := range shapes {
		s.Pts = append([]Pt(nil), s.Pts...)
		for k := range s.Pts {
			s.Pts[k].X += dx
			s.Pts[k].Y += dy
		}
		out[i] = s
	}
	return out
}
