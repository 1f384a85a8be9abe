package draw

import (
	"fmt"
	"math"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/figures/fig"
)

// LeaderboardDiagram draws the entries as horizontal bars, the share of the
// float4 copy, the incorrect kernels muted and unranked. A share or a time
// that is not a finite number of at least 0 is an error naming the
// student: a gradebook is read from a file, which anything may have written.
func LeaderboardDiagram(es []gradebook.LeaderboardEntry) (*fig.Diagram, error) {
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
