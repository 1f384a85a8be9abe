package release

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/internal/nbformat"
)

const instructorGo = `package demo

import (
	"fmt"
	"math"

	"example.com/grading"
)

var errNotImplemented = grading.ErrNotImplemented

// Root returns the square root of x.
func Root(x float64) (float64, error) {
	// BEGIN SOLUTION
	if x < 0 {
		return 0, fmt.Errorf("demo: root of %g", x)
	}
	return math.Sqrt(x), nil
	// END SOLUTION
	// BEGIN STUB
	// return 0, errNotImplemented
	// END STUB
}

// Loop has a stub of several lines, with a note.
func Loop(n int) int {
	s := 0
	// BEGIN SOLUTION
	for i := 0; i < n; i++ {
		s += i
	}
	// END SOLUTION
	// BEGIN STUB: this loop is off by one; fix it.
	// for i := 0; i <= n; i++ {
	//
	// 	s += i // keep this comment
	// }
	// END STUB
	return s
}
`

const studentGo = `package demo

import (
	"example.com/grading"
)

var errNotImplemented = grading.ErrNotImplemented

// Root returns the square root of x.
func Root(x float64) (float64, error) {
	// STUB: not implemented yet; write your code here.
	return 0, errNotImplemented
}

// Loop has a stub of several lines, with a note.
func Loop(n int) int {
	s := 0
	// STUB: this loop is off by one; fix it.
	for i := 0; i <= n; i++ {

		s += i // keep this comment
	}
	return s
}
`

func TestStripGoReplacesSolutionsByStubs(t *testing.T) {
	got, err := StripGo("demo.go", []byte(instructorGo))
	require.NoError(t, err)
	assert.Equal(t, studentGo, string(got))
	assert.False(t, GoHasSolution(got))
	_, err = parser.ParseFile(token.NewFileSet(), "demo.go", got, 0)
	assert.NoError(t, err)
}

func TestStripGoLeavesOtherFilesAlone(t *testing.T) {
	src := []byte("package demo\n\n// The marker \"// BEGIN SOLUTION\" in prose is not a marker.\nconst Marker = \"// BEGIN SOLUTION\"\n")
	got, err := StripGo("prose.go", src)
	require.NoError(t, err)
	assert.Equal(t, string(src), string(got))

	// Markers inside a raw string, as in this very test file, are text.
	raw := []byte("package demo\n\nconst example = `\n// BEGIN SOLUTION\nx\n// END SOLUTION\n`\n")
	assert.False(t, GoHasSolution(raw))
	got, err = StripGo("raw.go", raw)
	require.NoError(t, err)
	assert.Equal(t, string(raw), string(got))
	assert.True(t, GoHasSolution([]byte(instructorGo)))
}

func TestMisplacedMarkersAreErrors(t *testing.T) {
	for name, src := range map[string]string{
		"no end":           "a\n// BEGIN SOLUTION\nb\n",
		"no stub":          "a\n// BEGIN SOLUTION\nb\n// END SOLUTION\nc\n",
		"stub not at once": "// BEGIN SOLUTION\n// END SOLUTION\nx := 1\n// BEGIN STUB\n// END STUB\n",
		"stub not closed":  "// BEGIN SOLUTION\n// END SOLUTION\n// BEGIN STUB\n// y\n",
		"stub is code":     "// BEGIN SOLUTION\n// END SOLUTION\n// BEGIN STUB\ny := 2\n// END STUB\n",
		"nested":           "// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION\n",
		"end alone":        "a\n// END SOLUTION\n",
	} {
		_, err := StripText(name, []byte(src))
		assert.ErrorIs(t, err, ErrMarkers, name)
	}
}

func TestImportName(t *testing.T) {
	for path, want := range map[string]string{
		"fmt":                                 "fmt",
		"math/rand/v2":                        "rand",
		"gonum.org/v1/gonum/mat":              "mat",
		"github.com/stretchr/testify/require": "require",
		"stencillab.dev/lab":                  "lab",
	} {
		assert.Equal(t, want, importName(path), path)
	}
}

