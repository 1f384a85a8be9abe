package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
)

var regen = flag.Bool("regen", false, "rewrite the golden images under testdata/golden and the steps they were drawn with")

// goldenDir holds the golden images of TestCommittedFigures, one PNG per
// figure, and steps.txt, the lab's registered 3D steps they were drawn
// with. They are the test's own: the course's figures next to this file
// are what go run ./figures writes, and a new step that adds a line to a
// chart changes those, not the goldens.
const goldenDir = "testdata/golden"

// Tolerances of the golden comparison: a pixel differs when one of its
// channels is off by more than pixelTol of 255. A figure matches when at
// most maxDiffFrac of its pixels differ and no block of block×block pixels
// holds more than maxBlockDiff of them. Anti-aliasing and rasterisation on
// another machine move scattered edge pixels a little; a moved line, a
// changed colour or a changed digit leaves a dense patch, which the block
// count catches even when the patch is a tiny part of the figure.
const (
	pixelTol     = 32
	maxDiffFrac  = 0.001
	block        = 16
	maxBlockDiff = 24
)

// registeredSteps returns the lab's registered 3D steps, one a line, as
// steps.txt records them.
func registeredSteps() string { return strings.Join(lab.Names3(nil), "\n") + "\n" }

// TestCommittedFigures draws every figure and compares it with its golden
// image under testdata/golden; with -regen it rewrites the goldens (go
// test ./figures -regen), as gonum/plot's tests do. The goldens pin the
// steps they were drawn with: when the registry holds other steps (a step
// was added), a figure that the registry changes is reported and skipped,
// not failed, and -regen draws the goldens anew. It also checks that each
// course figure is committed and that README.md is current.
func TestCommittedFigures(t *testing.T) {
	in, source, err := loadInputs("", ".")
	require.NoError(t, err)
	if *regen {
		require.NoError(t, os.MkdirAll(goldenDir, 0o755))
		for _, f := range fig.All() {
			d, err := f.Make(in)
			require.NoError(t, err, f.Name)
			b, err := fig.PNG(d, f.Width, f.Height, fig.DPI)
			require.NoError(t, err, f.Name)
			require.NoError(t, os.WriteFile(filepath.Join(goldenDir, f.Name+".png"), b, 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(goldenDir, "steps.txt"), []byte(registeredSteps()), 0o644))
		return
	}
	pinned, err := os.ReadFile(filepath.Join(goldenDir, "steps.txt"))
	require.NoError(t, err, "missing %s/steps.txt: run go test ./figures -regen", goldenDir)
	sameSteps := string(pinned) == registeredSteps()
	for _, f := range fig.All() {
		t.Run(f.Name, func(t *testing.T) {
			d, err := f.Make(in)
			require.NoError(t, err)
			got, err := fig.Image(d, f.Width, f.Height, fig.DPI)
			require.NoError(t, err)
			raw, err := os.ReadFile(filepath.Join(goldenDir, f.Name+".png"))
			require.NoError(t, err, "missing golden: run go test ./figures -regen")
			want, err := png.Decode(bytes.NewReader(raw))
			require.NoError(t, err)
			frac, worst, err := diffFraction(got, want)
			if err == nil && frac <= maxDiffFrac && worst.n <= maxBlockDiff {
				return
			}
			path := filepath.Join(os.TempDir(), "figures-"+f.Name+".png")
			if b, err := fig.PNG(d, f.Width, f.Height, fig.DPI); err == nil {
				_ = os.WriteFile(path, b, 0o644)
			}
			if !sameSteps {
				t.Skipf("%s differs from its golden, drawn with the steps %q; the lab now registers %q: if the new step explains it, run go test ./figures -regen (the new drawing is in %s)",
					f.Name, strings.Fields(string(pinned)), lab.Names3(nil), path)
			}
			require.NoError(t, err, "%s: run go test ./figures -regen if intended", f.Name)
			t.Errorf("%s: %.3f%% of the pixels differ from its golden (allowed %.2f%%), %d of them in the %d×%d block at %v (allowed %d); the new drawing is in %s; if intended, run go test ./figures -regen",
				f.Name, 100*frac, 100*maxDiffFrac, worst.n, block, block, worst.at, maxBlockDiff, path)
		})
	}
	for _, f := range fig.All() {
		for _, ext := range []string{".png", ".svg"} {
			_, err := os.Stat(f.Name + ext)
			assert.NoError(t, err, "the course figure %s%s is committed: run go run ./figures", f.Name, ext)
		}
	}
	want, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Equal(t, string(want), string(readme(source)), "README.md is stale: run go run ./figures")
}

// The goldens were drawn with steps the lab still registers: recorded ⊆
// registered.
func TestGoldenStepsAreRegistered(t *testing.T) {
	pinned, err := os.ReadFile(filepath.Join(goldenDir, "steps.txt"))
	require.NoError(t, err)
	registered := lab.Names3(nil)
	for _, s := range strings.Fields(string(pinned)) {
		assert.Contains(t, registered, s, "the goldens were drawn with step %s, which the lab no longer registers: run go test ./figures -regen", s)
	}
}

// patch is the block of the comparison with the most differing pixels.
type patch struct {
	n  int         // differing pixels in it
	at image.Point // its top-left corner
}

// diffFraction returns the fraction of pixels of a and b that differ by
// more than pixelTol in some channel, and the block×block block with the
// most of them.
func diffFraction(a, b image.Image) (float64, patch, error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 1, patch{}, fmt.Errorf("size %v differs from %v", a.Bounds().Size(), b.Bounds().Size())
	}
	pa, pb := rgba(a), rgba(b)
	w, h := pa.Bounds().Dx(), pa.Bounds().Dy()
	bw := (w + block - 1) / block
	blocks := make([]int, bw*((h+block-1)/block))
	differ := 0
	for y := range h {
		for x := range w {
			i := y*pa.Stride + 4*x
			for c := range 4 {
				if d := int(pa.Pix[i+c]) - int(pb.Pix[i+c]); d > pixelTol || d < -pixelTol {
					differ++
					blocks[(y/block)*bw+x/block]++
					break
				}
			}
		}
	}
	var worst patch
	for i, n := range blocks {
		if n > worst.n {
			worst = patch{n: n, at: image.Pt(block*(i%bw), block*(i/bw))}
		}
	}
	return float64(differ) / float64(w*h), worst, nil
}

