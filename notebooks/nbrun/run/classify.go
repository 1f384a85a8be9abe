package run

import (
	"fmt"
	"math"

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
	NumClasses
)

var classNames = [NumClasses]string{"right", "wrong value", "never written", "boundary, untouched", "boundary, overwritten"}

// String names the class, e.g. "never written".
func (c Class) String() string {
	if c < 0 || c >= NumClasses {
		return fmt.Sprintf("class(%d)", int(c))
	}
	return classNames[c]
}

// Counts are the number of output points of each class, indexed by Class.
type Counts [NumClasses]int

// clean reports whether no point is wrong, unwritten or a written boundary.
func (c Counts) clean() bool {
	return c[Wrong] == 0 && c[Unwritten] == 0 && c[BoundaryWritten] == 0
}

// CheckGrids returns an error unless r has an output and a reference to
// compare it with: two valid N×N×N grids (lab.Grid3.Validate) of one
// shape, as Sweep, Simulate and SimulateKernel return them. A Result put
// together by hand, or the zero Result of a refused run, fails it.
func (r Result) CheckGrids() error {
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
	if err := r.CheckGrids(); err != nil {
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
	if err := r.CheckGrids(); err != nil {
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