func TestIsHidden(t *testing.T) {
	assert.True(t, IsHidden([]byte("//go:build hidden\n\npackage checks\n")))
	assert.True(t, IsHidden([]byte("// Copyright\n\n//go:build linux && hidden\n\npackage checks\n")))
	assert.False(t, IsHidden([]byte("//go:build linux\n\npackage checks\n")))
	assert.False(t, IsHidden([]byte("package checks\n\n//go:build hidden\n")), "a constraint after the package clause does not count")
	assert.False(t, IsHidden([]byte("//go:build hiddenness\n\npackage checks\n")))
	assert.False(t, IsHidden([]byte("//go:build !hidden\n\npackage checks\n")), "the public side of a pair")
	assert.False(t, IsHidden([]byte("//go:build hidden || linux\n\npackage checks\n")), "built without the tag on linux")
	assert.True(t, IsHidden([]byte("//go:build (linux && hidden) || (darwin && !linux && hidden)\n\npackage checks\n")))
	assert.False(t, IsHidden([]byte("//go:build (linux && hidden) || (darwin && !cgo)\n\npackage checks\n")))
	assert.True(t, IsHidden([]byte("// +build hidden\n\npackage checks\n")), "the old form")
	assert.True(t, IsHidden([]byte("//go:build hidden &&\n\npackage checks\n")), "a constraint that does not parse but names the tag")
}

func TestStripNotebook(t *testing.T) {
	nb := map[string]any{
		"cells": []any{
			map[string]any{"cell_type": "markdown", "id": "m1", "metadata": map[string]any{},
				"source": []string{"# Title <b>bold</b>\n", "// BEGIN SOLUTION in markdown stays\n"}},
			map[string]any{"cell_type": "code", "id": "c1", "metadata": map[string]any{}, "execution_count": 3,
				"outputs": []any{map[string]any{"output_type": "stream", "name": "stdout", "text": []string{"secret\n"}}},
				"source": []string{"func F() int {\n", "\t// BEGIN SOLUTION\n", "\treturn 42\n", "\t// END SOLUTION\n",
					"\t// BEGIN STUB\n", "\t// return 0\n", "\t// END STUB\n", "}"}},
		},
		"metadata":       map[string]any{"kernelspec": map[string]any{"name": "gonb"}},
		"nbformat":       4,
		"nbformat_minor": 5,
	}
	src, err := nbformat.Marshal(nb)
	require.NoError(t, err)
	out, err := StripNotebook("nb.ipynb", src)
	require.NoError(t, err)
	var back struct {
		Cells []struct {
			CellType       string   `json:"cell_type"`
			ID             string   `json:"id"`
			Source         []string `json:"source"`
			Outputs        []any    `json:"outputs"`
			ExecutionCount *int     `json:"execution_count"`
		} `json:"cells"`
		NBFormatMinor int `json:"nbformat_minor"`
	}
	require.NoError(t, json.Unmarshal(out, &back))
	require.Len(t, back.Cells, 2)
	assert.Equal(t, []string{"# Title <b>bold</b>\n", "// BEGIN SOLUTION in markdown stays\n"}, back.Cells[0].Source)
	assert.Equal(t, []string{"func F() int {\n", "\t// STUB: not implemented yet; write your code here.\n", "\treturn 0\n", "}"}, back.Cells[1].Source)
	assert.Empty(t, back.Cells[1].Outputs)
	assert.Nil(t, back.Cells[1].ExecutionCount)
	assert.Equal(t, "c1", back.Cells[1].ID)
	assert.Equal(t, 5, back.NBFormatMinor)
	assert.Contains(t, string(out), "<b>bold</b>", "HTML is not escaped")
	assert.True(t, NotebookHasSolution(src))
	assert.False(t, NotebookHasSolution(out))
	assert.NotContains(t, string(out), "secret")
	assert.NotContains(t, string(out), "return 42")
}

// writeFiles creates files under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

func TestTreeWritesTheStudentVersion(t *testing.T) {
	root := gitRepo(t, map[string]string{
		"go.mod":                        "module example.com/demo\n",
		"exercises/01_demo/demo.go":     instructorGo,
		"exercises/20_demo/k.cu":        "__global__ void k(float* out)\n{\n    // BEGIN SOLUTION\n    out[0] = 1.0f;\n    // END SOLUTION\n    // BEGIN STUB\n    // return;\n    // END STUB\n}\n",
		"exercises/checks/hidden.go":    "//go:build hidden\n\npackage checks\n",
		"exercises/checks/public.go":    "package checks\n",
		"README.md":                     "read me\n",
		"notebooks/x/.git/ignored-like": "not in a release",
	})
	writeFiles(t, root, map[string]string{"exercises/01_demo/notes.md": "untracked: not in a release\n"})
	out := filepath.Join(t.TempDir(), "student")
	sum, err := Tree(root, out)
	require.NoError(t, err)
	assert.Equal(t, []string{"exercises/01_demo/demo.go", "exercises/20_demo/k.cu"}, sum.Stripped)
	cu, err := os.ReadFile(filepath.Join(out, "exercises", "20_demo", "k.cu"))
	require.NoError(t, err)
	assert.Equal(t, "__global__ void k(float* out)\n{\n    "+StubMark+" "+DefaultStubNote+"\n    return;\n}\n", string(cu), "a CUDA file keeps its stub, not its solution")
	assert.Equal(t, []string{"exercises/checks/hidden.go"}, sum.Left)

	got, err := os.ReadFile(filepath.Join(out, "exercises", "01_demo", "demo.go"))
	require.NoError(t, err)
	assert.Equal(t, studentGo, string(got))
	assert.NoFileExists(t, filepath.Join(out, "exercises", "checks", "hidden.go"))
	assert.FileExists(t, filepath.Join(out, "exercises", "checks", "public.go"))
	assert.FileExists(t, filepath.Join(out, "README.md"))
	assert.NoFileExists(t, filepath.Join(out, "exercises", "01_demo", "notes.md"))
	assert.NoDirExists(t, filepath.Join(out, "notebooks", "x"))

	_, err = Tree(root, out)
	assert.ErrorContains(t, err, "not empty", "an existing release is never overwritten")
	_, err = Tree(root, root)
	assert.Error(t, err)
}

