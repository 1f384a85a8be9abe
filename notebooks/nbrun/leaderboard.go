package nbrun

import (
	"errors"
	"fmt"
	"io/fs"
	"math"

	"gonum.org/v1/plot/vg"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/figures/fig"
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

// LeaderboardDiagram draws the entries as horizontal bars, the share of the
// float4 copy, the incorrect kernels muted and unranked. A share or a time
// that is not a finite number of at least 0 is an error naming the
// student: a gradebook is read from a file, which anything may have written.
func LeaderboardDiagram(es []LeaderboardEntry) (*fig.Diagram, error) {
	for _, e := range es {
		for _, v := range []struct {
			what string
			x    float64
		}{{"share of the copy", e.Pct}, {"time", e.Millis}} {
			if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x < 0 {
				return nil, fmt.Errorf("nbrun: leaderboard: %s's %s is %v: want a finite number of at least 0", e.Student, v.what, v.x)
			}
		}
	}
	n := float64(len(es))
	d := fig.NewDiagram(fmt.Sprintf("Challenge: share of the float4 copy at N = %d", cudacheck.PerfN), -22, -4, 112, 2*n+1)
	for i, e := range es {
		y := 2 * (n - 1 - float64(i))
		fill, label := fig.Blue, fmt.Sprintf("%d. %s", i+1, e.Student)
		if !e.Correct {
			fill, label = fig.Muted, e.Student+" (incorrect)"
		}
		d.Add(fig.Rect(0, y, e.Pct, y+1.4).Filled(fill))
		d.Add(fig.Label(-1, y+0.7, 8, label).Align(1, -0.5))
		d.Add(fig.Label(e.Pct+1, y+0.7, 8, fmt.Sprintf("%.1f %%, %.3f ms", e.Pct, e.Millis)).Align(0, -0.5).Colored(fig.Muted))
	}
	d.Add(fig.Line(fig.Pt{X: 0, Y: -0.5}, fig.Pt{X: 0, Y: 2 * n}))
	d.Add(fig.Line(fig.Pt{X: 100, Y: -0.5}, fig.Pt{X: 100, Y: 2 * n}).Dashed())
	d.Add(fig.Label(100, -2, 8, "the copy").Colored(fig.Muted))
	return d, nil
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
	d, err := LeaderboardDiagram(es)
	if err != nil {
		return err
	}
	return fig.Show(d, fig.Wide, vg.Length(0.5*float64(len(es))+1.2)*vg.Inch)
}
