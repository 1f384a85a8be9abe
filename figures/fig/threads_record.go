package fig

import (
	"bytes"
	_ "embed" // the committed record of the Star13 launch
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"stencillab.dev/lab/sim"
)

// Star13RecordFile is the committed record of the launch the Star13 thread
// figure traces, in this package's folder (figures/fig) and embedded in
// the package: per thread of the drawn plane, its global loads, its
// outputs, its shared stores and its role. `go run -tags hidden ./figures`
// (or `go test -tags hidden ./figures/fig -regen`) rewrites it from a
// fresh trace; a build without the tag draws the figure from it.
const Star13RecordFile = "threads_star13.json"

//go:embed threads_star13.json
var star13Record []byte

// maxRecordBytes bounds a thread record that parseThreadRecord reads.
const maxRecordBytes = 1 << 20

// maxRecordCount bounds each per-thread count of a record.
const maxRecordCount = 1 << 16

// errRecord is wrapped by every error about a thread record that does not
// hold together.
var errRecord = errors.New("bad thread record")

// Roles of a thread in a record's "roles" rows.
const (
	roleCompute  = 'C' // computed at least one output
	roleLoadOnly = 'L' // loaded, computed nothing
	roleIdle     = '.' // did neither
)

// threadRecord is the JSON form of a BlockTrace. Each per-thread table has
// one row per threadIdx.y (row 0 first, drawn at the bottom) and one
// column per threadIdx.x.
type threadRecord struct {
	About        string       `json:"about"`
	Step         string       `json:"step"`
	Title        string       `json:"title"`
	Tile         int          `json:"tile"`
	N            int          `json:"n"`
	Block        sim.Dim3     `json:"block"`
	BlockIdx     sim.Dim3     `json:"block_idx"`
	Plane        int          `json:"plane"`
	Intervals    int          `json:"intervals"`
	Counts       recordCounts `json:"counts"`
	Roles        []string     `json:"roles"`
	Loads        [][]int      `json:"loads"`
	Outputs      [][]int      `json:"outputs"`
	SharedStores [][]int      `json:"shared_stores"`
}

// recordCounts are the threads of the plane in each role (BlockTrace.Roles).
type recordCounts struct {
	Compute  int `json:"compute"`
	LoadOnly int `json:"load_only"`
	Idle     int `json:"idle"`
}

// recordAbout heads every record.
const recordAbout = "One plane of one block of a simulated launch, recorded by the simulator " +
	"(go run -tags hidden ./figures): per thread, rows threadIdx.y = 0, 1, … and columns threadIdx.x, " +
	"its global loads, outputs (global stores) and shared stores; its role: C computes, L only loads, . idles."

// trace returns what the threads of spec's block did: a fresh trace on the
// simulator, or, for Star13 in a build without its kernel, the committed
// record of the same launch.
func (s threadSpec) trace() (*BlockTrace, error) {
	if s.step == Star13 && !Star13Traceable() {
		return recordedStar13()
	}
	return TraceBlock(s.step, s.tile, s.n, s.blockIdx, s.plane)
}

// recordedStar13 returns the committed record of the Star13 figure's
// launch, checked by parseThreadRecord.
func recordedStar13() (*BlockTrace, error) {
	bt, err := parseThreadRecord(star13Record)
	if err != nil {
		return nil, fmt.Errorf("fig: %s: %w", Star13RecordFile, err)
	}
	return bt, nil
}

// RecordStar13 traces the launch of the Star13 thread figure on the
// simulator and returns its record, the bytes of Star13RecordFile. In a
// build without the tag "hidden" the error wraps ErrInstructorOnly.
func RecordStar13() ([]byte, error) {
	s, err := threadSpecOf(Star13)
	if err != nil {
		return nil, err
	}
	bt, err := TraceBlock(s.step, s.tile, s.n, s.blockIdx, s.plane)
	if err != nil {
		return nil, err
	}
	return encodeThreadRecord(bt)
}

// threadSpecOf returns the launch of step's thread figure.
func threadSpecOf(step string) (threadSpec, error) {
	for _, s := range threadSpecs {
		if s.step == step {
			return s, nil
		}
	}
	var names []string
	for _, s := range threadSpecs {
		names = append(names, s.step)
	}
	return threadSpec{}, fmt.Errorf("fig: threads: no thread figure of %q (have %v): %w", step, names, ErrUnknownFigure)
}

