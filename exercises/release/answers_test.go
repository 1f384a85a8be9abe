package release

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// taggedCell is a notebook cell with its tags, for the tests of answers.
type taggedCell struct {
	CellType string   `json:"cell_type"`
	ID       string   `json:"id"`
	Source   []string `json:"source"`
	Outputs  []any    `json:"outputs"`
	Metadata struct {
		Tags []string `json:"tags"`
	} `json:"metadata"`
}

func taggedCells(t *testing.T, b []byte) []taggedCell {
	t.Helper()
	var nb struct {
		Cells []taggedCell `json:"cells"`
	}
	require.NoError(t, json.Unmarshal(b, &nb))
	return nb.Cells
}

const answersNotebook = `{"cells": [
 {"cell_type": "markdown", "id": "q", "metadata": {"tags": ["question"]}, "source": ["**Question 1.** Predict."]},
 {"cell_type": "code", "execution_count": 3, "id": "c", "metadata": {"tags": ["check"]},
  "outputs": [{"name": "stdout", "output_type": "stream", "text": ["Score 0/1\n"]}], "source": ["%%\nnbrun.Predict()"]},
 {"cell_type": "markdown", "id": "a", "metadata": {"tags": ["answer"]}, "source": ["**Answer.** 488."]},
 {"cell_type": "markdown", "id": "b", "metadata": {}, "source": ["after"]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`

func TestStripAnswers(t *testing.T) {
	src := []byte(answersNotebook)
	require.True(t, NotebookHasAnswers(src))
	out, err := StripAnswers("nb.ipynb", src)
	require.NoError(t, err)
	cells := taggedCells(t, out)
	ids := make([]string, len(cells))
	for i, c := range cells {
		ids[i] = c.ID
	}
	assert.Equal(t, []string{"q", "c", "b"}, ids, "the answer cell, and only it, is gone")
	assert.Len(t, cells[1].Outputs, 1, "other cells keep their outputs")
	assert.NotContains(t, string(out), "488")
	assert.False(t, NotebookHasAnswers(out))

	_, err = StripAnswers("bad.ipynb", []byte("{"))
	assert.ErrorContains(t, err, "bad.ipynb: not a notebook")
}

// TestExerciseNotebookOutputsStripped: the release clears the outputs of
// the exercise notebook, which holds solutions, whatever it carries.
func TestExerciseNotebookOutputsStripped(t *testing.T) {
	src := []byte(`{"cells": [{"cell_type": "code", "execution_count": 1, "id": "x", "metadata": {},
	  "outputs": [{"name": "stdout", "output_type": "stream", "text": ["Score 6/6\n"]}],
	  "source": ["func F() int {\n", "\t// BEGIN SOLUTION\n", "\treturn 1\n", "\t// END SOLUTION\n", "\t// BEGIN STUB\n", "\t// return 0\n", "\t// END STUB\n", "}"]}],
	  "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`)
	require.True(t, NotebookHasSolution(src))
	out, err := StripNotebook("09.ipynb", src)
	require.NoError(t, err)
	cells := taggedCells(t, out)
	require.Len(t, cells, 1)
	assert.Empty(t, cells[0].Outputs)
	assert.NotContains(t, string(out), "Score 6/6")
}

// TestCourseQuestions: each of notebooks 01 to 08 ends with two or three
// questions; at least one per notebook is checked by a cell that grades a
// prediction (nbrun.Check); each question is followed by its check
// (nbrun.Check or nbrun.Reveal, which prints the answer once it is run)
// before the next question, in the instructor's tree and in the students'
// copy alike, and no answer cell is left in the students' copy.
func TestCourseQuestions(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "notebooks", "0[1-8]_*.ipynb"))
	require.NoError(t, err)
	require.Len(t, files, 8)
	instructor := IsInstructorTree(root)
	isCheck := func(c taggedCell) bool {
		src := strings.Join(c.Source, "")
		return slices.Contains(c.Metadata.Tags, "check") && (strings.Contains(src, "nbrun.Check(") || strings.Contains(src, "nbrun.Reveal("))
	}
	for _, f := range files {
		name := filepath.Base(f)
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		cells := taggedCells(t, b)
		questions, checks := 0, 0
		for i, c := range cells {
			switch {
			case slices.Contains(c.Metadata.Tags, AnswerTag):
				assert.True(t, instructor, "%s: answer %s left in the students' copy", name, c.ID)
			case slices.Contains(c.Metadata.Tags, "question"):
				questions++
				j := i + 1
				for j < len(cells) && !isCheck(cells[j]) && !slices.Contains(cells[j].Metadata.Tags, "question") {
					j++
				}
				if assert.Less(t, j, len(cells), "%s: question %s has no check", name, c.ID) {
					assert.True(t, isCheck(cells[j]), "%s: question %s has no check before the next question", name, c.ID)
				}
			case slices.Contains(c.Metadata.Tags, "check"):
				if strings.Contains(strings.Join(c.Source, ""), "nbrun.Check(") {
					checks++
				}
			}
		}
		assert.GreaterOrEqual(t, questions, 2, "%s: two or three questions", name)
		assert.LessOrEqual(t, questions, 3, "%s: two or three questions", name)
		assert.GreaterOrEqual(t, checks, 1, "%s: at least one question checked by nbrun.Check", name)

		student, err := StripAnswers(name, b)
		require.NoError(t, err)
		assert.NotContains(t, string(student), "**Answer.**", "%s: an answer is left in the student version", name)
		assert.Len(t, taggedCells(t, student), len(cells)-questionsAnswered(cells), name)
	}
}

func questionsAnswered(cells []taggedCell) int {
	n := 0
	for _, c := range cells {
		if slices.Contains(c.Metadata.Tags, AnswerTag) {
			n++
		}
	}
	return n
}
