package fig

import (
	"fmt"

	"gonum.org/v1/plot/vg"

	"stencillab.dev/lab"
)

// GridStorage draws Fig. 8.4: a 4×4 grid with the five-point stencil at
// one point, the output point it computes, and the row-major array the
// grid is stored in, where the x neighbours sit next to the centre and the
// y neighbours NX elements away. Flat indices come from lab.Grid2.Index.
func GridStorage() (*Diagram, error) {
	const n = 4
	g, err := lab.NewGrid2[float32](n, n)
	if err != nil {
		return nil, fmt.Errorf("fig: grid storage: %w", err)
	}
	s := lab.FivePoint([5]float64{})
	cj, ck := 1, 2 // the stencil's centre (row j, column k)
	role := map[int]int{}
	for m, o := range s.Offsets {
		role[g.Index(cj+o[0], ck+o[1])] = m
	}
	d := NewDiagram("A 2D grid, a five-point stencil and row-major storage", -1.6, -4.7, 16.6, 5.4)
	// Rows are drawn top down, as the array is indexed: row j at the top
	// sits at y = n−1−j.
	at := func(x0 float64, j, k int) (float64, float64) { return x0 + float64(k), float64(n - 1 - j) }
	for _, panel := range []struct {
		x0     float64
		title  string
		output bool
	}{{0, "input grid", false}, {12, "output grid", true}} {
		for j := range n {
			for k := range n {
				x, y := at(panel.x0, j, k)
				idx := g.Index(j, k)
				m, in := role[idx]
				switch {
				case panel.output && idx == g.Index(cj, ck):
					cell(d, x, y, Vermillion, Vermillion, 1.2)
				case !panel.output && in && m == 0:
					cell(d, x, y, PaleVermillion, Vermillion, 1.2)
				case !panel.output && in:
					cell(d, x, y, PaleBlue, Blue, 1.2)
				default:
					cell(d, x, y, CellFill, CellLine, 0.6)
				}
				clr := Muted
				if (panel.output && idx == g.Index(cj, ck)) || (!panel.output && in) {
					clr = Ink
				}
				if panel.output && idx == g.Index(cj, ck) {
					clr = rgb(0xffffff)
				}
				d.Add(Label(x+0.5, y+0.5, 9, fmt.Sprint(idx)).Colored(clr))
			}
		}
		d.Add(Label(panel.x0+n/2.0, n+0.95, 10.5, panel.title).Bold())
	}
	// Axes of the input grid.
	d.Add(Arrow(Pt{0, n + 0.3}, Pt{1.4, n + 0.3}).Stroked(Muted, 0.8), Label(1.55, n+0.3, 8.5, "k (x)").Align(0, -0.5).Colored(Muted))
	d.Add(Arrow(Pt{-0.35, n}, Pt{-0.35, n - 1.4}).Stroked(Muted, 0.8), Label(-0.5, n-0.7, 8.5, "j (y)").Align(-1, -0.5).Colored(Muted))
	// From the stencil to the output point.
	_, cy := at(0, cj, ck)
	d.Add(Arrow(Pt{n + 0.3, cy + 0.5}, Pt{12 - 0.3, cy + 0.5}).Stroked(Ink, 1.2))
	terms := make([]string, len(s.Offsets))
	for m, o := range s.Offsets {
		terms[m] = fmt.Sprintf("c%d·in[%d]", m, g.Index(cj+o[0], ck+o[1]))
	}
	out := g.Index(cj, ck)
	d.Add(Label(8, cy+2.2, 9.5, fmt.Sprintf("out[%d] = %s", out, terms[0])))
	d.Add(Label(8, cy+1.65, 9.5, fmt.Sprintf("+ %s + %s", terms[1], terms[2])))
	d.Add(Label(8, cy+1.1, 9.5, fmt.Sprintf("+ %s + %s", terms[3], terms[4])))
	d.Add(Label(8, cy-0.1, 9, "one thread per output point").Colored(Muted))
	// The row-major array.
	sy := -2.5
	x0 := 0.0
	for idx := range g.NY * g.NX {
		x := x0 + float64(idx)
		m, in := role[idx]
		switch {
		case in && m == 0:
			cell(d, x, sy, PaleVermillion, Vermillion, 1.2)
		case in:
			cell(d, x, sy, PaleBlue, Blue, 1.2)
		default:
			cell(d, x, sy, CellFill, CellLine, 0.6)
		}
		clr := Muted
		if in {
			clr = Ink
		}
		d.Add(Label(x+0.5, sy+0.5, 9, fmt.Sprint(idx)).Colored(clr))
	}
	for j := range n {
		a, b := x0+float64(j*n)+0.05, x0+float64(j*n+n)-0.05
		d.Add(Line(Pt{a, sy - 0.25}, Pt{a, sy - 0.4}, Pt{b, sy - 0.4}, Pt{b, sy - 0.25}).Stroked(Muted, 0.8))
		d.Add(Label((a+b)/2, sy-0.75, 9, fmt.Sprintf("row %d", j)).Colored(Muted))
	}
	d.Add(Label(x0+float64(n*n)/2, sy+1.45, 10.5, "stored as a 1D array, row after row: in[j][k] lives at j·NX + k").Bold())
	// Distances in memory from the centre.
	c := x0 + float64(g.Index(cj, ck)) + 0.5
	up, down := x0+float64(g.Index(cj-1, ck))+0.5, x0+float64(g.Index(cj+1, ck))+0.5
	by := sy - 1.35
	d.Add(Arrow(Pt{c, by}, Pt{up, by}).Stroked(Blue, 1), Arrow(Pt{c, by}, Pt{down, by}).Stroked(Blue, 1))
	d.Add(Line(Pt{c, by + 0.15}, Pt{c, by - 0.15}).Stroked(Blue, 1))
	d.Add(Label((c+up)/2, by-0.4, 9, fmt.Sprintf("j−1: −NX = −%d", g.NX)).Colored(Blue))
	d.Add(Label((c+down)/2, by-0.4, 9, fmt.Sprintf("j+1: +NX = +%d", g.NX)).Colored(Blue))
	return d, nil
}

