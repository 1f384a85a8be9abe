package handin

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

func TestCellFileKeepsLinesAndCompilesStubs(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	pad := rng.IntN(5) // blank lines at the top of the cell move every line
	cell := strings.Repeat("\n", pad) + `import (
	"fmt"
	m "math"
	"math/rand/v2"
	"strings"
)
%env X=1
!echo hi

// F is not written yet.
func F(n int) (int, error) {
	// STUB: not implemented yet
	return 0, errNotImplemented
}

func G() string { return strings.ToUpper("x") }
%%
grading.Print(nothing)
`
	src, origin := CellFile("ex", cell, []string{"var H = F"})
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	require.NoError(t, err, "%s", src)
	assert.Equal(t, "ex", f.Name.Name)

	imports := map[string]string{}
	for _, s := range f.Imports {
		name := ""
		if s.Name != nil {
			name = s.Name.Name
		}
		imports[strings.Trim(s.Path.Value, `"`)] = name
	}
	assert.Equal(t, map[string]string{"fmt": "_", "math": "_", "math/rand/v2": "_", "strings": "",
		gradingPath: stubImport}, imports, "unused imports blank, the used one kept, grading added:\n%s", src)

	declared := map[string]bool{}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					declared[n.Name] = true
				}
			}
		}
	}
	assert.Equal(t, map[string]bool{stubName: true, "H": true}, declared)

	// Each line of the cell before %% is the file's line at the same
	// place, two lines down; GoNB's commands are emptied.
	fileLines := strings.Split(string(src), "\n")
	cellLines := strings.Split(cell, "\n")
	end := 0
	for i, l := range cellLines {
		if l == "%%" {
			end = i
			break
		}
	}
	require.Len(t, origin, len(fileLines)-1, "one origin per line of the file")
	for i := 0; i < end; i++ {
		n := i + 3 // the file's line, from 1
		assert.Equal(t, i+1, origin[n-1])
		want := cellLines[i]
		switch {
		case strings.HasPrefix(want, "!"), strings.HasPrefix(want, "%"):
			want = ""
		case strings.TrimSpace(want) == `"fmt"`:
			want = "\t_ \"fmt\""
		case strings.TrimSpace(want) == `"math/rand/v2"`:
			want = "\t_ \"math/rand/v2\""
		case strings.TrimSpace(want) == `m "math"`:
			want = "\t_ \"math\""
		}
		assert.Equal(t, want, fileLines[n-1], "line %d of the cell", i+1)
	}
	assert.Zero(t, origin[0])
	assert.Zero(t, origin[len(origin)-1])
	assert.NotContains(t, string(src), "grading.Print", "the grade cell's part is not code of the file")
}

func TestCellFileLeavesWhatItCannotParse(t *testing.T) {
	cell := "import \"fmt\"\nfunc F( {\n"
	src, origin := CellFile("ex", cell, nil)
	assert.Equal(t, "package ex\n\n"+cell+"\n", string(src))
	assert.Equal(t, []int{0, 0, 1, 2, 3}, origin)
}

func TestCellFileDeclaresNoStubTwice(t *testing.T) {
	cell := "var errNotImplemented = fmt.Errorf(\"no\")\n\nfunc F() error { return errNotImplemented }\n"
	src, _ := CellFile("ex", "import \"fmt\"\n"+cell, nil)
	assert.Equal(t, 1, strings.Count(string(src), "var errNotImplemented"))
	assert.NotContains(t, string(src), stubImport)
}

func TestImportName(t *testing.T) {
	for in, want := range map[string]string{`"fmt"`: "fmt", `"math/rand/v2"`: "rand", `"gonum.org/v1/gonum/mat"`: "mat",
		`"v2"`: "v2", `"a/v"`: "v", "fmt": ""} {
		assert.Equal(t, want, ImportName(in), in)
	}
}

