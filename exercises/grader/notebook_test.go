package grader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
	"stencillab.dev/exercises/release"
	"stencillab.dev/internal/testlimit"
)

// TestNotebookAndFilesScoreTheSame grades one partly finished piece of
// work handed in twice, as the exercise files and as the notebook: the
// first function of each exercise written, the others stubs, and one
// exercise that does not compile. Each exercise scores the same both
// ways, and the notebook's messages name its cells, not a file.
func TestNotebookAndFilesScoreTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs three exercises twice; not in -short mode")
	}
	root := repoRoot(t)
	needSolutions(t, root)
	only := []string{"01_sine", "02_derivative", "03_five_point", "04_intensity"}
	broken := "03_five_point" // its second function does not compile
	breakIt := func(id, src string) string {
		if id != broken {
			return src
		}
		i := strings.Index(src, "func Iterate(")
		require.Positive(t, i)
		j := i + strings.Index(src[i:], "{\n")
		return src[:j+2] + "\tvar unused int = \"text\"\n" + src[j+2:]
	}
	class := t.TempDir()
	files := filepath.Join(class, "files")
	for _, id := range only {
		e := findExercise(t, id)
		require.NoError(t, os.MkdirAll(filepath.Join(files, id), 0o755))
		for _, f := range e.Files {
			rel := filepath.ToSlash(filepath.Join("exercises", id, f))
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			require.NoError(t, err)
			b, err = release.StripGo(rel, []byte(breakIt(id, release.KeepSolutions(string(b), func(i int) bool { return i == 0 }))))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(files, id, f), b, 0o644))
		}
	}

	b, err := os.ReadFile(filepath.Join(root, "notebooks", handin.NotebookName))
	require.NoError(t, err)
	var nb map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &nb))
	var cells []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(nb["cells"], &cells))
	topics := map[string]string{}
	for _, id := range only {
		topics[handin.CellTopic(id)+"-code"] = id
	}
	for _, c := range cells {
		var id string
		var lines []string
		require.NoError(t, json.Unmarshal(c["id"], &id))
		if json.Unmarshal(c["source"], &lines) != nil || topics[id] == "" {
			continue
		}
		src := breakIt(topics[id], release.KeepSolutions(strings.Join(lines, ""), func(i int) bool { return i == 0 }))
		c["source"], err = json.Marshal(strings.SplitAfter(src, "\n"))
		require.NoError(t, err)
	}
	nb["cells"], err = json.Marshal(cells)
	require.NoError(t, err)
	b, err = json.Marshal(nb)
	require.NoError(t, err)
	b, err = release.StripNotebook(handin.NotebookName, b)
	require.NoError(t, err)
	handed, err := handin.NotebookCells(b)
	require.NoError(t, err)
	before, _, found := strings.Cut(handed["five-point-code"], "var unused")
	require.True(t, found)
	badLine := strings.Count(before, "\n") + 1 // the line of the cell that does not compile
	require.NoError(t, os.MkdirAll(filepath.Join(class, "notebook"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(class, "notebook", handin.NotebookName), b, 0o644))

	out := t.TempDir()
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 7171, Timeout: testlimit.Legit(t), Only: only},
		Class: class, Out: out, Jobs: 1})
	require.NoError(t, err)
	fromFiles, fromNotebook := book.Students["files"], book.Students["notebook"]
	require.NotNil(t, fromFiles)
	require.NotNil(t, fromNotebook)
	assert.Equal(t, "notebook", fromNotebook.Source)
	partial := 0
	for _, id := range only {
		f, n := fromFiles.Cells[id], fromNotebook.Cells[id]
		require.NotNil(t, f, id)
		require.NotNil(t, n, id)
		assert.Equal(t, f.Points, n.Points, "%s: files %s, notebook %s", id, f.Result.Message, n.Result.Message)
		assert.Equal(t, f.Result.Status, n.Result.Status, id)
		t.Logf("%s: %d/%d from the files, %d/%d from the notebook", id, f.Points, f.MaxPoints, n.Points, n.MaxPoints)
		if f.Points > 0 && f.Points < f.MaxPoints {
			partial++
		}
		for i, c := range f.Result.Checks {
			require.Less(t, i, len(n.Result.Checks), id)
			assert.Equal(t, c.Passed, n.Result.Checks[i].Passed, "%s/%s", id, c.ID)
		}
	}
	assert.Positive(t, partial, "some exercise is partly done")
	assert.Positive(t, fromFiles.Cells["01_sine"].Points, "the finished exercise scores")

	bf, bn := fromFiles.Cells[broken].Result, fromNotebook.Cells[broken].Result
	assert.Equal(t, grading.BuildFailed, bn.Status)
	assert.Contains(t, bf.Message, "fivepoint.go:")
	assert.Contains(t, bn.Message, fmt.Sprintf("09_exercises.ipynb, cell five-point-code, line %d: ", badLine))
	assert.NotContains(t, bn.Message, "fivepoint.go", "the notebook's message names the cell, not a file")
	t.Logf("the notebook's message: %s", bn.Message)

	// grade -submission takes the notebook too, and names its cells.
	var stdout, stderr bytes.Buffer
	code := Run([]string{"-submission", filepath.Join(class, "notebook"), "-json", "-hidden=false", "-cache", t.TempDir(), broken},
		&stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var rep grading.Report
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &rep), stdout.String())
	require.Len(t, rep.Exercises, 1)
	assert.Equal(t, grading.BuildFailed, rep.Exercises[0].Status)
	assert.Contains(t, rep.Exercises[0].Message, fmt.Sprintf("09_exercises.ipynb, cell five-point-code, line %d: ", badLine))
	assert.NotContains(t, rep.Exercises[0].Message, "fivepoint.go")
}
