package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clashTest is a grade_test.go whose call passes Intensity by a struct
// key of the same name.
const clashTest = `package x

func TestGrade(t *testing.T) { grading.Test(t, checks.Roofline(checks.RooflineFuncs{Intensity: Intensity})) }
`

// A second exercise that declares a function an earlier cell declares is
// refused, naming both, instead of being renamed behind the author's back.
func TestANameAnEarlierExerciseDeclaresIsRefused(t *testing.T) {
	src := []byte("package x\n\n// Intensity is this exercise's own.\nfunc Intensity(T int) (float64, error) { return 0, nil }\n")
	ex := exercise{ID: "99_roofline", File: "roofline.go"}
	taken := map[string]string{"Intensity": "04_intensity's intensity.go"}
	err := ex.derive(src, []byte(clashTest), taken)
	require.Error(t, err)
	assert.ErrorContains(t, err, "roofline.go declares Intensity, which 04_intensity's intensity.go declares too")
	assert.ErrorContains(t, err, notebookNameDirective)
}

// The notebook name a declaration asks for is given by the syntax tree:
// the function, its uses and its doc comment's first word change; a field,
// a method, a selector, a local and a composite literal's key of the same
// name keep theirs, and the directive's lines leave the cell.
func TestTheNotebookNameFollowsTheSyntaxTree(t *testing.T) {
	src := `package x

type funcs struct{ Intensity func(int) (float64, error) }

type model struct{}

// Intensity is a method of the same name.
func (model) Intensity() int { return 1 }

// Intensity is the exercise's function.
//
//exercise:notebook-name MyIntensity
func Intensity(T int) (float64, error) {
	var m model
	_ = funcs{Intensity: Intensity}
	_ = m.Intensity()
	return float64(T), nil
}

func local() int {
	Intensity := 2
	return Intensity
}

var use = Intensity
`
	want := `package x

type funcs struct{ Intensity func(int) (float64, error) }

type model struct{}

// Intensity is a method of the same name.
func (model) Intensity() int { return 1 }

// MyIntensity is the exercise's function.
func MyIntensity(T int) (float64, error) {
	var m model
	_ = funcs{Intensity: MyIntensity}
	_ = m.Intensity()
	return float64(T), nil
}

func local() int {
	Intensity := 2
	return Intensity
}

var use = MyIntensity
`
	got, renames, err := renameForNotebook("roofline.go", []byte(src))
	require.NoError(t, err)
	assert.Equal(t, want, string(got))
	assert.Equal(t, map[string]string{"Intensity": "MyIntensity"}, renames)

	call, err := renameInCall("checks.Roofline(checks.RooflineFuncs{Intensity: Intensity}, checks.Intensity)", renames)
	require.NoError(t, err)
	assert.Equal(t, "checks.Roofline(checks.RooflineFuncs{Intensity: MyIntensity}, checks.Intensity)", call)

	// The renamed exercise then takes its cell beside the earlier one.
	ex := exercise{ID: "99_roofline", File: "roofline.go"}
	taken := map[string]string{"Intensity": "04_intensity's intensity.go"}
	require.NoError(t, ex.derive([]byte(src), []byte(clashTest), taken))
	assert.Contains(t, ex.Code, "func MyIntensity(T int)")
	assert.NotContains(t, ex.Code, notebookNameDirective)
	assert.Equal(t, "%%\ngrading.Print(checks.Roofline(checks.RooflineFuncs{Intensity: MyIntensity}))", ex.Grade)
}

// A directive that names no exported name, or a name the file declares,
// is refused with its position.
func TestABadNotebookNameIsRefused(t *testing.T) {
	for _, tc := range []struct{ name, src, msg string }{
		{"unexported", "package x\n\n//exercise:notebook-name lower\nfunc F() {}\n", "an exported Go name"},
		{"taken", "package x\n\nfunc G() {}\n\n//exercise:notebook-name G\nfunc F() {}\n", "already declares G"},
		{"method", "package x\n\ntype T struct{}\n\n//exercise:notebook-name G\nfunc (T) F() {}\n", "top-level function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := renameForNotebook("f.go", []byte(tc.src))
			assert.ErrorContains(t, err, tc.msg)
			assert.ErrorContains(t, err, "f.go:")
		})
	}
}
