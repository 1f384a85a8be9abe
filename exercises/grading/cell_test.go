package grading

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdout returns what f prints on standard output.
func stdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { os.Stdout = old }()
	f()
	w.Close()
	os.Stdout = old
	return <-done
}

// capturePath is the file GoNB's %capture line of the code cell of id
// writes, with $GONB_TMP_DIR expanded as GoNB expands it.
func capturePath(t *testing.T, id string) string {
	t.Helper()
	line := CellCapture(id)
	path, ok := strings.CutPrefix(line, "%capture ")
	require.True(t, ok, line)
	return os.ExpandEnv(path)
}

func TestCellErrorSeesACodeCellThatDidNotCompile(t *testing.T) {
	const id = "01_sine"
	t.Setenv(envGoNBTmp, "")
	assert.NoError(t, CellError(id), "outside GoNB nothing is checked")

	t.Setenv(envGoNBTmp, t.TempDir())
	assert.NoError(t, CellError(id), "no capture: a notebook without the mark, or a code cell not run in this kernel")

	path := capturePath(t, id)
	// The code cell compiled: its program ran and printed the mark.
	mark := stdout(t, func() { CellCompiled(id) })
	require.NoError(t, os.WriteFile(path, []byte("a line the student printed\n"+mark), 0o644))
	assert.NoError(t, CellError(id))

	// Its next run did not compile: %capture emptied the file, and no
	// program ran.
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	err := CellError(id)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did not compile")
	assert.Contains(t, err.Error(), "NOT GRADED")

	// Another exercise's mark is not this one's.
	other := stdout(t, func() { CellCompiled("02_derivative") })
	require.NoError(t, os.WriteFile(path, []byte(other), 0o644))
	assert.Error(t, CellError(id))

	// A name that is not an exercise's folder names no file.
	assert.NoError(t, CellError("../01_sine"))
}

func TestPrintGradesNothingAfterACompileError(t *testing.T) {
	const id = "01_cell"
	t.Setenv(envGoNBTmp, t.TempDir())
	ran := 0
	e := Exercise{ID: id, Title: "Cell", Checks: []Check{
		{ID: "a", Points: 2, Run: func(t *T) { ran++ }},
		{ID: "b", Points: 3, Run: func(t *T) { ran++ }},
	}}
	path := capturePath(t, id)
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	var res ExerciseResult
	out := stdout(t, func() { res = Print(e) })
	assert.Equal(t, 0, ran, "no check ran")
	assert.Equal(t, NotAvailable, res.Status)
	assert.Equal(t, 0, res.Points)
	assert.Contains(t, out, "NOT GRADED")
	assert.NotContains(t, out, "Score")

	mark := stdout(t, func() { CellCompiled(id) })
	require.NoError(t, os.WriteFile(path, []byte(mark), 0o644))
	out = stdout(t, func() { res = Print(e) })
	assert.Equal(t, len(e.Checks), ran, "every check ran")
	assert.Equal(t, Graded, res.Status)
	assert.Equal(t, 2+3, res.Points)
	assert.Contains(t, out, "Score 5/5")
}
