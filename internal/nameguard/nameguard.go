// Package nameguard finds code that decides by a registered name: a
// step's, a variant's or a strategy's name compared with == or !=, used as
// a case of a switch, passed to a prefix or suffix test, or used as a key
// of a map literal. A registered thing brings its behaviour through its
// registration; its name is data.
//
// It reads the syntax (go/ast): a name is a string literal, or a constant
// of the same package whose value is a string literal. Registering a name
// (a call that passes it) is no finding.
package nameguard

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Finding is one place that decides by a name.
type Finding struct {
	Pos  token.Position
	Name string // the name it decides by
	How  string // "==", "switch", "strings.HasPrefix", "map key"
}

// String writes file:line: how name.
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: decides by %q (%s)", f.Pos.Filename, f.Pos.Line, f.Name, f.How)
}

// prefixCalls are the functions of package strings that test a part of a
// string, by the part they test.
var prefixCalls = map[string]part{
	"HasPrefix": prefix, "TrimPrefix": prefix, "CutPrefix": prefix,
	"HasSuffix": suffix, "TrimSuffix": suffix, "CutSuffix": suffix,
	"Contains": whole, "Index": whole, "EqualFold": folded,
}

// part is how a call of package strings relates its literal to a name.
type part func(name, lit string) bool

// minPart is the shortest literal taken for a prefix or suffix of a name:
// a letter or two ("f", "-") is punctuation, not a name.
const minPart = 3

var (
	prefix part = func(name, lit string) bool { return len(lit) >= minPart && strings.HasPrefix(name, lit) }
	suffix part = func(name, lit string) bool { return len(lit) >= minPart && strings.HasSuffix(name, lit) }
	whole  part = func(name, lit string) bool { return name == lit }
	folded part = func(name, lit string) bool { return strings.EqualFold(name, lit) }
)

// Find returns the findings in the non-test Go files under root (its
// folders included), for the names given, sorted by file and line.
func Find(root string, names []string) ([]Finding, error) {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nameguard: %w", err)
	}
	var out []Finding
	for _, files := range dirs {
		fset := token.NewFileSet()
		var parsed []*ast.File
		for _, p := range files {
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return nil, fmt.Errorf("nameguard: %w", err)
			}
			parsed = append(parsed, f)
		}
		consts := stringConsts(parsed)
		for _, f := range parsed {
			out = append(out, inspect(fset, f, known, consts)...)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pos.Filename != out[j].Pos.Filename {
			return out[i].Pos.Filename < out[j].Pos.Filename
		}
		if out[i].Pos.Line != out[j].Pos.Line {
			return out[i].Pos.Line < out[j].Pos.Line
		}
		return out[i].Pos.Column < out[j].Pos.Column
	})
	return out, nil
}

// stringConsts returns the package's constants whose value is a string
// literal, by name.
func stringConsts(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if v, ok := literal(vs.Values[i]); ok {
							out[n.Name] = v
						}
					}
				}
			}
		}
	}
	return out
}

func literal(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(b.Value)
	return v, err == nil
}

func inspect(fset *token.FileSet, f *ast.File, known map[string]bool, consts map[string]string) []Finding {
	// value returns the string an expression stands for, if it is a
	// literal or a constant of the package.
	value := func(e ast.Expr) (string, bool) {
		if v, ok := literal(e); ok {
			return v, true
		}
		if id, ok := e.(*ast.Ident); ok {
			v, ok := consts[id.Name]
			return v, ok
		}
		return "", false
	}
	name := func(e ast.Expr) (string, bool) {
		v, ok := value(e)
		return v, ok && known[v]
	}
	var out []Finding
	add := func(n ast.Node, v, how string) {
		out = append(out, Finding{Pos: fset.Position(n.Pos()), Name: v, How: how})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				for _, side := range []ast.Expr{n.X, n.Y} {
					if v, ok := name(side); ok {
						add(n, v, n.Op.String())
					}
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if v, ok := name(e); ok {
					add(e, v, "switch")
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				break
			}
			pkg, isIdent := sel.X.(*ast.Ident)
			how, isPart := prefixCalls[sel.Sel.Name]
			if !isIdent || !isPart || pkg.Name != "strings" {
				break
			}
			for _, a := range n.Args {
				v, ok := value(a)
				if !ok || v == "" {
					continue
				}
				for k := range known {
					if how(k, v) {
						add(n, v, "strings."+sel.Sel.Name)
						break
					}
				}
			}
		case *ast.CompositeLit:
			if _, ok := n.Type.(*ast.MapType); !ok {
				break
			}
			for _, e := range n.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok {
					if v, ok := name(kv.Key); ok {
						add(kv, v, "map key")
					}
				}
			}
		}
		return true
	})
	return out
}
