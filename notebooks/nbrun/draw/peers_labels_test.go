package draw

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/notebooks/nbrun/data"
)

// TestPeersChartLabelsEachFastRun: two recorded benches with a fast run at
// the same side give two bars, each named by the time of its run, and the
// title names the card.
func TestPeersChartLabelsEachFastRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 7))
	n := 2*rng.IntN(200) + 101
	file := func(date string) *benchfile.File {
		return &benchfile.File{Device: "NVIDIA H100 80GB HBM3", Date: date,
			Copies:  []benchfile.Copy{{N: n, MedianMs: 0.3, GBps: 4000}},
			Results: []benchfile.Run{{Kernel: "fast", Label: "fast", N: n, Steps: 8, MedianMs: 2, PctCopy: 80 + 10*rng.Float64()}}}
	}
	a, b := file("2026-11-25T20:27:59Z"), file("2026-11-25T21:10:39Z")
	p, err := PeersChart(nil, []*benchfile.File{a, b}, n)
	require.NoError(t, err)
	assert.Contains(t, p.Title.Text, "NVIDIA H100 80GB HBM3")
	labels := nominalX(t, p)
	assert.Equal(t, []string{"lab fast\n11-25 20:27 UTC", "lab fast\n11-25 21:10 UTC"}, labels)

	one, err := PeersChart(nil, []*benchfile.File{a}, n)
	require.NoError(t, err)
	assert.Equal(t, []string{"lab fast"}, nominalX(t, one), "one run needs no stamp")

	assert.Equal(t, "undated run", runStamp(""))
	assert.Equal(t, "yesterday", runStamp("yesterday"))
	assert.Equal(t, "an unnamed GPU", cardsOf(nil, []*benchfile.File{nil}))
	assert.Equal(t, "A and B", cardsOf([]data.Peers{{Device: "A"}, {Device: " "}}, []*benchfile.File{{Device: "B"}, {Device: "A"}}))
}

// nominalX returns the names of a bar chart's bars.
func nominalX(t *testing.T, p *plot.Plot) []string {
	t.Helper()
	var names []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			names = append(names, tk.Label)
		}
	}
	return names
}
