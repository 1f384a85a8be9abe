// Package release makes the student version of the repository from the
// instructor's: solutions replaced by stubs, instructor-only checks left
// out.
//
// A solution sits between two marker lines, and the stub that replaces it
// follows in a block of comment lines:
//
//	func Discretize(…) (xs, ys []float64, err error) {
//		// BEGIN SOLUTION
//		…the instructor's code…
//		// END SOLUTION
//		// BEGIN STUB
//		// return nil, nil, errNotImplemented
//		// END STUB
//	}
//
// In the student version the solution is gone and the stub's lines are
// code, under a marker line "// STUB: …" (the text after "BEGIN STUB:", or
// a default):
//
//	func Discretize(…) (xs, ys []float64, err error) {
//		// STUB: not implemented yet; write your code here.
//		return nil, nil, errNotImplemented
//	}
//
// Imports that only the solution used are removed and the file is
// gofmt-ed. Go files built with the tag "hidden" are left out. Notebook
// cells follow the same markers, and their outputs are cleared.
//
// A lab kernel that answers an exercise declares it in its own file, with
// a line of its opening comment (before any code):
//
//	// release: instructor only — it is the technique CUDA exercises 21–25 ask for, on their stencil
//
// The release writes a placeholder in its place (Placeholder): the marker,
// every extern "C" __global__ signature byte for byte (package gpu's
// launchers are generated from them, so go generate ./gpu stays fresh),
// the defaults of its defines, and an #error that stops NVRTC with
// "withheld from the students' copy: REASON; your instructor can release it
// after grading". A line that reads as the marker anywhere else (after the
// first line of code, in a string or a block comment, in another form, or
// without a reason) stops the release with its file and line
// (ErrWithhold): the file is withheld whole or the release refuses, never
// copied by mistake. The solution scan looks for each withheld file's body
// in the whole release.
package release

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
)

// Markers.
const (
	BeginSolution = "// BEGIN SOLUTION"
	EndSolution   = "// END SOLUTION"
	BeginStub     = "// BEGIN STUB"
	EndStub       = "// END STUB"
	StubMark      = "// STUB:"
	// HiddenTag is the build tag of instructor-only files.
	HiddenTag = "hidden"
)

// DefaultStubNote is the text of a stub's marker line when BEGIN STUB has
// none.
const DefaultStubNote = "not implemented yet; write your code here."

// ErrMarkers is wrapped by every error about misplaced markers.
var ErrMarkers = errors.New("misplaced solution markers")

// HasSolution reports whether src has a solution block: a line that is
// "// BEGIN SOLUTION" alone, apart from indentation.
func HasSolution(src []byte) bool {
	return hasMarkerLine(src, BeginSolution, nil)
}

// hasMarkerLine reports whether a line of src is marker, or starts with
// marker and a colon, apart from indentation; when eligible is not nil,
// only the lines it holds count.
func hasMarkerLine(src []byte, marker string, eligible map[int]bool) bool {
	for n, line := range bytes.Split(src, []byte("\n")) {
		if (eligible == nil || eligible[n+1]) && isMarker(string(bytes.TrimSpace(line)), marker) {
			return true
		}
	}
	return false
}

// GoHasSolution reports whether the Go file src has a solution block: a
// comment "// BEGIN SOLUTION" alone on its line. Text in a string literal
// does not count. A file that does not parse is read as plain text.
func GoHasSolution(src []byte) bool {
	lines, err := commentLines(src)
	if err != nil {
		return HasSolution(src)
	}
	return hasMarkerLine(src, BeginSolution, lines)
}

// commentLines returns the numbers of the lines of a Go file that start
// with a // comment.
func commentLines(src []byte) (map[int]bool, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	lines := map[int]bool{}
	text := strings.Split(string(src), "\n")
	for _, g := range f.Comments {
		for _, c := range g.List {
			p := fset.Position(c.Pos())
			if p.Line-1 < len(text) && strings.TrimSpace(text[p.Line-1][:p.Column-1]) == "" {
				lines[p.Line] = true
			}
		}
	}
	return lines, nil
}

