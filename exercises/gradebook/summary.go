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