// TestRepositoryReleases strips every file of this repository that has
// solutions, as the release does, and checks the student versions.
func TestRepositoryReleases(t *testing.T) {
	root := repoRoot(t)
	if !IsInstructorTree(root) {
		t.Skip("needs the solutions: this is a student release")
	}
	var want, got []string
	for _, e := range checks.All() {
		for _, f := range e.Files {
			want = append(want, "exercises/"+e.ID+"/"+f)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "exercises"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !GoHasSolution(b) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		got = append(got, filepath.ToSlash(rel))
		out, err := StripGo(p, b)
		if !assert.NoError(t, err, p) {
			return nil
		}
		assert.False(t, GoHasSolution(out), p)
		assert.Contains(t, string(out), StubMark, p)
		return nil
	})
	require.NoError(t, err)
	assert.ElementsMatch(t, want, got, "each exercise's student file, and nothing else, has solutions")

	// The CUDA exercises: the students' file has the stub and no solution.
	for _, s := range cudacheck.Specs() {
		p := filepath.Join(root, "exercises", s.ID, s.File)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.True(t, HasSolution(b), p)
		out, err := StripText(p, b)
		require.NoError(t, err, p)
		assert.False(t, HasSolution(out), p)
		assert.Contains(t, string(out), StubMark, p)
		assert.Contains(t, string(out), `extern "C" __global__ void `+s.Entry()+"(", "%s: the kernel's signature stays", p)
	}
}

func TestIsInstructorTree(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"exercises/checks/public.go": "package checks\n"})
	assert.False(t, IsInstructorTree(root), "a release has no hidden checks")
	writeFiles(t, root, map[string]string{"exercises/checks/hidden.go": "//go:build hidden\n\npackage checks\n"})
	assert.True(t, IsInstructorTree(root))
}

// TestTheStudentsCopyStaysGreen writes the release and runs its exercises'
// tests as make test does: unfinished exercises (09_find_the_bug starts as
// a broken kernel) do not fail CI, while a student running the test of an
// exercise still sees its checks fail.
func TestTheStudentsCopyStaysGreen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release's exercises; not in -short mode")
	}
	root := repoRoot(t)
	if !IsInstructorTree(root) {
		t.Skip("needs the instructor's tree to make the release")
	}
	out := filepath.Join(t.TempDir(), "student")
	_, err := Tree(root, out)
	require.NoError(t, err)
	run := func(env string, pkgs ...string) (string, error) {
		cmd := exec.Command("go", append([]string{"test", "-count=1"}, pkgs...)...)
		cmd.Dir = out
		cmd.Env = append(os.Environ(), env)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	text, err := run("STENCILLAB_EXERCISES_UNGRADED=1", "./exercises/...")
	assert.NoError(t, err, "make test's unit stage passes in the students' copy:\n%s", text)
	text, err = run("STENCILLAB_EXERCISES_UNGRADED=", "./exercises/09_find_the_bug")
	assert.Error(t, err, "go test of the broken kernel still fails for the student")
	assert.Contains(t, text, "FAIL")

	// The withheld kernels' placeholders: package cuda and every package
	// that reads its sources (gpu's launchers and their freshness, on the
	// fake binding; cuda2go) pass their tests in the students' copy.
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = out
	b, err := cmd.Output()
	require.NoError(t, err, "go list in the students' copy")
	pkgs := []string{"./cuda"}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && slices.Contains(f[1:], "stencillab.dev/cuda") {
			pkgs = append(pkgs, f[0])
		}
	}
	require.Greater(t, len(pkgs), 1, "some package reads the CUDA sources")
	text, err = run("STENCILLAB_EXERCISES_UNGRADED=1", pkgs...)
	assert.NoError(t, err, "the packages that read the CUDA sources pass in the students' copy:\n%s", text)
}
