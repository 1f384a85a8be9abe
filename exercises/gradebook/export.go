package gradebook

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Export formats.
const (
	// FormatCanvas is Canvas's gradebook import: the columns Student, ID,
	// SIS User ID, SIS Login ID and Section, one column per exercise named
	// "Title (id)", and a second row "Points Possible" with each
	// exercise's maximum. ID (Canvas's own user id) is left empty: Canvas
	// matches the rows by SIS User ID or SIS Login ID. With a column map
	// (SetCanvasColumns), an exercise's column is "Title (id) (NUMBER)",
	// which Canvas matches to its assignment NUMBER whatever the title.
	FormatCanvas = "canvas"
	// FormatMoodle is a file for Moodle's CSV grade import: the columns
	// ID number, Email address and Full name, then one column per
	// exercise; the import maps "Email address" to useremail or "ID
	// number" to useridnumber, and each exercise's column to a grade item.
	FormatMoodle = "moodle"
	// FormatCSV is gradebook.csv with the roster's columns: student,
	// name, email, sis_id, section, one column per exercise, total,
	// graded_max, withheld_max, max_points, sha256, modified, note.
	FormatCSV = "csv"
)

// Formats lists the export formats.
var Formats = []string{FormatCanvas, FormatMoodle, FormatCSV}

// ExportReport says what an export left out: the students of the
// gradebook the roster does not list (no row: the LMS could not match
// them) and the roster's people without a hand-in (a row with empty
// cells, which the LMS leaves as they are).
type ExportReport struct {
	NotListed []string
	NoHandIn  []string
	// NoIdentifier lists the roster's people left out of a Moodle file
	// because they have neither an email nor an ID number to map: one
	// user Moodle cannot find stops its whole import.
	NoIdentifier []string
	// Maximums are the exercises' columns and maximums, for the grade
	// items Moodle's import does not create with them (a new item is out
	// of 100).
	Maximums []string
}

// ColumnTitle is an exercise's column in an LMS: "Title (id)".
func ColumnTitle(e Exercise) string { return e.Title + " (" + e.ID + ")" }

// Export writes the gradebook in format to w, with the people of roster
// (which canvas and moodle need; csv takes it when given). A cell that
// is not graded (withheld for the GPU, or left empty by the grader) is
// empty, never 0; every cell is safe for a spreadsheet (SafeCell).
func (g *Book) Export(w io.Writer, format string, roster *Roster) (ExportReport, error) {
	var rep ExportReport
	if format != FormatCSV && roster == nil {
		return rep, fmt.Errorf("export %s: a roster is needed, to name the students as the LMS knows them", format)
	}
	if roster != nil {
		var err error
		if rep.NoHandIn, rep.NotListed, err = roster.Apply(g); err != nil {
			return rep, fmt.Errorf("export %s: %w", format, err)
		}
	}
	cw := csv.NewWriter(w)
	write := func(rec []string) {
		_ = cw.Write(safeRow(rec))
	}
	scores := func(s *Student) []string {
		var out []string
		for _, e := range g.Exercises {
			c := (*Cell)(nil)
			if s != nil {
				c = s.Cells[e.ID]
			}
			if !c.Counts() {
				out = append(out, "")
				continue
			}
			out = append(out, strconv.Itoa(c.Score()))
		}
		return out
	}
	// The row of each person is the one Apply matched to them.
	byPerson := map[*Person]*Student{}
	for _, s := range g.Students {
		if s.Person != nil {
			byPerson[s.Person] = s
		}
	}
	titles := make([]string, len(g.Exercises))
	for i, e := range g.Exercises {
		titles[i] = ColumnTitle(e)
	}
	switch format {
	case FormatCanvas:
		canvas := make([]string, len(g.Exercises))
		for i, e := range g.Exercises {
			canvas[i] = g.canvasTitle(e)
		}
		write(append([]string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}, canvas...))
		pp := []string{"Points Possible", "", "", "", ""}
		for _, e := range g.Exercises {
			pp = append(pp, strconv.Itoa(e.MaxPoints))
		}
		write(pp)
		for _, p := range roster.People {
			name := p.Name
			if name == "" {
				name = p.ID
			}
			write(append([]string{name, "", p.SISID, p.LoginID(), p.Section}, scores(byPerson[p])...))
		}
	case FormatMoodle:
		write(append([]string{"ID number", "Email address", "Full name"}, titles...))
		for _, p := range roster.People {
			if p.SISID == "" && p.Email == "" {
				rep.NoIdentifier = append(rep.NoIdentifier, p.ID)
				continue
			}
			write(append([]string{p.SISID, p.Email, p.Name}, scores(byPerson[p])...))
		}
		for i, e := range g.Exercises {
			rep.Maximums = append(rep.Maximums, fmt.Sprintf("%s: %d", titles[i], e.MaxPoints))
		}
	case FormatCSV:
		header, rows := g.Table()
		out := append([]string{header[0], "name", "email", "sis_id", "section"}, header[1:]...)
		write(out)
		for i, id := range g.StudentIDs() {
			var name, email, sis, section string
			if p := g.Students[id].Person; p != nil {
				name, email, sis, section = p.Name, p.Email, p.SISID, p.Section
			}
			row := append([]string{rows[i][0], name, email, sis, section}, rows[i][1:]...)
			write(row)
		}
	default:
		return rep, fmt.Errorf("export: no format %q (formats: canvas, moodle, csv)", format)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return rep, fmt.Errorf("export %s: %w", format, err)
	}
	return rep, nil
}
