package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
	"stencillab.dev/internal/nbformat"
)

// exercise is what the generator derives of one Go exercise.
type exercise struct {
	N           int    // its number in the notebook's order, from 1
	ID, File    string // its folder and its student file
	Title       string
	Points      int  // public points
	Hidden      int  // hidden points, when hiddenKnown
	hiddenKnown bool // this program was built with the hidden checks
	Funcs       []string
	Code, Grade string // notebook 09's cells
	Task        string // the package documentation's task, for a new section
}

// stubVar is the name the stubs return; the notebook declares it once, in
// its imports cell.
const stubVar = "errNotImplemented"

// gradingPath is the import path of package grading.
const gradingPath = "stencillab.dev/exercises/grading"

// exercises derives every Go exercise of the repository at root, in the
// order of checks.All: those with one Go file in their folder.
func exercises(root string) ([]exercise, error) {
	var out []exercise
	taken := map[string]string{} // names declared by earlier cells, and where: GoNB's cells share one package
	for _, e := range checks.All() {
		if len(e.Files) != 1 || !strings.HasSuffix(e.Files[0], ".go") {
			continue
		}
		ex := exercise{N: len(out) + 1, ID: e.ID, File: e.Files[0], Title: e.Title, hiddenKnown: checks.HiddenIncluded()}
		for _, c := range e.Checks {
			if c.Hidden {
				ex.Hidden += c.Points
			} else {
				ex.Points += c.Points
			}
		}
		src, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, ex.File))
		if err != nil {
			return nil, fmt.Errorf("exercisegen: %s: %w", e.ID, err)
		}
		test, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, "grade_test.go"))
		if err != nil {
			return nil, fmt.Errorf("exercisegen: %s: %w", e.ID, err)
		}
		if err := ex.derive(src, test, taken); err != nil {
			return nil, fmt.Errorf("exercisegen: %s: %w", e.ID, err)
		}
		out = append(out, ex)
	}
	return out, nil
}

// derive fills the cells, the functions and the task of ex from its file
// src and its test: the code cell is the file after its package clause,
// without the declaration of errNotImplemented (and the import of grading
// when nothing else uses it); the grade cell passes to the checks what the
// test passes. The notebook's cells share one package, so a name an
// earlier cell declares is refused, naming both exercises, unless the
// declaration gives itself another name in the notebook (the bug
// exercise's Coarsened, which 07's cell declares, is FixedCoarsened there:
// renameForNotebook).
func (ex *exercise) derive(src, test []byte, taken map[string]string) error {
	call := handin.GradeCall(string(test), "grading.Test")
	if call == "" {
		return errors.New("grade_test.go passes nothing to grading.Test")
	}
	src, renames, err := renameForNotebook(ex.File, src)
	if err != nil {
		return err
	}
	if call, err = renameInCall(call, renames); err != nil {
		return fmt.Errorf("grade_test.go: %w", err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, ex.File, src, parser.ParseComments)
	if err != nil {
		return err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	type cut struct{ from, to int }
	var cuts []cut
	gradingUses := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok && id.Name == "grading" {
				gradingUses++
			}
		}
		return true
	})
	var declared []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				declared = append(declared, d.Name.Name)
				if d.Name.IsExported() {
					ex.Funcs = append(ex.Funcs, d.Name.Name)
				}
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name == stubVar && len(d.Specs) == 1 {
							from := off(d.Pos())
							if d.Doc != nil {
								from = off(d.Doc.Pos())
							}
							cuts = append(cuts, cut{from, off(d.End())})
							gradingUses-- // its grading.ErrNotImplemented
						} else {
							declared = append(declared, n.Name)
						}
					}
				case *ast.TypeSpec:
					declared = append(declared, s.Name.Name)
				}
			}
		}
	}
	if gradingUses == 0 {
		for _, s := range f.Imports {
			if strings.Trim(s.Path.Value, `"`) == gradingPath {
				cuts = append(cuts, cut{off(s.Pos()), off(s.End())})
			}
		}
	}
	sort.Slice(cuts, func(a, b int) bool { return cuts[a].from < cuts[b].from })
	body := append([]byte(nil), src...)
	for i := len(cuts) - 1; i >= 0; i-- {
		body = append(body[:cuts[i].from:cuts[i].from], body[cuts[i].to:]...)
	}
	text := string(body[off(f.Name.End()):])
	text = blankLines.ReplaceAllString(text, "\n\n")
	text = strings.ReplaceAll(text, "(\n\t\n", "(\n")
	text = strings.ReplaceAll(text, "\n\t\n)", "\n)")
	text = strings.ReplaceAll(text, "\n\n\n", "\n\n")
	text = strings.ReplaceAll(text, "\n\n)", "\n)")
	text = strings.TrimSpace(text)

	for _, name := range declared {
		if earlier, clash := taken[name]; clash {
			return fmt.Errorf("%s declares %s, which %s declares too: notebook 09's cells share one package, "+
				"so name it otherwise, or give it another name in the notebook with a line %q in its doc comment",
				ex.File, name, earlier, notebookNameDirective+" NAME")
		}
		taken[name] = ex.ID + "'s " + ex.File
	}
	ex.Code = text + "\n\n" + cellTail(ex.ID)
	ex.Grade = "%%\ngrading.Print(" + call + ")"
	ex.Task = task(f.Doc)
	return nil
}

