package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab/halo"
)

// TestHaloRatio: the model's ratio is the halo bytes over the link
// against the slab's bytes through memory, computed from its parts.
func TestHaloRatio(t *testing.T) {
	for _, c := range []struct {
		n, g      int
		mem, link float64
	}{{512, 4, 4178.6, 450}, {1024, 2, 3000, 100}, {257, 7, 1, 3}} {
		n := float64(c.n)
		haloSeconds := 2 * n * n * 4 / (c.link * 1e9)
		computeSeconds := n * n * n / float64(c.g) * 8 / (c.mem * 1e9)
		assert.InDelta(t, haloSeconds/computeSeconds, HaloRatio(c.n, c.g, c.mem, c.link), 1e-12)
	}
}

// TestBusiestHaloCountsTheParts: the model's busiest rank receives what
// the halo package's parts receive, counted face by face from the
// neighbours' owned boxes (N·N/py per z face, N·N/pz per y face) on a grid
// whose interior divides evenly.
func TestBusiestHaloCountsTheParts(t *testing.T) {
	const n = 26 // 24 interior planes and rows: every pz and py below divides
	for _, c := range []struct{ pz, py int }{{4, 1}, {2, 2}, {4, 2}, {2, 4}, {4, 4}, {3, 2}, {6, 1}} {
		parts, err := halo.Decompose(n, n, n, c.pz*c.py, c.py, 1)
		require.NoError(t, err)
		busiest := 0
		for _, p := range parts {
			pts := 0
			for _, nb := range []int{p.Down, p.Up} {
				if nb >= 0 {
					pts += (parts[nb].Y1 - parts[nb].Y0) * n // a z face of the neighbour's owned rows, all columns
				}
			}
			for _, nb := range []int{p.South, p.North} {
				if nb >= 0 {
					pts += (parts[nb].Z1 - parts[nb].Z0) * n
				}
			}
			busiest = max(busiest, pts)
		}
		// The model counts faces of N·N/py; the owned rows are (N−2)/py.
		want := BusiestHalo(n, c.pz, c.py) * float64(n-2) / float64(n)
		assert.InDelta(t, want, float64(busiest), 1e-9, "%d×%d", c.pz, c.py)
	}
}

func TestBestPencils(t *testing.T) {
	for _, c := range []struct{ g, pz, py int }{{4, 2, 2}, {8, 4, 2}, {16, 4, 4}, {64, 8, 8}, {6, 3, 2}} {
		pz, py := BestPencils(512, c.g)
		assert.Equal(t, [2]int{c.pz, c.py}, [2]int{pz, py}, "G = %d", c.g)
	}
	pz, py := BestPencils(512, 7)
	assert.Equal(t, [2]int{1, 7}, [2]int{pz, py}, "a prime count can only be cut along y")
}

// TestRunSplitCPU: the split equals the single domain and counts 2·(G−1)
// planes of N² floats per time step for slabs.
func TestRunSplitCPU(t *testing.T) {
	for _, g := range []int{2, 3, 5} {
		n := 13 + g
		r, err := RunSplitCPU("reference", n, g, 0, 0)
		require.NoError(t, err)
		assert.True(t, r.Equal, "%d ranks", g)
		assert.Equal(t, float64(2*(g-1)), r.Result.Comm.MessagesPerStep())
		assert.Equal(t, float64(2*(g-1)*n*n*4), r.Result.Comm.BytesPerStep())
		assert.Equal(t, float64(min(g-1, 2)*n*n), r.MaxHalo(), "the busiest rank: one plane of each neighbour")
		assert.Contains(t, r.String(), "bit for bit: true")
	}
	_, err := RunSplitCPU("reference", 5, 9, 0, 0)
	assert.Error(t, err, "9 ranks cannot each own a plane of 3")
}