// StripText replaces every solution block of src by its stub, line by line.
// name is used in error messages. Text without markers comes back as is.
func StripText(name string, src []byte) ([]byte, error) {
	return stripLines(name, src, nil)
}

// stripLines is StripText where only the lines for which eligible holds
// can be markers or stub lines; nil makes every line eligible.
func stripLines(name string, src []byte, eligible map[int]bool) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	var out strings.Builder
	const (
		plain = iota
		inSolution
		afterSolution
		inStub
	)
	state, begin := plain, 0
	for n, line := range lines {
		trim := strings.TrimSpace(line)
		ind := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		lineNo := n + 1
		if eligible != nil && !eligible[lineNo] {
			trim = "" // code or a string literal: never a marker
			if state == inStub {
				return nil, fmt.Errorf("release: %s:%d: every line of a stub must be a comment (\"// code\"): %w", name, lineNo, ErrMarkers)
			}
		}
		switch state {
		case plain:
			switch {
			case trim == BeginSolution:
				state, begin = inSolution, lineNo
			case isMarker(trim, EndSolution), isMarker(trim, BeginStub), isMarker(trim, EndStub):
				return nil, fmt.Errorf("release: %s:%d: %q without %q before it: %w", name, lineNo, trim, BeginSolution, ErrMarkers)
			default:
				out.WriteString(line)
			}
		case inSolution:
			switch {
			case trim == EndSolution:
				state = afterSolution
			case isMarker(trim, BeginSolution), isMarker(trim, BeginStub), isMarker(trim, EndStub):
				return nil, fmt.Errorf("release: %s:%d: %q inside the solution begun at line %d: %w", name, lineNo, trim, begin, ErrMarkers)
			}
		case afterSolution:
			if !isMarker(trim, BeginStub) {
				return nil, fmt.Errorf("release: %s:%d: the solution begun at line %d has no %q block right after it: %w",
					name, lineNo, begin, BeginStub, ErrMarkers)
			}
			note := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(trim, BeginStub), ":"))
			if note == "" {
				note = DefaultStubNote
			}
			out.WriteString(ind + StubMark + " " + note + "\n")
			state = inStub
		case inStub:
			switch {
			case trim == EndStub:
				state = plain
			case strings.HasPrefix(trim, "// "), trim == "//":
				out.WriteString(uncomment(line))
			default:
				return nil, fmt.Errorf("release: %s:%d: every line of a stub must be a comment (\"// code\"), got %q: %w", name, lineNo, trim, ErrMarkers)
			}
		}
	}
	switch state {
	case inSolution:
		return nil, fmt.Errorf("release: %s:%d: %q has no %q: %w", name, begin, BeginSolution, EndSolution, ErrMarkers)
	case afterSolution:
		return nil, fmt.Errorf("release: %s:%d: the solution has no %q block after it: %w", name, begin, BeginStub, ErrMarkers)
	case inStub:
		return nil, fmt.Errorf("release: %s: the stub after line %d has no %q: %w", name, begin, EndStub, ErrMarkers)
	}
	return []byte(out.String()), nil
}

// isMarker reports whether a trimmed line is marker, or marker followed by
// a colon and a note.
func isMarker(trim, marker string) bool {
	return trim == marker || strings.HasPrefix(trim, marker+":")
}

// uncomment removes the first "// " (or "//") of a line, keeping its
// indentation and line end.
func uncomment(line string) string {
	i := strings.Index(line, "//")
	rest := line[i+2:]
	if strings.HasPrefix(rest, " ") {
		rest = rest[1:]
	}
	if strings.TrimSpace(rest) == "" {
		return strings.TrimLeft(rest, " \t")
	}
	return line[:i] + rest
}

// StripGo returns the student version of a Go file: solutions replaced by
// stubs, the imports that are no longer used removed, and gofmt applied.
func StripGo(name string, src []byte) ([]byte, error) {
	eligible, err := commentLines(src)
	switch {
	case err != nil && HasSolution(src):
		return nil, fmt.Errorf("release: %s: the instructor's file does not parse: %w", name, err)
	case err != nil || !hasMarkerLine(src, BeginSolution, eligible):
		return src, nil
	}
	text, err := stripLines(name, src, eligible)
	if err != nil {
		return nil, err
	}
	text, err = dropUnusedImports(name, text)
	if err != nil {
		return nil, err
	}
	out, err := format.Source(text)
	if err != nil {
		return nil, fmt.Errorf("release: %s: the student version is not valid Go: %w", name, err)
	}
	return out, nil
}

