package draw

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab/benchfile"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/model"
)

func TestTemporalLimits(t *testing.T) {
	ls := model.TemporalLimits([]int{1, 4, 8})
	require.Len(t, ls, len(model.TemporalTiles)*3)
	// 64×32 at k = 4: 16×32 threads, 3·4 planes of 64·(32+2) floats (the
	// default march at k ≤ 4, march 1, keeps three planes a level with a
	// row above and below the tile), 56×24 outputs;
	// (4·2048/1344 + 4)/4 bytes per point and step.
	l := ls[1]
	assert.Equal(t, [3]int{64, 32, 4}, [3]int{l.BX, l.BY, l.K})
	assert.Equal(t, 512, l.Threads)
	assert.Equal(t, 4*3*4*64*(32+2), l.SharedBytes)
	// March 1 holds three float4 register slots a level: 3·4·4.
	assert.Equal(t, 1, l.March)
	assert.Equal(t, 3*4*4, l.HeldRegs)
	assert.InDelta(t, 1344.0/2048, l.OutputShare, 1e-12)
	assert.InDelta(t, (4*2048.0/1344+4)/4, l.ReadsPerStep, 1e-12)
	// 128×16 leaves no output at k = 8.
	assert.NotEmpty(t, ls[5].Err)
	assert.Contains(t, model.TemporalLimitsTable(ls), "no output")
	// 128×32 at k = 8: 2·8 planes of 128·(32+2) floats = 272 KiB (march 2
	// above k = 4).
	assert.Equal(t, 4*2*8*128*(32+2), ls[8].SharedBytes)
	// March 2 holds two float4 slots a level: 2·4·8.
	assert.Equal(t, 2, ls[8].March)
	assert.Equal(t, 2*4*8, ls[8].HeldRegs)
	// k = 1 is march 1: 64×32 keeps 3 planes of 64·34 floats and 12 registers.
	assert.Equal(t, [4]int{1, 4 * 3 * 64 * 34, 12, 1}, [4]int{ls[0].March, ls[0].SharedBytes, ls[0].HeldRegs, ls[0].K})
	assert.Contains(t, model.TemporalLimitsTable(ls), "tile      k march threads")
	assert.Contains(t, model.TemporalLimitsTable(ls), "over the 227 KiB")
	p, err := TemporalLimitsChart(ls)
	require.NoError(t, err)
	assert.NotNil(t, p)
}

func TestPeersChartAndBest(t *testing.T) {
	ps := []data.Peers{{Device: "GPU", Runs: []data.PeersAtN{
		{N: 512, Peers: []data.PeerRun{{Name: "pytorch_eager", PctCopy: 5}, {Name: "jax_jit", PctCopy: 10}}},
		{N: 1024, Peers: []data.PeerRun{{Name: "pytorch_eager", PctCopy: 6}, {Name: "jax_jit", Error: "out of memory"}}}}}}
	// Two benches at N = 512 over 8 time steps: fast in 8 passes of 2 ms,
	// temporal at k = 4 in 2 passes of 1.6 ms and k = 2 in 4 of 1.5 ms.
	n := 512
	run := func(kernel, label string, tile int, ms float64) benchfile.Run {
		return benchfile.Run{Kernel: kernel, Label: label, N: n, Tile: tile, Steps: 8, MedianMs: ms, PctCopy: 800 / ms}
	}
	b := &benchfile.File{Copies: []benchfile.Copy{{N: n, MedianMs: 0.3, GBps: 4000}}, Results: []benchfile.Run{run("fast", "fast", 0, 16), run("temporal", "temporal[tile=4]", 4, 3.2), run("temporal", "temporal[tile=2]", 2, 6)}}
	best := data.BestTemporal([]*benchfile.File{b})
	require.Contains(t, best, n)
	assert.Equal(t, "temporal[tile=4]", best[n].Run.Label)
	assert.InDelta(t, 16/3.2, best[n].Speedup, 1e-9, "the same points in a fifth of the time")
	assert.Equal(t, "N = 512: the best temporal run, temporal[tile=4], does 5.00× the fast sweep's points per second\n",
		data.BestTemporalSummary([]*benchfile.File{b}))
	p, err := PeersChart(ps, []*benchfile.File{b}, n)
	require.NoError(t, err)
	assert.NotNil(t, p)
	_, err = PeersChart(ps, nil, 2048)
	assert.Error(t, err)
	assert.Contains(t, data.TemporalBenchTable([]*benchfile.File{b}), "temporal[tile=4]")
	assert.Contains(t, data.PeersTable(ps), "jax_jit")
	assert.Contains(t, data.PeersTable(ps), "failed: out of memory")
}
