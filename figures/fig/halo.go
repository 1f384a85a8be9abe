package fig

import (
	"fmt"
	"image/color"

	"stencillab.dev/lab/halo"
)

// The split of chapter 20 applied to chapter 8: the z-slabs of a grid
// over ranks, each rank's local buffer with its halo planes, and the
// exchange that fills them, step by step.

// The split the slab figure draws: a grid of SlabsNZ planes over
// SlabsRanks ranks, halos SlabsHalo planes deep.
const (
	SlabsNZ    = 14
	SlabsRanks = 3
	SlabsHalo  = 1
)

// HaloExchangeFrames is the number of frames of the exchange: the start,
// then the four steps of the even–odd schedule (up: even ranks send, then
// odd ranks; down: even ranks send, then odd ranks).
const HaloExchangeFrames = 5

// haloStep is one step of the even–odd schedule: the ranks of one parity
// send in one direction while their neighbours receive.
type haloStep struct {
	up   bool // the planes go to Up
	even bool // the even ranks send
	text string
}

// rankColors are the ranks' colours: none of them the orange of a halo
// or the vermillion of a message.
var rankColors = []color.Color{Blue, Green, Purple, Sky, Yellow, Muted}

var haloSteps = []haloStep{
	{true, true, "even ranks send their top planes up; odd ranks receive them"},
	{true, false, "odd ranks send their top planes up; even ranks receive them"},
	{false, true, "even ranks send their bottom planes down; odd ranks receive them"},
	{false, false, "odd ranks send their bottom planes down; even ranks receive them"},
}

// Slabs draws the z-slab split of a grid of nz planes over ranks with
// halos h planes deep (halo.Decompose): each rank's local buffer as a
// column of planes, z upward, its owned planes in its colour, the grid's
// face planes grey, and its halo planes filled by the neighbour that owns
// them, with an arrow for each message of the exchange.
func Slabs(nz, ranks, h int) (*Diagram, error) {
	return haloDiagram(nz, ranks, h, HaloExchangeFrames-1, true)
}

// HaloExchange draws frame (0 … HaloExchangeFrames−1) of the exchange on
// the split of Slabs: frame 0 before it, with the halo planes empty; frame
// s after step s of the even–odd schedule, the messages of that step drawn
// as arrows and the halo planes received so far filled.
func HaloExchange(nz, ranks, h, frame int) (*Diagram, error) {
	if frame < 0 || frame >= HaloExchangeFrames {
		return nil, fmt.Errorf("fig: halo exchange: frame %d outside 0…%d: %w", frame, HaloExchangeFrames-1, ErrRender)
	}
	return haloDiagram(nz, ranks, h, frame, false)
}

