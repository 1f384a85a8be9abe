package fig

import (
	"fmt"
	"image/color"
	"math"

	"stencillab.dev/lab"
)

// The block of the z-marching figures: IN_TILE_DIM = 6, so OUT_TILE_DIM = 4
// output planes per block and 6 input planes with the two halo planes.
const (
	zIn  = 6
	zOut = zIn - 2
)

// planeGeom places the x–y planes of one block's input tile in a drawing:
// x runs to the right, y recedes up and to the right at 30°, and z, the
// plane index, goes straight up.
type planeGeom struct {
	origin Pt      // front-left corner of the lowest plane
	cell   float64 // cell size along x
	gap    float64 // vertical distance between planes
}

func (g planeGeom) at(x, y float64, plane int) Pt {
	const depth = 0.5
	c, s := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	return Pt{
		g.origin.X + g.cell*(x+depth*y*c),
		g.origin.Y + g.cell*depth*y*s + g.gap*float64(plane),
	}
}

// right returns the point just right of the back-right corner of plane p,
// where its label goes.
func (g planeGeom) right(p int) Pt {
	q := g.at(zIn, zIn/2.0, p)
	return Pt{q.X + 0.35, q.Y}
}

// planeStyle says how one plane of the tile is drawn.
type planeStyle struct {
	inner, halo color.Color // fill of the inner (T−2)² cells and of the ring
	line        color.Color
	dots        color.Color // one dot per cell: a value held in a register
}

// addPlane draws plane p as a grid of zIn×zIn cells.
func addPlane(d *Diagram, g planeGeom, p int, st planeStyle) {
	for b := zIn - 1; b >= 0; b-- { // back rows first
		for a := range zIn {
			fill := st.halo
			if a > 0 && a < zIn-1 && b > 0 && b < zIn-1 {
				fill = st.inner
			}
			x0, y0 := float64(a), float64(b)
			poly := Polygon(g.at(x0, y0, p), g.at(x0+1, y0, p), g.at(x0+1, y0+1, p), g.at(x0, y0+1, p))
			d.Add(poly.Filled(fill).Stroked(st.line, 0.5))
			if st.dots != nil {
				c := g.at(x0+0.5, y0+0.5, p)
				d.Add(Circle(c.X, c.Y, 0.12*g.cell).Filled(st.dots))
			}
		}
	}
	d.Add(Polygon(g.at(0, 0, p), g.at(zIn, 0, p), g.at(zIn, zIn, p), g.at(0, zIn, p)).Stroked(Ink, 0.9))
}

// Coarsening draws Fig. 8.9: thread coarsening in z. One block of
// IN_TILE_DIM² threads owns a column of OUT_TILE_DIM output planes and
// computes them one after another, marching up in z; at every step it
// holds three input planes, the previous, current and next, in shared
// memory. The drawing shows the second iteration.
func Coarsening() (*Diagram, error) {
	const it = 1 // the iteration shown: output plane iStart+1
	c, err := lab.Cost("coarsened", zIn)
	if err != nil {
		return nil, fmt.Errorf("fig: coarsening: %w", err)
	}
	d := NewDiagram("Thread coarsening in z: one block marches up its column of output planes", -7.6, -1.75, 9.9, 8.6)
	g := planeGeom{origin: Pt{-2.2, 0}, cell: 0.62, gap: 1.45}
	// Plane p of the drawing is input plane iStart−1+p.
	name := func(p int) string { return offsetLabel("iStart", p-1) }
	for p := range zIn {
		out := p - 1 // the output plane's index in the block; −1 and zOut are the halo planes
		st := planeStyle{inner: CellFill, halo: CellFill, line: CellLine}
		if out >= 0 && out < zOut {
			st.inner = PaleBlue
		}
		what := "halo plane, input only"
		if out >= 0 && out < zOut {
			what = fmt.Sprintf("output plane of iteration %d", out+1)
		}
		switch {
		case out == it-1:
			st = planeStyle{inner: PaleGreen, halo: PaleGreen, line: Ink}
			what += ", done: now inPrev_s"
		case out == it:
			st = planeStyle{inner: Vermillion, halo: PaleGreen, line: Ink}
			what += ", computing: inCurr_s"
		case out == it+1:
			st = planeStyle{inner: PaleGreen, halo: PaleGreen, line: Ink}
			what += ": inNext_s"
		case out < it-1:
			st = planeStyle{inner: PaleGrey, halo: PaleGrey, line: CellLine}
			if out >= 0 {
				what += ", done"
			} else {
				what += ", no longer needed"
			}
		}
		addPlane(d, g, p, st)
		r := g.right(p)
		d.Add(Label(r.X, r.Y+0.12, 9, name(p)).Align(0, -0.5).Bold())
		d.Add(Label(r.X, r.Y-0.34, 8.5, what).Align(0, -0.5).Colored(Muted))
	}
	// The z direction and the march.
	zb := g.at(-0.6, 0, 0)
	d.Add(Arrow(Pt{zb.X, zb.Y}, Pt{zb.X, zb.Y + g.gap*float64(zIn-1) + 0.6}).Stroked(Ink, 1.2))
	d.Add(Label(zb.X-0.2, zb.Y+g.gap*1.5, 9, "z: one plane\nper iteration").Align(-1, -0.5))
	// The thread block, and the plane it computes now.
	bg := planeGeom{origin: Pt{-7.4, 6.3}, cell: 0.5, gap: 0}
	addPlane(d, bg, 0, planeStyle{inner: PaleBlue, halo: PaleBlue, line: Blue, dots: Blue})
	d.Add(Label(-7.4, 5.85, 9, fmt.Sprintf("thread block: %d×%d = %d threads,", zIn, zIn, c.Threads)).Align(0, -0.5))
	d.Add(Label(-7.4, 5.4, 9, "one per (j, k); each thread loops").Align(0, -0.5))
	d.Add(Label(-7.4, 4.95, 9, "over the planes of its column").Align(0, -0.5))
	from := bg.at(zIn, zIn/2.0, 0)
	to := g.at(0.2, zIn/2.0, it+1)
	d.Add(Arrow(Pt{from.X + 0.2, from.Y}, Pt{from.X + 0.9, from.Y}, Pt{to.X - 0.1, to.Y + 0.1}).Stroked(Vermillion, 1).Dashed())
	// Footer: the sizes.
	big, err := lab.Cost("coarsened", 32)
	if err != nil {
		return nil, fmt.Errorf("fig: coarsening: %w", err)
	}
	d.Add(Label(1.0, -0.9, 9, fmt.Sprintf("T = IN_TILE_DIM = %d, OUT_TILE_DIM = %d, iStart = blockIdx.z·OUT_TILE_DIM", zIn, zOut)))
	d.Add(Label(1.0, -1.4, 9, fmt.Sprintf("green: the three planes in shared memory, 3·T² floats (%d at T = %d; %d KiB at T = 32, %d threads)",
		c.SharedBytes/lab.Float32Bytes, zIn, big.SharedBytes/1024, big.Threads)))
	return d, nil
}

