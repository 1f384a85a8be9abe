package gradebook

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Summary writes the summary of run, a class run merged into g: the
// students, each exercise's mean and distribution over the students of
// the run, the hand-ins refused and the students the grader could not
// grade, and the slowest submission.
func (g *Book) Summary(w io.Writer, run *Book, elapsed time.Duration) {
	ids := run.StudentIDs()
	fmt.Fprintf(w, "Graded %d students in %v (seed %d; -seed %d repeats these inputs)\n", len(ids), elapsed.Round(time.Second), run.Seed, run.Seed)
	fmt.Fprintf(w, "%-20s %6s %6s  %s\n", "exercise", "max", "mean", "distribution (points: students)")
	for _, e := range g.Exercises {
		counts := map[int]int{}
		sum, n, withheld := 0, 0, 0
		for _, id := range ids {
			s := g.Students[id]
			if s == nil {
				continue
			}
			c := s.Cells[e.ID]
			if !c.Counts() {
				withheld++
				continue
			}
			counts[c.Score()]++
			sum += c.Score()
			n++
		}
		var keys []int
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		var dist []string
		for _, k := range keys {
			dist = append(dist, fmt.Sprintf("%d: %d", k, counts[k]))
		}
		mean := "–"
		if n > 0 {
			mean = fmt.Sprintf("%.2f", float64(sum)/float64(n))
		}
		extra := ""
		if withheld > 0 {
			extra = fmt.Sprintf("; %d not graded", withheld)
		}
		fmt.Fprintf(w, "%-20s %6d %6s  %s%s\n", e.ID, e.MaxPoints, mean, strings.Join(dist, ", "), extra)
	}
	g.writeCounts(w, run, ids)
	g.writeCheckStats(w, ids)
	for _, id := range ids {
		s := run.Students[id]
		switch {
		case s.Source == SourceRefused:
			fmt.Fprintf(w, "Refused: %s: %s\n", id, oneLine(s.RowNote()))
		case s.Folder != "" && s.Folder != id:
			fmt.Fprintf(w, "Renamed: %s\n", oneLine(s.RowNote()))
		}
		var errs []string
		for _, e := range run.Exercises {
			if c := s.Cells[e.ID]; c != nil && c.State == StateError {
				errs = append(errs, e.ID)
			}
		}
		if len(errs) > 0 {
			fmt.Fprintf(w, "Not graded (the grader failed): %s: %s\n", id, strings.Join(errs, ", "))
		}
	}
	for _, r := range run.Runs {
		for _, n := range r.NeedsInstructor {
			fmt.Fprintf(w, "Needs the instructor: %s\n", oneLine(n))
		}
	}
	slow, secs := "", -1.0
	for _, id := range ids {
		if s := run.Students[id]; s.Seconds > secs {
			slow, secs = id, s.Seconds
		}
	}
	if slow != "" {
		fmt.Fprintf(w, "Slowest submission: %s, %.1f s\n", slow, secs)
	}
}

// oneLine makes a note one line of printable text for a terminal.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}

// writeCounts writes how many cells of the run ended in each status, and
// each section's students, mean total and cells not graded.
func (g *Book) writeCounts(w io.Writer, run *Book, ids []string) {
	status := map[string]int{}
	type sec struct {
		students, points, max, ungraded int
	}
	sections := map[string]*sec{}
	for _, id := range ids {
		s := g.Students[id]
		if s == nil {
			continue
		}
		name := "(no section)"
		if s.Person != nil && s.Person.Section != "" {
			name = s.Person.Section
		}
		x := sections[name]
		if x == nil {
			x = &sec{}
			sections[name] = x
		}
		x.students++
		x.points += s.Points
		x.max += s.GradedMax
		for _, e := range run.Exercises {
			c := s.Cells[e.ID]
			st := "missing"
			switch {
			case c == nil:
			case c.Result != nil && c.Result.Status != "":
				st = string(c.Result.Status)
			default:
				st = c.State
			}
			status[st]++
			if !c.Counts() {
				x.ungraded++
			}
		}
	}
	if len(status) == 0 {
		return
	}
	var parts []string
	for _, k := range sortedKeys(status) {
		parts = append(parts, fmt.Sprintf("%s %d", k, status[k]))
	}
	fmt.Fprintf(w, "Cells by status: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "%-24s %8s %12s %10s\n", "section", "students", "mean total", "not graded")
	for _, k := range sortedKeys(sections) {
		x := sections[k]
		mean := "–"
		if x.max > 0 {
			mean = fmt.Sprintf("%.1f%%", 100*float64(x.points)/float64(x.max))
		}
		fmt.Fprintf(w, "%-24s %8d %12s %10d\n", oneLine(k), x.students, mean, x.ungraded)
	}
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