// haloDiagram draws the split after frame steps of the exchange; all
// draws every message as an arrow, else only those of the last step.
func haloDiagram(nz, ranks, h, frame int, all bool) (*Diagram, error) {
	if ranks > 8 || nz > 40 {
		return nil, fmt.Errorf("fig: slabs: %d planes over %d ranks: the drawing holds at most 40 planes and 8 ranks: %w", nz, ranks, ErrRender)
	}
	parts, err := halo.Decompose(nz, 3, 3, ranks, 1, h)
	if err != nil {
		return nil, fmt.Errorf("fig: slabs: %w", err)
	}
	const (
		colW = 3.2 // a plane's bar
		gap  = 2.6 // between two ranks' columns
		bar  = 0.78
	)
	x0 := func(r int) float64 { return float64(r) * (colW + gap) }
	width := x0(ranks-1) + colW
	title := "Z-slabs with halo planes: the exchange fills each halo from the neighbour that owns it"
	if !all {
		title = "Before the exchange: the halo planes are empty"
		if frame > 0 {
			title = fmt.Sprintf("Step %d of 4: %s", frame, haloSteps[frame-1].text)
		}
	}
	d := NewDiagram(title, -2.2, -3.4, width+0.6, float64(nz)+1.6)
	pale := func(r int) Shape {
		c := rankColors[r%len(rankColors)]
		return Rect(0, 0, 0, 0).Filled(Shade(c, 0.65)).Stroked(c, 0.8)
	}
	// received reports whether, after frame steps, rank r holds halo plane z.
	received := func(r, z int) (bool, int) {
		p := parts[r]
		for s := 1; s <= frame; s++ {
			st := haloSteps[s-1]
			from := p.Down
			if !st.up {
				from = p.Up
			}
			inHalo := (st.up && z < p.Z0) || (!st.up && z >= p.Z1)
			if from >= 0 && inHalo && (from%2 == 0) == st.even {
				return true, from
			}
		}
		return false, -1
	}
	for z := range nz {
		d.Add(Label(-0.8, float64(z)+bar/2, 8, fmt.Sprintf("z = %d", z)).Colored(Muted).Align(-1, -0.5))
	}
	for r, p := range parts {
		x := x0(r)
		for z := p.LZ0; z < p.LZ1; z++ {
			y := float64(z)
			switch {
			case z == 0 || z == nz-1:
				d.Add(Rect(x, y, x+colW, y+bar).Filled(PaleGrey).Stroked(Muted, 0.6))
				d.Add(Label(x+colW/2, y+bar/2, 7.5, "face").Colored(Muted))
			case z >= p.Z0 && z < p.Z1:
				d.Add(pale(r).withRect(x, y, x+colW, y+bar))
			default:
				if ok, from := received(r, z); ok {
					d.Add(pale(from).withRect(x, y, x+colW, y+bar))
					d.Add(Rect(x, y, x+colW, y+bar).Stroked(Orange, 2))
					d.Add(Label(x+colW/2, y+bar/2, 7.5, fmt.Sprintf("halo from %d", from)))
				} else {
					d.Add(Rect(x, y, x+colW, y+bar).Filled(CellFill).Stroked(Orange, 1.2).Dashed())
					d.Add(Label(x+colW/2, y+bar/2, 7.5, "halo: empty").Colored(Muted))
				}
			}
		}
		d.Add(Label(x+colW/2, float64(p.LZ1)+0.55, 9.5, fmt.Sprintf("rank %d", r)).Bold())
		d.Add(Label(x+colW/2, float64(p.LZ0)-0.6, 8, fmt.Sprintf("owns [%d, %d)", p.Z0, p.Z1)).Colored(Muted))
	}
	// The messages: from the sender's owned edge to the receiver's halo,
	// at the same height, since they are the same global planes.
	for s := 1; s <= frame; s++ {
		if !all && s != frame {
			continue
		}
		st := haloSteps[s-1]
		for r, p := range parts {
			to := p.Down
			if st.up {
				to = p.Up
			}
			if to < 0 || (r%2 == 0) != st.even {
				continue
			}
			a, b := p.Z0, p.Z0+h
			if st.up {
				a, b = p.Z1-h, p.Z1
			}
			for z := a; z < b; z++ {
				y := float64(z) + bar/2
				if to > r {
					d.Add(Arrow(Pt{x0(r) + colW + 0.1, y}, Pt{x0(to) - 0.1, y}).Stroked(Vermillion, 1.6))
				} else {
					d.Add(Arrow(Pt{x0(r) - 0.1, y}, Pt{x0(to) + colW + 0.1, y}).Stroked(Vermillion, 1.6))
				}
			}
		}
	}
	key := func(x, y float64, s Shape, text string) {
		d.Add(s.withRect(x, y, x+0.7, y+0.5))
		d.Add(Label(x+1, y+0.25, 8.5, text).Align(0, -0.5))
	}
	key(-2, -1.8, pale(0), "owned planes: the rank computes them")
	key(-2, -2.8, Rect(0, 0, 0, 0).Filled(CellFill).Stroked(Orange, 1.2).Dashed(), fmt.Sprintf("halo planes (h = %d): a neighbour's points", h))
	key(width/2+0.4, -1.8, Rect(0, 0, 0, 0).Filled(PaleGrey).Stroked(Muted, 0.6), "faces of the grid: boundary conditions")
	d.Add(Arrow(Pt{width/2 + 0.4, -2.55}, Pt{width/2 + 1.1, -2.55}).Stroked(Vermillion, 1.6))
	d.Add(Label(width/2+1.4, -2.55, 8.5, "one message: a rank's owned edge planes").Align(0, -0.5))
	return d, nil
}
