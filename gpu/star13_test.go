package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// distinctCoefs returns the distinct coefficients of the step's star, as
// its kernel takes them.
func distinctCoefs(s lab.Step3) coefs {
	if s.StarRadius() == lab.Radius13 {
		return thirteenCoefs(lab.DistinctCoeffs13())
	}
	return sevenCoefs(lab.DistinctCoeffs())
}

// randomCoeffs13 returns thirteen distinct coefficients drawn afresh: the
// distinct defaults shuffled, each perturbed by up to 5%.
func randomCoeffs13(seed uint64) lab.Coeffs13 {
	r := rand.New(rand.NewPCG(seed, 13))
	c := lab.DistinctCoeffs13()
	r.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	for i := range c {
		c[i] *= 1 + 0.05*(2*r.Float64()-1)
	}
	return c
}

// The thirteen-point steps are the lab's steps of radius 2 with device
// code; the seven-point lists leave them out, and the seven-point runs of
// lab refuse them instead of passing them seven coefficients.
func TestSteps13(t *testing.T) {
	require.NotEmpty(t, Steps13())
	for _, name := range Steps13() {
		s, err := lab.LookupStep3(name)
		require.NoError(t, err)
		assert.Equal(t, lab.Radius13, s.StarRadius(), name)
		assert.NotContains(t, Steps3(), name)
		assert.NotContains(t, Sweeps3(), name)
		_, err = backend{}.Runner(s, lab.Config{Tile: s.DefaultTile})
		require.Error(t, err, name)
		assert.NotErrorIs(t, err, ErrNoGPU, "refused before a device is asked for")
		assert.ErrorContains(t, err, "lab.Coeffs13")
	}
}

// Each thirteen-point launcher passes its kernel the grids, the sides, the
// thirteen coefficients in lab.Coeffs13's order and the planes of a block,
// with the tuning's launch; a launch with seven coefficients, or a
// seven-point step's with thirteen, is refused naming the star.
func TestThirteenPointLaunchersOnTheFake(t *testing.T) {
	f, d := withFake(t)
	c13 := lab.DistinctCoeffs13()
	for _, step := range Steps13() {
		k, err := d.Stencil3(step, Options{})
		require.NoError(t, err, step)
		for _, shape := range [][3]int{{12, 10, 512}, {9, 37, 130}, {5, 5, 5}} {
			nz, ny, nx := shape[0], shape[1], shape[2]
			src, err := d.Alloc(nz * ny * nx)
			require.NoError(t, err)
			dst, err := d.Alloc(nz * ny * nx)
			require.NoError(t, err)
			f.Reset()
			got, err := k.Launch13(dst, src, nz, ny, nx, c13)
			require.NoError(t, err, "%s %v", step, shape)
			l := last(t, f)
			assert.Equal(t, k.cfg.desc.CUDA.Entry, l.Entry.Name, step)
			want := []any{src.ptr, dst.ptr, int32(nz), int32(ny), int32(nx)}
			for _, c := range c13 {
				want = append(want, float32(c))
			}
			want = append(want, int32(got.Planes))
			assert.Equal(t, want, l.Args, "%s %v", step, shape)
			assert.Equal(t, got.Grid, l.Grid, step)
			assert.Equal(t, got.Block, l.Block, step)
			assert.Equal(t, got.DynamicShared, l.Shared, step)
			// The blocks cover every point two from every face once.
			assert.GreaterOrEqual(t, got.Grid[2]*got.Planes, nz-4, "%s %v: planes", step, shape)
			assert.Less(t, (got.Grid[2]-1)*got.Planes, nz-4, "%s %v: no block without a plane", step, shape)

			_, err = k.Launch(dst, src, nz, ny, nx, lab.DistinctCoeffs())
			require.Error(t, err, step)
			assert.ErrorContains(t, err, "takes 13 coefficients")
			assert.Empty(t, f.Launches(), "%s: nothing launched with seven coefficients", step)
			require.NoError(t, src.Free())
			require.NoError(t, dst.Free())
		}
		src, err := d.Alloc(4 * 64 * 64)
		require.NoError(t, err)
		_, err = k.Launch13(src, src, 4, 64, 64, c13)
		assert.ErrorIs(t, err, lab.ErrSize, "%s: a side below 5", step)
		require.NoError(t, src.Free())
	}
	k, err := d.Stencil3("fast", Options{})
	require.NoError(t, err)
	a, err := d.Alloc(8 * 8 * 8)
	require.NoError(t, err)
	b, err := d.Alloc(8 * 8 * 8)
	require.NoError(t, err)
	_, err = k.Launch13(b, a, 8, 8, 8, c13)
	assert.ErrorContains(t, err, "takes 7 coefficients")
	assert.Empty(t, f.Launches())
}

