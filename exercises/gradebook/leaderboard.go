package gradebook

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"stencillab.dev/exercises/grading"
)

// LeaderboardEntry is one student's kernel of the challenge, from the
// metrics of its cell: the share of the float4 copy ("pct_copy"), the
// time ("ms") and whether the output was right ("correct").
type LeaderboardEntry struct {
	Student string // the student's id: the instructor's view alone
	// Pseudonym is what the published leaderboard shows (see Pseudonym):
	// "" in Leaderboard's entries, set in PublicLeaderboard's.
	Pseudonym string
	Pct       float64 // share of the float4 copy, %
	Millis    float64 // time of one launch, ms
	Correct   bool    // graded, and the output was right
	Timed     bool    // the grader timed the kernel
	// HasCell is false for a student without a cell of the challenge.
	HasCell bool
	State   string         // the cell's state
	Status  grading.Status // the result's status, "" without a result
}

// Ranked reports whether the entry has a rank: a correct kernel that was
// timed, with a finite share of the copy.
func (e LeaderboardEntry) Ranked() bool {
	return e.Correct && e.Timed && !math.IsNaN(e.Pct) && !math.IsInf(e.Pct, 0)
}

// Leaderboard returns every student's entry of exercise id: the ranked
// ones first, fastest (largest share of the copy) first, then the other
// timed ones, then the rest, each group by student.
func (g *Book) Leaderboard(id string) []LeaderboardEntry {
	return g.leaderboard(id, nil)
}

// PublicLeaderboard is Leaderboard with each entry's Pseudonym under key
// (see Pseudonyms), the entries of a group ordered by pseudonym rather
// than by id, so that the order tells nothing of the ids either.
func (g *Book) PublicLeaderboard(id string, key []byte) ([]LeaderboardEntry, error) {
	names, err := g.Pseudonyms(key)
	if err != nil {
		return nil, fmt.Errorf("the leaderboard of %s: %w", id, err)
	}
	return g.leaderboard(id, names), nil
}

// SetLeaderboard records that the leaderboard of exercise id is published
// under key: LeaderboardMarkdown names the students by their pseudonyms
// under it, and each student's feedback (Feedback, FeedbackHTML, Write)
// tells them their own.
func (g *Book) SetLeaderboard(id string, key []byte) {
	g.leaderboardID, g.leaderboardKey = id, key
}

// studentPseudonym is the pseudonym of the student sid on the leaderboard
// SetLeaderboard set, or "" when there is none or the student has no cell
// of it.
func (g *Book) studentPseudonym(sid string) string {
	if g.leaderboardID == "" || g.Students[sid] == nil || g.Students[sid].Cells[g.leaderboardID] == nil {
		return ""
	}
	names, err := g.Pseudonyms(g.leaderboardKey)
	if err != nil {
		return ""
	}
	return names[sid]
}

// leaderboard is Leaderboard, with pseudonyms from names when it is not
// nil (ties then ordered by pseudonym).
func (g *Book) leaderboard(id string, names map[string]string) []LeaderboardEntry {
	var es []LeaderboardEntry
	for _, sid := range g.StudentIDs() {
		e := LeaderboardEntry{Student: sid, Pseudonym: names[sid]}
		if c := g.Students[sid].Cells[id]; c != nil {
			e.HasCell, e.State = true, c.State
			if r := c.Result; r != nil {
				e.Status = r.Status
				e.Pct, e.Timed = r.Metrics["pct_copy"]
				e.Millis = r.Metrics["ms"]
				e.Correct = r.Metrics["correct"] == 1 && r.Status == grading.Graded
			}
		}
		es = append(es, e)
	}
	group := func(e LeaderboardEntry) int {
		switch {
		case e.Ranked():
			return 0
		case e.Timed:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(es, func(a, b LeaderboardEntry) int {
		if ga, gb := group(a), group(b); ga != gb {
			return ga - gb
		}
		if a.Timed && b.Timed && a.Pct != b.Pct && !math.IsNaN(a.Pct) && !math.IsNaN(b.Pct) {
			if a.Pct > b.Pct {
				return -1
			}
			return 1
		}
		if names != nil {
			return strings.Compare(a.Pseudonym, b.Pseudonym)
		}
		return strings.Compare(a.Student, b.Student)
	})
	return es
}

// LeaderboardMarkdown is leaderboard.md of exercise id: a sentence that
// says what is measured (intro, written as it is), then a table with the
// rank, the student's pseudonym, the share of the copy, the time and
// whether the kernel is correct. No id, name or address of a student is
// written: the pseudonyms are under the key SetLeaderboard gave, or else
// the instructor's key (InstructorKey); without either, the table is
// left out, saying so.
func (g *Book) LeaderboardMarkdown(id, intro, timeHeader string) string {
	key := g.leaderboardKey
	if key == nil {
		key, _ = InstructorKey()
	}
	es, err := g.PublicLeaderboard(id, key)
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Leaderboard: %s\n\n", Escape(id))
	if intro != "" {
		sb.WriteString(intro + "\n\n")
	}
	if err != nil {
		// The error may name the key's path: it is not written.
		sb.WriteString("No table: the students' pseudonyms need the instructor's key, which could not be read.\n")
		return sb.String()
	}
	fmt.Fprintf(&sb, "| rank | pseudonym | %% of copy | %s | correct |\n| ---: | --- | ---: | ---: | --- |\n", timeHeader)
	rank := 0
	for _, e := range es {
		r := "—"
		if e.Ranked() {
			rank++
			r = fmt.Sprint(rank)
		}
		pct, ms := "—", "—"
		if e.Timed && !math.IsNaN(e.Pct) {
			pct, ms = fmt.Sprintf("%.1f", e.Pct), fmt.Sprintf("%.3f", e.Millis)
		}
		correct := "no"
		switch {
		case e.Correct:
			correct = "yes"
		case !e.HasCell:
			correct = "no submission"
		case e.State == StateNeedsGPU:
			correct = "not graded yet (needs_gpu)"
		case e.Status != "" && e.Status != grading.Graded:
			correct = "no (" + Escape(string(e.Status)) + ")"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", r, Escape(e.Pseudonym), pct, ms, correct)
	}
	return sb.String()
}
