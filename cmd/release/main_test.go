package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/release"
)

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(nil, &out, &errb))
	assert.Contains(t, errb.String(), "usage: release -out DIR")
	assert.Equal(t, 2, run([]string{"-out", t.TempDir(), "extra"}, &out, &errb))
	assert.Equal(t, 2, run([]string{"-bogus"}, &out, &errb))
}

func TestReleaseOfThisRepository(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "student")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-C", root, "-out", out}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "release: wrote")

	// Every student file is in the release, without solutions, and every
	// file of the release is free of solution markers and hidden checks.
	for _, e := range checks.All() {
		for _, f := range e.Files {
			b, err := os.ReadFile(filepath.Join(out, "exercises", e.ID, f))
			require.NoError(t, err, "%s/%s", e.ID, f)
			assert.False(t, release.GoHasSolution(b), "%s/%s", e.ID, f)
		}
	}
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		switch filepath.Ext(p) {
		case ".go":
			assert.False(t, release.GoHasSolution(b), "%s keeps a solution", rel)
			assert.False(t, release.IsHidden(b), "%s is instructor-only", rel)
		case ".ipynb":
			assert.False(t, release.NotebookHasSolution(b), "%s keeps a solution", rel)
		}
		return nil
	})
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(out, "exercises", "checks", "hidden.go"))
	assert.FileExists(t, filepath.Join(out, "exercises", "checks", "sine.go"))
	assert.FileExists(t, filepath.Join(out, "go.mod"))
	assert.FileExists(t, filepath.Join(out, "notebooks", "09_exercises.ipynb"))
	own, err := os.ReadFile(filepath.Join(root, "exercises", "release", "release_test.go"))
	require.NoError(t, err)
	released, err := os.ReadFile(filepath.Join(out, "exercises", "release", "release_test.go"))
	require.NoError(t, err)
	assert.Equal(t, string(own), string(released), "markers inside string literals are left alone")

	// A second release into the same folder is refused.
	assert.Equal(t, 1, run([]string{"-C", root, "-out", out}, &stdout, &stderr))
}
