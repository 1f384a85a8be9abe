package fig

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

var regen = flag.Bool("regen", false, "rewrite the geometry goldens in testdata")

// diagrams returns every figure of All that is a single Diagram, drawn.
func diagrams(t *testing.T) map[string]*Diagram {
	t.Helper()
	out := map[string]*Diagram{}
	for _, f := range All() {
		d, err := f.Make(Inputs{})
		require.NoError(t, err, f.Name)
		if dg, ok := d.(*Diagram); ok {
			out[f.Name] = dg
		}
	}
	return out
}

// TestGeometryGolden compares each schematic drawing's shapes, as text,
// with testdata/NAME.geometry.golden: a change in any coordinate, colour
// or label shows, whatever the fonts or rasteriser.
func TestGeometryGolden(t *testing.T) {
	for name, d := range diagrams(t) {
		path := filepath.Join("testdata", name+".geometry.golden")
		got := d.Geometry()
		if *regen {
			require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			continue
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err, "missing golden: run go test ./figures/... -regen")
		assert.Equal(t, string(want), got, "%s: geometry changed; if intended, rerun with -regen", name)
	}
}

// TestTextPlacement checks, for every diagram at its size in All, that each
// text lies inside the canvas and that no two texts overlap.
func TestTextPlacement(t *testing.T) {
	const slack = 0.5 // points
	ds := diagrams(t)
	for _, f := range All() {
		d, ok := ds[f.Name]
		if !ok {
			continue
		}
		boxes := d.TextBoxes(f.Width, f.Height)
		for i, b := range boxes {
			assert.True(t, b.Box.Min.X >= -slack && b.Box.Min.Y >= -slack && b.Box.Max.X <= f.Width+slack && b.Box.Max.Y <= f.Height+slack,
				"%s: text %q at %v leaves the %v×%v canvas", f.Name, b.Text, b.Box, f.Width, f.Height)
			for _, o := range boxes[i+1:] {
				overlap := b.Box.Min.X < o.Box.Max.X-slack && o.Box.Min.X < b.Box.Max.X-slack &&
					b.Box.Min.Y < o.Box.Max.Y-slack && o.Box.Min.Y < b.Box.Max.Y-slack
				assert.False(t, overlap, "%s: texts %q and %q overlap", f.Name, b.Text, o.Text)
			}
		}
	}
}

// drawnStrings draws a figure on a recording canvas and returns every
// string it writes, with its font: titles, labels, ticks, legends and the
// figure's own text.
func drawnStrings(t *testing.T, d Drawer, w, h vg.Length) []*recorder.FillString {
	t.Helper()
	var rec recorder.Canvas
	require.NoError(t, drawSafe(d, draw.NewCanvas(&rec, w, h)))
	var out []*recorder.FillString
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok {
			out = append(out, fs)
		}
	}
	return out
}

// TestGlyphs checks that the fonts have a glyph for every character every
// figure writes: a missing one would draw as a blank.
func TestGlyphs(t *testing.T) {
	var buf sfnt.Buffer
	for _, f := range All() {
		d, err := f.Make(Inputs{})
		require.NoError(t, err, f.Name)
		strs := drawnStrings(t, d, f.Width, f.Height)
		require.NotEmpty(t, strs, f.Name)
		for _, s := range strs {
			face := font.DefaultCache.Lookup(s.Font, s.Size)
			require.NotNil(t, face.Face, "%s: font %s", f.Name, s.Font.Name())
			assert.Equal(t, "Liberation", string(s.Font.Typeface), "%s: %q is not in the lab's font", f.Name, s.String)
			for _, r := range s.String {
				g, err := face.Face.GlyphIndex(&buf, r)
				require.NoError(t, err)
				assert.NotZero(t, g, "%s: the font has no glyph for %q in %q", f.Name, r, s.String)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	f, err := Lookup("intensity")
	require.NoError(t, err)
	assert.Equal(t, "Intensity", f.Func)
	_, err = Lookup("nope")
	require.ErrorIs(t, err, ErrUnknownFigure)
	assert.Contains(t, err.Error(), "sine")

	seen := map[string]bool{}
	for _, f := range All() {
		assert.False(t, seen[f.Name], "duplicate figure %s", f.Name)
		seen[f.Name] = true
		assert.NotNil(t, f.Make, f.Name)
		assert.NotEmpty(t, f.About, f.Name)
		assert.Equal(t, strings.ToLower(f.Name), f.Name)
	}
	for _, ch := range []string{"8.1", "8.2", "8.3", "8.4", "8.5", "8.7", "8.9", "8.11"} {
		found := false
		for _, f := range All() {
			found = found || f.Chapter == ch
		}
		assert.True(t, found, "no figure follows Fig. %s", ch)
	}
}

func TestRenderErrors(t *testing.T) {
	d := NewDiagram("x", 0, 0, 1, 1)
	for _, c := range []struct {
		w, h vg.Length
		dpi  int
	}{{0, 1, 72}, {1, -1, 72}, {MaxSide * 2, 10, 72}, {100, 100, 0}, {100, 100, 5000}} {
		_, err := PNG(d, c.w, c.h, c.dpi)
		assert.ErrorIs(t, err, ErrRender, "%v", c)
	}
	_, err := SVG(nil, 100, 100)
	assert.ErrorIs(t, err, ErrRender)
	_, err = Image(d, 0, 0, 72)
	assert.ErrorIs(t, err, ErrRender)

	// A panic inside gonum/plot is an error, not a crash.
	p := NewPlot("log of nothing", "", "")
	p.Y.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = -1, 1
	_, err = PNG(p, 100, 100, 72)
	assert.ErrorIs(t, err, ErrRender)
}

func TestShowOutsideNotebook(t *testing.T) {
	d := NewDiagram("x", 0, 0, 1, 1)
	assert.NoError(t, Show(d, 100, 100))
	assert.NoError(t, ShowSVG(d, 100, 100))
	assert.ErrorIs(t, Show(d, 0, 100), ErrRender)
	assert.ErrorIs(t, ShowSVG(nil, 100, 100), ErrRender)
}

func TestPNGDeterministic(t *testing.T) {
	d, err := Stencils1D()
	require.NoError(t, err)
	a, err := PNG(d, 300, 200, 72)
	require.NoError(t, err)
	b, err := PNG(d, 300, 200, 72)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	sa, err := SVG(d, 300, 200)
	require.NoError(t, err)
	sb, err := SVG(d, 300, 200)
	require.NoError(t, err)
	assert.Equal(t, sa, sb)
	assert.Contains(t, string(sa), "<svg")
}
