package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
)

// writeLeaderboard writes leaderboard.md in out for the challenge, from
// the gradebook: the students whose kernel was timed, correct ones first,
// fastest first (the share of the float4 copy in the same run), then the
// others.
func writeLeaderboard(out string, g *Gradebook) error {
	id := challengeID()
	if id == "" || !slices.ContainsFunc(g.Exercises, func(e GradebookExercise) bool { return e.ID == id }) {
		return nil
	}
	b, err := leaderboard(g, id)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(out, "leaderboard.md"), []byte(b))
}

func challengeID() string {
	for _, s := range cudacheck.Specs() {
		if s.Kind == cudacheck.Challenge {
			return s.ID
		}
	}
	return ""
}

type entry struct {
	student  string
	pct, ms  float64
	correct  bool
	timed    bool
	state    string
	message  string
	hasCells bool
}

// leaderboard returns the Markdown table of exercise id.
func leaderboard(g *Gradebook, id string) (string, error) {
	var es []entry
	for _, sid := range g.studentIDs() {
		c := g.Students[sid].Cells[id]
		e := entry{student: sid}
		if c != nil {
			e.hasCells, e.state = true, c.State
			if c.Result != nil {
				m := c.Result.Metrics
				e.pct, e.timed = m["pct_copy"]
				e.ms = m["ms"]
				e.correct = m["correct"] == 1 && c.Result.Status == grading.Graded
				if c.Result.Status != grading.Graded {
					e.message = string(c.Result.Status)
				}
			}
		}
		es = append(es, e)
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		switch {
		case a.correct != b.correct:
			if a.correct {
				return -1
			}
			return 1
		case a.timed != b.timed:
			if a.timed {
				return -1
			}
			return 1
		}
		if a.pct > b.pct {
			return -1
		}
		if a.pct < b.pct {
			return 1
		}
		return strings.Compare(a.student, b.student)
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Leaderboard: %s\n\n", id)
	fmt.Fprintf(&sb, "The share of the float4 copy of the same %d³ grid, timed in the same process (medians of %d launches timed with CUDA events); only a correct kernel is ranked.\n\n", cudacheck.PerfN, 20)
	sb.WriteString("| rank | student | % of copy | ms at N = 512 | correct |\n| ---: | --- | ---: | ---: | --- |\n")
	rank := 0
	for _, e := range es {
		r := "—"
		if e.correct && e.timed {
			rank++
			r = fmt.Sprint(rank)
		}
		pct, ms := "—", "—"
		if e.timed && !math.IsNaN(e.pct) {
			pct, ms = fmt.Sprintf("%.1f", e.pct), fmt.Sprintf("%.3f", e.ms)
		}
		correct := "no"
		switch {
		case e.correct:
			correct = "yes"
		case !e.hasCells:
			correct = "no submission"
		case e.state == StateNeedsGPU:
			correct = "not graded yet (needs_gpu)"
		case e.message != "":
			correct = "no (" + e.message + ")"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", r, mdCell(e.student), pct, ms, correct)
	}
	return sb.String(), nil
}
