package grading

import (
	"fmt"
	"math"

	"github.com/stretchr/testify/assert"
)

// Tol is a tolerance: got is accepted when |got − want| ≤ Abs + Rel·|want|.
type Tol struct {
	Abs, Rel float64
}

// Float64 is the tolerance for results computed in float64.
var Float64 = Tol{Abs: 1e-12, Rel: 1e-9}

// Float32 is the tolerance for results computed in float32.
var Float32 = Tol{Abs: 1e-5, Rel: 1e-5}

func (tol Tol) close(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol.Abs+tol.Rel*math.Abs(want)
}

// Variant is a known wrong answer with the hint that names the mistake:
// either the values it gives, or a test on the values that were got.
type Variant struct {
	Hint   string
	Values []float64                // the wrong answer, or nil
	Match  func(got []float64) bool // a test of the answer, or nil
}

// Diff compares a result with the expected one, point by point.
type Diff struct {
	What  string           // what is compared, e.g. "Sweep(dst, src, c)"
	Label func(int) string // the name of a point from its flat index; nil gives "[i]"
	Tol   Tol              // zero gives Float64
	Only  func(int) bool   // the points to compare; nil compares all
}

// Check compares got with want and fails t with a message naming the first
// wrong point, and the mistake when got matches a variant. It returns
// whether got is right.
func (d Diff) Check(t *T, got, want []float64, variants ...Variant) bool {
	tol := d.Tol
	if tol == (Tol{}) {
		tol = Float64
	}
	label := d.Label
	if label == nil {
		label = func(i int) string { return fmt.Sprintf("[%d]", i) }
	}
	if len(got) != len(want) {
		return assert.Failf(t, "wrong length", "%s: got %d values, want %d", d.What, len(got), len(want))
	}
	first, wrong, unwritten := -1, 0, 0
	for i := range want {
		if d.Only != nil && !d.Only(i) {
			continue
		}
		if tol.close(got[i], want[i]) {
			continue
		}
		if first < 0 {
			first = i
		}
		wrong++
		if math.IsNaN(got[i]) {
			unwritten++
		}
	}
	if first < 0 {
		return true
	}
	hint := ""
	for _, v := range variants {
		if v.matches(got, want, tol, d.Only) {
			hint = " — " + v.Hint
			break
		}
	}
	var msg string
	switch {
	case unwritten == wrong:
		msg = fmt.Sprintf("%s: %d point%s never written (still NaN), the first at %s", d.What, wrong, plural(wrong), label(first))
		if hint == "" {
			hint = " — does every output point get a thread that writes it?"
		}
	case math.IsNaN(got[first]):
		msg = fmt.Sprintf("%s: wrong value at %s: never written (still NaN), want %.6g", d.What, label(first), want[first])
		if wrong > 1 {
			msg += fmt.Sprintf(" (%d wrong points, %d never written)", wrong, unwritten)
		}
	default:
		msg = fmt.Sprintf("%s: wrong value at %s: got %.6g, want %.6g", d.What, label(first), got[first], want[first])
		if wrong > 1 {
			msg += fmt.Sprintf(" (%d wrong points)", wrong)
		}
	}
	return assert.Fail(t, "wrong values", msg+hint)
}

func (v Variant) matches(got, want []float64, tol Tol, only func(int) bool) bool {
	if v.Match != nil {
		return v.Match(got)
	}
	if len(v.Values) != len(got) {
		return false
	}
	differs := false
	for i := range got {
		if only != nil && !only(i) {
			continue
		}
		if !tol.close(got[i], v.Values[i]) {
			return false
		}
		if !tol.close(v.Values[i], want[i]) {
			differs = true
		}
	}
	return differs
}

// Scalar is a known wrong value of a number with the hint that names the
// mistake.
type Scalar struct {
	Hint  string
	Value float64
}

// Number compares one number with the expected one and fails t with a
// message naming the mistake when got matches a known wrong value.
func Number(t *T, what string, got, want float64, tol Tol, variants ...Scalar) bool {
	if tol == (Tol{}) {
		tol = Float64
	}
	if tol.close(got, want) {
		return true
	}
	hint := ""
	for _, v := range variants {
		if tol.close(got, v.Value) && !tol.close(v.Value, want) {
			hint = " — " + v.Hint
			break
		}
	}
	return assert.Fail(t, "wrong value", fmt.Sprintf("%s: got %.6g, want %.6g%s", what, got, want, hint))
}

// Float64s converts a slice of float32 or float64 to float64.
func Float64s[F ~float32 | ~float64](s []F) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// Label2 names the point of flat index idx of a grid with rows of nx points
// "(j,k)".
func Label2(nx int) func(int) string {
	return func(idx int) string { return fmt.Sprintf("(j=%d, k=%d)", idx/nx, idx%nx) }
}

// Label3 names the point of flat index idx of an ny×nx-plane grid
// "(i,j,k)".
func Label3(ny, nx int) func(int) string {
	return func(idx int) string {
		return fmt.Sprintf("(i=%d, j=%d, k=%d)", idx/(ny*nx), idx/nx%ny, idx%nx)
	}
}
