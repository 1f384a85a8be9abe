package nbrun

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/vg"
	"stencillab.dev/figures/fig"
	"stencillab.dev/lab"
)

// Class says how one point of a kernel's output compares with the
// reference.
type Class int

// The classes of an output point.
const (
	Right           Class = iota // interior, within Tolerance of the reference
	Wrong                        // interior, written with another value (a computed NaN included)
	Unwritten                    // interior, never written
	Boundary                     // boundary, left alone as a sweep must
	BoundaryWritten              // boundary, written although a sweep must not
	numClasses
)

var classNames = [numClasses]string{"right", "wrong value", "never written", "boundary, untouched", "boundary, overwritten"}

// String names the class, e.g. "never written".
func (c Class) String() string {
	if c < 0 || c >= numClasses {
		return fmt.Sprintf("class(%d)", int(c))
	}
	return classNames[c]
}

// Counts are the number of output points of each class, indexed by Class.
type Counts [numClasses]int

// checkGrids returns an error unless r has an output and a reference to
// compare it with: two valid N×N×N grids (lab.Grid3.Validate) of one
// shape, as Sweep, Simulate and SimulateKernel return them. A Result put
// together by hand, or the zero Result of a refused run, fails it.
func (r Result) checkGrids() error {
	if r.Out == nil || r.Want == nil {
		return fmt.Errorf("nbrun: %s: no output to compare (the launch was refused?): %w", r.Step, lab.ErrSize)
	}
	if err := r.Out.SameShape(r.Want); err != nil {
		return fmt.Errorf("nbrun: %s: output against reference: %w", r.Step, err)
	}
	if !r.Out.IsCube() || r.Out.NX != r.NX {
		return fmt.Errorf("nbrun: %s: output %d×%d×%d is not the N×N×N cube of the run (N = %d): %w",
			r.Step, r.Out.NZ, r.Out.NY, r.Out.NX, r.NX, lab.ErrMismatch)
	}
	return nil
}

// Classify returns the class of the output point (i, j, k), 0 ≤ i, j, k <
// N; an error for a point outside the grid or a Result without an output
// and its reference.
func (r Result) Classify(i, j, k int) (Class, error) {
	if err := r.checkGrids(); err != nil {
		return 0, err
	}
	n := r.N()
	if i < 0 || j < 0 || k < 0 || i >= n || j >= n || k >= n {
		return 0, fmt.Errorf("nbrun: classify point (%d, %d, %d) of %s: outside the %d³ grid, each index must be 0 to %d: %w",
			i, j, k, r.Step, n, n-1, lab.ErrSize)
	}
	return r.classify(i, j, k), nil
}

// classify is Classify on a checked Result and point.
func (r Result) classify(i, j, k int) Class {
	n := r.N()
	got := r.Out.At(i, j, k)
	if i == 0 || j == 0 || k == 0 || i == n-1 || j == n-1 || k == n-1 {
		if Written(got) {
			return BoundaryWritten
		}
		return Boundary
	}
	if !Written(got) {
		return Unwritten
	}
	want := float64(r.Want.At(i, j, k))
	if d := math.Abs(float64(got) - want); d <= Tolerance { // false for a NaN
		return Right
	}
	return Wrong
}

// Count classifies every point of the output; an error for a Result
// without an output and its reference.
func (r Result) Count() (Counts, error) {
	var c Counts
	if err := r.checkGrids(); err != nil {
		return c, err
	}
	for i := range r.N() {
		for j := range r.N() {
			for k := range r.N() {
				c[r.classify(i, j, k)]++
			}
		}
	}
	return c, nil
}

// classStyle is the fill of each class in DiffMap: the right points pale,
// the mistakes strong.
var classStyle = [numClasses]color.Color{
	Right:           fig.PaleGreen,
	Wrong:           fig.Vermillion,
	Unwritten:       fig.Ink,
	Boundary:        color.White,
	BoundaryWritten: fig.Orange,
}

// Size of the figure DiffMap draws, for fig.Show.
const (
	DiffMapWidth  = fig.Wide
	DiffMapHeight = 3.6 * vg.Inch
)

// DiffMap draws the slice x = k of the output, z up and y to the right,
// one cell per point coloured by its Class, with a legend that counts the
// classes over the whole grid.
func DiffMap(r Result, k int) (*fig.Diagram, error) {
	if err := r.checkGrids(); err != nil {
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
			if r.classify(i, j, k) == Wrong {
				if d := math.Abs(float64(r.Out.At(i, j, k)) - float64(r.Want.At(i, j, k))); !math.IsNaN(d) && !math.IsInf(d, 0) {
					worst = math.Max(worst, d)
				}
			}
		}
	}
	for i := range n {
		for j := range n {
			c := r.classify(i, j, k)
			fill := classStyle[c]
			if c == Wrong && worst > 0 {
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
	for c := Class(0); c < numClasses; c++ {
		sw := 1.4
		d.Add(fig.Rect(legendX, y-sw/2, legendX+sw, y+sw/2).Filled(classStyle[c]).Stroked(fig.CellLine, 0.5))
		of := fmt.Sprintf(" of %d interior", interior)
		if c >= Boundary {
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
func ShowDiff(r Result) error {
	d, err := DiffMap(r, r.N()/2)
	if err != nil {
		return err
	}
	if err := fig.Show(d, DiffMapWidth, DiffMapHeight); err != nil {
		return fmt.Errorf("nbrun: show diff map of %s: %w", r.Step, err)
	}
	return nil
}
