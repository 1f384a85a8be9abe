package handin

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"stencillab.dev/exercises/grading"
)

// A student may hand in the notebook notebooks/09_exercises.ipynb instead
// of the exercise files. Each exercise has a code cell whose id is its
// topic with dashes ("five-point-code" for 03_five_point), followed by a
// grade cell ("five-point-grade") that passes the cell's functions to the
// exercise's checks. The code cell becomes the exercise's file: the
// package clause of the repository's file, the cell's imports and
// declarations; where the notebook names a function differently from the
// file (FixedCoarsened for Coarsened), a variable gives it the file's name.

// NotebookName is the file name of a notebook hand-in.
const NotebookName = "09_exercises.ipynb"

// Limits of a handed-in notebook. A real notebook carries its outputs,
// figures included (base64 images of a few hundred KiB each), so the file
// itself may be large: it is refused only over MaxNotebookBytes. Outputs,
// attachments, metadata and Markdown cells are dropped as it is parsed;
// the limits on what is kept apply to the code cells alone.
const (
	// MaxNotebookBytes bounds the notebook file, outputs included.
	MaxNotebookBytes = 64 << 20
	// MaxNotebookCodeBytes bounds the code cells' sources together.
	MaxNotebookCodeBytes = MaxSourceBytes
	// MaxNotebookCells bounds the number of cells.
	MaxNotebookCells = 10000
	// MaxNotebookDepth bounds the nesting of the notebook's JSON (a
	// notebook with widgets' state nests about 12 deep).
	MaxNotebookDepth = 100
)

type nbCell struct {
	ID       string          `json:"id"`
	CellType string          `json:"cell_type"`
	Source   json.RawMessage `json:"source"`
}

// ReadNotebook reads the handed-in notebook at path (a regular file, not
// a link, at most MaxNotebookBytes) and returns its code cells by id.
func ReadNotebook(path string) (map[string]string, error) {
	b, err := ReadRegular(path, MaxNotebookBytes)
	if err != nil {
		if err == ErrLink {
			return nil, fmt.Errorf("%s %w", filepath.Base(path), err)
		}
		return nil, err
	}
	return NotebookCells(b)
}