// The single sweep's blocks own S13_BX × S13_BY outputs from (2, 2) on and
// cz planes from plane 2 on; temporal13's own its tile less 2k on each
// side. Every point two from every face is computed by exactly one block.
func TestThirteenPointGeometryCoversInterior(t *testing.T) {
	own := func(n, blocks, per int) []int {
		count := make([]int, n)
		for b := range blocks {
			for o := 2 + b*per; o < 2+(b+1)*per && o < n-2; o++ {
				count[o]++
			}
		}
		return count
	}
	check := func(what string, n, blocks, per int) {
		t.Helper()
		count := own(n, blocks, per)
		for o := 2; o < n-2; o++ {
			if !assert.Equal(t, 1, count[o], "%s: n = %d: index %d", what, n, o) {
				return
			}
		}
		assert.Less(t, 2+(blocks-1)*per, n-2, "%s: n = %d: the last block owns a point", what, n)
	}
	for _, n := range []int{5, 6, 7, 31, 33, 67, 130, 257} {
		for _, by := range []int{2, 8, 16} {
			c, err := newConfig3("star13", Options{Defines: []Define{{"S13_BY", fmt.Sprint(by)}}})
			require.NoError(t, err)
			for _, cz := range []int{0, 1, 7} {
				g := c.geometry(n+1, n+2, n, cz)
				check("star13 x", n, g.Grid[0], g.Block[0])
				check("star13 y", n+2, g.Grid[1], g.Block[1])
				check("star13 z", n+1, g.Grid[2], g.Planes)
			}
		}
		for k := 1; k <= 3; k++ {
			c, err := newConfig3("temporal13", Options{Tile: k})
			require.NoError(t, err)
			g := c.geometry(n, n, n+3, 5)
			p := c.tuned.(*temporal13Params)
			ox, oy := p.outputs()
			assert.Equal(t, 32-4*k, ox)
			assert.Equal(t, 32-4*k, oy)
			assert.Equal(t, 4*3*k*32*32, g.DynamicShared)
			check("temporal13 x", n+3, g.Grid[0], ox)
			check("temporal13 y", n, g.Grid[1], oy)
			check("temporal13 z", n, g.Grid[2], g.Planes)
		}
	}
	_, err := newConfig3("temporal13", Options{Tile: 7})
	assert.ErrorContains(t, err, "at most 6")
	_, err = newConfig3("temporal13", Options{Tile: 3, Defines: []Define{{"T13_BX", "12"}, {"T13_BY", "64"}}})
	assert.ErrorContains(t, err, "leaves no output")
	_, err = newConfig3("star13", Options{Defines: []Define{{"S13_BX", "33"}}})
	assert.ErrorContains(t, err, "whole warps")
}

