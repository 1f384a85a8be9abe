package fig

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot/vg/draw"

	"stencillab.dev/lab"
)

// StepStyle is how a 3D step of the lab is drawn in every chart.
type StepStyle struct {
	Color  color.Color      // lines, markers and bars
	Glyph  draw.GlyphDrawer // markers of measured points
	Radius float64          // the marker's radius, points
	Title  string           // the name in legends
	Short  string           // the name where several share a label
	// SimTiles are the tiles the intensity chart simulates (none: the step
	// is not drawn there).
	SimTiles []int
}

// stepStyles is the one table of the figures' per-step styling, keyed by
// the lab's step names. Every registered 3D step needs a row (a test
// checks it); the memory kernels that measurements draw beside the steps
// have rows too.
var stepStyles = map[string]StepStyle{
	"reference":      {Color: Ink, Glyph: draw.CircleGlyph{}, Radius: 3.2, Title: "reference", Short: "reference"},
	"basic":          {Color: Vermillion, Glyph: draw.TriangleGlyph{}, Radius: 3.2, Title: "basic", Short: "basic", SimTiles: []int{8}},
	"tiled":          {Color: Blue, Glyph: draw.RingGlyph{}, Radius: 5.5, Title: "tiled", Short: "tiled", SimTiles: []int{4, 6, 8, 10}},
	"coarsened":      {Color: Green, Glyph: draw.BoxGlyph{}, Radius: 3.2, Title: "coarsened", Short: "coarsened", SimTiles: []int{8, 16, 32}},
	"register_tiled": {Color: Purple, Glyph: draw.CrossGlyph{}, Radius: 3.2, Title: "register tiled", Short: "reg. tiled", SimTiles: []int{8, 16, 32}},
	"fast":           {Color: Orange, Glyph: draw.PyramidGlyph{}, Radius: 3.2, Title: "fast", Short: "fast"},
	"temporal":       {Color: Sky, Glyph: draw.SquareGlyph{}, Radius: 3.2, Title: "temporal blocking", Short: "temporal"},
	"star13":         {Color: Yellow, Glyph: draw.PlusGlyph{}, Radius: 3.2, Title: "thirteen-point star", Short: "star13"},
	"temporal13":     {Color: Muted, Glyph: draw.RingGlyph{}, Radius: 3.2, Title: "thirteen-point temporal blocking", Short: "temporal13"},
	"copy":           {Color: Ink, Glyph: draw.CircleGlyph{}, Radius: 3.2, Title: "copy", Short: "copy"},
}

// ErrNoStyle is wrapped by the error of Style for a name without a row.
var ErrNoStyle = fmt.Errorf("no style for this step")

// Style returns the styling of a step, of a broken kernel of a step (its
// step's), or of a memory kernel drawn beside the steps ("copy"). A name
// with no row is an error that names it and the table to add it to, never
// a fallback.
func Style(name string) (StepStyle, error) {
	if s, ok := stepStyles[name]; ok {
		return s, nil
	}
	if _, st, err := lab.LookupKernel(name); err == nil {
		if s, ok := stepStyles[st.Name]; ok {
			return s, nil
		}
		name = st.Name
	}
	return StepStyle{}, fmt.Errorf("fig: step %q: %w: add a row to stepStyles in figures/fig/steps.go", name, ErrNoStyle)
}

// MissingStyles returns the registered 3D steps of the lab that have no
// row in the style table.
func MissingStyles() []string {
	var missing []string
	for _, name := range lab.Names3(nil) {
		if _, ok := stepStyles[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}

// titles joins the legend names of steps whose styles the caller has
// checked.
func titles(styles []StepStyle, short bool) string {
	var ns []string
	for _, s := range styles {
		if short {
			ns = append(ns, s.Short)
		} else {
			ns = append(ns, s.Title)
		}
	}
	return strings.Join(ns, ", ")
}

// KernelColor is the colour of a step (or of a broken kernel of a step) in
// every chart: its row of the style table.
func KernelColor(name string) (color.Color, error) {
	s, err := Style(name)
	if err != nil {
		return nil, err
	}
	return s.Color, nil
}
