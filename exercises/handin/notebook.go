package handin

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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
		Cells []nbCell `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, refuse(ErrMalformed, "not a notebook: %v", err)
	}
	if len(nb.Cells) > MaxNotebookCells {
		return nil, refuse(ErrTooLarge, "the notebook has %d cells, more than the %d a notebook may have", len(nb.Cells), MaxNotebookCells)
	}
	cells := map[string]string{}
	total := 0
	for _, c := range nb.Cells {
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
// repository root. An exercise whose cell is missing gets no file (it
// scores 0 as missing). Errors about the repository's own files are the
// grader's, and wrap none of this package's sentinels.
func ExtractNotebook(dir, root string, cells map[string]string, exs []grading.Exercise) error {
	ref, err := os.ReadFile(filepath.Join(root, "notebooks", NotebookName))
	if err != nil {
		return fmt.Errorf("the repository's notebook: %w", err)
	}
	instructor, err := NotebookCells(ref)
	if err != nil {
		return fmt.Errorf("the repository's notebook: %v", err)
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
		file := filepath.Join(root, "exercises", e.ID, e.Files[0])
		orig, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("the repository's %s: %w", e.Files[0], err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, orig, parser.PackageClauseOnly)
		if err != nil {
			return fmt.Errorf("the repository's %s: %w", e.Files[0], err)
		}
		var src strings.Builder
		fmt.Fprintf(&src, "package %s\n\n", f.Name.Name)
		for _, line := range strings.Split(code, "\n") {
			if strings.TrimSpace(line) == "%%" {
				break
			}
			if strings.HasPrefix(line, "!") || strings.HasPrefix(line, "%") {
				continue
			}
			src.WriteString(line + "\n")
		}
		// The names the notebook's grade cell passes, against those the
		// exercise's test passes.
		test, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, "grade_test.go"))
		if err != nil {
			return fmt.Errorf("the repository's test of %s: %w", e.ID, err)
		}
		nbNames := CallArgs(GradeCall(instructor[topic+"-grade"], "grading.Print"))
		fileNames := CallArgs(GradeCall(string(test), "grading.Test"))
		if len(nbNames) == len(fileNames) {
			for i := range nbNames {
				if nbNames[i] != fileNames[i] {
					fmt.Fprintf(&src, "\n// %s is the notebook's %s.\nvar %s = %s\n", fileNames[i], nbNames[i], fileNames[i], nbNames[i])
				}
			}
		}
		out := filepath.Join(dir, e.ID)
		if err := os.MkdirAll(out, 0o700); err != nil {
			return fmt.Errorf("a private copy of %s: %w", e.ID, err)
		}
		if err := os.WriteFile(filepath.Join(out, e.Files[0]), []byte(src.String()), 0o600); err != nil {
			return fmt.Errorf("a private copy of %s: %w", e.ID, err)
		}
	}
	return nil
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
