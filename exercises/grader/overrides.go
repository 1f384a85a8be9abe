// The instructor's overrides of a class's gradebook.

package grader

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
)

// readOverrides reads the overrides CSV (student, exercise, points,
// reason; a first line "student,…" is a header): the whole set of the
// instructor's overrides, a line removed is an override withdrawn.
// Exercises are named as on the command line, among all of them (a line
// for an exercise not graded in this run is kept for its cell already in
// the gradebook). Points go from 0 to the exercise's maximum, above it
// with extraCredit. No file (path "") returns nil: the gradebook's
// overrides stay as they are.
func readOverrides(path string, students []string, all []grading.Exercise, extraCredit bool) (map[[2]string]*Override, error) {
	if path == "" {
		return nil, nil
	}
	out := map[[2]string]*Override{}
	// The instructor's file, not a hand-in: a link to it is fine.
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("overrides: %w", err)
	}
	r := csv.NewReader(strings.NewReader(string(b)))
	r.FieldsPerRecord = 4
	r.TrimLeadingSpace = true
	known := map[string]bool{}
	for _, s := range students {
		known[s] = true
	}
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("overrides: %w", err)
		}
		if line == 1 && strings.EqualFold(rec[0], "student") {
			continue
		}
		where := fmt.Sprintf("overrides %s:%d", filepath.Base(path), line)
		if !known[rec[0]] {
			return nil, fmt.Errorf("%s: no student %s in the class", where, gradebook.QuoteName(rec[0]))
		}
		sel, err := selectExercises(all, []string{rec[1]})
		if err != nil || len(sel) != 1 {
			return nil, fmt.Errorf("%s: no exercise %s", where, gradebook.QuoteName(rec[1]))
		}
		pts, err := strconv.Atoi(rec[2])
		switch {
		case err != nil || pts < 0 || pts > 1000000:
			return nil, fmt.Errorf("%s: points %s: must be a whole number from 0 to %d, the exercise's maximum (more with -extra-credit)", where, gradebook.QuoteName(rec[2]), sel[0].MaxPoints())
		case pts > sel[0].MaxPoints() && !extraCredit:
			return nil, fmt.Errorf("%s: points %d are above %d, the exercise's maximum: pass -extra-credit to give extra credit", where, pts, sel[0].MaxPoints())
		}
		if strings.TrimSpace(rec[3]) == "" {
			return nil, fmt.Errorf("%s: an override needs a reason", where)
		}
		key := [2]string{rec[0], sel[0].ID}
		if out[key] != nil {
			return nil, fmt.Errorf("%s: a second override of %s for %s", where, sel[0].ID, gradebook.QuoteName(rec[0]))
		}
		out[key] = &Override{Points: pts, Reason: rec[3]}
	}
	return out, nil
}

// applyOverrides makes overrides the book's whole set: every cell gets
// its override from the set, or none (withdrawn), and the totals are
// counted again.
func applyOverrides(book *Gradebook, overrides map[[2]string]*Override) {
	for id, s := range book.Students {
		for ex, c := range s.Cells {
			if c == nil {
				continue
			}
			o := overrides[[2]string{id, ex}]
			if o == nil {
				c.Override = nil
				continue
			}
			cp := *o
			cp.Was = c.Points
			c.Override = &cp
		}
	}
	book.Recount()
}
