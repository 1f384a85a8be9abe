package grading

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// The static check. Before a submitted file is built, the grader reads it
// with go/parser and refuses it, with the file, the line and the rule, when
// it
//
//   - imports a package outside the exercise's allow-list (Exercise.Imports),
//     or any of unsafe, reflect, os, syscall, runtime, net, plugin and cgo's
//     "C", whatever the list says; or imports with a dot;
//   - holds a //go:linkname (or another directive that reaches past the
//     language: //go:cgo_…, //go:embed);
//   - declares an init function, or a package-level variable whose value
//     calls a function (code that would run before any check);
//   - names an identifier of the exercise's deny-list (Exercise.Deny: the
//     lab's reference kernels and sweeps, which would do the work);
//   - assigns to, or takes the address of, another package's variable.
//
// It is one layer: the sandbox and the trust boundary hold without it.

// Violation is a rule a submitted file breaks.
type Violation struct {
	File string // the student file, e.g. "sine.go"
	Line int
	Rule string
}

func (v Violation) String() string { return fmt.Sprintf("%s:%d: %s", v.File, v.Line, v.Rule) }

// forbiddenImports may never be imported, whatever an exercise allows; a
// path under one of them (os/exec, net/http, runtime/debug) neither.
var forbiddenImports = []string{"unsafe", "reflect", "os", "syscall", "runtime", "net", "plugin", "C", "internal"}

func forbiddenImport(path string) bool {
	for _, f := range forbiddenImports {
		if path == f || strings.HasPrefix(path, f+"/") {
			return true
		}
	}
	return strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal") ||
		strings.HasPrefix(path, "golang.org/x/sys")
}

// CheckSource checks one submitted file of e; name is the student file
// (e.g. "sine.go"). It returns the violations in line order.
func CheckSource(e Exercise, name string, src []byte) []Violation {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		// The compiler reports syntax errors better; leave them to it.
		return nil
	}
	var vs []Violation
	add := func(pos token.Pos, format string, args ...any) {
		vs = append(vs, Violation{File: name, Line: fset.Position(pos).Line, Rule: fmt.Sprintf(format, args...)})
	}
	allowed := map[string]bool{}
	for _, p := range e.Imports {
		allowed[p] = true
	}
	imports := map[string]string{} // name in the file → import path
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			add(spec.Pos(), "malformed import %s", spec.Path.Value)
			continue
		}
		switch {
		case forbiddenImport(path):
			add(spec.Pos(), "import %q is forbidden: no unsafe, reflect, os, syscall, runtime, net, plugin or cgo in an exercise", path)
			continue
		case !allowed[path]:
			add(spec.Pos(), "import %q is not allowed in %s (allowed: %s)", path, e.ID, strings.Join(e.Imports, ", "))
			continue
		}
		local := path[strings.LastIndex(path, "/")+1:]
		if spec.Name != nil {
			switch spec.Name.Name {
			case ".":
				add(spec.Pos(), "import %q with a dot is not allowed: name the package", path)
				continue
			case "_":
				continue
			}
			local = spec.Name.Name
		}
		imports[local] = path
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			for _, d := range []string{"//go:linkname", "//go:cgo_", "//go:embed"} {
				if strings.HasPrefix(c.Text, d) {
					add(c.Pos(), "the directive %s is forbidden in an exercise", strings.Fields(c.Text)[0])
				}
			}
		}
	}
	deny := map[string]bool{}
	for _, d := range e.Deny {
		deny[d] = true
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				add(d.Pos(), "an init function is not allowed: code must not run before the checks call it")
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				vspec := spec.(*ast.ValueSpec)
				for _, v := range vspec.Values {
					if call := firstCall(v); call != nil {
						add(call.Pos(), "package-level variable %s is initialised by a function call: code must not run before the checks call it", vspec.Names[0].Name)
					}
				}
			}
		}
	}
	// qualified returns "path.Name" for a selector on an imported package.
	qualified := func(n ast.Expr) (string, string, bool) {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return "", "", false
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || id.Obj != nil {
			return "", "", false
		}
		path, ok := imports[id.Name]
		if !ok {
			return "", "", false
		}
		return path + "." + sel.Sel.Name, id.Name + "." + sel.Sel.Name, true
	}
	// rooted finds the selector on an imported package under field
	// selections, indexing and dereferences: grading.Float32.Abs.
	rooted := func(n ast.Expr) (string, string, bool) {
		for {
			if full, short, ok := qualified(n); ok {
				return full, short, true
			}
			switch x := n.(type) {
			case *ast.SelectorExpr:
				n = x.X
			case *ast.IndexExpr:
				n = x.X
			case *ast.StarExpr:
				n = x.X
			case *ast.ParenExpr:
				n = x.X
			default:
				return "", "", false
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if full, short, ok := qualified(n); ok && deny[full] {
				add(n.Pos(), "%s does the exercise's work: write it yourself", short)
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if _, short, ok := rooted(l); ok {
					add(l.Pos(), "assigns to %s, a variable of another package", short)
				}
			}
		case *ast.IncDecStmt:
			if _, short, ok := rooted(n.X); ok {
				add(n.Pos(), "changes %s, a variable of another package", short)
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if _, short, ok := rooted(n.X); ok {
					add(n.Pos(), "takes the address of %s, a variable of another package", short)
				}
			}
		}
		return true
	})
	sort.SliceStable(vs, func(a, b int) bool { return vs[a].Line < vs[b].Line })
	return vs
}

// firstCall returns the first call in e that is not inside a function
// literal (a literal's body runs only when it is called), or nil.
func firstCall(e ast.Expr) *ast.CallExpr {
	var found *ast.CallExpr
	ast.Inspect(e, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			found = n
			return false
		}
		return true
	})
	return found
}
