package draw

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"stencillab.dev/figures/fig"
	"stencillab.dev/notebooks/nbrun/run"
)

// classStyle is the fill of each class in DiffMap: the right points pale,
// the mistakes strong.
var classStyle = [run.NumClasses]color.Color{
	run.Right:           fig.PaleGreen,
	run.Wrong:           fig.Vermillion,
	run.Unwritten:       fig.Ink,
	run.Boundary:        color.White,
	run.BoundaryWritten: fig.Orange,
}

// Size of the figure DiffMap draws, for fig.Show.
const (
	DiffMapWidth  = fig.Wide
	DiffMapHeight = 3.6 * vg.Inch
)

// DiffMap draws the slice x = k of the output, z up and y to the right,
// one cell per point coloured by its Class, with a legend that counts the
// classes over the whole grid.
func DiffMap(r run.Result, k int) (*fig.Diagram, error) {
	if err := r.CheckGrids(); err != nil {
		return nil, fmt.Errorf("nbrun: diff map: %w", err)
	}
	n := r.N()
	if k < 0 || k >= n {
		return nil, fmt.Errorf("nbrun: diff map of %s: slice x = %d is outside 0…%d", r.Step, k, n-1)
	}
	nf := float64(n)
	legendX := nf + 3
	title := fmt.Sprintf("%s: slice x = %d of the %d³ output", r.Step, k, n)
	d := fig.NewDiagram(title, -4, -4, legendX+0.85*nf, nf+0.5)
	// Wrong values are shaded by how far off they are, relative to the
	// largest finite difference in the slice: pale a little off, full
	// vermillion the furthest (and NaN).
	worst := 0.0
	for i := range n {
		for j := range n {
			if c, _ := r.Classify(i, j, k); c == run.Wrong { // i, j, k checked above
				if d := math.Abs(float64(r.Out.At(i, j, k)) - float64(r.Want.At(i, j, k))); !math.IsNaN(d) && !math.IsInf(d, 0) {
					worst = math.Max(worst, d)
				}
			}
		}
	}
	for i := range n {
		for j := range n {
			c, _ := r.Classify(i, j, k) // i, j, k checked above
			fill := classStyle[c]
			if c == run.Wrong && worst > 0 {
				d := math.Abs(float64(r.Out.At(i, j, k)) - float64(r.Want.At(i, j, k)))
				if !math.IsNaN(d) && !math.IsInf(d, 0) {
					fill = fig.Shade(fig.Vermillion, 0.7*(1-d/worst))
				}
			}
			x, y := float64(j), float64(i)
			d.Add(fig.Rect(x, y, x+1, y+1).Filled(fill).Stroked(fig.CellLine, 0.25))
		}
	}
	d.Add(fig.Rect(0, 0, nf, nf).Stroked(fig.Ink, 0.8))
	step := 8
	if n <= 16 {
		step = 4
	}
	for v := 0; v < n; v += step {
		fv := float64(v) + 0.5
		d.Add(fig.Label(fv, -1, 7, fmt.Sprint(v)).Colored(fig.Muted))
		d.Add(fig.Label(-1.2, fv, 7, fmt.Sprint(v)).Colored(fig.Muted))
	}
	d.Add(fig.Label(nf/2, -2.8, 9, "y (index j) →"))
	d.Add(fig.Label(-3.2, nf/2, 9, "z (index i) →").Rotated(math.Pi / 2))

	all, err := r.Count()
	if err != nil {
		return nil, fmt.Errorf("nbrun: diff map: %w", err)
	}
	interior := (n - 2) * (n - 2) * (n - 2)
	d.Add(fig.Label(legendX, nf-0.5, 9, "whole grid").Align(0, -0.5).Bold())
	y := nf - 3
	for c := run.Class(0); c < run.NumClasses; c++ {
		sw := 1.4
		d.Add(fig.Rect(legendX, y-sw/2, legendX+sw, y+sw/2).Filled(classStyle[c]).Stroked(fig.CellLine, 0.5))
		of := fmt.Sprintf(" of %d interior", interior)
		if c >= run.Boundary {
			of = fmt.Sprintf(" of %d boundary", n*n*n-interior)
		}
		text := fmt.Sprintf("%s: %d%s", c, all[c], of)
		label := fig.Label(legendX+sw+0.8, y, 8.5, text).Align(0, -0.5)
		if all[c] == 0 {
			label = label.Colored(fig.Muted)
		}
		d.Add(label)
		y -= 2.6
	}
	d.Add(fig.Label(legendX, y-0.4, 8, fmt.Sprintf("largest |out − reference|: %s", shortErr(r.Diff.MaxAbs))).Align(0, -0.5).Colored(fig.Muted))
	if worst > 0 {
		d.Add(fig.Label(legendX, y-2.6, 8, "a wrong value is darker the further off it is").Align(0, -0.5).Colored(fig.Muted))
	}
	return d, nil
}

// shortErr formats the largest difference from the reference. The
// comparison reports +Inf when an output is NaN, never written or computed
// from values nobody loaded: no difference can be given then.
func shortErr(v float64) string {
	switch {
	case math.IsInf(v, 1) || math.IsNaN(v):
		return "none, some outputs are NaN"
	case v == 0:
		return "0"
	}
	return fmt.Sprintf("%.2g", v)
}

// ShowDiff draws DiffMap of the middle slice, x = N/2, in the notebook.
func ShowDiff(r run.Result) error {
	d, err := DiffMap(r, r.N()/2)
	if err != nil {
		return err
	}
	if err := fig.Show(d, DiffMapWidth, DiffMapHeight); err != nil {
		return fmt.Errorf("nbrun: show diff map of %s: %w", r.Step, err)
	}
	return nil
}