// TestNotebookLinesRewrite names each position in an extracted file, as
// the compiler, the static check and a stack trace write it, by the
// notebook's cell and line, and leaves other files' positions alone.
func TestNotebookLinesRewrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 6))
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "notebooks"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "exercises", "07_basic"), 0o755))
	nb := notebook(map[string]string{"basic-grade": "%%\ngrading.Print(checks.Basic(Basic))\n"}, 1, rng)
	require.NoError(t, os.WriteFile(filepath.Join(root, "notebooks", NotebookName), nb, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "exercises", "07_basic", "basic.go"), []byte("package basic\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "exercises", "07_basic", "grade_test.go"),
		[]byte("package basic\nfunc TestGrade(t *testing.T) { grading.Test(t, checks.Basic(Basic)) }\n"), 0o644))

	pad := 1 + rng.IntN(20)
	cell := strings.Repeat("// note\n", pad) + "func Basic() error {\n\treturn errNotImplemented\n}\n"
	dir := t.TempDir()
	ex := grading.Exercise{ID: "07_basic", Files: []string{"basic.go"}}
	lines, err := ExtractNotebookLines(dir, root, map[string]string{"basic-code": cell}, []grading.Exercise{ex})
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(dir, "07_basic", "basic.go"))
	require.NoError(t, err)
	// The line of the return, in the file and in the cell.
	fileLine := 1 + strings.Count(string(src[:strings.Index(string(src), "return")]), "\n")
	cellLine := pad + 2
	want := fmt.Sprintf("%s, cell basic-code, line %d", NotebookName, cellLine)

	for _, msg := range []string{
		"does not compile:\nexercises/07_basic/basic.go:%d:9: undefined: x",
		"the static check refused the submission:\nbasic.go:%d: calls recover",
		"panic: boom\n\tstencillab.dev/exercises/07_basic/basic.go:%d +0x1d",
	} {
		got := lines.Rewrite(fmt.Sprintf(msg, fileLine))
		assert.Contains(t, got, want, msg)
		assert.NotContains(t, got, "basic.go", msg)
	}
	other := fmt.Sprintf("lab/basic.go:%d: fine\nexercises/05_basic/basic.go:%d: other", fileLine, fileLine)
	assert.Equal(t, other, lines.Rewrite(other), "another file's positions stay")
	added := lines.Rewrite(fmt.Sprintf("basic.go:%d: x", len(strings.Split(string(src), "\n"))-1))
	assert.Contains(t, added, "a line the grader adds")

	r := grading.ExerciseResult{Message: fmt.Sprintf("basic.go:%d: x", fileLine),
		Checks: []grading.CheckResult{{Message: fmt.Sprintf("exercises/07_basic/basic.go:%d:2: y", fileLine)}}}
	lines.RewriteResult(&r)
	assert.Equal(t, want+": x", r.Message)
	assert.Equal(t, want+": y", r.Checks[0].Message)

	var none NotebookLines
	assert.Equal(t, "basic.go:3: x", none.Rewrite("basic.go:3: x"))
}

// FuzzCellFile: whatever a cell holds, the file made of it keeps every
// line where it was (one origin per line) and nothing panics.
func FuzzCellFile(f *testing.F) {
	f.Add("import (\n\t\"fmt\"\n\tm \"math\"\n)\n\nfunc F() error { return errNotImplemented }\n")
	f.Add("import \"fmt\"\nfunc F( {\n")
	f.Add("%%\ngrading.Print(x)")
	f.Add("import _ \"fmt\"\nvar errNotImplemented = 1\n")
	f.Add("import (\n\t\"\\x00\"\n\t\"a/v\"\n)\nvar _ = v.X\n")
	f.Fuzz(func(t *testing.T, cell string) {
		src, origin := CellFile("ex", cell, []string{"var A = B"})
		require.Equal(t, strings.Count(string(src), "\n"), len(origin), "one origin per line")
		for n, o := range origin {
			assert.GreaterOrEqual(t, o, 0)
			assert.LessOrEqual(t, o, n+1-2+1, "line %d comes from a cell line at or before it", n+1)
		}
		var lines NotebookLines
		_ = lines.Rewrite(string(src))
	})
}

// Only a code cell's source is read: a key nbformat does not have in a
// code cell (a solution hidden beside a stub) refuses the notebook;
// markdown and raw cells are not graded, whatever they hold.
func TestNotebookCellsRefuseUnknownKeys(t *testing.T) {
	ok := `{"cells":[{"cell_type":"code","id":"sine-code","metadata":{},"source":["a\n","b"],"outputs":[],"execution_count":3},` +
		`{"cell_type":"markdown","id":"m","metadata":{},"source":"x","outputs":[]}],"nbformat":4}`
	cells, err := NotebookCells([]byte(ok))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"sine-code": "a\nb"}, cells)
	for _, key := range []string{"solution", "Source", "source_hidden"} {
		bad := `{"cells":[{"cell_type":"code","id":"sine-code","metadata":{},"source":"stub","` + key + `":"solution","outputs":[]}]}`
		_, err := NotebookCells([]byte(bad))
		require.Error(t, err, key)
		assert.ErrorIs(t, err, ErrMalformed)
		assert.Contains(t, err.Error(), `"`+key+`"`)
	}
}