// checkThirteen runs steps time steps of a thirteen-point step on a random
// grid of the shape with random distinct coefficients and compares the
// whole grid with lab.Advance13 on the CPU: the boundary shell kept, every
// other point within float32 rounding.
func checkThirteen(t *testing.T, d *Device, k *Stencil3, shape [3]int, steps int) float64 {
	t.Helper()
	nz, ny, nx := shape[0], shape[1], shape[2]
	seed := freshSeed()
	c := randomCoeffs13(seed)
	in, err := lab.NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 3))
	for i := range in.Data {
		in.Data[i] = float32(2*r.Float64() - 1)
	}
	a, err := d.Alloc(len(in.Data))
	require.NoError(t, err)
	defer a.Free()
	b, err := d.Alloc(len(in.Data))
	require.NoError(t, err)
	defer b.Free()
	require.NoError(t, a.Upload(0, in.Data))
	require.NoError(t, b.Upload(0, in.Data))
	out, _, err := k.Advance13(a, b, nz, ny, nx, c, steps)
	require.NoError(t, err)
	got := in.Clone()
	require.NoError(t, out.Download(0, got.Data))
	want := in.Clone()
	require.NoError(t, lab.Advance13(want, in, c, steps))
	diff, err := lab.Compare3(got, want)
	require.NoError(t, err)
	// float32 rounding of thirteen terms a step, the values growing by up
	// to the coefficients' sum a step.
	tol := 2e-6 * float64(steps) * math.Max(1, lab.LargestFinite(want.Data))
	if diff.MaxAbs > tol || math.IsNaN(diff.MaxAbs) {
		i, j, kk := diff.Worst/(ny*nx), diff.Worst/nx%ny, diff.Worst%nx
		t.Fatalf("%s on %d×%d×%d, %d steps, seed %d: max |gpu − lab.Advance13| = %g at (%d,%d,%d): got %g, want %g",
			k.Step(), nz, ny, nx, steps, seed, diff.MaxAbs, i, j, kk, got.Data[diff.Worst], want.Data[diff.Worst])
	}
	return diff.MaxAbs
}

// TestGPUThirteenPoint checks the thirteen-point steps against the CPU
// reference on whole grids of odd shapes, random inputs and thirteen
// random distinct coefficients: the single sweep for one and three time
// steps at several chunkings and blocks, the temporal step for one and
// two passes at k = 1 … 4.
func TestGPUThirteenPoint(t *testing.T) {
	d := device(t)
	shapes := [][3]int{{5, 5, 5}, {6, 7, 9}, {37, 33, 70}, {67, 67, 67}, {21, 130, 67}, {70, 3 + 2, 131}, {40, 41, 129}}
	if testing.Short() {
		shapes = shapes[:5]
	}
	type cfg struct {
		step string
		o    Options
	}
	configs := []cfg{
		{"star13", Options{}}, {"star13", Options{Tile: 1}}, {"star13", Options{Tile: 7}},
		{"star13", Options{Defines: []Define{{"S13_BX", "64"}, {"S13_BY", "4"}}}},
		{"temporal13", Options{Tile: 1}}, {"temporal13", Options{}}, {"temporal13", Options{Tile: 3}},
		{"temporal13", Options{Tile: 4, Defines: []Define{{"T13_CZ", "6"}}}},
		{"temporal13", Options{Tile: 2, Defines: []Define{{"T13_BX", "64"}, {"T13_BY", "16"}}}},
	}
	for _, c := range configs {
		if msg := withheld(t, c.step); msg != "" {
			t.Run(c.step+"["+optionsName(c.o)+"]", func(t *testing.T) { t.Skip(msg) })
			continue
		}
		k, err := d.Stencil3(c.step, c.o)
		require.NoError(t, err, "%s %+v", c.step, c.o)
		per := k.StepsPerPass()
		for _, shape := range shapes {
			for _, passes := range []int{1, 3} {
				name := fmt.Sprintf("%s[%s]/%v/steps=%d", c.step, optionsName(c.o), shape, passes*per)
				t.Run(name, func(t *testing.T) {
					e := checkThirteen(t, d, k, shape, passes*per)
					t.Logf("max |gpu − lab.Advance13| = %.3g", e)
				})
			}
		}
	}
}