// encodeThreadRecord writes bt as a record: indented JSON with one line
// per row of threads, so that the file reads like the picture.
func encodeThreadRecord(bt *BlockTrace) ([]byte, error) {
	if bt == nil {
		return nil, fmt.Errorf("fig: record: nil trace: %w", errRecord)
	}
	bx, by := bt.Block.X, bt.Block.Y
	m := bx * by
	if bx < 1 || by < 1 || len(bt.Loads) != m || len(bt.Outputs) != m || len(bt.SharedStores) != m {
		return nil, fmt.Errorf("fig: record: %d, %d and %d counts for a plane of %d×%d threads: %w", len(bt.Loads), len(bt.Outputs), len(bt.SharedStores), bx, by, errRecord)
	}
	var b bytes.Buffer
	str := func(s string) string {
		q, _ := json.Marshal(s) // a string always marshals
		return string(q)
	}
	dim := func(d sim.Dim3) string { return fmt.Sprintf(`{"x": %d, "y": %d, "z": %d}`, d.X, d.Y, d.Z) }
	fmt.Fprintf(&b, "{\n  \"about\": %s,\n  \"step\": %s,\n  \"title\": %s,\n", str(recordAbout), str(bt.Step), str(bt.Title))
	fmt.Fprintf(&b, "  \"tile\": %d,\n  \"n\": %d,\n  \"block\": %s,\n  \"block_idx\": %s,\n", bt.Tile, bt.N, dim(bt.Block), dim(bt.BlockIdx))
	fmt.Fprintf(&b, "  \"plane\": %d,\n  \"intervals\": %d,\n", bt.Plane, bt.Intervals)
	c, l, i := bt.Roles()
	fmt.Fprintf(&b, "  \"counts\": {\"compute\": %d, \"load_only\": %d, \"idle\": %d},\n", c, l, i)
	b.WriteString("  \"roles\": [\n")
	for ty := range by {
		row := make([]byte, bx)
		for tx := range bx {
			row[tx] = roleOf(bt.Loads[ty*bx+tx], bt.Outputs[ty*bx+tx])
		}
		fmt.Fprintf(&b, "    %q%s\n", row, comma(ty, by))
	}
	b.WriteString("  ],\n")
	table := func(name string, v []int, last bool) {
		fmt.Fprintf(&b, "  %q: [\n", name)
		for ty := range by {
			cells := make([]string, bx)
			for tx := range bx {
				cells[tx] = fmt.Sprint(v[ty*bx+tx])
			}
			fmt.Fprintf(&b, "    [%s]%s\n", strings.Join(cells, ", "), comma(ty, by))
		}
		if last {
			b.WriteString("  ]\n")
		} else {
			b.WriteString("  ],\n")
		}
	}
	table("loads", bt.Loads, false)
	table("outputs", bt.Outputs, false)
	table("shared_stores", bt.SharedStores, true)
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func comma(i, n int) string {
	if i < n-1 {
		return ","
	}
	return ""
}

// roleOf is the role of a thread with the given loads and outputs, as
// BlockTrace.Roles counts it.
func roleOf(loads, outputs int) byte {
	switch {
	case outputs > 0:
		return roleCompute
	case loads > 0:
		return roleLoadOnly
	}
	return roleIdle
}

// parseThreadRecord reads a record written by encodeThreadRecord and
// checks, allowing only what such a record holds, that it is the record
// of the Star13 figure's launch (its step, tile, grid, block and plane
// those of threadSpecs), that the block is IN_TILE_DIM³ threads with
// IN_TILE_DIM = OUT_TILE_DIM + 4, that every table has one count per
// thread, and that the roles agree with the counts of loads and outputs
// and with the totals.
func parseThreadRecord(data []byte) (*BlockTrace, error) {
	if len(data) > maxRecordBytes {
		return nil, fmt.Errorf("record of %d bytes exceeds %d: %w", len(data), maxRecordBytes, errRecord)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r threadRecord
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%w: %w", errRecord, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the record's object: %w", errRecord)
	}
	if r.Step != Star13 {
		return nil, fmt.Errorf("step %.40q: only %q's figure is drawn from a record: %w", r.Step, Star13, errRecord)
	}
	spec, err := threadSpecOf(r.Step)
	if err != nil {
		return nil, err
	}
	if r.Tile != spec.tile || r.N != spec.n || r.BlockIdx != spec.blockIdx || r.Plane != spec.plane {
		return nil, fmt.Errorf("tile %d, grid side %d, block %v, plane %d: the figure's launch is tile %d, side %d, block %v, plane %d: %w",
			r.Tile, r.N, r.BlockIdx, r.Plane, spec.tile, spec.n, spec.blockIdx, spec.plane, errRecord)
	}
	if err := checkTitle(r.Title); err != nil {
		return nil, err
	}
	// The tiled thirteen-point kernel: IN_TILE_DIM³ threads a block, and
	// IN_TILE_DIM = OUT_TILE_DIM + 4 with an output tile of at least 1.
	in := r.Tile
	if r.Block != (sim.Dim3{X: in, Y: in, Z: in}) || in-4 < 1 {
		return nil, fmt.Errorf("block %v for IN_TILE_DIM = %d: want IN_TILE_DIM³ threads and IN_TILE_DIM = OUT_TILE_DIM + 4 ≥ 5: %w", r.Block, in, errRecord)
	}
	if in*in*in > 1024 {
		return nil, fmt.Errorf("block of %d threads exceeds 1024: %w", in*in*in, errRecord)
	}
	if r.Intervals < 1 || r.Intervals > 64 {
		return nil, fmt.Errorf("%d barrier intervals: must be 1 to 64: %w", r.Intervals, errRecord)
	}
	bx, by := r.Block.X, r.Block.Y
	flat := func(name string, rows [][]int) ([]int, error) {
		if len(rows) != by {
			return nil, fmt.Errorf("%s: %d rows for %d rows of threads: %w", name, len(rows), by, errRecord)
		}
		out := make([]int, 0, bx*by)
		for ty, row := range rows {
			if len(row) != bx {
				return nil, fmt.Errorf("%s: row %d holds %d counts for %d threads: %w", name, ty, len(row), bx, errRecord)
			}
			for tx, v := range row {
				if v < 0 || v > maxRecordCount {
					return nil, fmt.Errorf("%s: thread (%d, %d): count %d outside 0…%d: %w", name, tx, ty, v, maxRecordCount, errRecord)
				}
			}
			out = append(out, row...)
		}
		return out, nil
	}
	bt := &BlockTrace{Step: r.Step, Title: r.Title, Tile: r.Tile, N: r.N, Block: r.Block, BlockIdx: r.BlockIdx, Plane: r.Plane, Intervals: r.Intervals}
	if bt.Loads, err = flat("loads", r.Loads); err != nil {
		return nil, err
	}
	if bt.Outputs, err = flat("outputs", r.Outputs); err != nil {
		return nil, err
	}
	if bt.SharedStores, err = flat("shared_stores", r.SharedStores); err != nil {
		return nil, err
	}
	if len(r.Roles) != by {
		return nil, fmt.Errorf("roles: %d rows for %d rows of threads: %w", len(r.Roles), by, errRecord)
	}
	for ty, row := range r.Roles {
		if len(row) != bx {
			return nil, fmt.Errorf("roles: row %d is %d bytes for %d threads: %w", ty, len(row), bx, errRecord)
		}
		for tx := range bx {
			i := ty*bx + tx
			if want := roleOf(bt.Loads[i], bt.Outputs[i]); row[tx] != want {
				return nil, fmt.Errorf("roles: thread (%d, %d) is %q, but %d loads and %d outputs make it %q: %w", tx, ty, row[tx], bt.Loads[i], bt.Outputs[i], want, errRecord)
			}
		}
	}
	c, l, i := bt.Roles()
	if got := (recordCounts{c, l, i}); r.Counts != got {
		return nil, fmt.Errorf("counts %+v, but the roles give %+v: %w", r.Counts, got, errRecord)
	}
	return bt, nil
}

// checkTitle allows a title of printable text, 1 to 200 characters.
func checkTitle(s string) error {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > 200 {
		return fmt.Errorf("title %.40q: want 1 to 200 characters of UTF-8: %w", s, errRecord)
	}
	for _, c := range s {
		if !unicode.IsPrint(c) {
			return fmt.Errorf("title %.40q: character %U is not printable: %w", s, c, errRecord)
		}
	}
	return nil
}
