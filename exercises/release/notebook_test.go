package release

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/internal/testlimit"
)

// The exercises notebook: its form (nbformat 4.5, cell ids, no outputs,
// the GoNB set-up cell first) and its code, which is put together the way
// GoNB does it, then built and run against this repository: the
// instructor's version must score full marks in every grade cell, the
// student version 0.

const exercisesNotebook = "09_exercises.ipynb"

const setupCell = "!*go mod edit -replace=stencillab.dev=${GONB_DIR}/.. -require=stencillab.dev@v0.0.0-00010101000000-000000000000"

type nbCell struct {
	CellType       string          `json:"cell_type"`
	ID             string          `json:"id"`
	Source         []string        `json:"source"`
	Outputs        []any           `json:"outputs"`
	ExecutionCount json.RawMessage `json:"execution_count"`
}

type notebook struct {
	Cells    []nbCell `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
		Stencillab struct {
			MinImages *int `json:"min_images"`
		} `json:"stencillab"`
	} `json:"metadata"`
	NBFormat      int `json:"nbformat"`
	NBFormatMinor int `json:"nbformat_minor"`
}

func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

func readNotebook(t *testing.T, b []byte) notebook {
	var nb notebook
	require.NoError(t, json.Unmarshal(b, &nb))
	return nb
}

func TestExercisesNotebookForm(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "notebooks", exercisesNotebook))
	require.NoError(t, err)
	nb := readNotebook(t, b)
	assert.Equal(t, 4, nb.NBFormat)
	assert.Equal(t, 5, nb.NBFormatMinor)
	assert.Equal(t, "gonb", nb.Metadata.Kernelspec.Name)
	require.NotNil(t, nb.Metadata.Stencillab.MinImages, "metadata.stencillab.min_images is declared")
	assert.Equal(t, 0, *nb.Metadata.Stencillab.MinImages, "the notebook draws nothing")
	require.NotEmpty(t, nb.Cells)
	assert.Equal(t, "code", nb.Cells[0].CellType)
	assert.Equal(t, setupCell, strings.Join(nb.Cells[0].Source, ""), "the first cell points the module at this repository")

	ids := map[string]bool{}
	grades := 0
	for i, c := range nb.Cells {
		assert.NotEmpty(t, c.ID, "cell %d has an id", i)
		assert.False(t, ids[c.ID], "cell id %q is unique", c.ID)
		ids[c.ID] = true
		if c.CellType == "code" {
			assert.Empty(t, c.Outputs, "cell %s is committed without outputs", c.ID)
			assert.Equal(t, "null", string(c.ExecutionCount), "cell %s is committed without an execution count", c.ID)
			if strings.Contains(strings.Join(c.Source, ""), "grading.Print(checks.") {
				grades++
			}
		}
	}
	assert.Equal(t, len(checks.All()), grades, "one grade cell per exercise")
	text := string(b)
	for _, e := range checks.All() {
		assert.Contains(t, text, "exercises/"+e.ID+"/", "the notebook names the file of %s", e.ID)
	}
}

// assemble puts a notebook's code cells together as GoNB does: the
// declarations of every cell, then the statements after each "%%" in the
// body of main. Lines for the kernel ("!…", "%…") are left out.
func assemble(t *testing.T, nb notebook) []byte {
	imports := map[string]bool{}
	var decls, body strings.Builder
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		var top, main []string
		inMain := false
		for _, line := range strings.Split(strings.Join(c.Source, ""), "\n") {
			switch {
			case strings.TrimSpace(line) == "%%":
				inMain = true
			case strings.HasPrefix(line, "!") || strings.HasPrefix(line, "%"):
			case inMain:
				main = append(main, line)
			default:
				top = append(top, line)
			}
		}
		src := "package main\n" + strings.Join(top, "\n")
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, c.ID, src, parser.ParseComments)
		require.NoError(t, err, "cell %s", c.ID)
		for _, is := range f.Imports {
			spec := is.Path.Value
			if is.Name != nil {
				spec = is.Name.Name + " " + spec
			}
			imports[spec] = true
		}
		for _, d := range f.Decls {
			start := d.Pos()
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok == token.IMPORT {
					continue
				}
				if d.Doc != nil {
					start = d.Doc.Pos()
				}
			case *ast.FuncDecl:
				if d.Doc != nil {
					start = d.Doc.Pos()
				}
			}
			decls.WriteString(src[fset.Position(start).Offset:fset.Position(d.End()).Offset] + "\n\n")
		}
		if len(main) > 0 {
			body.WriteString("\t{\n" + strings.Join(main, "\n") + "\n\t}\n")
		}
	}
	var out strings.Builder
	out.WriteString("package main\n\nimport (\n")
	for spec := range imports {
		out.WriteString("\t" + spec + "\n")
	}
	out.WriteString(")\n\n" + decls.String() + "func main() {\n" + body.String() + "}\n")
	src, err := dropUnusedImports("notebook", []byte(out.String()))
	require.NoError(t, err)
	formatted, err := format.Source(src)
	require.NoError(t, err, "the notebook's code is not valid Go:\n%s", src)
	return formatted
}

// runNotebook builds and runs the assembled code inside this module and
// returns the "Score X/Y" of every grade cell.
func runNotebook(t *testing.T, root string, src []byte) [][2]int {
	dir := t.TempDir()
	prog := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(prog, src, 0o644))
	target := filepath.Join(root, "exercises", "release", "testdata", "notebook", "main.go")
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {target: prog}})
	require.NoError(t, err)
	ovFile := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(ovFile, ov, 0o644))
	// Building and running the notebook's code is legitimate work: it
	// may take until the test's deadline, so load cannot fail it.
	ctx, cancel := context.WithTimeout(context.Background(), testlimit.Legit(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "-overlay", ovFile, "./exercises/release/testdata/notebook")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the notebook's code failed:\n%s", out)
	var scores [][2]int
	for _, m := range regexp.MustCompile(`(?m)^Score (\d+)/(\d+)`).FindAllStringSubmatch(string(out), -1) {
		got, _ := strconv.Atoi(m[1])
		max, _ := strconv.Atoi(m[2])
		scores = append(scores, [2]int{got, max})
	}
	require.Len(t, scores, len(checks.All()), "one score per grade cell:\n%s", out)
	return scores
}

func TestExercisesNotebookScores(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the notebook's code; not in -short mode")
	}
	root := repoRoot(t)
	if !IsInstructorTree(root) {
		t.Skip("needs the notebook's solutions: this is a student release")
	}
	b, err := os.ReadFile(filepath.Join(root, "notebooks", exercisesNotebook))
	require.NoError(t, err)
	require.True(t, NotebookHasSolution(b), "the instructor's notebook holds the solutions")
	all := checks.All()
	for i, s := range runNotebook(t, root, assemble(t, readNotebook(t, b))) {
		// The notebook runs without the tag hidden, whatever this test
		// binary was built with: its cells score the public checks.
		public := 0
		for _, c := range all[i].Checks {
			if !c.Hidden {
				public += c.Points
			}
		}
		assert.Equal(t, public, s[1], "grade cell %d checks %s", i+1, all[i].ID)
		assert.Equal(t, s[1], s[0], "the instructor's notebook scores full marks in grade cell %d (%s)", i+1, all[i].ID)
	}

	stripped, err := StripNotebook(exercisesNotebook, b)
	require.NoError(t, err)
	assert.False(t, NotebookHasSolution(stripped))
	for i, s := range runNotebook(t, root, assemble(t, readNotebook(t, stripped))) {
		assert.Equal(t, 0, s[0], "the student's notebook scores 0 in grade cell %d (%s)", i+1, all[i].ID)
	}
}
