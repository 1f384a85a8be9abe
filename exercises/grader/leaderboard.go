package grader

import (
	"fmt"
	"path/filepath"
	"slices"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
)

// publishLeaderboard readies the gradebook's leaderboard, when it has the
// challenge: its students named by pseudonyms under the instructor's key,
// each told their own in their feedback. Call it before the gradebook's
// Write.
func publishLeaderboard(g *Gradebook) error {
	id := challengeID()
	if id == "" || !slices.ContainsFunc(g.Exercises, func(e GradebookExercise) bool { return e.ID == id }) {
		return nil
	}
	key, err := gradebook.InstructorKey()
	if err != nil {
		return fmt.Errorf("the leaderboard's pseudonyms: %w", err)
	}
	g.SetLeaderboard(id, key)
	return nil
}

// writeLeaderboard writes leaderboard.md in out for the challenge, from
// the gradebook: the students whose kernel was timed, correct ones first,
// fastest first (the share of the float4 copy in the same run), then the
// others, each under a pseudonym (publishLeaderboard).
func writeLeaderboard(out string, g *Gradebook) error {
	id := challengeID()
	if id == "" || !slices.ContainsFunc(g.Exercises, func(e GradebookExercise) bool { return e.ID == id }) {
		return nil
	}
	key, err := gradebook.InstructorKey()
	if err != nil {
		return fmt.Errorf("the leaderboard's pseudonyms: %w", err)
	}
	b, err := leaderboard(g, id, key)
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

// leaderboard returns the Markdown table of exercise id, its students
// named by their pseudonyms under key.
func leaderboard(g *Gradebook, id string, key []byte) (string, error) {
	if _, err := g.PublicLeaderboard(id, key); err != nil {
		return "", err
	}
	g.SetLeaderboard(id, key)
	intro := fmt.Sprintf("The share of the float4 copy, both timed with CUDA events in the same process, on a grid drawn fresh "+
		"for each submission with sides around %d: the kernel's time per launch over a chain of %d launches, each feeding the next, "+
		"against the copy's median of %d launches. Only a correct kernel whose timed chain ended on the CPU reference's grid is ranked.",
		cudacheck.PerfN, cudacheck.PerfSteps, cudacheck.PerfCopyReps)
	return g.LeaderboardMarkdown(id, intro, fmt.Sprintf("ms per launch (N ≈ %d)", cudacheck.PerfN)), nil
}