// Boundary draws Fig. 8.5: the boundary cells of a grid hold boundary
// conditions and are never updated; a sweep computes only the interior
// cells, those whose whole stencil lies inside the grid. The ring is as
// wide as the radius of lab.FivePoint, as lab.Sweep2 leaves it.
func Boundary() (*Diagram, error) {
	const n = 8
	s := lab.FivePoint([5]float64{})
	r := s.Radius()
	d := NewDiagram("Boundary cells are not updated; only the interior is computed", -0.2, -3.3, 2*n+3.2, n+1.4)
	interior := func(j, k int) bool { return j >= r && j < n-r && k >= r && k < n-r }
	// The stencil at the first interior point reaches into the boundary.
	sj, sk := r, r
	stencil := map[[2]int]bool{}
	for _, o := range s.Offsets {
		stencil[[2]int{sj + o[0], sk + o[1]}] = true
	}
	for p, x0 := range []float64{0, n + 3} {
		output := p == 1
		for j := range n {
			for k := range n {
				x, y := x0+float64(k), float64(n-1-j)
				switch {
				case output && j == sj && k == sk:
					cell(d, x, y, Vermillion, Vermillion, 1.2)
				case !output && j == sj && k == sk:
					cell(d, x, y, PaleVermillion, Vermillion, 1.2)
				case !output && stencil[[2]int{j, k}]:
					cell(d, x, y, PaleBlue, Blue, 1.2)
				case interior(j, k):
					if output {
						cell(d, x, y, PaleGreen, CellLine, 0.6)
					} else {
						cell(d, x, y, CellFill, CellLine, 0.6)
					}
				default:
					cell(d, x, y, PaleGrey, Muted, 0.6)
				}
			}
		}
		// Outline the interior.
		d.Add(Rect(x0+float64(r), float64(r), x0+float64(n-r), float64(n-r)).Stroked(Ink, 1.6).Dashed())
		title := "input grid"
		if output {
			title = "output grid"
		}
		d.Add(Label(x0+n/2.0, n+0.6, 10.5, title).Bold())
	}
	d.Add(Arrow(Pt{n + 0.4, n / 2.0}, Pt{n + 2.6, n / 2.0}).Stroked(Ink, 1.2))
	d.Add(Label(n+1.5, n/2.0+0.6, 9, "one sweep"))
	// Legend.
	ly := -1.3
	key := func(x, y float64, s Shape, text string) {
		d.Add(s.withRect(x, y, x+0.8, y+0.8))
		d.Add(Label(x+1.1, y+0.4, 9, text).Align(0, -0.5))
	}
	key(0, ly, Rect(0, 0, 0, 0).Filled(PaleGrey).Stroked(Muted, 0.6), "boundary cells: boundary conditions, never updated")
	key(0, ly-1.2, Rect(0, 0, 0, 0).Filled(PaleGreen).Stroked(CellLine, 0.6), fmt.Sprintf("interior: the %d×%d cells each sweep computes", n-2*r, n-2*r))
	key(n+3, ly, Rect(0, 0, 0, 0).Filled(PaleBlue).Stroked(Blue, 1.2), "first interior stencil: reads boundary cells")
	key(n+3, ly-1.2, Rect(0, 0, 0, 0).Filled(Vermillion).Stroked(Vermillion, 1.2), "its output: the one cell it writes")
	return d, nil
}

