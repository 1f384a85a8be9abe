package checks

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// TestEveryDeclaredAllowEntryNamesSomethingOfTheModule resolves each
// entry of the declared exercises' lists, as the policy's test does for
// the others.
func TestEveryDeclaredAllowEntryNamesSomethingOfTheModule(t *testing.T) {
	require.NotEmpty(t, declarations)
	for id, d := range declarations {
		for _, entry := range d.allow() {
			_, err := static.Resolve(context.Background(), entry)
			assert.NoError(t, err, "%s: %s", id, entry)
		}
		own, ok := Allowed(id)
		require.True(t, ok, id)
		assert.Equal(t, slices.Concat(base, d.allow()), own)
	}
}

// TestDeclaredExercisesAreStubbedAndServed: All holds each declared
// exercise on stubs, whose checks report "not implemented", and its
// handler serves the functions by name.
func TestDeclaredExercisesAreStubbedAndServed(t *testing.T) {
	all := map[string]grading.Exercise{}
	for _, e := range All() {
		all[e.ID] = e
	}
	for id, d := range declarations {
		e, ok := all[id]
		require.True(t, ok, "%s is in All", id)
		require.NotEmpty(t, e.Checks)
		require.NotNil(t, e.Serve)
		res := grading.Run(e, legitOptions(t, 7))
		assert.Zero(t, res.Points, id)
		for _, c := range res.Checks {
			assert.True(t, c.NotImplemented, "%s/%s: %s", id, c.ID, c.Message)
		}
		ft, ok := DeclaredFuncs(id)
		require.True(t, ok)
		for i := range ft.NumField() {
			_, err := e.Serve(ft.Field(i).Name, nil)
			assert.ErrorIs(t, err, grading.ErrMalformed, "%s.%s is served: empty arguments do not decode", id, ft.Field(i).Name)
		}
		_, err := e.Serve("NoSuchFunction", nil)
		assert.ErrorContains(t, err, "no method")
		_ = d
	}
	_, ok := DeclaredFuncs("no_such_exercise")
	assert.False(t, ok)
}

// TestEveryGoExerciseFolderIsDeclared ties the registry to the tree: each
// folder of exercises/ whose files are Go (a CUDA exercise's are .cu) is
// declared once, each declaration's folder holds its files, and All and
// Remote know exactly the declared exercises, in the folders' order.
func TestEveryGoExerciseFolderIsDeclared(t *testing.T) {
	entries, err := os.ReadDir("..")
	require.NoError(t, err)
	var folders []string
	for _, e := range entries {
		if !e.IsDir() || !regexp.MustCompile(`^[0-9]{2}_`).MatchString(e.Name()) {
			continue
		}
		cu, _ := filepath.Glob(filepath.Join("..", e.Name(), "*.cu"))
		if len(cu) == 0 {
			folders = append(folders, e.Name())
		}
	}
	if len(folders) == 0 {
		t.Skip("no exercise folders beside exercises/checks in this copy")
	}
	var ids []string
	for _, e := range All() {
		ids = append(ids, e.ID)
	}
	assert.Equal(t, folders, ids, "one declaration per Go exercise folder, in the folders' order")
	for id, d := range declarations {
		for _, f := range d.files() {
			_, err := os.Stat(filepath.Join("..", id, f))
			assert.NoError(t, err, "%s declares %s", id, f)
		}
		_, err := Remote(id, nil)
		assert.NoError(t, err, id)
	}
	_, err = Remote("12_no_such_exercise", nil)
	assert.ErrorContains(t, err, `no exercise "12_no_such_exercise"`)
}
