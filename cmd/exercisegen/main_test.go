package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/handin"
	"stencillab.dev/exercises/release"
)

const root = "../.."

// TestTheGeneratedFilesAreFresh fails when an exercise, its checks or its
// file changed and the notebook or a table of exercises was not
// regenerated.
func TestTheGeneratedFilesAreFresh(t *testing.T) {
	if !release.IsInstructorTree(root) {
		t.Skip("the students' copy: the release strips the notebook's cells and the files apart, so they are not regenerated there")
	}
	files, err := Generate(root)
	require.NoError(t, err)
	require.Len(t, files, 3)
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(root, p))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(want, got), "%s is stale: run go generate ./exercises/checks", p)
	}
	var out, errb bytes.Buffer
	assert.Equal(t, 0, run([]string{"-C", root, "-check"}, &out, &errb), "%s%s", out.String(), errb.String())
	assert.Equal(t, 2, run([]string{"-bogus"}, &out, &errb))
}

// TestCodeCellsTellTheGradeCellTheyCompiled: every exercise's code cell, in
// notebooks 09 and 10, ends after GoNB's %% with the capture and the mark
// that grading.CellError looks for, under the exercise's own id, and the
// cell handed in as a file keeps none of it.
func TestCodeCellsTellTheGradeCellTheyCompiled(t *testing.T) {
	files, err := Generate(root)
	require.NoError(t, err)
	tail := func(id string) string {
		return "\n%%\n" + "// Keep these lines: they tell the grade cell below that this cell compiled.\n" +
			"%capture $GONB_TMP_DIR/stencillab-" + id + ".cell\n" + `grading.CellCompiled("` + id + `")`
	}
	cells, err := handin.NotebookCells(files[notebookPath])
	require.NoError(t, err)
	exs, err := exercises(root)
	require.NoError(t, err)
	for _, ex := range exs {
		code := cells[handin.CellTopic(ex.ID)+"-code"]
		assert.True(t, strings.HasSuffix(code, tail(ex.ID)), "%s: %q", ex.ID, code)
		assert.Equal(t, 1, strings.Count(code, "%%"), ex.ID)
		src, _ := handin.CellFile("x", code, nil)
		assert.NotContains(t, string(src), "CellCompiled", ex.ID)
		assert.NotContains(t, string(src), "capture", ex.ID)
	}
	cu, err := handin.NotebookCells(files[cudaNotebookPath])
	require.NoError(t, err)
	graded := 0
	for id, grade := range cu {
		m := cudaGrade.FindStringSubmatch(grade)
		if m == nil {
			continue
		}
		graded++
		topic, _ := strings.CutSuffix(id, "-grade")
		code := cu[topic+"-cu"]
		assert.True(t, strings.HasSuffix(code, tail(m[1])), "%s: %q", m[1], code)
		assert.Contains(t, code, "var "+m[2]+" = `", m[1])
	}
	assert.Equal(t, 2, graded, "notebook 10 grades the basic kernel and the challenge")
	assert.Contains(t, cu["imports"], `"stencillab.dev/exercises/grading"`, "the code cells call grading.CellCompiled")
	// Generating again changes nothing: the tail is replaced, not added.
	again, err := cudaNotebook(files[cudaNotebookPath])
	require.NoError(t, err)
	assert.Equal(t, string(files[cudaNotebookPath]), string(again))
}

// TestCellsHoldTheFilesFunctions: each exercise's code cell declares the
// exported functions of its file, and its grade cell passes them (under
// the notebook's names) to the checks the test calls.
func TestCellsHoldTheFilesFunctions(t *testing.T) {
	exs, err := exercises(root)
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, e := range checks.All() {
		if len(e.Files) == 1 && strings.HasSuffix(e.Files[0], ".go") {
			ids[e.ID] = true
		}
	}
	require.Len(t, exs, len(ids), "every Go exercise")
	for i, ex := range exs {
		assert.Equal(t, i+1, ex.N)
		require.NotEmpty(t, ex.Funcs, ex.ID)
		for _, f := range ex.Funcs {
			assert.Regexp(t, `(?m)^func (Fixed)?`+f+`\(`, ex.Code, "%s: %s", ex.ID, f)
		}
		assert.NotContains(t, ex.Code, "package ", ex.ID)
		assert.NotContains(t, ex.Code, "var errNotImplemented", "%s: the notebook declares it once", ex.ID)
		assert.True(t, strings.HasPrefix(ex.Grade, "%%\ngrading.Print(checks."), ex.ID)
		test, err := os.ReadFile(filepath.Join(root, "exercises", ex.ID, "grade_test.go"))
		require.NoError(t, err)
		want := handin.CallArgs(handin.GradeCall(string(test), "grading.Test"))
		got := handin.CallArgs(handin.GradeCall(ex.Grade, "grading.Print"))
		require.Len(t, got, len(want), ex.ID)
		for k := range want {
			assert.Contains(t, []string{want[k], "Fixed" + want[k]}, got[k], ex.ID)
		}
		// The cell, extracted as a handed-in notebook is, declares what
		// the file declares.
		src, _ := handin.CellFile("x", ex.Code, nil)
		for _, f := range ex.Funcs {
			assert.Regexp(t, `(?m)^func (Fixed)?`+f+`\(`, string(src), "%s: %s", ex.ID, f)
		}
	}
}