// withRect returns s, a rectangle, moved to the corners (x0, y0), (x1, y1).
func (s Shape) withRect(x0, y0, x1, y1 float64) Shape {
	s.Kind = KindRect
	s.Pts = []Pt{{x0, y0}, {x1, y1}}
	return s
}

// Tile sizes of the tiling figure: IN_TILE_DIM = 6 and OUT_TILE_DIM = 4
// on a 12×12 grid.
const (
	tileIn   = 6
	tileOut  = tileIn - 2
	tileGrid = 12
)

// Tiles draws Fig. 8.7 for the 2D five-point stencil: one block's output
// tile, the larger input tile it needs (the output tile plus a halo one
// cell wide), and that input tile in shared memory, where every thread of
// the IN_TILE_DIM² block loads one element and the inner OUT_TILE_DIM²
// threads compute. Block (1, 1) covers outputs 4…7 and loads inputs 3…8
// in each direction, as the chapter's kernel indexes them
// (blockIdx·OUT_TILE_DIM + threadIdx − 1).
func Tiles() (*Diagram, error) {
	const (
		cs  = 0.5 // cell size of the global grids
		ss  = 0.8 // cell size of the shared-memory tile
		bx  = 1   // the block
		gap = 2.4
	)
	d := NewDiagram(fmt.Sprintf("Input and output tiles of a 2D five-point stencil (IN_TILE_DIM = %d, OUT_TILE_DIM = %d)", tileIn, tileOut),
		-0.3, -3.7, 2*tileGrid*cs+tileIn*ss+2*gap+0.3, tileGrid*cs+1.5)
	lo := bx*tileOut - 1 // first input index of the block
	inTile := func(j, k int) bool { return j >= lo && j < lo+tileIn && k >= lo && k < lo+tileIn }
	outTile := func(j, k int) bool { return j >= lo+1 && j < lo+1+tileOut && k >= lo+1 && k < lo+1+tileOut }
	corner := func(j, k int) bool { return (j == lo || j == lo+tileIn-1) && (k == lo || k == lo+tileIn-1) }
	top := float64(tileGrid) * cs
	// Input in global memory.
	for j := range tileGrid {
		for k := range tileGrid {
			x, y := float64(k)*cs, top-float64(j+1)*cs
			fill, line, w := CellFill, CellLine, vg.Length(0.5)
			switch {
			case outTile(j, k):
				fill, line, w = PaleBlue, Blue, 0.8
			case corner(j, k):
				fill = PaleGrey
			case inTile(j, k):
				fill, line, w = PaleOrange, Orange, 0.8
			}
			d.Add(Rect(x, y, x+cs, y+cs).Filled(fill).Stroked(line, w))
		}
	}
	for t := 0; t <= tileGrid; t += tileOut {
		p := float64(t) * cs
		d.Add(Line(Pt{p, 0}, Pt{p, top}).Stroked(Muted, 0.4).Dashed(), Line(Pt{0, p}, Pt{top, p}).Stroked(Muted, 0.4).Dashed())
	}
	tl := float64(lo) * cs
	d.Add(Rect(tl, top-tl-tileIn*cs, tl+tileIn*cs, top-tl).Stroked(Orange, 1.8))
	d.Add(Label(top/2, top+0.45, 10.5, "input (global memory)").Bold())

	// The input tile in shared memory.
	sx := top + gap
	sy := (top - tileIn*ss) / 2
	for j := range tileIn {
		for k := range tileIn {
			x, y := sx+float64(k)*ss, sy+float64(tileIn-1-j)*ss
			fill, line := PaleOrange, Orange
			switch {
			case outTile(lo+j, lo+k):
				fill, line = PaleBlue, Blue
			case corner(lo+j, lo+k):
				fill, line = PaleGrey, Muted
			}
			d.Add(Rect(x, y, x+ss, y+ss).Filled(fill).Stroked(line, 0.8))
			// One thread per element: all load, the inner ones compute.
			clr := Orange
			if outTile(lo+j, lo+k) {
				clr = Blue
			}
			d.Add(Circle(x+ss/2, y+ss/2, 0.12).Filled(clr))
		}
	}
	d.Add(Rect(sx, sy, sx+tileIn*ss, sy+tileIn*ss).Stroked(Orange, 1.8))
	d.Add(Label(sx+tileIn*ss/2, top+0.45, 10.5, "input tile (shared memory)").Bold())
	d.Add(Label(sx+tileIn*ss/2, sy-0.35, 9, fmt.Sprintf("IN_TILE_DIM = %d", tileIn)))
	d.Add(Arrow(Pt{top + 0.2, top / 2}, Pt{sx - 0.2, top / 2}).Stroked(Ink, 1.2))
	d.Add(Label(top+gap/2, top/2+0.4, 9, "load"))

	// Output.
	ox := sx + tileIn*ss + gap
	for j := range tileGrid {
		for k := range tileGrid {
			x, y := ox+float64(k)*cs, top-float64(j+1)*cs
			fill, line, w := CellFill, CellLine, vg.Length(0.5)
			switch {
			case outTile(j, k):
				fill, line, w = Vermillion, Shade(Vermillion, -0.35), 0.5
			case j == 0 || k == 0 || j == tileGrid-1 || k == tileGrid-1:
				fill = PaleGrey
			}
			d.Add(Rect(x, y, x+cs, y+cs).Filled(fill).Stroked(line, w))
		}
	}
	for t := 0; t <= tileGrid; t += tileOut {
		p := float64(t) * cs
		d.Add(Line(Pt{ox + p, 0}, Pt{ox + p, top}).Stroked(Muted, 0.4).Dashed(), Line(Pt{ox, p}, Pt{ox + top, p}).Stroked(Muted, 0.4).Dashed())
	}
	d.Add(Label(ox+top/2, top+0.45, 10.5, "output").Bold())
	d.Add(Arrow(Pt{sx + tileIn*ss + 0.2, top / 2}, Pt{ox - 0.2, top / 2}).Stroked(Ink, 1.2))
	d.Add(Label(sx+tileIn*ss+gap/2, top/2+0.4, 9, "compute"))

	// Legend.
	key := func(x, y float64, s Shape, text string) {
		d.Add(s.withRect(x, y, x+0.5, y+0.5))
		d.Add(Label(x+0.75, y+0.25, 9, text).Align(0, -0.5))
	}
	ly := -1.2
	key(0, ly, Rect(0, 0, 0, 0).Filled(PaleBlue).Stroked(Blue, 0.8), fmt.Sprintf("the block's %d×%d output tile", tileOut, tileOut))
	key(0, ly-0.9, Rect(0, 0, 0, 0).Filled(PaleOrange).Stroked(Orange, 0.8), "halo: loaded by the outer threads, read by neighbours")
	key(0, ly-1.8, Rect(0, 0, 0, 0).Filled(PaleGrey).Stroked(Muted, 0.5), "corners: loaded, never read by a five-point stencil")
	key(ox, ly, Rect(0, 0, 0, 0).Filled(Vermillion).Stroked(Vermillion, 0.8), "outputs written by block (1, 1)")
	d.Add(Line(Pt{ox, ly - 0.65}, Pt{ox + 0.5, ly - 0.65}).Stroked(Muted, 0.6).Dashed())
	d.Add(Label(ox+0.75, ly-0.65, 9, fmt.Sprintf("output tiles, %d×%d each", tileOut, tileOut)).Align(0, -0.5))
	d.Add(Circle(ox+0.25, ly-1.55, 0.12).Filled(Orange), Circle(ox+0.5, ly-1.55, 0.12).Filled(Blue))
	d.Add(Label(ox+0.75, ly-1.55, 9, fmt.Sprintf("%d×%d threads: all load,", tileIn, tileIn)).Align(0, -0.5))
	d.Add(Label(ox+0.75, ly-2.05, 9, fmt.Sprintf("the inner %d×%d compute", tileOut, tileOut)).Align(0, -0.5))
	return d, nil
}
