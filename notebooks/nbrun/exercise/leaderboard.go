package exercise

import (
	"errors"
	"fmt"
	"io/fs"

	"gonum.org/v1/plot/vg"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/figures/fig"
	"stencillab.dev/notebooks/nbrun/draw"
)

// LeaderboardEntry is one student's challenge kernel in a gradebook.
type LeaderboardEntry = gradebook.LeaderboardEntry

// ReadLeaderboard reads the entries of exercise id (the challenge,
// "25_cuda_challenge") from a gradebook.json written by `grade -class`:
// the students whose kernel was timed, correct ones first, fastest first.
func ReadLeaderboard(path, id string) ([]LeaderboardEntry, error) {
	book, err := gradebook.Read(path)
	if err != nil {
		return nil, fmt.Errorf("nbrun: leaderboard: %w", err)
	}
	var es []LeaderboardEntry
	for _, e := range book.Leaderboard(id) {
		if e.Timed {
			es = append(es, e)
		}
	}
	return es, nil
}

// ShowLeaderboard draws the challenge's leaderboard from a gradebook.json
// in the notebook, or says that there is none yet.
func ShowLeaderboard(path, id string) error {
	es, err := ReadLeaderboard(path, id)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Printf("no gradebook at %s yet: `grade -class DIR -out OUT` on a GPU machine writes one\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	if len(es) == 0 {
		fmt.Printf("%s: no challenge kernel was timed (graded without a GPU?)\n", path)
		return nil
	}
	d, err := draw.LeaderboardDiagram(es)
	if err != nil {
		return err
	}
	return fig.Show(d, fig.Wide, vg.Length(0.5*float64(len(es))+1.2)*vg.Inch)
}
