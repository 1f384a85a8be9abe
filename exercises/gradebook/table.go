package gradebook

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Table returns the gradebook as a table: a header (student, one column
// per exercise, total, graded_max, withheld_max, max_points, sha256,
// modified, note) and a row per student, in the order of StudentIDs. A
// cell not graded (withheld for the GPU, or not graded because of the
// grader) is empty, not 0. The total counts only graded work, out of
// graded_max; withheld_max is the maximum of the cells not graded yet.
// sha256 is the digest of the files handed in and modified the latest of
// their modification times. The note says which
// folder a derived id stands for and why a hand-in was refused. The
// cells are raw: WriteCSV makes them safe for a spreadsheet.
func (g *Book) Table() (header []string, rows [][]string) {
	header = []string{"student"}
	for _, e := range g.Exercises {
		header = append(header, e.ID)
	}
	header = append(header, "total", "graded_max", "withheld_max", "max_points", "sha256", "modified", "note")
	for _, id := range g.StudentIDs() {
		s := g.Students[id]
		row := []string{id}
		for _, e := range g.Exercises {
			c := s.Cells[e.ID]
			if !c.Counts() {
				row = append(row, "")
				continue
			}
			row = append(row, strconv.Itoa(c.Score()))
		}
		row = append(row, strconv.Itoa(s.Points), strconv.Itoa(s.GradedMax), strconv.Itoa(s.WithheldMax), strconv.Itoa(s.MaxPoints),
			s.SHA256, s.LastModified(), s.RowNote())
		rows = append(rows, row)
	}
	return header, rows
}

// RowNote is the note of the student's row: the folder the id was derived
// from, and why the hand-in was refused.
func (s *Student) RowNote() string {
	var parts []string
	if s.Folder != "" && s.Folder != s.ID {
		parts = append(parts, "folder "+QuoteName(s.Folder))
	}
	if s.Note != "" {
		parts = append(parts, s.Note)
	}
	return strings.Join(parts, "; ")
}

// QuoteName quotes a name taken from a hand-in (a folder, a file) for a
// message: in double quotes, with control characters, quotes and
// backslashes escaped as Go does, cut to 80 bytes.
func QuoteName(name string) string {
	if len(name) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		return strconv.Quote(name[:cut]) + "…"
	}
	return strconv.Quote(name)
}

// WriteCSV writes Table as CSV, every cell made safe for a spreadsheet by
// SafeCell.
func (g *Book) WriteCSV(w io.Writer) error {
	header, rows := g.Table()
	cw := csv.NewWriter(w)
	if err := cw.Write(safeRow(header)); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(safeRow(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func safeRow(r []string) []string {
	out := make([]string, len(r))
	for i, c := range r {
		out[i] = SafeCell(c)
	}
	return out
}

// SafeCell makes a CSV cell safe to open in a spreadsheet (OWASP's CSV
// injection guidance): a cell that begins with a character that starts a
// formula ('=', '+', '-', '@', a tab, a carriage return, or their
// full-width forms), also after leading spaces, is prefixed with a single
// quote, so that it is read as text. A number stays a number.
func SafeCell(s string) string {
	if s == "" || isNumber(s) {
		return s
	}
	t := strings.TrimLeft(s, " \n\u00a0\u3000")
	if t == "" {
		return s
	}
	r, _ := utf8.DecodeRuneInString(t)
	switch r {
	case '=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠', '\ufe62', '\ufe63', '\ufe66':
		return "'" + s
	}
	return s
}

// isNumber reports whether s is a plain decimal number, as the gradebook
// writes points: digits with an optional leading minus and one point.
func isNumber(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	dot := false
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
		case r == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return false
		}
	}
	return true
}
