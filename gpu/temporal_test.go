package gpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// temporalConfigs are the temporal kernel's configurations checked on the
// GPU: the default tile at every k, and other tiles, fixed chunks of
// planes (chunk edges inside the grid) and the L2 prefetch.
var temporalConfigs = func() []Options {
	var opts []Options
	for _, k := range []int{1, 2, 4, 8} {
		opts = append(opts, Options{Tile: k})
	}
	def := func(kv ...string) []Define {
		var ds []Define
		for i := 0; i < len(kv); i += 2 {
			ds = append(ds, Define{kv[i], kv[i+1]})
		}
		return ds
	}
	return append(opts,
		Options{Tile: 1, Defines: def("TB_BX", "128", "TB_BY", "8")},
		Options{Tile: 2, Defines: def("TB_BX", "128", "TB_BY", "16")},
		Options{Tile: 4, Defines: def("TB_BX", "128", "TB_BY", "16")},
		Options{Tile: 4, Defines: def("TB_BX", "32", "TB_BY", "32")},
		Options{Tile: 8, Defines: def("TB_BX", "32", "TB_BY", "32")},
		Options{Tile: 2, Defines: def("TB_BX", "16", "TB_BY", "8")},
		Options{Tile: 3, Defines: def("TB_CZ", "3")},
		Options{Tile: 4, Defines: def("TB_CZ", "7", "TB_BX", "128", "TB_BY", "16")},
		Options{Tile: 8, Defines: def("TB_CZ", "5")},
		Options{Tile: 4, Defines: def("TB_L2PF", "2")},
		Options{Tile: 4, Defines: def("TB_MINB", "1")},
		Options{Tile: 8, Defines: def("TB_MINB", "2")},
		Options{Tile: 2, Defines: def("TB_STREAM", "1")},
		Options{Tile: 4, Defines: def("TB_L2PF", "3", "TB_BX", "128", "TB_BY", "32")},
		Options{Tile: 6, Defines: def("TB_BX", "128", "TB_BY", "32")},
		// March 1 (TB_V=1): three register slots and shared planes a level.
		Options{Tile: 1, Defines: def("TB_V", "1")},
		Options{Tile: 2, Defines: def("TB_V", "1")},
		Options{Tile: 3, Defines: def("TB_V", "1", "TB_CZ", "3")},
		Options{Tile: 4, Defines: def("TB_V", "1")},
		Options{Tile: 5, Defines: def("TB_V", "1", "TB_BX", "32", "TB_BY", "16")},
		Options{Tile: 4, Defines: def("TB_V", "1", "TB_BX", "128", "TB_BY", "16", "TB_STREAM", "1")},
		Options{Tile: 4, Defines: def("TB_V", "1", "TB_MINB", "2", "TB_BY", "16")},
		Options{Tile: 8, Defines: def("TB_V", "1", "TB_CZ", "5")},
		Options{Tile: 4, Defines: def("TB_V", "1", "TB_BY", "36")},
		// March 0 (TB_V=0), the default before march 2.
		Options{Tile: 1, Defines: def("TB_V", "0")},
		Options{Tile: 4, Defines: def("TB_V", "0")},
		Options{Tile: 8, Defines: def("TB_V", "0", "TB_CZ", "5")},
		Options{Tile: 4, Defines: def("TB_V", "0", "TB_L2PF", "2", "TB_BX", "128", "TB_BY", "16")},
		// March 2, the default: two, copied, unrolled by two.
		Options{Tile: 1, Defines: def("TB_V", "2")},
		Options{Tile: 2, Defines: def("TB_V", "2", "TB_BX", "16", "TB_BY", "8")},
		Options{Tile: 3, Defines: def("TB_V", "2", "TB_CZ", "3")},
		Options{Tile: 4, Defines: def("TB_V", "2")},
		Options{Tile: 8, Defines: def("TB_V", "2", "TB_BX", "32", "TB_BY", "32")},
		// March 3: march 1 with two rows a thread.
		Options{Tile: 1, Defines: def("TB_V", "3", "TB_BX", "16", "TB_BY", "16")},
		Options{Tile: 2, Defines: def("TB_V", "3", "TB_BX", "32", "TB_BY", "16")},
		Options{Tile: 3, Defines: def("TB_V", "3", "TB_BY", "64")},
		Options{Tile: 3, Defines: def("TB_V", "3", "TB_BY", "64", "TB_CZ", "3")},
		Options{Tile: 4, Defines: def("TB_V", "3", "TB_BY", "64")},
		Options{Tile: 4, Defines: def("TB_V", "3")},
		Options{Tile: 3, Defines: def("TB_V", "3", "TB_BX", "128", "TB_BY", "32", "TB_STREAM", "1")},
		Options{Tile: 5, Defines: def("TB_V", "3", "TB_BY", "48")},
	)
}()