// RegisterTiling draws Fig. 8.11 for both z-marching kernels: where the
// previous, current and next input planes live after the first iteration,
// when the block starts on output plane iStart+1. (A) The coarsened kernel
// (Fig. 8.10) keeps all three in shared memory. (B) The register-tiled
// kernel (Fig. 8.12) keeps only the current plane in shared memory, which
// the threads share; each thread holds its own inPrev, inCurr and inNext in
// registers, together a register tile.
func RegisterTiling() (*Diagram, error) {
	const it = 1
	coarse, err := lab.Cost("coarsened", 32)
	if err != nil {
		return nil, fmt.Errorf("fig: register tiling: %w", err)
	}
	reg, err := lab.Cost("register_tiled", 32)
	if err != nil {
		return nil, fmt.Errorf("fig: register tiling: %w", err)
	}
	d := NewDiagram("After the first iteration: where the three input planes live", -2.7, -3.2, 19.6, 9.0)
	kernels := []struct {
		title, sub string
		x0         float64
		hold       map[int]zHolder // output plane offset from it → names
		foot       string
	}{
		{"(A) coarsened, Fig. 8.10", "three planes in shared memory", 0, zKernels[0].hold,
			fmt.Sprintf("shared: 3·T² floats, %d KiB at T = 32", coarse.SharedBytes/1024)},
		{"(B) register tiled, Fig. 8.12", "one plane shared, the rest in registers", 9.4, zKernels[1].hold,
			fmt.Sprintf("shared: T² floats, %d KiB at T = 32; 3 registers per thread", reg.SharedBytes/1024)},
	}
	for _, k := range kernels {
		addMarch(d, k.hold, it, k.x0, 9, k.x0 == 0, " and ")
		g := planeGeom{origin: Pt{k.x0, 0}, cell: 0.6, gap: 1.3}
		top := g.at(zIn/2.0, zIn, zIn-1)
		d.Add(Label(k.x0+2.6, top.Y+0.85, 10, k.title).Bold())
		d.Add(Label(k.x0+2.6, top.Y+0.35, 9, k.sub).Colored(Muted))
		d.Add(Label(k.x0+2.6, -0.7, 9, k.foot))
	}
	key := func(x, y float64, s Shape, dot bool, text string) {
		d.Add(s.withRect(x, y-0.2, x+0.4, y+0.2))
		if dot {
			d.Add(Circle(x+0.2, y, 0.07).Filled(Purple))
		}
		d.Add(Label(x+0.6, y, 9, text).Align(0, -0.5))
	}
	key(-2.4, -1.6, Rect(0, 0, 0, 0).Filled(PaleGreen).Stroked(Ink, 0.5), false, "shared memory: read by neighbouring threads")
	key(9.4, -1.6, Rect(0, 0, 0, 0).Filled(PalePurple).Stroked(Purple, 0.5), true, "registers: each thread's own value")
	key(-2.4, -2.4, Rect(0, 0, 0, 0).Filled(Vermillion).Stroked(Ink, 0.5), false, "outputs of iteration 2")
	key(9.4, -2.4, Rect(0, 0, 0, 0).Filled(PaleGrey).Stroked(CellLine, 0.5), false, "finished with; white: not loaded yet")
	return d, nil
}
