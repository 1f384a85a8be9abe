package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sort"
	"strings"
)

// notebookNameDirective, followed by a name, in the doc comment of an
// exercise file's top-level function gives the function that name in
// notebook 09, whose cells share one package: the bug exercise's
// Coarsened, which 07's cell declares, is FixedCoarsened there. The hand-in
// of the notebook gives it back its file's name (package handin).
const notebookNameDirective = "//exercise:notebook-name"

// edit replaces src[from:to] with text.
type edit struct {
	from, to int
	text     string
}

// apply returns src with the edits made, which must not overlap.
func apply(src string, edits []edit) string {
	sort.Slice(edits, func(a, b int) bool { return edits[a].from > edits[b].from })
	for _, e := range edits {
		src = src[:e.from] + e.text + src[e.to:]
	}
	return src
}

// renameForNotebook returns src with every function that asks for a name
// in the notebook (notebookNameDirective) renamed, and the renames, old
// name to new. The rename follows the syntax tree: the declaration, the
// uses that resolve to it in the file and the first word of its doc
// comment change; a struct field, a method, a selector or a local of the
// same name do not. The directive's line, and the empty comment line
// before it, are dropped from the doc comment.
func renameForNotebook(file string, src []byte) ([]byte, map[string]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	renames := map[string]string{}
	objs := map[*ast.Object]string{}
	var edits []edit
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Doc == nil {
			continue
		}
		for _, c := range fn.Doc.List {
			rest, ok := strings.CutPrefix(c.Text, notebookNameDirective)
			if !ok {
				continue
			}
			name := strings.TrimSpace(rest)
			if fn.Recv != nil || !token.IsIdentifier(name) || !token.IsExported(name) {
				return nil, nil, fmt.Errorf("%s: %s %s: the directive names an exported Go name for a top-level function",
					fset.Position(c.Pos()), notebookNameDirective, name)
			}
			if f.Scope.Lookup(name) != nil {
				return nil, nil, fmt.Errorf("%s: %s %s: the file already declares %s", fset.Position(c.Pos()), notebookNameDirective, name, name)
			}
			renames[fn.Name.Name] = name
			objs[fn.Name.Obj] = name
			from, to := off(c.Pos()), off(c.End())
			if to < len(src) && src[to] == '\n' {
				to++
			}
			if i := slices.Index(fn.Doc.List, c); i > 0 && fn.Doc.List[i-1].Text == "//" {
				from = off(fn.Doc.List[i-1].Pos()) // the empty line gofmt keeps before a directive
			}
			edits = append(edits, edit{from, to, ""})
			if first := fn.Doc.List[0]; first != c && strings.HasPrefix(first.Text, "// "+fn.Name.Name+" ") {
				at := off(first.Pos()) + len("// ")
				edits = append(edits, edit{at, at + len(fn.Name.Name), name})
			}
		}
	}
	if len(renames) == 0 {
		return src, nil, nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Obj != nil {
			if name, ok := objs[id.Obj]; ok {
				edits = append(edits, edit{off(id.Pos()), off(id.End()), name})
			}
		}
		return true
	})
	return []byte(apply(string(src), edits)), renames, nil
}

// renameInCall renames, in the grade call (the Go expression grade_test.go
// passes to grading.Test), the identifiers that name the renamed
// functions: not a selector's name (checks.Coarsened) nor a key of a
// composite literal (checks.Funcs{Coarsened: Coarsened}).
func renameInCall(call string, renames map[string]string) (string, error) {
	if len(renames) == 0 {
		return call, nil
	}
	fset := token.NewFileSet()
	expr, err := parser.ParseExprFrom(fset, "", call, 0)
	if err != nil {
		return "", fmt.Errorf("the grade call %q: %w", call, err)
	}
	skip := map[*ast.Ident]bool{}
	var edits []edit
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			skip[n.Sel] = true
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok {
						skip[id] = true
					}
				}
			}
		case *ast.Ident:
			if name, ok := renames[n.Name]; ok && !skip[n] {
				p := fset.Position(n.Pos()).Offset
				edits = append(edits, edit{p, p + len(n.Name), name})
			}
		}
		return true
	})
	return apply(call, edits), nil
}
