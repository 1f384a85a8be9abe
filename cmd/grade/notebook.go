package main

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

// notebookName is the file name of a notebook submission.
const notebookName = "09_exercises.ipynb"

type nbCell struct {
	ID       string          `json:"id"`
	CellType string          `json:"cell_type"`
	Source   json.RawMessage `json:"source"`
}

// readCells returns the code cells of a notebook by id.
func readCells(b []byte) (map[string]string, error) {
	var nb struct {
		Cells []nbCell `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %w", err)
	}
	cells := map[string]string{}
	for _, c := range nb.Cells {
		if c.CellType != "code" || c.ID == "" {
			continue
		}
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err != nil {
			var one string
			if err := json.Unmarshal(c.Source, &one); err != nil {
				return nil, fmt.Errorf("cell %s: source: %w", c.ID, err)
			}
			lines = []string{one}
		}
		cells[c.ID] = strings.Join(lines, "")
	}
	return cells, nil
}

// cellTopic is the id prefix of an exercise's cells: "five-point" for
// 03_five_point.
func cellTopic(id string) string {
	_, topic, _ := strings.Cut(id, "_")
	return strings.ReplaceAll(topic, "_", "-")
}

// callArgs returns the identifiers a grade cell or a test passes to the
// checks, in order: the arguments of the outermost checks call and the
// values of its composite literals.
func callArgs(src string) []string {
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

// gradeCall returns the expression that calls the checks in a grade cell
// ("grading.Print(checks.Sine(Discretize))" gives its argument) or in a
// grade_test.go ("grading.Test(t, …)").
func gradeCall(src, fn string) string {
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

// extractNotebook writes the exercise files of the notebook nbPath into
// dir/ID/FILE, for the exercises exs of the repository root. An exercise
// whose cell is missing gets no file (and scores 0 as missing).
func extractNotebook(root, nbPath, dir string, exs []grading.Exercise) error {
	b, err := readRegular(nbPath)
	if err != nil {
		return fmt.Errorf("%s: %w", notebookName, err)
	}
	student, err := readCells(b)
	if err != nil {
		return fmt.Errorf("%s: %w", notebookName, err)
	}
	ref, err := os.ReadFile(filepath.Join(root, "notebooks", notebookName))
	if err != nil {
		return fmt.Errorf("the repository's notebook: %w", err)
	}
	instructor, err := readCells(ref)
	if err != nil {
		return fmt.Errorf("the repository's notebook: %w", err)
	}
	for _, e := range exs {
		if len(e.Files) != 1 {
			continue // a notebook cell holds one file
		}
		topic := cellTopic(e.ID)
		code, ok := student[topic+"-code"]
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
		nbNames := callArgs(gradeCall(instructor[topic+"-grade"], "grading.Print"))
		fileNames := callArgs(gradeCall(string(test), "grading.Test"))
		if len(nbNames) == len(fileNames) {
			for i := range nbNames {
				if nbNames[i] != fileNames[i] {
					fmt.Fprintf(&src, "\n// %s is the notebook's %s.\nvar %s = %s\n", fileNames[i], nbNames[i], fileNames[i], nbNames[i])
				}
			}
		}
		out := filepath.Join(dir, e.ID)
		if err := os.MkdirAll(out, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, e.Files[0]), []byte(src.String()), 0o600); err != nil {
			return err
		}
	}
	return nil
}