// NotebookCells returns the code cells of the notebook b by id, dropping
// everything else: outputs, attachments, metadata, other cells.
func NotebookCells(b []byte) (map[string]string, error) {
	if len(b) > MaxNotebookBytes {
		return nil, refuse(ErrTooLarge, "the notebook has %d bytes, more than the %d a notebook may have", len(b), MaxNotebookBytes)
	}
	if err := checkDepth(b, MaxNotebookDepth); err != nil {
		return nil, err
	}
	var nb struct {
		Cells []map[string]json.RawMessage `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, refuse(ErrMalformed, "not a notebook: %v", err)
	}
	if len(nb.Cells) > MaxNotebookCells {
		return nil, refuse(ErrTooLarge, "the notebook has %d cells, more than the %d a notebook may have", len(nb.Cells), MaxNotebookCells)
	}
	cells := map[string]string{}
	total := 0
	for i, raw := range nb.Cells {
		c, err := readCell(i, raw)
		if err != nil {
			return nil, err
		}
		if c.CellType != "code" || c.ID == "" {
			continue
		}
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err != nil {
			var one string
			if err := json.Unmarshal(c.Source, &one); err != nil {
				return nil, refuse(ErrMalformed, "cell %q: its source is neither a string nor a list of strings", clip(c.ID))
			}
			lines = []string{one}
		}
		src := strings.Join(lines, "")
		total += len(src)
		if total > MaxNotebookCodeBytes {
			return nil, refuse(ErrTooLarge, "the notebook's code cells have more than the %d bytes of code a notebook may have (outputs not counted)", MaxNotebookCodeBytes)
		}
		cells[c.ID] = src
	}
	return cells, nil
}

// codeCellKeys are the keys nbformat 4's schema allows in a code cell:
// what Jupyter shows and runs is the cell's source, and a key it does not
// know (a second "source" under another name) is refused rather than read
// or dropped. Other cells are not graded, whatever they hold.
var codeCellKeys = map[string]bool{"id": true, "cell_type": true, "metadata": true, "source": true, "outputs": true, "execution_count": true}

// readCell decodes cell i of a notebook (keys as JSON decodes them, the
// last of a repeated key winning, as Jupyter reads it), refusing a key a
// code cell does not have.
func readCell(i int, raw map[string]json.RawMessage) (nbCell, error) {
	var c nbCell
	if t, ok := raw["cell_type"]; ok {
		if err := json.Unmarshal(t, &c.CellType); err != nil {
			return c, refuse(ErrMalformed, "cell %d: its cell_type is not a string", i+1)
		}
	}
	if c.CellType != "code" {
		return c, nil
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !codeCellKeys[k] {
			return c, refuse(ErrMalformed, "cell %d: the key %q is not one of a code cell's in nbformat 4 (Jupyter would not show it): remove it", i+1, clip(k))
		}
	}
	if id, ok := raw["id"]; ok {
		if err := json.Unmarshal(id, &c.ID); err != nil {
			return c, refuse(ErrMalformed, "cell %d: its id is not a string", i+1)
		}
	}
	c.Source = raw["source"]
	return c, nil
}

// clip shortens a name taken from a hand-in for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// checkDepth refuses JSON nested deeper than limit, before it is decoded.
func checkDepth(b []byte, limit int) error {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > limit {
				return refuse(ErrMalformed, "the notebook nests more than %d levels deep", limit)
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// ExtractNotebook writes the exercise files held in the code cells of a
// handed-in notebook into dir/ID/FILE, for the exercises exs of the
// repository root, as ExtractNotebookLines does, without the map of their
// lines.
func ExtractNotebook(dir, root string, cells map[string]string, exs []grading.Exercise) error {
	_, err := ExtractNotebookLines(dir, root, cells, exs)
	return err
}

// ExtractNotebookLines writes the exercise files held in the code cells of
// a handed-in notebook into dir/ID/FILE, for the exercises exs of the
// repository root, and returns where each of their lines came from. An
// exercise whose cell is missing gets no file (it scores 0 as missing).
//
// A cell that still holds stubs compiles as the student file does: an
// import the cell no longer uses becomes a blank import, and
// errNotImplemented, which the notebook declares in its imports cell, is
// declared in the file when the cell uses it without declaring it. Lines
// keep their numbers: line n of the cell is line n+2 of the file.
//
// Errors about the repository's own files are the grader's, and wrap none
// of this package's sentinels.
func ExtractNotebookLines(dir, root string, cells map[string]string, exs []grading.Exercise) (NotebookLines, error) {
	lines := NotebookLines{files: map[string]cellLines{}}
	ref, err := os.ReadFile(filepath.Join(root, "notebooks", NotebookName))
	if err != nil {
		return lines, fmt.Errorf("the repository's notebook: %w", err)
	}
	instructor, err := NotebookCells(ref)
	if err != nil {
		return lines, fmt.Errorf("the repository's notebook: %v", err)
	}
	for _, e := range exs {
		if len(e.Files) != 1 {
			continue // a notebook cell holds one file
		}
		topic := CellTopic(e.ID)
		code, ok := cells[topic+"-code"]
		if !ok {
			continue
		}
		if strings.HasSuffix(e.Files[0], ".cu") {
			// A CUDA exercise's cell is the kernel's file as it is: it is
			// graded as CUDA (on a GPU, or withheld), never parsed as Go.
			if err := writeCell(dir, e, []byte(code)); err != nil {
				return lines, err
			}
			origin := make([]int, strings.Count(code, "\n")+1)
			for i := range origin {
				origin[i] = i + 1
			}
			lines.files[e.ID+"/"+e.Files[0]] = cellLines{id: e.ID, file: e.Files[0], cell: topic + "-code", lines: origin,
				re: positionRE(e.ID, e.Files[0])}
			continue
		}
		file := filepath.Join(root, "exercises", e.ID, e.Files[0])
		orig, err := os.ReadFile(file)
		if err != nil {
			return lines, fmt.Errorf("the repository's %s: %w", e.Files[0], err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, orig, parser.PackageClauseOnly)
		if err != nil {
			return lines, fmt.Errorf("the repository's %s: %w", e.Files[0], err)
		}
		// The names the notebook's grade cell passes, against those the
		// exercise's test passes.
		test, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, "grade_test.go"))
		if err != nil {
			return lines, fmt.Errorf("the repository's test of %s: %w", e.ID, err)
		}
		var aliases []string
		nbNames := CallArgs(GradeCall(instructor[topic+"-grade"], "grading.Print"))
		fileNames := CallArgs(GradeCall(string(test), "grading.Test"))
		if len(nbNames) == len(fileNames) {
			for i := range nbNames {
				if nbNames[i] != fileNames[i] {
					aliases = append(aliases, "", fmt.Sprintf("// %s is the notebook's %s.", fileNames[i], nbNames[i]),
						fmt.Sprintf("var %s = %s", fileNames[i], nbNames[i]))
				}
			}
		}
		src, origin := CellFile(f.Name.Name, code, aliases)
		if err := writeCell(dir, e, src); err != nil {
			return lines, err
		}
		lines.files[e.ID+"/"+e.Files[0]] = cellLines{id: e.ID, file: e.Files[0], cell: topic + "-code", lines: origin,
			re: positionRE(e.ID, e.Files[0])}
	}
	return lines, nil
}

// writeCell writes src as the exercise e's file in dir/ID/FILE.
func writeCell(dir string, e grading.Exercise, src []byte) error {
	out := filepath.Join(dir, e.ID)
	if err := os.MkdirAll(out, 0o700); err != nil {
		return fmt.Errorf("a private copy of %s: %w", e.ID, err)
	}
	if err := os.WriteFile(filepath.Join(out, e.Files[0]), src, 0o600); err != nil {
		return fmt.Errorf("a private copy of %s: %w", e.ID, err)
	}
	return nil
}

// stubName is the name a stub returns until the function is written; the
// notebook declares it in its imports cell, the exercise's file beside
// its functions.
const stubName = "errNotImplemented"

// stubImport is the name under which an extracted file imports package
// grading for errNotImplemented.
const stubImport = "notebookgrading"

// CellFile returns the Go file made of a notebook's code cell: the package
// clause pkg, the cell's lines (GoNB's "%%" ends them; its "!" and "%"
// commands become empty lines), then the extra lines. origin[n-1] is the
// cell's line of the file's line n, 0 for a line the extraction wrote.
//
// A cell that still holds stubs compiles: each import the cell does not
// use becomes a blank import (as the release drops the imports only a
// solution used), and errNotImplemented is declared when the cell uses it
// without declaring it. Neither edit moves a line. Text that does not
// parse is returned as it is, for the compiler to report.
func CellFile(pkg, code string, extra []string) (src []byte, origin []int) {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	origin = []int{0, 0}
	for i, line := range strings.Split(code, "\n") {
		if strings.TrimSpace(line) == "%%" {
			break
		}
		if strings.HasPrefix(line, "!") || strings.HasPrefix(line, "%") {
			line = ""
		}
		b.WriteString(line + "\n")
		origin = append(origin, i+1)
	}
	for _, line := range extra {
		b.WriteString(line + "\n")
		origin = append(origin, 0)
	}
	text := []byte(b.String())
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", text, parser.SkipObjectResolution)
	if err != nil {
		return text, origin
	}
	used := map[string]bool{}
	stubUsed, stubDeclared := false, false
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		case *ast.Ident:
			if n.Name == stubName {
				stubUsed = true
			}
		}
		return true
	})
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						stubDeclared = stubDeclared || n.Name == stubName
					}
				case *ast.TypeSpec:
					stubDeclared = stubDeclared || s.Name.Name == stubName
				}
			}
		case *ast.FuncDecl:
			stubDeclared = stubDeclared || (d.Recv == nil && d.Name.Name == stubName)
		}
	}
	// Edits from the end of the file, so that earlier offsets hold.
	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	for _, s := range f.Imports {
		name := ImportName(s.Path.Value)
		if s.Name != nil {
			name = s.Name.Name
		}
		if name == "_" || name == "." || name == "" || used[name] {
			continue
		}
		if s.Name != nil {
			edits = append(edits, edit{fset.Position(s.Name.Pos()).Offset, fset.Position(s.Name.End()).Offset, "_"})
		} else {
			at := fset.Position(s.Path.Pos()).Offset
			edits = append(edits, edit{at, at, "_ "})
		}
	}
	if stubUsed && !stubDeclared {
		// Line 2 is the empty line after the package clause.
		at := len("package " + pkg + "\n")
		edits = append(edits, edit{at, at, fmt.Sprintf("import %s %q", stubImport, gradingPath)})
		text = append(text, fmt.Sprintf("\n// %s is what a function returns until it is written.\nvar %s = %s.ErrNotImplemented\n", stubName, stubName, stubImport)...)
		origin = append(origin, 0, 0, 0)
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].from < edits[b].from })
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		text = append(text[:e.from:e.from], append([]byte(e.text), text[e.to:]...)...)
	}
	return text, origin
}

// gradingPath is the import path of package grading.
const gradingPath = "stencillab.dev/exercises/grading"

// ImportName returns the name a package is known by when its import (a
// quoted path) gives none: the last element of the path, or the one
// before a major version ("math/rand/v2" is rand). "" when the path does
// not unquote.
func ImportName(quoted string) string {
	p, err := strconv.Unquote(quoted)
	if err != nil {
		return ""
	}
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	return last
}

// CellTopic is the id prefix of an exercise's cells: "five-point" for
// 03_five_point.
func CellTopic(id string) string {
	_, topic, _ := strings.Cut(id, "_")
	return strings.ReplaceAll(topic, "_", "-")
}

// CallArgs returns the identifiers a grade cell or a test passes to the
// checks, in order: the arguments of the outermost checks call and the
// values of its composite literals.
func CallArgs(src string) []string {
	var names []string
	fset := token.NewFileSet()
	expr, err := parser.ParseExprFrom(fset, "", src, 0)
	if err != nil {
		return nil
	}
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.KeyValueExpr:
			if id, ok := n.Value.(*ast.Ident); ok {
				names = append(names, id.Name)
			}
			return false
		case *ast.CallExpr:
			for _, a := range n.Args {
				if id, ok := a.(*ast.Ident); ok {
					names = append(names, id.Name)
				}
			}
		}
		return true
	})
	return names
}

// GradeCall returns the expression that calls the checks in a grade cell
// ("grading.Print(checks.Sine(Discretize))" gives its argument) or in a
// grade_test.go ("grading.Test(t, …)").
func GradeCall(src, fn string) string {
	i := strings.Index(src, fn+"(")
	if i < 0 {
		return ""
	}
	rest := src[i+len(fn)+1:]
	if fn == "grading.Test" {
		_, rest, _ = strings.Cut(rest, ",")
	}
	depth := 1
	for k, r := range rest {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return strings.TrimSpace(rest[:k])
			}
		}
	}
	return ""
}

// NotebookLines maps the lines of the files ExtractNotebookLines wrote back
// to the notebook's cells, so that a message names the line the student
// wrote. The zero value maps nothing.
type NotebookLines struct {
	files map[string]cellLines // by "ID/FILE"
}

// cellLines is where the lines of one extracted file came from.
type cellLines struct {
	id, file, cell string
	lines          []int // the cell's line of the file's line n at n-1; 0 for a line the extraction wrote
	re             *regexp.Regexp
}

// Where names the notebook's cell and line of line n of the extracted file
// exercises/ID/FILE ("09_exercises.ipynb, cell sine-code, line 12"); ok is
// false for a file or a line the notebook did not give.
func (m NotebookLines) Where(id, file string, n int) (where string, ok bool) {
	c, found := m.files[id+"/"+file]
	if !found {
		return "", false
	}
	if n < 1 || n > len(c.lines) {
		return fmt.Sprintf("%s, cell %s", NotebookName, c.cell), false
	}
	if c.lines[n-1] == 0 {
		return fmt.Sprintf("%s, cell %s (a line the grader adds to the cell's code)", NotebookName, c.cell), false
	}
	return fmt.Sprintf("%s, cell %s, line %d", NotebookName, c.cell, c.lines[n-1]), true
}

// Rewrite returns msg with every position in an extracted file, as the
// compiler ("exercises/01_sine/sine.go:12:3"), the static check
// ("sine.go:12") or a stack trace ("stencillab.dev/exercises/01_sine/sine.go:12")
// names it, replaced by the notebook's cell and line.
func (m NotebookLines) Rewrite(msg string) string {
	for _, c := range m.files {
		msg = c.re.ReplaceAllStringFunc(msg, func(s string) string {
			sub := c.re.FindStringSubmatch(s)
			n, err := strconv.Atoi(sub[3])
			if err != nil {
				return s
			}
			where, _ := m.Where(c.id, c.file, n)
			return sub[1] + where
		})
	}
	return msg
}

// positionRE matches a position in the file exercises/id/file, with or
// without its folders: the line is its third group.
func positionRE(id, file string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s(])((?:[^\s:(]*/)?exercises/` + regexp.QuoteMeta(id) + `/)?` +
		regexp.QuoteMeta(file) + `:(\d+)(?::\d+)?`)
}

// RewriteResult rewrites the messages of an exercise's result, its own
// and its checks', with Rewrite.
func (m NotebookLines) RewriteResult(r *grading.ExerciseResult) {
	if len(m.files) == 0 {
		return
	}
	r.Message = m.Rewrite(r.Message)
	for i := range r.Checks {
		r.Checks[i].Message = m.Rewrite(r.Checks[i].Message)
	}
}
