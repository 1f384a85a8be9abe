package fig

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot/vg"

	"stencillab.dev/lab"
)

// ThreadsHeight is the height of a thread figure at width Wide.
const ThreadsHeight = 3.7 * vg.Inch

// ThreadPicture draws one plane of a traced block (TraceBlock), one cell
// per thread, x to the right and y up: vermillion where the thread
// computed at least one output, orange where it only loaded (the halo, or
// a point on the grid's boundary), grey where it did neither. Each cell
// reads "loads / outputs", the thread's global loads and stores; below
// each column and beside each row stands the grid point it covers.
func ThreadPicture(bt *BlockTrace) (*Diagram, error) {
	if bt == nil {
		return nil, fmt.Errorf("fig: thread picture: nil trace: %w", ErrRender)
	}
	bx, by := bt.Block.X, bt.Block.Y
	if bx < 1 || by < 1 || bx > 40 || by > 40 {
		return nil, fmt.Errorf("fig: thread picture: plane of %d×%d threads: each side must be 1…40: %w", bx, by, ErrRender)
	}
	if len(bt.Loads) != bx*by || len(bt.Outputs) != bx*by {
		return nil, fmt.Errorf("fig: thread picture: %d loads and %d outputs for %d threads: %w", len(bt.Loads), len(bt.Outputs), bx*by, ErrRender)
	}
	side := float64(max(bx, by))
	d := NewDiagram(bt.Title, -1.9, -2.0, side+0.9*side+1.5, side+0.3)
	// The first grid point each column and row covers: the halo kernels
	// start r before their output tile.
	first := func(b int) int {
		switch bt.Step {
		case "basic":
			return b * bt.Tile
		case Star13:
			return b*(bt.Tile-4) - 2
		}
		return b*(bt.Tile-2) - 1
	}
	k0, j0 := first(bt.BlockIdx.X), first(bt.BlockIdx.Y)
	size := vg.Length(min(9, 80/side))
	for ty := range by {
		for tx := range bx {
			i := ty*bx + tx
			fill := PaleGrey
			switch {
			case bt.Outputs[i] > 0:
				fill = PaleVermillion
			case bt.Loads[i] > 0:
				fill = PaleOrange
			}
			x, y := float64(tx), float64(ty)
			d.Add(Rect(x, y, x+1, y+1).Filled(fill).Stroked(CellLine, 0.5))
			text := fmt.Sprintf("%d/%d", bt.Loads[i], bt.Outputs[i])
			if bt.Loads[i] == 0 && bt.Outputs[i] == 0 {
				text = "·"
			}
			d.Add(Label(x+0.5, y+0.5, size, text))
		}
	}
	d.Add(Rect(0, 0, float64(bx), float64(by)).Stroked(Ink, 1))
	for tx := range bx {
		d.Add(Label(float64(tx)+0.5, -0.35, size*0.85, fmt.Sprint(k0+tx)).Colored(Muted))
	}
	for ty := range by {
		d.Add(Label(-0.4, float64(ty)+0.5, size*0.85, fmt.Sprint(j0+ty)).Colored(Muted))
	}
	d.Add(Label(float64(bx)/2, -1.1, 9, "k, the grid point of each column (threadIdx.x →)"))
	d.Add(Label(-1.35, float64(by)/2, 9, "j (threadIdx.y →)").Rotated(1.5707963267948966))

	// The key and the counts, right of the block.
	x0 := float64(bx) + 0.8
	line := side / 9
	y := float64(by) - 0.4
	text := func(s string, bold bool) {
		l := Label(x0, y, 9, s).Align(0, -0.5)
		if bold {
			l = l.Bold()
		}
		d.Add(l)
		y -= line
	}
	compute, loadOnly, idle := bt.Roles()
	text(fmt.Sprintf("block %v of %s threads on a %d³ grid", bt.BlockIdx, bt.Block.Shape(), bt.N), true)
	text(fmt.Sprintf("tile %d; the plane threadIdx.z = %d; %d barrier interval%s", bt.Tile, bt.Plane, bt.Intervals, plural(bt.Intervals)), false)
	text("each cell: global loads / outputs of its thread", false)
	y -= line * 0.3
	key := func(c fmtColor, s string) {
		d.Add(Rect(x0, y-0.3*line, x0+0.6*line, y+0.3*line).Filled(c).Stroked(CellLine, 0.5))
		d.Add(Label(x0+0.9*line, y, 9, s).Align(0, -0.5))
		y -= line
	}
	key(PaleVermillion, fmt.Sprintf("%d thread%s compute%s (and load)", compute, plural(compute), verbS(compute)))
	key(PaleOrange, fmt.Sprintf("%d only load%s: halo or grid boundary", loadOnly, verbS(loadOnly)))
	key(PaleGrey, fmt.Sprintf("%d idle: outside the grid or on its boundary", idle))
	y -= line * 0.3
	var loads, outs, shared int
	for i := range bt.Loads {
		loads += bt.Loads[i]
		outs += bt.Outputs[i]
		shared += bt.SharedStores[i]
	}
	text(fmt.Sprintf("this plane: %d loads, %d outputs, %d shared stores", loads, outs, shared), false)
	if outs > 0 {
		text(fmt.Sprintf("%.2f global loads per output", float64(loads)/float64(outs)), false)
	}
	text("drawn from the simulator's record of the launch", false)
	if len(d.Shapes) == 0 {
		return nil, errors.New("fig: thread picture: nothing to draw")
	}
	return d, nil
}

// fmtColor is the colour type of the palette.
type fmtColor = interface{ RGBA() (r, g, b, a uint32) }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// verbS is the s of a verb after a count: 1 thread computes, 2 compute.
func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// Threads draws the thread figure of step (a registered kernel with a
// thread figure, or Star13): one block of the launch in threadSpecs,
// traced on the simulator. Star13's kernel is an exercise's answer: a
// build without the tag "hidden" draws it from the committed record of
// the same launch (Star13RecordFile).
func Threads(step string) (*Diagram, error) {
	s, err := threadSpecOf(step)
	if err != nil {
		return nil, err
	}
	bt, err := s.trace()
	if err != nil {
		return nil, err
	}
	return ThreadPicture(bt)
}

// threadFigures are the figures of one block's threads, one per kernel.
func threadFigures() []Figure {
	var fs []Figure
	for _, s := range threadSpecs {
		chapter := "8.3" // the thirteen-point star
		if s3, err := lab.LookupStep3(s.step); err == nil {
			chapter = s3.Figure
		}
		traced := "traced on the simulator"
		if s.step == Star13 {
			traced += " (an exercise's answer: the students' copy draws the record fig/" + Star13RecordFile + ")"
		}
		fs = append(fs, Figure{Name: "threads_" + s.step, Func: "Threads", Chapter: chapter, Width: Wide, Height: ThreadsHeight,
			About: fmt.Sprintf("one block of the %s kernel, %s: which thread loads, computes or idles", s.step, traced),
			Make:  func(Inputs) (Drawer, error) { return Threads(s.step) }})
	}
	return fs
}
