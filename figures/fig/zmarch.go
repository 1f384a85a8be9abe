package fig

import (
	"fmt"

	"gonum.org/v1/plot/vg"
)

// ZMarchFrames is the number of frames of the z-march: one per output
// plane of the block drawn (IN_TILE_DIM = 6, so 4).
const ZMarchFrames = zOut

// ZMarchHeight is the height of one z-march frame at width Wide;
// ZMarchStripWidth and ZMarchStripHeight are the size of the strip.
const (
	ZMarchHeight      = 4.6 * vg.Inch
	ZMarchStripHeight = 6 * vg.Inch
	ZMarchStripWidth  = 10 * vg.Inch
)

// ZMarch draws frame it (0 … ZMarchFrames−1) of the march in z of the two
// kernels that coarsen in z: in iteration it the block computes output
// plane iStart+it. (A) The coarsened kernel (Fig. 8.10) holds the
// previous, current and next input planes in shared memory; (B) the
// register-tiled kernel (Fig. 8.12) holds only the current plane there,
// and each thread its own inPrev, inCurr and inNext in registers. Planes
// below the previous one are finished with; those above the next one are
// not loaded yet.
func ZMarch(it int) (*Diagram, error) {
	if it < 0 || it >= ZMarchFrames {
		return nil, fmt.Errorf("fig: z-march: frame %d outside 0…%d: %w", it, ZMarchFrames-1, ErrRender)
	}
	d := NewDiagram(fmt.Sprintf("Iteration %d of %d: the block computes output plane %s", it+1, ZMarchFrames, offsetLabel("iStart", it)),
		-2.7, -2.9, 19.6, 8.4)
	for k, x0 := range []float64{0, 9.4} {
		addMarch(d, zKernels[k].hold, it, x0, 9, k == 0, " + ")
		top := planeGeom{origin: Pt{x0, 0}, cell: 0.6, gap: 1.3}.at(zIn/2.0, zIn, zIn-1)
		d.Add(Label(x0+2.6, top.Y+0.5, 10, zKernels[k].title).Bold())
	}
	key := func(x, y float64, s Shape, dot bool, text string) {
		d.Add(s.withRect(x, y-0.2, x+0.4, y+0.2))
		if dot {
			d.Add(Circle(x+0.2, y, 0.07).Filled(Purple))
		}
		d.Add(Label(x+0.6, y, 9, text).Align(0, -0.5))
	}
	key(-2.4, -1.2, Rect(0, 0, 0, 0).Filled(PaleGreen).Stroked(Ink, 0.5), false, "shared memory: read by neighbouring threads")
	key(9.4, -1.2, Rect(0, 0, 0, 0).Filled(PalePurple).Stroked(Purple, 0.5), true, "registers: each thread's own value")
	key(-2.4, -2.1, Rect(0, 0, 0, 0).Filled(Vermillion).Stroked(Ink, 0.5), false, fmt.Sprintf("outputs of iteration %d", it+1))
	key(9.4, -2.1, Rect(0, 0, 0, 0).Filled(PaleGrey).Stroked(CellLine, 0.5), false, "finished with; white: not loaded yet")
	return d, nil
}

// zHolder names what holds one input plane: a shared array, a register,
// or both.
type zHolder struct{ shared, reg string }

// zKernels are the two z-marching kernels: where each keeps the input
// planes around output plane iStart+it, by offset from it.
var zKernels = []struct {
	title, short string
	hold         map[int]zHolder
}{
	{"(A) coarsened: three shared planes", "coarsened",
		map[int]zHolder{-1: {"inPrev_s", ""}, 0: {"inCurr_s", ""}, 1: {"inNext_s", ""}}},
	{"(B) register tiled: one shared plane", "register tiled",
		map[int]zHolder{-1: {"", "inPrev"}, 0: {"inCurr_s", "inCurr"}, 1: {"", "inNext"}}},
}

// addMarch draws a kernel's column of input planes at iteration it, hold
// naming their holders as zKernels does, its front-left corner at x0,
// naming each plane's holder in size-point text, a shared array and a
// register joined by join; iStart labels go left of the column when labels
// is set.
func addMarch(d *Diagram, hold map[int]zHolder, it int, x0 float64, size vg.Length, labels bool, join string) {
	g := planeGeom{origin: Pt{x0, 0}, cell: 0.6, gap: 1.3}
	for p := range zIn {
		out := p - 1 // the output plane's index in the block
		st := planeStyle{inner: CellFill, halo: CellFill, line: CellLine}
		if out < it-1 {
			st = planeStyle{inner: PaleGrey, halo: PaleGrey, line: CellLine}
		}
		text := ""
		if h, ok := hold[out-it]; ok {
			switch {
			case h.shared != "" && h.reg != "":
				st = planeStyle{inner: PaleGreen, halo: PaleGreen, line: Ink, dots: Purple}
				text = h.shared + join + h.reg
			case h.shared != "":
				st = planeStyle{inner: PaleGreen, halo: PaleGreen, line: Ink}
				text = h.shared
			default:
				st = planeStyle{inner: PalePurple, halo: PalePurple, line: Purple, dots: Purple}
				text = h.reg
			}
			if out == it {
				st.inner = Vermillion
			}
		}
		addPlane(d, g, p, st)
		r := g.right(p)
		if text != "" {
			d.Add(Label(r.X, r.Y, size, text).Align(0, -0.5).Bold())
		}
		if labels {
			l := g.at(0, 0, p)
			d.Add(Label(l.X-0.25, l.Y+0.2, size, offsetLabel("iStart", p-1)).Align(-1, -0.5))
		}
	}
}

// ZMarchStrip draws the march as a static picture, for a saved notebook
// or a printed page: a row of frames per kernel, coarsened above and
// register tiled below, one column per iteration. Green planes are in
// shared memory, purple ones (dotted: one value per thread) in registers,
// the vermillion cells the outputs of the iteration, grey planes finished
// with, white ones not loaded yet.
func ZMarchStrip() (*Panels, error) {
	p := &Panels{Title: "The march in z: green planes in shared memory, purple in registers, vermillion the outputs", Cols: ZMarchFrames}
	for k := range zKernels {
		for it := range ZMarchFrames {
			d := NewDiagram(fmt.Sprintf("%s, iteration %d", zKernels[k].short, it+1), -0.2, -0.3, 8.9, 8.1)
			addMarch(d, zKernels[k].hold, it, 0, 7.5, false, " + ")
			p.Items = append(p.Items, d)
		}
	}
	return p, nil
}

// zMarchFigures are the z-march's committed figures: its strip of frames.
func zMarchFigures() []Figure {
	return []Figure{{Name: "zmarch", Func: "ZMarchStrip", Chapter: "8.10", Width: ZMarchStripWidth, Height: ZMarchStripHeight,
		About: "coarsening and register tiling plane by plane: which input planes live in shared memory and which in registers",
		Make:  drawer(ZMarchStrip)}}
}