// cellTail is the end of exercise id's code cell in a notebook: after
// GoNB's %% (what a hand-in of the cell as a file leaves out), the lines
// that tell the grade cell whether the cell compiled when it last ran, so
// that it never grades an older definition that the kernel kept after a
// compile error (grading.CellError).
func cellTail(id string) string {
	return "%%\n" +
		"// Keep these lines: they tell the grade cell below that this cell compiled.\n" +
		grading.CellCapture(id) + "\n" +
		fmt.Sprintf("grading.CellCompiled(%q)", id)
}

// blankLines matches lines that hold only spaces, left where a
// declaration was cut.
var blankLines = regexp.MustCompile(`\n[ \t]*\n([ \t]*\n)+`)

// task returns the package documentation's text after its heading "Your
// task", up to the paragraph that says how to check the work, as
// Markdown.
func task(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	text := doc.Text()
	if _, after, ok := strings.Cut(text, "# Your task\n"); ok {
		text = after
	}
	if before, _, ok := strings.Cut(text, "Check your work"); ok {
		text = before
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		lines = append(lines, strings.TrimPrefix(l, " "))
	}
	return strings.Join(lines, "\n")
}

// Notebook 09's cells, as nbformat writes them.

// notebookPath is notebook 09, relative to the repository.
var notebookPath = filepath.Join("notebooks", handin.NotebookName)

// readCells reads the notebook src (at path, for errors): its top-level
// fields, its cells and each cell's index by id.
func readCells(src []byte, path string) (nb map[string]json.RawMessage, cells []map[string]json.RawMessage, byID map[string]int, err error) {
	if err := json.Unmarshal(src, &nb); err != nil {
		return nil, nil, nil, fmt.Errorf("exercisegen: %s: %w", path, err)
	}
	if err := json.Unmarshal(nb["cells"], &cells); err != nil {
		return nil, nil, nil, fmt.Errorf("exercisegen: %s: cells: %w", path, err)
	}
	byID = map[string]int{}
	for i, c := range cells {
		var id string
		_ = json.Unmarshal(c["id"], &id)
		byID[id] = i
	}
	return nb, cells, byID, nil
}