func TestTablesKeepTheirProseAndTakeThePoints(t *testing.T) {
	exs := []exercise{
		{N: 1, ID: "01_a", File: "a.go", Title: "Alpha things", Points: 7, Hidden: 2, hiddenKnown: true, Funcs: []string{"A"}},
		{N: 2, ID: "02_b", File: "b.go", Title: "Beta things", Points: 3, Funcs: []string{"B", "C"}},
	}
	md := "# T\n\n| folder | the student writes | topic | points (+ hidden) |\n| --- | --- | --- | --- |\n" +
		"| `01_a` | fix `A` in `a.go` | hand-written prose | 5 (+1) |\n\nAfter.\n"
	want := "# T\n\n| folder | the student writes | topic | points (+ hidden) |\n| --- | --- | --- | --- |\n" +
		"| `01_a` | fix `A` in `a.go` | hand-written prose | 7 (+2) |\n" +
		"| `02_b` | `B`, `C` in `b.go` | beta things | 3 |\n\nAfter.\n"
	assert.Equal(t, want, readme(md, exs))
	intro := "Intro\n\n| | exercise | points |\n| --- | --- | --- |\n| 1 | the alpha | 1 |\n"
	assert.Equal(t, "Intro\n\n| | exercise | points |\n| --- | --- | --- |\n| 1 | the alpha | 7 |\n| 2 | beta things | 3 |\n",
		introTable(intro, exs))
	assert.Equal(t, "no table", readme("no table", exs))
}

// The throwaway exercise: its file and its checks, nothing else.
const (
	throwawayFile = `// Package throwaway is a throwaway exercise.
//
// # Your task
//
// Write Triple, which returns 3·x, and an error for a negative x.
//
// Check your work with go test.
package throwaway

import (
	"fmt"

	"stencillab.dev/exercises/grading"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Triple returns 3·x.
func Triple(x int) (int, error) {
	// BEGIN SOLUTION
	if x < 0 {
		return 0, fmt.Errorf("throwaway: triple %d: x must not be negative", x)
	}
	return x + x + x, nil
	// END SOLUTION
	// BEGIN STUB
	// return 0, errNotImplemented
	// END STUB
}
`
	throwawayTest = `package throwaway

import (
	"testing"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// TestGrade runs the graded checks of this exercise on Triple.
func TestGrade(t *testing.T) {
	grading.Test(t, checks.Throwaway(checks.ThrowawayFuncs{Triple: Triple}))
}
`
	throwawayChecks = `package checks

import (
	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/grading"
)

// ThrowawayFuncs are the functions of the throwaway exercise.
type ThrowawayFuncs struct {
	// Triple returns 3·x.
	Triple func(x int) (int, error)
}

var throwawayDecl = declare(&Decl[ThrowawayFuncs]{
	ID: "99_throwaway", Title: "A throwaway exercise", Files: []string{"throwaway.go"},
	Checks: func(fn ThrowawayFuncs) []grading.Check {
		return []grading.Check{
			{ID: "triple", Title: "Triple of random numbers", Points: 2, Run: func(t *grading.T) {
				for range 50 {
					x := t.Rand().IntN(1000)
					got, err := fn.Triple(x)
					t.Must(err, "Triple")
					assert.Equal(t, 3*x, got, "Triple(%d)", x)
				}
			}},
			{ID: "negative", Title: "a negative number is an error", Points: 1, Run: func(t *grading.T) {
				_, err := fn.Triple(-1 - t.Rand().IntN(10))
				t.WantError(err, "Triple of a negative number")
			}},
		}
	},
})

// Throwaway returns the throwaway exercise, checking fn.
func Throwaway(fn ThrowawayFuncs) grading.Exercise { return throwawayDecl.Exercise(fn) }
`
)