// rgba returns img as an *image.RGBA with origin (0, 0).
func rgba(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Bounds().Min == (image.Point{}) && r.Stride == 4*r.Bounds().Dx() {
		return r
	}
	r := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(r, r.Bounds(), img, img.Bounds().Min, draw.Src)
	return r
}

func TestDiffFraction(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 10, 10))
	b := image.NewRGBA(image.Rect(0, 0, 10, 10))
	f, worst, err := diffFraction(a, b)
	require.NoError(t, err)
	assert.Zero(t, f)
	assert.Zero(t, worst.n)
	b.Pix[0] = 200 // one pixel's red channel
	b.Pix[5] = 20  // under the tolerance
	b.Pix[4*(9*10+9)] = 255
	f, worst, err = diffFraction(a, b)
	require.NoError(t, err)
	assert.InDelta(t, 0.02, f, 1e-12)
	assert.Equal(t, 2, worst.n)
	assert.Equal(t, image.Point{}, worst.at)
	_, _, err = diffFraction(a, image.NewRGBA(image.Rect(0, 0, 5, 10)))
	assert.Error(t, err)
}

// TestDeterministic draws every figure twice, as go run ./figures would,
// and expects the same SVG bytes, and the same PNG bytes for a chart and a
// diagram (a PNG is a function of its pixels, which the golden test checks).
func TestDeterministic(t *testing.T) {
	for _, f := range fig.All() {
		var docs [2][]byte
		for i := range docs {
			d, err := f.Make(fig.Inputs{})
			require.NoError(t, err, f.Name)
			docs[i], err = fig.SVG(d, f.Width, f.Height)
			require.NoError(t, err, f.Name)
		}
		assert.True(t, bytes.Equal(docs[0], docs[1]), "%s.svg differs between two runs", f.Name)
		if f.Name != "intensity" && f.Name != "tiles" {
			continue
		}
		a, err := render(f, fig.Inputs{})
		require.NoError(t, err, f.Name)
		b, err := render(f, fig.Inputs{})
		require.NoError(t, err, f.Name)
		for i := range a {
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

// TestOutElsewhereReadsRepositoryData: -out names where the figures go, not
// where the data come from; the bandwidth chart is drawn from the
// repository's bench file, and the command says so.
func TestOutElsewhereReadsRepositoryData(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"-out", dir, "-only", "bandwidth"}, &out, &errs), errs.String())
	assert.Contains(t, out.String(), "bandwidth chart drawn from "+benchFile)
	assert.NotContains(t, errs.String(), "MODEL")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "measurements in `"+benchFile+"`")
}

// Every committed bench record names only kernels the lab registers:
// recorded ⊆ registered. A record need not hold every registered step (a
// step added after the run has none), so nothing asks for the converse.
func TestRecordedKernelsAreRegistered(t *testing.T) {
	files, err := filepath.Glob("data/*.json")
	require.NoError(t, err)
	registered := lab.Names3(nil)
	checked := 0
	for _, path := range files {
		b, err := fig.LoadBench(path)
		if err != nil || len(b.Results) == 0 {
			continue // not a bench record (ncu counts, peers, …)
		}
		checked++
		for _, r := range b.Results {
			assert.Contains(t, registered, r.Kernel, "%s records %s (%s), which the lab does not register", path, r.Kernel, r.Label)
		}
	}
	assert.Positive(t, checked, "no bench record under data/")
}