// dropUnusedImports removes the import lines of packages the file no longer
// refers to.
func dropUnusedImports(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("release: %s: the student version does not parse: %w", name, err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	drop := map[int]bool{} // line numbers to remove
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		kept := 0
		for _, spec := range gd.Specs {
			is := spec.(*ast.ImportSpec)
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return nil, fmt.Errorf("release: %s: import %s: %w", name, is.Path.Value, err)
			}
			pkg := importName(p)
			if is.Name != nil {
				pkg = is.Name.Name
			}
			if pkg == "_" || pkg == "." || used[pkg] {
				kept++
				continue
			}
			for l := fset.Position(is.Pos()).Line; l <= fset.Position(is.End()).Line; l++ {
				drop[l] = true
			}
		}
		if kept == 0 {
			for l := fset.Position(gd.Pos()).Line; l <= fset.Position(gd.End()).Line; l++ {
				drop[l] = true
			}
		}
	}
	if len(drop) == 0 {
		return src, nil
	}
	var out strings.Builder
	for n, line := range strings.SplitAfter(string(src), "\n") {
		if !drop[n+1] {
			out.WriteString(line)
		}
	}
	return []byte(out.String()), nil
}

// importName guesses a package's name from its import path: the last
// element, or the one before a major-version suffix ("math/rand/v2" is
// rand), without a "go-" prefix.
func importName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	base = strings.TrimPrefix(base, "go-")
	if i := strings.IndexAny(base, ".-"); i >= 0 {
		base = base[:i]
	}
	return base
}

// IsHidden reports whether a Go file is instructor-only: its build
// constraint (a //go:build or // +build line before the package clause)
// names the tag "hidden" and holds for no set of the other tags without it.
// "hidden" and "linux && hidden" are instructor-only; "!hidden", the
// public side of a pair of files, and "hidden || linux" are not. A
// constraint that does not parse but names the tag counts as
// instructor-only: the release leaves out what it cannot read.
func IsHidden(src []byte) bool {
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "package ") {
			return false
		}
		if !constraint.IsGoBuild(t) && !constraint.IsPlusBuild(t) {
			continue
		}
		expr, err := constraint.Parse(t)
		if err != nil {
			if namesHidden(t) {
				return true
			}
			continue
		}
		if onlyWithHidden(expr) {
			return true
		}
	}
	return false
}

// namesHidden reports whether a constraint line names the tag "hidden".
func namesHidden(line string) bool {
	for _, f := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" ()!&|,", r) }) {
		if f == HiddenTag {
			return true
		}
	}
	return false
}

// onlyWithHidden reports whether expr names the tag "hidden" and is false
// without it, whatever the other tags: tried on every set of them (a
// constraint of more than 12 other tags is taken as needing the tag).
func onlyWithHidden(expr constraint.Expr) bool {
	var others []string
	seen := map[string]bool{}
	mentions := false
	var walk func(e constraint.Expr)
	walk = func(e constraint.Expr) {
		switch e := e.(type) {
		case *constraint.AndExpr:
			walk(e.X)
			walk(e.Y)
		case *constraint.OrExpr:
			walk(e.X)
			walk(e.Y)
		case *constraint.NotExpr:
			walk(e.X)
		case *constraint.TagExpr:
			if e.Tag == HiddenTag {
				mentions = true
			} else if !seen[e.Tag] {
				seen[e.Tag] = true
				others = append(others, e.Tag)
			}
		}
	}
	walk(expr)
	if !mentions {
		return false
	}
	if len(others) > 12 {
		return true
	}
	for set := 0; set < 1<<len(others); set++ {
		on := map[string]bool{}
		for i, tag := range others {
			on[tag] = set&(1<<i) != 0
		}
		if expr.Eval(func(tag string) bool { return tag != HiddenTag && on[tag] }) {
			return false
		}
	}
	return true
}
