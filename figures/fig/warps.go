package fig

import (
	"fmt"
	"image/color"

	"stencillab.dev/lab/sim"
)

// Drawings of how a warp meets memory: the sectors of one global load
// instruction, and the banks of one shared-memory load. Every count in
// them comes from the simulator's own counting (sim.CountGlobal,
// sim.CountShared) of the lanes' elements.

// WarpN is the grid side of the warp drawing: the measured runs' N = 512,
// a multiple of 8, so that every row of the grid starts on a sector.
const WarpN = 512

// warpBlocks are the two block shapes the warp drawing compares: the
// slides' 8×8×8 and the 32-wide block measured beside it.
var warpBlocks = []sim.Dim3{{X: 8, Y: 8, Z: 8}, {X: 32, Y: 8, Z: 1}}

// WarpLoad is one warp's load of in[p−1] in the basic kernel: warp 0 of
// block (1, 1, 1), on an N×N×N grid.
type WarpLoad struct {
	Block sim.Dim3       // the block's shape
	Rows  []WarpRow      // the rows of the grid it reads, in lane order
	Count sim.WarpCounts // the request as the simulator counts it
	Lanes int            // active lanes
	Elems map[int]bool   // the elements read
}

// WarpRow is one row fragment of a warp's load: the grid row (i, j) and
// the first and last element index k it reads.
type WarpRow struct {
	I, J, K0, K1 int
}

// BasicWarpLoad works out the load of in[p−1] (the west neighbour, Fig.
// 8.6's in[i][j][k−1]) by warp 0 of block (1, 1, 1) of the basic kernel
// with blocks of shape b on an n×n×n grid: the rows it touches and the
// request's sectors.
func BasicWarpLoad(b sim.Dim3, n int) (WarpLoad, error) {
	if b.Size() < 1 || n < 3 {
		return WarpLoad{}, fmt.Errorf("fig: warp load: block %s on %d³", b.Shape(), n)
	}
	w := WarpLoad{Block: b, Elems: map[int]bool{}}
	var idx []int
	for _, t := range sim.WarpThreads(b, 0) {
		i, j, k := b.Z+t.Z, b.Y+t.Y, b.X+t.X // block (1, 1, 1)
		if i < 1 || i >= n-1 || j < 1 || j >= n-1 || k < 1 || k >= n-1 {
			continue
		}
		p := (i*n+j)*n + k - 1
		idx = append(idx, p)
		w.Elems[p] = true
		if r := len(w.Rows) - 1; r >= 0 && w.Rows[r].I == i && w.Rows[r].J == j {
			w.Rows[r].K1 = k - 1
		} else {
			w.Rows = append(w.Rows, WarpRow{I: i, J: j, K0: k - 1, K1: k - 1})
		}
	}
	w.Lanes = len(idx)
	w.Count = sim.CountGlobal(idx)
	return w, nil
}

// sectorColours tell neighbouring sectors apart.
var sectorColours = []color.Color{Blue, Vermillion, Green, Purple, Orange, Sky}

// WarpSectors draws, for the 8×8×8 and the 32×8×1 block of the basic
// kernel, the elements one warp reads with one load instruction (in[p−1],
// warp 0 of block (1, 1, 1) on N = 512) and the 32-byte sectors that
// carry them: each row fragment the warp touches is drawn with the whole
// sectors it costs, the cells the warp reads coloured by sector, the rest
// of each sector pale (moved, not used).
func WarpSectors() (*Diagram, error) {
	const (
		cs   = 0.28 // cell size
		rowH = 0.5  // spacing of the row fragments
		left = 3.1  // room for the row labels
	)
	loads := make([]WarpLoad, len(warpBlocks))
	height := 0.0
	for pi, b := range warpBlocks {
		w, err := BasicWarpLoad(b, WarpN)
		if err != nil {
			return nil, err
		}
		loads[pi] = w
		height += 0.75 + float64(len(w.Rows))*rowH + 0.35
	}
	d := NewDiagram(fmt.Sprintf("One load instruction of one warp (in[p−1], basic kernel, N = %d): sectors of 32 bytes", WarpN),
		-0.1, -height, left+5*8*cs+1.5, 0.3)
	top := 0.0
	for _, w := range loads {
		rows := "rows"
		if len(w.Rows) == 1 {
			rows = "row"
		}
		d.Add(Label(0, top, 10, fmt.Sprintf("%s block: warp 0 is %d %s of %d threads → %d sectors in %d lines; %d of %d bytes used",
			dims(w.Block), len(w.Rows), rows, w.Lanes/len(w.Rows), w.Count.Sectors, w.Count.Lines,
			w.Count.UsefulBytes, w.Count.Sectors*sim.SectorBytes)).Bold().Align(0, -0.5))
		for r, row := range w.Rows {
			y := top - 0.45 - float64(r+1)*rowH
			base := (row.I*WarpN + row.J) * WarpN
			s0, s1 := sim.SectorOf(base+row.K0), sim.SectorOf(base+row.K1)
			d.Add(Label(left-0.15, y+cs/2, 8.5, fmt.Sprintf("i = %d, j = %d, k = %d…%d", row.I, row.J, row.K0, row.K1)).Align(-1, -0.5))
			for s := s0; s <= s1; s++ {
				clr := sectorColours[(s-s0+r)%len(sectorColours)]
				x0 := left + float64((s-s0)*8)*cs
				for e := range 8 {
					x := x0 + float64(e)*cs
					var fill color.Color = CellFill
					if w.Elems[s*8+e] {
						fill = clr
					}
					d.Add(Rect(x, y, x+cs, y+cs).Filled(fill).Stroked(CellLine, 0.4))
				}
				d.Add(Rect(x0, y, x0+8*cs, y+cs).Stroked(Ink, 1.2))
			}
			end := left + float64((s1-s0+1)*8)*cs
			d.Add(Label(end+0.15, y+cs/2, 8.5, fmt.Sprintf("%d sectors", s1-s0+1)).Align(0, -0.5).Colored(Muted))
		}
		top -= 0.75 + float64(len(w.Rows))*rowH + 0.35
	}
	return d, nil
}

