package draw

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
	"stencillab.dev/notebooks/nbrun/data"
	"stencillab.dev/notebooks/nbrun/model"
	"stencillab.dev/notebooks/nbrun/run"
)

// loadsPerAxis counts the (block, thread) pairs along one axis of a tiled
// launch whose point lies in the grid: the kernel loads one element for
// each such pair in all three axes.
func loadsPerAxis(n, tile int) int {
	out := tile - 2
	blocks := (n-2)/out + 1
	count := 0
	for b := range blocks {
		for t := range tile {
			if p := b*out + t - 1; p >= 0 && p < n {
				count++
			}
		}
	}
	return count
}

func broken(t *testing.T, name string) lab.Broken {
	t.Helper()
	for _, b := range lab.BrokenKernels() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no broken kernel %s", name)
	return lab.Broken{}
}

func TestDiffMap(t *testing.T) {
	b := broken(t, "coarsened_loop_closes_early")
	r, _ := run.SimulateKernel(b.Name, b.Kernel, 34, 0)
	d, err := DiffMap(r, 17)
	require.NoError(t, err)
	g := d.Geometry()
	assert.Contains(t, g, "never written: 31744 of 32768 interior")
	assert.Contains(t, g, "wrong value: 1024 of 32768 interior")
	img, err := fig.Image(d, DiffMapWidth, DiffMapHeight, 60)
	require.NoError(t, err)
	assert.Positive(t, img.Bounds().Dx())

	assert.Contains(t, g, "darker the further off")

	// NaN outputs have no distance to shade by.
	b = broken(t, "tiled_no_barrier")
	nan, _ := run.SimulateKernel(b.Name, b.Kernel, 20, 8)
	d, err = DiffMap(nan, 10)
	require.NoError(t, err)
	assert.NotContains(t, d.Geometry(), "darker the further off")

	// Swapped coefficients leave errors of every size: many shades.
	b = broken(t, "coarsened_c3_c4_swapped")
	sw, _ := run.SimulateKernel(b.Name, b.Kernel, 20, 8)
	d, err = DiffMap(sw, 10)
	require.NoError(t, err)
	fills := map[string]bool{}
	for _, line := range strings.Split(d.Geometry(), "\n") {
		if _, f, ok := strings.Cut(line, "fill="); ok && strings.HasPrefix(line, "rect") {
			fills[strings.Fields(f)[0]] = true
		}
	}
	assert.Greater(t, len(fills), 10, "shades of vermillion")
	_, err = DiffMap(r, 34)
	assert.Error(t, err)
	_, err = DiffMap(run.Result{Result: lab.Result{Step: "refused"}}, 0)
	assert.Error(t, err)
	assert.NoError(t, ShowDiff(r), "outside a notebook Show renders and returns")
}

func TestIntensitySweep(t *testing.T) {
	pts, err := model.IntensitySweep("tiled", 20, []int{4, 6, 8})
	require.NoError(t, err)
	require.Len(t, pts, 3)
	for _, p := range pts {
		l := float64(loadsPerAxis(20, p.T))
		assert.InDelta(t, 13*18.0*18*18/(4*l*l*l), p.Counted, 1e-12, "T=%d", p.T)
		assert.InDelta(t, p.Counted, p.Model, 1e-12)
		f := 1 - 2/float64(p.T)
		assert.InDelta(t, 3.25*f*f*f, p.Slide, 1e-12)
		assert.Less(t, p.Model, p.Slide, "the face blocks load partial tiles for fewer outputs")
	}
	p, err := IntensityPlot("tiled", 20, pts)
	require.NoError(t, err)
	_, err = fig.Image(p, fig.Wide, fig.Tall, 60)
	require.NoError(t, err)
	_, err = IntensityPlot("tiled", 20, nil)
	assert.Error(t, err)
	_, err = model.IntensitySweep("tiled", 20, []int{11})
	assert.ErrorIs(t, err, sim.ErrLimit)
}

// recorded returns the runs of notebook 07 from the committed bench file.
func recorded(t *testing.T) (*fig.Bench, []data.HopperRun) {
	t.Helper()
	b, err := data.MeasuredBench()
	require.NoError(t, err)
	return b, data.RecordedRuns(b)
}
