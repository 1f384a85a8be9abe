package grader

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

// standInOnly is standIn for the exercises of cfg.Only alone, as the
// grader is called once for the Go exercises and once for the CUDA ones.
func standInOnly(exs []grading.Exercise) func(Config) (grading.Report, error) {
	return func(cfg Config) (grading.Report, error) {
		var mine []grading.Exercise
		for _, e := range exs {
			if slices.Contains(cfg.Only, e.ID) {
				mine = append(mine, e)
			}
		}
		return standIn(mine)(cfg)
	}
}

// writeNotebook writes a notebook hand-in of the code cells (id → source)
// into dir, with extra keys in the cell named extraFor.
func writeNotebook(t *testing.T, dir string, cells map[string]string, extraFor string, extra map[string]any) {
	var cs []map[string]any
	for _, id := range sortedKeys(cells) {
		c := map[string]any{"cell_type": "code", "id": id, "metadata": map[string]any{}, "source": cells[id], "outputs": []any{}, "execution_count": nil}
		if id == extraFor {
			for k, v := range extra {
				c[k] = v
			}
		}
		cs = append(cs, c)
	}
	b, err := json.Marshal(map[string]any{"cells": cs, "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, handin.NotebookName), b, 0o644))
}

// cellOf is the notebook cell of an exercise's Go file: the file without
// its package clause and the comment above it.
func cellOf(t *testing.T, root, id string) string {
	e := findExercise(t, id)
	b, err := os.ReadFile(filepath.Join(root, "exercises", id, e.Files[0]))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(b), "\npackage ")
	require.True(t, ok)
	_, body, _ := strings.Cut(rest, "\n")
	return body
}

// A notebook whose visible source is the stub, with a solution under a
// key Jupyter does not show, is refused as a whole; a CUDA cell is
// graded as CUDA, and joins the similarity report; a hand-in without a
// CUDA file has its CUDA exercise withheld, not 0. The honest students
// beside them are graded in full.
func TestNotebookIsGradedAsJupyterShowsIt(t *testing.T) {
	root := repoRoot(t)
	needSolutions(t, root)
	only := []string{"01_sine", "20_cuda_basic"}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	class := t.TempDir()
	sine := cellOf(t, root, "01_sine")
	stubCell := strings.ReplaceAll(sine, "return", "return // stub\n\treturn")
	kb, err := os.ReadFile(filepath.Join(root, "exercises", "20_cuda_basic", "basic.cu"))
	require.NoError(t, err)
	kernel := string(kb)
	writeNotebook(t, filepath.Join(class, "hider"), map[string]string{"sine-code": stubCell}, "sine-code",
		map[string]any{"solution": sine})
	writeNotebook(t, filepath.Join(class, "cudaa"), map[string]string{"sine-code": sine, "cuda-basic-code": kernel}, "", nil)
	writeNotebook(t, filepath.Join(class, "cudab"), map[string]string{"sine-code": sine + "\n// mine\n", "cuda-basic-code": kernel}, "", nil)
	writeNotebook(t, filepath.Join(class, "goonly"), map[string]string{"sine-code": sine + "\n// go only\n"}, "", nil)

	out := t.TempDir()
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 19, Only: only, NoSandbox: true, CacheDir: t.TempDir()},
		Class: class, Out: out, Jobs: 2, grade: standInOnly(exs)})
	require.NoError(t, err, "no student makes the grader fail")

	hider := book.Students["hider"]
	assert.Equal(t, gradebook.SourceRefused, hider.Source)
	assert.Contains(t, hider.Note, `the key "solution" is not one of a code cell's`)
	assert.Equal(t, 0, hider.Points)

	for _, id := range []string{"cudaa", "cudab"} {
		s := book.Students[id]
		require.NotNil(t, s, id)
		c := s.Cells["20_cuda_basic"]
		assert.Equal(t, gradebook.StateGraded, c.State, "%s: the CUDA cell is graded as CUDA", id)
		assert.NotEqual(t, grading.Missing, c.Result.Status, id)
		assert.True(t, s.Complete, id)
	}
	g := book.Students["goonly"]
	assert.Equal(t, gradebook.StateWithheld, g.Cells["20_cuda_basic"].State)
	e20 := findExercise(t, "20_cuda_basic")
	e01 := findExercise(t, "01_sine")
	assert.Equal(t, e20.MaxPoints(), g.WithheldMax, "withheld, not 0")
	assert.Equal(t, e01.MaxPoints(), g.GradedMax, "the total is out of what was graded")
	for _, id := range []string{"goonly", "cudaa", "cudab"} {
		c := book.Students[id].Cells["01_sine"]
		assert.Equal(t, gradebook.StateGraded, c.State, id)
		assert.Equal(t, grading.Graded, c.Result.Status, "%s: the honest notebook's Go cell is graded", id)
	}

	pairs, notes, err := classSimilarity(root, class, nil, exs, 0.5)
	require.NoError(t, err)
	found := false
	for _, p := range pairs {
		if p.Exercise == "20_cuda_basic" && ((p.A == "cudaa" && p.B == "cudab") || (p.A == "cudab" && p.B == "cudaa")) {
			found = true
		}
	}
	assert.True(t, found, "the CUDA cells are compared: %v (notes %v)", pairs, notes)
	for _, n := range notes {
		assert.NotContains(t, n, "cuda", "no notebook is left out for its CUDA cell")
	}
}
