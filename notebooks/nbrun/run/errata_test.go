package run

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sediment"
)

// TestIndexWrapsInPlane1486: at N = 1700 the 32-bit flat index i·N² + j·N + k
// first passes 2³² − 1 inside plane i = 1486, not from plane 1487 on.
func TestIndexWrapsInPlane1486(t *testing.T) {
	const n = 1700
	first := -1
	for i := 0; i < n && first < 0; i++ {
		if uint64(i)*n*n+uint64(n*n-1) > math.MaxUint32 { // the plane's last point
			first = i
		}
	}
	assert.Equal(t, 1486, first)
	// Inside plane 1486, from the point with j·N + k = 2³² − 1486·N² on.
	assert.Equal(t, uint64(1<<32-1486*n*n), uint64(427296))
	// And the largest N whose every index fits is 1625.
	assert.LessOrEqual(t, uint64(1625*1625*1625-1), uint64(math.MaxUint32))
	assert.Greater(t, uint64(1626*1626*1626-1), uint64(math.MaxUint32))
}

// TestLaunchesAt120: the blocks and threads of each kernel's launch on a
// 120³ grid, from the lab's kernels and from the chapter's formulas.
func TestLaunchesAt120(t *testing.T) {
	const n = 120
	ceil := func(a, b int) int { return (a + b - 1) / b }
	for _, c := range []struct {
		name   string
		k      lab.StencilKernel
		tile   int
		blocks int // by the chapter's formulas
		block  int
	}{
		{"basic", lab.BasicKernel, 8, ceil(n, 8) * ceil(n, 8) * ceil(n, 8), 8 * 8 * 8},
		{"tiled", lab.TiledKernel, 8, ceil(n-2, 6) * ceil(n-2, 6) * ceil(n-2, 6), 8 * 8 * 8},
		{"coarsened", lab.CoarsenedKernel, 32, ceil(n-2, 30) * ceil(n-2, 30) * ceil(n-2, 30), 32 * 32},
		{"register_tiled", lab.RegisterTiledKernel, 32, ceil(n-2, 30) * ceil(n-2, 30) * ceil(n-2, 30), 32 * 32},
	} {
		k, err := c.k(lab.StencilArgs{NZ: n, NY: n, NX: n, Tile: c.tile})
		require.NoError(t, err, c.name)
		assert.Equal(t, c.blocks, k.Grid.Size(), "%s: blocks", c.name)
		assert.Equal(t, c.block, k.Block.Size(), "%s: threads per block", c.name)
	}
	// The numbers the notebooks' answers write.
	assert.Equal(t, 3375*512, 1728000)
	assert.Equal(t, 8000*512, 4096000)
	assert.Equal(t, 64*1024, 65536)
}

// TestIntensityPlateaus: at N = 34, T = 9 and T = 10 give the tiled kernel
// the same counted intensity, since both launch (N−2)/(T−2) + 1 = 5
// blocks along each axis and load N + 2·(5 − 1) = 42 points along each;
// at N = 48 the coarsened kernel's T = 20 and 24 (3 blocks) and T = 28
// and 32 (2 blocks) pair up the same way.
func TestIntensityPlateaus(t *testing.T) {
	along := func(n, tile int) int { return n + 2*((n-2)/(tile-2)) }
	closed := func(n, tile int) float64 {
		in := float64(along(n, tile))
		return float64(lab.Flops7) * math.Pow(float64(n-2), 3) / (lab.Float32Bytes * in * in * in)
	}
	for _, c := range []struct {
		kernel string
		n      int
		tiles  [2]int
	}{{"tiled", 34, [2]int{9, 10}}, {"coarsened", 48, [2]int{20, 24}}, {"coarsened", 48, [2]int{28, 32}}} {
		a, err := lab.IntensityN(c.kernel, c.n, c.tiles[0])
		require.NoError(t, err)
		b, err := lab.IntensityN(c.kernel, c.n, c.tiles[1])
		require.NoError(t, err)
		assert.InDelta(t, a, b, 1e-12, "%s at N = %d, T = %v", c.kernel, c.n, c.tiles)
		assert.InDelta(t, closed(c.n, c.tiles[0]), a, 1e-9, "%s at N = %d, T = %d", c.kernel, c.n, c.tiles[0])
	}
	assert.Equal(t, 42, along(34, 9))
	assert.Equal(t, 42, along(34, 10))
	// A tile that changes the number of blocks changes the intensity.
	a, _ := lab.IntensityN("tiled", 34, 8)
	b, _ := lab.IntensityN("tiled", 34, 9)
	assert.NotEqual(t, a, b)
}

// TestPaperStepRates: a step's rate adds the two kernels' times. The paper
// gives the K20's best combination as 165 GFLOP/s, the flop-weighted mean
// of the rates, and the GTX 590's as 82, the step's rate: 82.6, where the
// flop-weighted mean would give 83.1.
func TestPaperStepRates(t *testing.T) {
	rates := func(g sediment.PaperGPU) (step, weighted float64) {
		h, ok := g.Row(sediment.KernelH, "opt3")
		require.True(t, ok, g.Name)
		s, ok := g.Row(sediment.KernelS, "opt1")
		require.True(t, ok, g.Name)
		return 89 / (55/h.GFLOPs + 34/s.GFLOPs), (55*h.GFLOPs + 34*s.GFLOPs) / 89
	}
	step, weighted := rates(sediment.PaperK20)
	assert.Equal(t, "157", formatRate(step))
	assert.Equal(t, "165", formatRate(weighted))
	lab, err := sediment.PaperK20.StepGFLOPs("opt3", "opt1")
	require.NoError(t, err)
	assert.InDelta(t, step, lab, 1e-9, "the lab's one place for it")

	step, weighted = rates(sediment.PaperGTX590)
	assert.InDelta(t, 82.6, step, 0.05)
	assert.InDelta(t, 83.1, weighted, 0.05)
	assert.Equal(t, "83", formatRate(step), "82.6 rounds to 83; the paper truncates to 82")
}

func formatRate(v float64) string { return strconv.Itoa(int(math.Round(v))) }
