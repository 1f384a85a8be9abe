package main

import (
	"fmt"
	"path/filepath"
	"slices"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
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
	return gradebook.WriteFileAtomic(filepath.Join(out, "leaderboard.md"), []byte(b))
}

// challengeID is the id of the CUDA challenge, or "".
func challengeID() string {
	for _, s := range cudacheck.Specs() {
		if s.Kind == cudacheck.Challenge {
			return s.ID
		}
	}
	return ""
}

// leaderboard returns the Markdown table of exercise id.
func leaderboard(g *Gradebook, id string) (string, error) {
	intro := fmt.Sprintf("The share of the float4 copy of the same %d³ grid, timed in the same process (medians of %d launches timed with CUDA events); only a correct kernel is ranked.", cudacheck.PerfN, 20)
	return g.LeaderboardMarkdown(id, intro, fmt.Sprintf("ms at N = %d", cudacheck.PerfN)), nil
}
