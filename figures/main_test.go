package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/figures/fig"
)

var regen = flag.Bool("regen", false, "rewrite the committed figures and README.md with go run's output")

// Tolerances of the golden comparison: a pixel differs when one of its
// channels is off by more than pixelTol of 255, and a figure matches when
// at most maxDiffFrac of its pixels differ. Anti-aliasing and font
// rasterisation on another machine move a few edge pixels; a moved line,
// a changed colour or a new label changes far more.
const (
	pixelTol    = 32
	maxDiffFrac = 0.001
)

// TestCommittedFigures draws every figure and compares it with the PNG
// committed next to this file, and checks README.md. With -regen it
// rewrites them instead, exactly as go run ./figures does.
func TestCommittedFigures(t *testing.T) {
	if *regen {
		var out, errs bytes.Buffer
		require.Equal(t, 0, run([]string{"-out", "."}, &out, &errs), errs.String())
		return
	}
	in, source, err := loadInputs("", ".")
	require.NoError(t, err)
	for _, f := range fig.All() {
		t.Run(f.Name, func(t *testing.T) {
			d, err := f.Make(in)
			require.NoError(t, err)
			got, err := fig.Image(d, f.Width, f.Height, fig.DPI)
			require.NoError(t, err)
			raw, err := os.ReadFile(f.Name + ".png")
			require.NoError(t, err, "missing figure: run go run ./figures")
			want, err := png.Decode(bytes.NewReader(raw))
			require.NoError(t, err)
			frac, err := diffFraction(got, want)
			require.NoError(t, err, "%s: regenerate with go run ./figures", f.Name)
			if frac > maxDiffFrac {
				path := filepath.Join(os.TempDir(), "figures-"+f.Name+".png")
				if b, err := fig.PNG(d, f.Width, f.Height, fig.DPI); err == nil {
					_ = os.WriteFile(path, b, 0o644)
				}
				t.Errorf("%s: %.3f%% of the pixels differ from %s.png (allowed %.2f%%); the new drawing is in %s; if intended, run go run ./figures",
					f.Name, 100*frac, f.Name, 100*maxDiffFrac, path)
			}
			_, err = os.Stat(f.Name + ".svg")
			assert.NoError(t, err)
		})
	}
	want, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(readme(source)), "README.md is stale: run go run ./figures")
}

// diffFraction returns the fraction of pixels of a and b that differ by
// more than pixelTol in some channel.
func diffFraction(a, b image.Image) (float64, error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 1, fmt.Errorf("size %v differs from %v", a.Bounds().Size(), b.Bounds().Size())
	}
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	ao, bo := a.Bounds().Min, b.Bounds().Min
	differ := 0
	for y := range h {
		for x := range w {
			r1, g1, b1, a1 := a.At(ao.X+x, ao.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bo.X+x, bo.Y+y).RGBA()
			for _, d := range [4]int{int(r1>>8) - int(r2>>8), int(g1>>8) - int(g2>>8), int(b1>>8) - int(b2>>8), int(a1>>8) - int(a2>>8)} {
				if d > pixelTol || d < -pixelTol {
					differ++
					break
				}
			}
		}
	}
	return float64(differ) / float64(w*h), nil
}

func TestDiffFraction(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 10, 10))
	b := image.NewRGBA(image.Rect(0, 0, 10, 10))
	f, err := diffFraction(a, b)
	require.NoError(t, err)
	assert.Zero(t, f)
	b.Pix[0] = 200 // one pixel's red channel
	b.Pix[5] = 20  // under the tolerance
	f, err = diffFraction(a, b)
	require.NoError(t, err)
	assert.InDelta(t, 0.01, f, 1e-12)
	_, err = diffFraction(a, image.NewRGBA(image.Rect(0, 0, 5, 10)))
	assert.Error(t, err)
}

// TestDeterministic renders every figure twice, as go run ./figures would,
// and expects the same bytes.
func TestDeterministic(t *testing.T) {
	for _, f := range fig.All() {
		a, err := render(f, fig.Inputs{})
		require.NoError(t, err, f.Name)
		b, err := render(f, fig.Inputs{})
		require.NoError(t, err, f.Name)
		require.Len(t, b, len(a))
		for i := range a {
			assert.Equal(t, a[i].name, b[i].name)
			assert.True(t, bytes.Equal(a[i].data, b[i].data), "%s differs between two runs", a[i].name)
		}
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"-out", dir, "-only", "stencils_1d, sine"}, &out, &errs), errs.String())
	for _, name := range []string{"stencils_1d.svg", "stencils_1d.png", "sine.svg", "sine.png", "README.md"} {
		_, err := os.Stat(filepath.Join(dir, name))
		assert.NoError(t, err, name)
	}
	_, err := os.Stat(filepath.Join(dir, "intensity.png"))
	assert.True(t, os.IsNotExist(err), "-only drew more than asked")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(readme), dir, "the README must not name a machine path")

	errs.Reset()
	assert.Equal(t, 2, run([]string{"-only", "nope"}, &out, &errs))
	assert.Contains(t, errs.String(), "unknown figure")
	assert.Equal(t, 2, run([]string{"-bogus"}, &out, &errs))
	assert.Equal(t, 2, run([]string{"extra"}, &out, &errs))

	out.Reset()
	require.Equal(t, 0, run([]string{"-list"}, &out, &errs))
	for _, f := range fig.All() {
		assert.Contains(t, out.String(), f.Name)
	}

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"results": []}`), 0o644))
	errs.Reset()
	assert.Equal(t, 1, run([]string{"-out", dir, "-only", "bandwidth", "-bench", bad}, &out, &errs))
	assert.Contains(t, errs.String(), "no results")
}

func TestBenchFromFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bench.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"device":"NVIDIA H200","results":[
		{"kernel":"basic","n":512,"tile":8,"median_ms":0.37,"gbps":2900,"gflops":4700,"pct_copy":69,"copy_gbps":4200}]}`), 0o644))
	in, source, err := loadInputs(path, dir)
	require.NoError(t, err)
	require.NotNil(t, in.Bench)
	assert.Equal(t, "bench.json", source)
	assert.Contains(t, string(readme(source)), "measurements in `bench.json`")
	assert.Contains(t, string(readme("")), "model, not measured")
}
