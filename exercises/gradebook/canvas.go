package gradebook

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Canvas's gradebook import matches a column to an assignment by the
// number at the end of its header, "Title (12345)" (the assignment's id,
// as Canvas's own export writes it), whatever the title; a header without
// one is matched by the whole header as the assignment's title, and a
// title no assignment has makes a new assignment. So a column keeps its
// assignment across a renamed exercise only with the assignment's number:
// CanvasColumns maps exercises to the numbers, from a file the instructor
// gives once.

// CanvasColumnsFile is the file in a gradebook's folder that keeps the
// map of exercises to Canvas's assignment numbers between exports.
const CanvasColumnsFile = "canvas-columns.csv"

// maxCanvasColumnsBytes bounds a column-map file (Canvas's gradebook
// export of a large class included).
const maxCanvasColumnsBytes = 64 << 20

// CanvasColumns maps an exercise's id to its Canvas assignment's number.
type CanvasColumns map[string]string

// canvasNumber is an assignment's number, as Canvas writes it.
var canvasNumber = regexp.MustCompile(`^[0-9]{1,19}$`)

// canvasHeader is a header of Canvas's gradebook export: the title and
// the assignment's number (Canvas's Assignment.title_and_id).
var canvasHeader = regexp.MustCompile(`\A(.*)\s\(([0-9]{1,19})\)\z`)

// ReadCanvasColumns reads a column map for the exercises exs from r, in
// one of two forms:
//   - a CSV with the header "exercise,canvas_id", then one row per
//     exercise: its id (or number or topic as grade takes them: the id
//     here) and its assignment's number;
//   - Canvas's own gradebook export (its header starts with "Student"),
//     made once after the first import: each column "Title (id) (NUMBER)"
//     whose title ends with an exercise's "(id)", as that import made it,
//     maps the exercise to NUMBER.
//
// An exercise the gradebook does not have, a number that is not one, an
// exercise or a number given twice is refused, naming it.
func ReadCanvasColumns(r io.Reader, exs []Exercise) (CanvasColumns, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxCanvasColumnsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("the Canvas column map: %w", err)
	}
	if len(b) > maxCanvasColumnsBytes {
		return nil, fmt.Errorf("the Canvas column map is over %d MiB", maxCanvasColumnsBytes>>20)
	}
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\ufeff"))))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("the Canvas column map: its header: %w", err)
	}
	known := map[string]bool{}
	for _, e := range exs {
		known[e.ID] = true
	}
	m := CanvasColumns{}
	byNumber := map[string]string{}
	add := func(ex, num, where string) error {
		switch {
		case !known[ex]:
			return fmt.Errorf("the Canvas column map, %s: no exercise %q in the gradebook", where, ex)
		case !canvasNumber.MatchString(num):
			return fmt.Errorf("the Canvas column map, %s: %q is not a Canvas assignment number (digits only)", where, num)
		case m[ex] != "":
			return fmt.Errorf("the Canvas column map, %s: exercise %s is given twice", where, ex)
		case byNumber[num] != "":
			return fmt.Errorf("the Canvas column map, %s: assignment %s is given to both %s and %s", where, num, byNumber[num], ex)
		}
		m[ex], byNumber[num] = num, ex
		return nil
	}
	if len(header) > 0 && strings.TrimSpace(header[0]) == "Student" {
		for _, h := range header {
			sub := canvasHeader.FindStringSubmatch(strings.TrimSpace(h))
			if sub == nil {
				continue
			}
			for _, e := range exs {
				if strings.HasSuffix(sub[1], "("+e.ID+")") {
					if err := add(e.ID, sub[2], fmt.Sprintf("the column %q", h)); err != nil {
						return nil, err
					}
				}
			}
		}
		return m, nil
	}
	if len(header) != 2 || strings.TrimSpace(strings.ToLower(header[0])) != "exercise" || strings.TrimSpace(strings.ToLower(header[1])) != "canvas_id" {
		return nil, fmt.Errorf("the Canvas column map: the header is %q: want exercise,canvas_id (or Canvas's gradebook export, whose header starts with Student)", strings.Join(header, ","))
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the Canvas column map: %w", err)
		}
		if len(rec) != 2 {
			return nil, fmt.Errorf("the Canvas column map, line %d: %d fields: want exercise,canvas_id", line, len(rec))
		}
		if err := add(strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1]), fmt.Sprintf("line %d", line)); err != nil {
			return nil, err
		}
	}
}

// WriteCanvasColumns writes the map as "exercise,canvas_id", in the
// order of the exercises.
func WriteCanvasColumns(w io.Writer, m CanvasColumns) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"exercise", "canvas_id"})
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		_ = cw.Write([]string{id, m[id]})
	}
	cw.Flush()
	return cw.Error()
}

// ReadCanvasColumnsIn reads the column map kept in the gradebook's folder
// dir (CanvasColumnsFile), or returns nil when there is none.
func ReadCanvasColumnsIn(dir string, exs []Exercise) (CanvasColumns, error) {
	f, err := os.Open(filepath.Join(dir, CanvasColumnsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the Canvas column map: %w", err)
	}
	defer f.Close()
	m, err := ReadCanvasColumns(f, exs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CanvasColumnsFile, err)
	}
	return m, nil
}

// SetCanvasColumns makes the Canvas export head each exercise of m by its
// assignment's number, "Title (id) (NUMBER)", which Canvas matches
// whatever the title; the others keep "Title (id)".
func (g *Book) SetCanvasColumns(m CanvasColumns) { g.canvasColumns = m }

// canvasTitle is an exercise's column in Canvas's import.
func (g *Book) canvasTitle(e Exercise) string {
	if n := g.canvasColumns[e.ID]; n != "" {
		return ColumnTitle(e) + " (" + n + ")"
	}
	return ColumnTitle(e)
}