func optionsName(o Options) string {
	name := "k=" + strconv.Itoa(o.Tile)
	for _, d := range o.Defines {
		name += "," + d.String()
	}
	return name
}

// checkTemporal advances a fresh random grid by passes passes of k with a
// compiled temporal kernel, its interior poisoned with NaN, against k·passes
// reference sweeps with the boundary fixed (lab.Advance), and returns the
// largest difference.
func checkTemporal(t *testing.T, name string, s *sweeper, shape [3]int, passes int) float64 {
	t.Helper()
	k := s.k.StepsPerPass()
	steps := k * passes
	seed := freshSeed()
	src, err := lab.NewGrid3[float32](shape[0], shape[1], shape[2])
	require.NoError(t, err)
	src.FillRandom(seed)
	c := randomCoeffs(seed)
	dst := src.Clone()
	poisonInterior(dst)
	want := dst.Clone()
	require.NoError(t, lab.Advance(lab.SevenPoint[float32], want, src, c, steps))
	_, err = s.Advance(dst, src, c, steps)
	require.NoError(t, err, "%s on %v, %d steps", name, shape, steps)
	d, err := lab.Compare3(dst, want)
	require.NoError(t, err)
	if d.MaxAbs > tol3*float64(steps) {
		nz, ny, nx := shape[0], shape[1], shape[2]
		i, j, kk := d.Worst/(ny*nx), d.Worst/nx%ny, d.Worst%nx
		t.Fatalf("%s on %d×%d×%d, %d steps, seed %d: max |gpu − lab.Advance| = %g at (i,j,k) = (%d,%d,%d): got %g, want %g",
			name, nz, ny, nx, steps, seed, d.MaxAbs, i, j, kk, dst.Data[d.Worst], want.Data[d.Worst])
	}
	return d.MaxAbs
}

// envTestK limits the k of TestGPUTemporal's configurations, e.g.
// STENCIL_TEST_K=1,2,4 under compute-sanitizer.
const envTestK = "STENCIL_TEST_K"

// TestGPUTemporal checks k time steps per pass against k reference sweeps:
// N ∈ {3, 67, 68, 130} (or STENCIL_TEST_N) for every configuration, one pass and two (the
// passes ping-pong on the device), N = 512 at the default tile for every
// k, and grids whose sides differ.
func TestGPUTemporal(t *testing.T) {
	d := device(t)
	sizes := []int{3, 67, 68, 130, 512}
	if os.Getenv(envTestN) != "" {
		sizes = testSizes(t)
	}
	ks := map[int]bool{}
	if s := os.Getenv(envTestK); s != "" {
		for _, f := range strings.Split(s, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(f))
			require.NoError(t, err, "%s=%q", envTestK, s)
			ks[k] = true
		}
	}
	for _, o := range temporalConfigs {
		if len(ks) > 0 && !ks[o.Tile] {
			continue
		}
		k, err := d.Stencil3("temporal", o)
		require.NoError(t, err, optionsName(o))
		s := &sweeper{k: k}
		name := "temporal[" + optionsName(o) + "]"
		for _, n := range sizes {
			if n > 130 && (len(o.Defines) > 0 || n > 512) {
				continue // the variants' index arithmetic is exercised by the smaller sizes
			}
			for _, passes := range []int{1, 2} {
				if n > 130 && passes > 1 {
					continue
				}
				t.Run(fmt.Sprintf("%s/n=%d/passes=%d", name, n, passes), func(t *testing.T) {
					e := checkTemporal(t, name, s, [3]int{n, n, n}, passes)
					t.Logf("max |gpu − lab.Advance| = %.3g", e)
				})
			}
		}
		if os.Getenv(envTestN) == "" {
			for _, shape := range [][3]int{{5, 37, 132}, {40, 3, 9}, {3, 70, 68}, {4, 5, 2432}, {35, 33, 40}, {21, 130, 67}} {
				t.Run(fmt.Sprintf("%s/%v", name, shape), func(t *testing.T) { checkTemporal(t, name, s, shape, 1) })
			}
		}
		require.NoError(t, s.Close())
	}
}