// notebook returns notebook 09 with every exercise's code and grade cells
// derived from exs, a section added for an exercise it lacks (before the
// hand-in cell), and the intro's table of exercises.
func notebook(src []byte, exs []exercise) ([]byte, error) {
	nb, cells, byID, err := readCells(src, notebookPath)
	if err != nil {
		return nil, err
	}
	set := func(c map[string]json.RawMessage, text string) error {
		var err error
		c["source"], err = nbformat.Marshal(nbformat.SplitSource(text))
		return err
	}
	var added []map[string]json.RawMessage
	for _, ex := range exs {
		topic := handin.CellTopic(ex.ID)
		code, okCode := byID[topic+"-code"]
		grade, okGrade := byID[topic+"-grade"]
		if okCode && okGrade {
			if err := set(cells[code], ex.Code); err != nil {
				return nil, err
			}
			if err := set(cells[grade], ex.Grade); err != nil {
				return nil, err
			}
			continue
		}
		md := fmt.Sprintf("## Exercise %d · %s\n\n%s\n\nThe file: `exercises/%s/%s`.", ex.N, ex.Title, ex.Task, ex.ID, ex.File)
		for _, c := range []struct{ id, kind, text string }{
			{topic + "-md", "markdown", md}, {topic + "-code", "code", ex.Code}, {topic + "-grade", "code", ex.Grade},
		} {
			cell := map[string]json.RawMessage{"cell_type": mustMarshal(c.kind), "id": mustMarshal(c.id), "metadata": json.RawMessage("{}")}
			if c.kind == "code" {
				cell["execution_count"] = json.RawMessage("null")
				cell["outputs"] = json.RawMessage("[]")
			}
			if err := set(cell, c.text); err != nil {
				return nil, err
			}
			added = append(added, cell)
		}
	}
	if len(added) > 0 {
		at, ok := byID["submit"]
		if !ok {
			at = len(cells)
		}
		cells = append(cells[:at:at], append(added, cells[at:]...)...)
	}
	if i, ok := byID["intro"]; ok {
		intro, err := nbformat.CellSource(cells[i]["source"])
		if err != nil {
			return nil, fmt.Errorf("exercisegen: %s: the intro: %w", notebookPath, err)
		}
		if err := set(cells[i], introTable(intro, exs)); err != nil {
			return nil, err
		}
	}
	if nb["cells"], err = nbformat.Marshal(cells); err != nil {
		return nil, err
	}
	b, err := nbformat.Encode(nb)
	if err != nil {
		return nil, fmt.Errorf("exercisegen: %s: %w", notebookPath, err)
	}
	return b, nil
}

// introRow matches a row of the intro's table: its number and its text.
var introRow = regexp.MustCompile(`^\| (\d+) \| (.*) \| \d+ \|$`)

// introTable rewrites the rows of the intro's table "| N | exercise |
// points |": the points from the checks, the text kept for a number the
// table has, the title for one it lacks.
func introTable(text string, exs []exercise) string {
	return rewriteTable(text, introRow, func(ms [][]string) []string {
		prose := map[int]string{}
		for _, m := range ms {
			var n int
			fmt.Sscan(m[1], &n)
			prose[n] = m[2]
		}
		var rows []string
		for _, ex := range exs {
			p, ok := prose[ex.N]
			if !ok {
				p = lowerFirst(ex.Title)
			}
			rows = append(rows, fmt.Sprintf("| %d | %s | %d |", ex.N, p, ex.Points))
		}
		return rows
	})
}

