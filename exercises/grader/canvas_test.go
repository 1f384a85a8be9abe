package grader

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
)

// `grade export -format canvas -canvas-columns FILE` heads each mapped
// exercise's column with its Canvas assignment's number, keeps the map
// beside the gradebook, and a later export without the flag uses it: a
// renamed exercise's column still ends in the same number, which is what
// Canvas's importer matches. The flag goes with -format canvas only.
func TestExportCanvasColumns(t *testing.T) {
	out := t.TempDir()
	g := &gradebook.Book{Version: gradebook.Version, Exercises: []gradebook.Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 5}}, Students: map[string]*gradebook.Student{},
		Roster: []*gradebook.Person{{ID: "ana", Name: "Ana", SISID: "1001"}}}
	r := grading.ExerciseResult{ID: "01_sine", Points: 4, MaxPoints: 5, Status: grading.Graded}
	g.Students["ana"] = &gradebook.Student{ID: "ana", Source: "files", Person: g.Roster[0], Cells: map[string]*gradebook.Cell{"01_sine": gradebook.NewCell(r)}}
	g.Recount()
	require.NoError(t, g.Write(out))
	cols := filepath.Join(t.TempDir(), "canvas-columns.csv")
	require.NoError(t, os.WriteFile(cols, []byte("exercise,canvas_id\n01_sine,4242\n"), 0o600))

	header := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, Run(append([]string{"export", "-format", "canvas"}, append(args, out)...), &stdout, &stderr), stderr.String())
		rows, err := csv.NewReader(&stdout).ReadAll()
		require.NoError(t, err)
		return rows[0][5]
	}
	number := regexp.MustCompile(`\A(.*)\s\((\d+)\)\z`) // Canvas's Assignment.title_and_id
	m := number.FindStringSubmatch(header("-canvas-columns", cols))
	require.NotNil(t, m)
	assert.Equal(t, "4242", m[2])
	kept, err := os.ReadFile(filepath.Join(out, gradebook.CanvasColumnsFile))
	require.NoError(t, err)
	assert.Equal(t, "exercise,canvas_id\n01_sine,4242\n", string(kept))

	// The exercise renamed: the same assignment.
	g.Exercises[0].Title = "Sine, renamed"
	require.NoError(t, g.Write(out))
	m = number.FindStringSubmatch(header())
	require.NotNil(t, m)
	assert.Equal(t, "4242", m[2])
	assert.Equal(t, "Sine, renamed (01_sine)", m[1])

	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, Run([]string{"export", "-format", "moodle", "-canvas-columns", cols, out}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-canvas-columns needs -format canvas")
	bad := filepath.Join(t.TempDir(), "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("exercise,canvas_id\n99_none,1\n"), 0o600))
	stderr.Reset()
	assert.Equal(t, 1, Run([]string{"export", "-format", "canvas", "-canvas-columns", bad, out}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `no exercise "99_none"`)
}