// BankTile is a warp reading one column of a shared tile: lane r reads
// tile[r][0] of a float tile[rows][width].
type BankTile struct {
	Width int            // the row length of the tile, padding included
	Words []int          // the words the warp reads, in lane order
	Count sim.WarpCounts // the request as the simulator counts it
}

// ColumnRead works out the banks of a warp of 32 threads reading column 0
// of a float tile[32][width]: lane r reads word r·width.
func ColumnRead(width int) BankTile {
	t := BankTile{Width: width}
	for r := range sim.WarpSize {
		t.Words = append(t.Words, r*width)
	}
	t.Count = sim.CountShared(t.Words)
	return t
}

// SharedBanks draws a warp of 32 threads reading one column of a 32×32
// shared tile: the tile's words laid out in the 32 banks, the words the
// warp reads filled. With rows of 32 floats every word of the column lies
// in bank 0, a 32-way conflict: 32 passes. Padding each row by one float
// (tile[32][33]) moves row r's word into bank r: one pass.
func SharedBanks() (*Diagram, error) {
	const (
		cs  = 0.16
		gap = 1.3
	)
	side := float64(sim.Banks) * cs
	d := NewDiagram("A warp reads one column of a 32×32 shared tile: the words by bank", -0.9, -1.15, 2*side+gap+0.1, side+0.9)
	for pi, width := range []int{32, 33} {
		t := ColumnRead(width)
		x0 := float64(pi) * (side + gap)
		read := map[int]bool{}
		for _, w := range t.Words {
			read[w] = true
		}
		for row := range sim.Banks {
			for bank := range sim.Banks {
				word := row*sim.Banks + bank
				x, y := x0+float64(bank)*cs, side-float64(row+1)*cs
				var fill color.Color = CellFill
				switch {
				case read[word]:
					fill = Vermillion
				case word%width == width-1 && width > sim.Banks:
					fill = PaleGrey // the padding
				}
				d.Add(Rect(x, y, x+cs, y+cs).Filled(fill).Stroked(CellLine, 0.3))
			}
		}
		d.Add(Rect(x0, 0, x0+side, side).Stroked(Ink, 0.8))
		decl := fmt.Sprintf("float tile[32][%d]", width)
		what := fmt.Sprintf("%d-way: %d passes, %d bank conflicts", t.Count.MaxWays, t.Count.Wavefronts, t.Count.Conflicts)
		if t.Count.Conflicts == 0 {
			what = "one word per bank: 1 pass, no conflict"
		}
		d.Add(Label(x0+side/2, side+0.55, 10, decl).Bold())
		d.Add(Label(x0+side/2, side+0.2, 8.5, "banks 0 → 31; each row of cells is 32 words, 128 bytes").Colored(Muted))
		d.Add(Label(x0+side/2, -0.35, 9, what))
		d.Add(Label(x0+side/2, -0.8, 8.5, fmt.Sprintf("lane r reads tile[r][0], word %d·r", width)).Colored(Muted))
	}
	d.Add(Label(-0.45, side/2, 8.5, "word ÷ 32").Rotated(1.5707963267948966).Colored(Muted))
	return d, nil
}

// dims writes a block's three extents, trailing 1s included: "32×8×1".
func dims(b sim.Dim3) string { return fmt.Sprintf("%d×%d×%d", b.X, b.Y, b.Z) }