// rewriteTable replaces the run of text's lines from the first to the last
// that row matches by the rows rows returns, given each matched line's
// submatches; text without such a line comes back as it is.
func rewriteTable(text string, row *regexp.Regexp, rows func(matches [][]string) []string) string {
	lines := strings.Split(text, "\n")
	var ms [][]string
	first, last := -1, -1
	for i, l := range lines {
		if m := row.FindStringSubmatch(l); m != nil {
			ms = append(ms, m)
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return text
	}
	out := append(append(append([]string{}, lines[:first]...), rows(ms)...), lines[last+1:]...)
	return strings.Join(out, "\n")
}

// lowerFirst writes a title as a table's text: its first letter lower
// case, unless the first word is an acronym.
func lowerFirst(s string) string {
	if len(s) > 1 && s[0] >= 'A' && s[0] <= 'Z' && (s[1] < 'A' || s[1] > 'Z') {
		return strings.ToLower(s[:1]) + s[1:]
	}
	return s
}

// The table of exercises/README.md.

// readmePath is the exercises' README, relative to the repository.
var readmePath = filepath.Join("exercises", "README.md")

// readmeRow matches a row of the README's table of Go exercises.
var readmeRow = regexp.MustCompile("^\\| `(\\d\\d_\\w+)` \\| (.*) \\| (.*) \\| (\\d+)( \\(\\+\\d+\\))? \\|$")

// readme returns the README with its table of Go exercises derived from
// exs: the points (and the hidden points, where this program knows them)
// from the checks; the student's functions and the topic kept for a folder
// the table has, derived from the file and the title for one it lacks.
func readme(text string, exs []exercise) string {
	type row struct{ writes, topic, hidden string }
	return rewriteTable(text, readmeRow, func(ms [][]string) []string {
		have := map[string]row{}
		for _, m := range ms {
			have[m[1]] = row{m[2], m[3], m[5]}
		}
		var rows []string
		for _, ex := range exs {
			r, ok := have[ex.ID]
			if !ok {
				names := make([]string, len(ex.Funcs))
				for i, f := range ex.Funcs {
					names[i] = "`" + f + "`"
				}
				r = row{writes: strings.Join(names, ", ") + " in `" + ex.File + "`", topic: lowerFirst(ex.Title)}
			}
			if ex.hiddenKnown {
				r.hidden = ""
				if ex.Hidden > 0 {
					r.hidden = fmt.Sprintf(" (+%d)", ex.Hidden)
				}
			}
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %s | %d%s |", ex.ID, r.writes, r.topic, ex.Points, r.hidden))
		}
		return rows
	})
}

func mustMarshal(s string) json.RawMessage {
	b, _ := nbformat.Marshal(s) // a string always encodes
	return b
}

// cudaNotebookPath is notebook 10, relative to the repository.
var cudaNotebookPath = filepath.Join("notebooks", "10_cuda_exercises.ipynb")

// cudaGrade matches a grade cell of notebook 10: the exercise and the name
// of the variable that holds its CUDA C.
var cudaGrade = regexp.MustCompile(`nbrun\.CUDAExercise\("(\w+)", (\w+)\)`)

// cudaNotebook returns notebook 10 with the end of each exercise's code
// cell (TOPIC-cu, before the grade cell TOPIC-grade that passes its
// variable to nbrun.CUDAExercise) derived as notebook 09's: the cell's
// text up to GoNB's %%, then cellTail. The rest of the notebook is
// written by hand.
func cudaNotebook(src []byte) ([]byte, error) {
	nb, cells, byID, err := readCells(src, cudaNotebookPath)
	if err != nil {
		return nil, err
	}
	for _, c := range cells {
		var id string
		_ = json.Unmarshal(c["id"], &id)
		topic, ok := strings.CutSuffix(id, "-grade")
		if !ok {
			continue
		}
		grade, err := nbformat.CellSource(c["source"])
		if err != nil {
			return nil, fmt.Errorf("exercisegen: %s: cell %s: %w", cudaNotebookPath, id, err)
		}
		m := cudaGrade.FindStringSubmatch(grade)
		if m == nil {
			continue
		}
		i, ok := byID[topic+"-cu"]
		if !ok {
			return nil, fmt.Errorf("exercisegen: %s: cell %s grades %s, but no cell %s-cu holds its code", cudaNotebookPath, id, m[1], topic)
		}
		code, err := nbformat.CellSource(cells[i]["source"])
		if err != nil {
			return nil, fmt.Errorf("exercisegen: %s: cell %s-cu: %w", cudaNotebookPath, topic, err)
		}
		if !strings.Contains(code, "var "+m[2]+" =") {
			return nil, fmt.Errorf("exercisegen: %s: cell %s-cu does not declare %s, which %s passes", cudaNotebookPath, topic, m[2], id)
		}
		code = strings.TrimSpace(beforeMain(code)) + "\n\n" + cellTail(m[1])
		if cells[i]["source"], err = nbformat.Marshal(nbformat.SplitSource(code)); err != nil {
			return nil, err
		}
	}
	if nb["cells"], err = nbformat.Marshal(cells); err != nil {
		return nil, err
	}
	b, err := nbformat.Encode(nb)
	if err != nil {
		return nil, fmt.Errorf("exercisegen: %s: %w", cudaNotebookPath, err)
	}
	return b, nil
}

// beforeMain returns a cell's text before its line "%%", all of it when it
// has none.
func beforeMain(code string) string {
	lines := strings.Split(code, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "%%" {
			return strings.Join(lines[:i], "\n")
		}
	}
	return code
}

// Generate returns the generated files of the repository at root, by
// path relative to it, with their new contents.
func Generate(root string) (map[string][]byte, error) {
	exs, err := exercises(root)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	nb, err := os.ReadFile(filepath.Join(root, notebookPath))
	if err != nil {
		return nil, fmt.Errorf("exercisegen: %w", err)
	}
	if out[notebookPath], err = notebook(nb, exs); err != nil {
		return nil, err
	}
	cu, err := os.ReadFile(filepath.Join(root, cudaNotebookPath))
	if err != nil {
		return nil, fmt.Errorf("exercisegen: %w", err)
	}
	if out[cudaNotebookPath], err = cudaNotebook(cu); err != nil {
		return nil, err
	}
	md, err := os.ReadFile(filepath.Join(root, readmePath))
	if err != nil {
		return nil, fmt.Errorf("exercisegen: %w", err)
	}
	out[readmePath] = []byte(readme(string(md), exs))
	return out, nil
}