// The temporal kernel's launch, worked out without a device: k is its
// tile (TB_K); the default 64×32 tile of input points keeps a halo of k
// rows and k points rounded up to a float4 on each side.
func TestTemporalPlan(t *testing.T) {
	p, err := PlanLaunch("temporal", Options{}, 512, 512, 512)
	require.NoError(t, err)
	assert.Equal(t, "temporal", p.Entry)
	assert.Contains(t, p.Defines, Define{"TB_K", "4"})
	assert.Contains(t, p.Defines, Define{"TB_BX", "64"})
	assert.Contains(t, p.Defines, Define{"TB_BY", "32"})
	assert.Contains(t, p.Defines, Define{"TB_MINB", "2"}, "two blocks a multiprocessor up to k = 4")
	assert.Contains(t, p.Defines, Define{"TB_V", "1"}, "march 1 up to k = 4")
	// 64 − 2·4 = 56 outputs a row: ceil(511/56) = 10 blocks cover x = 0 … 559;
	// 32 − 2·4 = 24 rows: ceil(510/24) = 22; one chunk of 510 planes.
	assert.Equal(t, [3]int{16, 32, 1}, p.Geometry.Block)
	assert.Equal(t, [3]int{10, 22, 1}, p.Geometry.Grid)
	assert.Equal(t, 3*4*64*(32+2)*4, p.Geometry.DynamicShared, "three planes a level with a row of padding above and below")
	assert.Equal(t, "k4:64x32x510", p.Tile)

	// k = 1 still keeps a whole float4 of halo in x; k = 8 two.
	p, err = PlanLaunch("temporal", Options{Tile: 1, Defines: []Define{{"TB_BX", "128"}, {"TB_BY", "8"}, {"TB_CZ", "7"}}}, 67, 40, 35)
	require.NoError(t, err)
	assert.Equal(t, [3]int{32, 8, 1}, p.Geometry.Block)
	assert.Equal(t, [3]int{1, 7, 10}, p.Geometry.Grid, "ceil(34/120), ceil(38/6), ceil(65/7)")
	assert.NotContains(t, p.Defines, Define{"TB_CZ", "7"}, "the chunk is a launch argument")
	p, err = PlanLaunch("temporal", Options{Tile: 8}, 100, 100, 100)
	require.NoError(t, err)
	assert.Contains(t, p.Defines, Define{"TB_MINB", "1"}, "one block a multiprocessor above k = 4")
	assert.Contains(t, p.Defines, Define{"TB_V", "2"}, "march 2 above k = 4")
	assert.Equal(t, 2*8*64*(32+2)*4, p.Geometry.DynamicShared, "two planes a level with a row of padding above and below")
	assert.Equal(t, [3]int{ceilDiv(99, 64-16), ceilDiv(98, 32-16), 1}, p.Geometry.Grid)
}

func TestTemporalOptionsRefused(t *testing.T) {
	var known []string
	for _, q := range temporalTable.params() {
		known = append(known, q.Name)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Tile: 4, Defines: []Define{{"TB_BX", "96"}}}, "TB_BX = 96 must be 4, 8, 16, 32, 64 or 128"},
		{Options{Tile: 4, Defines: []Define{{"TB_BY", "8"}}}, "leaves no output for k = 4"},
		{Options{Tile: 2, Defines: []Define{{"TB_BX", "8"}}}, "leaves no output for k = 2"},
		{Options{Tile: 17}, "at most 16"},
		{Options{Tile: 1, Defines: []Define{{"TB_BX", "16"}, {"TB_BY", "4"}}}, "need whole warps"},
		{Options{Tile: 4, Defines: []Define{{"TB_BX", "128"}, {"TB_BY", "64"}}}, "at most 1024"},
		{Options{Tile: 4, Defines: []Define{{"TB_L2PF", "x"}}}, "TB_L2PF = x must be an integer from 0 to 16"},
		{Options{Defines: []Define{{"TB_K", "4"}}}, "set TB_K through the tile"},
		{Options{Defines: []Define{{"TB_BXX", "64"}}}, `unknown define TB_BXX (did you mean "TB_BX"?) (known: ` + strings.Join(known, ", ") + ")"},
		{Options{Defines: []Define{{"FAST_BY", "4"}}}, "unknown define FAST_BY"},
	} {
		_, err := PlanLaunch("temporal", c.o, 64, 64, 64)
		assert.ErrorContains(t, err, c.want, "%+v", c.o)
	}
}

// The chunk of planes a temporal block covers pays 2k planes of halo: the
// longer k, the longer the chunk that fills the same GPU best.
func TestChooseChunkHalo(t *testing.T) {
	// 220 blocks a chunk on 132 slots: one chunk leaves 2 waves of 510+h
	// planes for 220·510 plane-blocks; two chunks of 255 planes take 440
	// blocks in 4 waves of 255+h: better with a short halo, worse with a
	// long one.
	eff := func(K, h int) float64 {
		cz := ceilDiv(510, K)
		return float64(220*510) / float64(ceilDiv(220*K, 132)*132*(cz+h))
	}
	for _, h := range []int{2, 16} {
		best := chooseChunkHalo(220, 510, 132, h)
		for K := 1; K <= 8; K++ {
			assert.GreaterOrEqual(t, eff(ceilDiv(510, best), h)+1e-12, eff(K, h), "halo %d: chunk %d against %d chunks", h, best, K)
		}
	}
	// fast's chunks cost its two halo planes: chooseChunk is as good as
	// every split of the planes into chunks.
	best := chooseChunk(220, 510, 132)
	for K := 1; K <= 8; K++ {
		assert.GreaterOrEqual(t, eff(ceilDiv(510, best), 2)+1e-12, eff(K, 2), "fast: chunk %d against %d chunks", best, K)
	}
}