// TestANewExerciseIsItsFolderAndItsChecks proves that a new exercise is
// two places: its folder (the file and grade_test.go) and its checks (one
// file of exercises/checks with its declaration). In a copy of the
// repository's last commit with those three files added, the generator
// gives the notebook a section and both tables a row, the grader lists it
// and grades its solution to full marks, a notebook handed in with the
// new cell scores the same, and the release stubs it in the file and in
// the notebook.
func TestANewExerciseIsItsFolderAndItsChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator, the grader and the release in a copy of the repository; not in -short mode")
	}
	if !release.IsInstructorTree(root) {
		t.Skip("needs the instructor's tree")
	}
	for _, tool := range []string{"git", "go", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s on the PATH", tool)
		}
	}
	copyRoot := t.TempDir()
	sh := func(dir string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GOFLAGS=-trimpath")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
		return string(out)
	}
	archive := filepath.Join(t.TempDir(), "head.tar")
	sh(root, "git", "archive", "-o", archive, "HEAD")
	sh(copyRoot, "tar", "-xf", archive)
	write := func(rel, text string) {
		p := filepath.Join(copyRoot, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("exercises/99_throwaway/throwaway.go", throwawayFile)
	write("exercises/99_throwaway/grade_test.go", throwawayTest)
	write("exercises/checks/throwaway.go", throwawayChecks)

	sh(copyRoot, "go", "run", "./cmd/exercisegen")
	nb, err := os.ReadFile(filepath.Join(copyRoot, notebookPath))
	require.NoError(t, err)
	cells, err := handin.NotebookCells(nb)
	require.NoError(t, err)
	assert.Contains(t, cells["throwaway-code"], "func Triple(x int) (int, error) {")
	assert.Equal(t, "%%\ngrading.Print(checks.Throwaway(checks.ThrowawayFuncs{Triple: Triple}))", cells["throwaway-grade"])
	md, err := os.ReadFile(filepath.Join(copyRoot, readmePath))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| `99_throwaway` | `Triple` in `throwaway.go` | a throwaway exercise | 3 |")
	exs, err := exercises(root)
	require.NoError(t, err)
	assert.Contains(t, string(nb), fmt.Sprintf("| %d | a throwaway exercise | 3 |", len(exs)+1), "the last of the notebook's exercises")

	list := sh(copyRoot, "go", "run", "./cmd/grade", "-list")
	assert.Contains(t, list, "99_throwaway")
	type report struct {
		Exercises []struct {
			ID        string `json:"id"`
			Points    int    `json:"points"`
			MaxPoints int    `json:"max_points"`
		} `json:"exercises"`
	}
	var rep report
	out := sh(copyRoot, "go", "run", "./cmd/grade", "-json", "-unsafe-no-sandbox", "-cache", t.TempDir(), "99_throwaway")
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Exercises, 1)
	assert.Equal(t, 3, rep.Exercises[0].Points, "the solution scores full marks, through the child: %s", out)
	assert.Equal(t, 3, rep.Exercises[0].MaxPoints)

	// The release: the file and the notebook's cell stubbed.
	sh(copyRoot, "git", "init", "-q")
	sh(copyRoot, "git", "add", "-A")
	sh(copyRoot, "git", "commit", "-q", "-m", "copy")
	rel := filepath.Join(t.TempDir(), "release")
	sh(copyRoot, "go", "run", "./cmd/release", "-out", rel)
	stub, err := os.ReadFile(filepath.Join(rel, "exercises", "99_throwaway", "throwaway.go"))
	require.NoError(t, err)
	assert.Contains(t, string(stub), "return 0, errNotImplemented")
	assert.NotContains(t, string(stub), "x + x + x")
	relNB, err := os.ReadFile(filepath.Join(rel, notebookPath))
	require.NoError(t, err)
	relCells, err := handin.NotebookCells(relNB)
	require.NoError(t, err)
	assert.Contains(t, relCells["throwaway-code"], "return 0, errNotImplemented")
	assert.NotContains(t, relCells["throwaway-code"], "x + x + x")
}
