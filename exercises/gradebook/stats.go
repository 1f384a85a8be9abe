package gradebook

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// CheckStat is one check of an exercise over a class: how many students'
// graded cells ran it, and how many passed.
type CheckStat struct {
	Exercise string
	Check    string
	Title    string
	Ran      int
	Passed   int
}

// Share is the share of the students who passed, from 0 to 1.
func (c CheckStat) Share() float64 {
	if c.Ran == 0 {
		return 0
	}
	return float64(c.Passed) / float64(c.Ran)
}

// Mistake is a failing check's message (its first line, numbers folded)
// and how many students' cells it was said for.
type Mistake struct {
	Exercise string
	Check    string
	Message  string
	Count    int
}

// numberRE folds the numbers of a message, so that the same mistake on
// other inputs counts once.
var numberRE = regexp.MustCompile(`[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// CheckStats returns the statistics of every check of the students ids
// (graded cells only, overrides aside), in the order of the exercises and
// their checks, and the most frequent mistakes of each exercise, at most
// top per exercise, most frequent first. A check that failed on a stub
// still unwritten (not implemented yet) counts as run, not passed, and is
// no mistake.
func (g *Book) CheckStats(ids []string, top int) ([]CheckStat, []Mistake) {
	var stats []CheckStat
	var mistakes []Mistake
	for _, e := range g.Exercises {
		idx := map[string]int{}
		counts := map[[2]string]int{}
		for _, id := range ids {
			s := g.Students[id]
			if s == nil {
				continue
			}
			c := s.Cells[e.ID]
			if c == nil || c.State != StateGraded || c.Result == nil {
				continue
			}
			for _, ch := range c.Result.Checks {
				i, ok := idx[ch.ID]
				if !ok {
					i = len(stats)
					idx[ch.ID] = i
					stats = append(stats, CheckStat{Exercise: e.ID, Check: ch.ID, Title: ch.Title})
				}
				stats[i].Ran++
				if ch.Passed {
					stats[i].Passed++
					continue
				}
				if ch.NotImplemented {
					continue // an untouched stub is no mistake to teach from
				}
				msg := strings.TrimSpace(ch.Message)
				if first, _, _ := strings.Cut(msg, "\n"); first != "" {
					msg = numberRE.ReplaceAllString(first, "#")
					if len(msg) > 160 {
						msg = msg[:160] + "…"
					}
					counts[[2]string{ch.ID, msg}]++
				}
			}
		}
		var ms []Mistake
		for k, n := range counts {
			ms = append(ms, Mistake{Exercise: e.ID, Check: k[0], Message: k[1], Count: n})
		}
		sort.Slice(ms, func(a, b int) bool {
			if ms[a].Count != ms[b].Count {
				return ms[a].Count > ms[b].Count
			}
			if ms[a].Check != ms[b].Check {
				return ms[a].Check < ms[b].Check
			}
			return ms[a].Message < ms[b].Message
		})
		if len(ms) > top {
			ms = ms[:top]
		}
		mistakes = append(mistakes, ms...)
	}
	return stats, mistakes
}

// writeCheckStats writes the checks' statistics and the most frequent
// mistakes of the students ids.
func (g *Book) writeCheckStats(w io.Writer, ids []string) {
	stats, mistakes := g.CheckStats(ids, 3)
	if len(stats) == 0 {
		return
	}
	fmt.Fprintf(w, "Checks (share of the graded students passing):\n")
	for _, c := range stats {
		fmt.Fprintf(w, "  %-20s %-16s %5.1f%%  (%d of %d)\n", c.Exercise, oneLine(c.Check), 100*c.Share(), c.Passed, c.Ran)
	}
	if len(mistakes) > 0 {
		fmt.Fprintf(w, "Most frequent mistakes:\n")
		for _, m := range mistakes {
			fmt.Fprintf(w, "  %-20s %-16s %3d× %s\n", m.Exercise, oneLine(m.Check), m.Count, oneLine(m.Message))
		}
	}
}
