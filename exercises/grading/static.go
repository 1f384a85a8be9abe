package grading

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The static check. Before a submitted file is built, the grader parses it
// and type-checks it with go/types against this module's own packages (the
// compiler's export data, listed by `go list -export`), the submitted file
// in place of the exercise's file, and refuses it, with the file, the line
// and the rule, when
//
//   - it does not parse or does not type-check (never passed on to the
//     compiler to judge);
//   - it uses a symbol that the exercise's allow-list (Exercise.Allow) does
//     not hold, by any route: a qualified name, a field or method selected
//     on any value (a promoted one through each embedded field it crosses),
//     a method value or expression, a composite literal's key, an interface
//     of the file's own that a type of another package would satisfy with a
//     method not allowed, a struct type of the file's own identical to
//     another package's (a conversion would open its fields), or a value
//     whose type holds a field not allowed becoming an interface or a type
//     argument (fmt would print the field);
//   - it imports a package the allow-list does not name, or any of unsafe,
//     reflect, os, syscall, runtime, net, plugin, internal packages and
//     cgo's "C" whatever the list says, or imports with a dot;
//   - it holds a directive (//go:…, //line, a build constraint, //export):
//     none is needed by an exercise and each reaches past the language or
//     hides code or positions from this check;
//   - it calls recover, which would hide a fault or a barrier the
//     simulator reports by a panic, or, in a kernel exercise (whose list
//     holds sim.Thread), starts a goroutine, which would run code the
//     simulator does not;
//   - it declares an init function, or a package-level variable whose value
//     calls a function or receives from a channel (code that would run
//     before any check), errors.New and fmt.Errorf excepted;
//   - it assigns to, takes the address of or clears another package's
//     variable.
//
// It is one layer: the sandbox and the trust boundary hold without it.

// Violation is a rule a submitted file breaks.
type Violation struct {
	File string // the student file, e.g. "sine.go"
	Line int
	Rule string
	// Compile is true for an error of the parser or the type checker:
	// the file does not compile, whatever the exercise allows.
	Compile bool
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

// maxViolations bounds the violations reported for one submission.
const maxViolations = 20

// allowSet is an exercise's allow-list, parsed. An entry is an import path
// (the package whole: "fmt", "stencillab.dev/exercises/star"), a
// package-level name ("stencillab.dev/lab.Grid3"), or a field or method of
// a named type ("stencillab.dev/lab/sim.Thread.Sync").
type allowSet struct {
	whole map[string]bool // packages allowed whole
	names map[string]bool // "path.Name", "path.Type.Member"
	pkgs  map[string]bool // packages that may be imported
}

// SplitAllow splits an allow-list entry into its import path and the
// symbol after it ("" for a whole package): the symbol starts at the first
// dot after the path's last slash.
func SplitAllow(entry string) (path, symbol string) {
	slash := strings.LastIndex(entry, "/")
	dot := strings.Index(entry[slash+1:], ".")
	if dot < 0 {
		return entry, ""
	}
	return entry[:slash+1+dot], entry[slash+1+dot+1:]
}

func parseAllow(entries []string) allowSet {
	a := allowSet{whole: map[string]bool{}, names: map[string]bool{}, pkgs: map[string]bool{}}
	for _, e := range entries {
		path, sym := SplitAllow(e)
		a.pkgs[path] = true
		if sym == "" {
			a.whole[path] = true
		} else {
			a.names[e] = true
		}
	}
	return a
}

// Static type-checks submissions against the packages of the module in
// Root. It keeps the export data it has listed, and is safe for concurrent
// use.
type Static struct {
	root string

	mu        sync.Mutex
	exports   map[string]string // import path → export data file
	goVersion string
}

// NewStatic returns a static check of submissions to the module in root.
func NewStatic(root string) *Static {
	return &Static{root: root, exports: map[string]string{}}
}

// exportData returns the export data files of paths and everything they
// depend on, from `go list -export -deps` (which compiles what is not yet
// in the build cache, with cgo off as the grader's build).
func (s *Static) exportData(ctx context.Context, paths []string) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var missing []string
	for _, p := range paths {
		if _, ok := s.exports[p]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		args := append([]string{"list", "-e", "-export", "-deps", "-json=ImportPath,Export,Error", "--"}, missing...)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = s.root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("static check: go list -export: %w: %s", err, strings.TrimSpace(stderr.String()))
		}
		dec := json.NewDecoder(&stdout)
		for {
			var p struct {
				ImportPath string
				Export     string
				Error      *struct{ Err string }
			}
			if err := dec.Decode(&p); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("static check: read go list's output: %w", err)
			}
			if p.Error != nil {
				return nil, fmt.Errorf("static check: package %s: %s", p.ImportPath, p.Error.Err)
			}
			if p.Export == "" {
				continue // unsafe, which the importer knows itself
			}
			s.exports[p.ImportPath] = p.Export
		}
		for _, p := range missing {
			if _, ok := s.exports[p]; !ok {
				return nil, fmt.Errorf("static check: go list did not list %s", p)
			}
		}
	}
	if s.goVersion == "" {
		s.goVersion = moduleGoVersion(s.root)
	}
	out := make(map[string]string, len(s.exports))
	for k, v := range s.exports {
		out[k] = v
	}
	return out, nil
}

// moduleGoVersion returns the go line of root's go.mod as go/types wants
// it ("go1.24"), or "" when there is none.
func moduleGoVersion(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "go" {
			parts := strings.Split(f[1], ".")
			if len(parts) >= 2 {
				return "go" + parts[0] + "." + parts[1]
			}
		}
	}
	return ""
}

// importerFor returns an importer that reads only the export data listed
// in files: a package not listed cannot be imported.
func importerFor(fset *token.FileSet, files map[string]string) types.Importer {
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("package %s is not available", path)
		}
		return os.Open(f)
	})
}

// Resolve returns what an allow-list entry names in the module's packages:
// the package (a *types.PkgName), a package-level object, or a field or
// method of a named type; an error names what is missing.
func (s *Static) Resolve(ctx context.Context, entry string) (types.Object, error) {
	path, sym := SplitAllow(entry)
	files, err := s.exportData(ctx, []string{path})
	if err != nil {
		return nil, fmt.Errorf("allow-list entry %s: %w", entry, err)
	}
	pkg, err := importerFor(token.NewFileSet(), files).Import(path)
	if err != nil {
		return nil, fmt.Errorf("allow-list entry %s: %w", entry, err)
	}
	if sym == "" {
		return types.NewPkgName(token.NoPos, nil, pkg.Name(), pkg), nil
	}
	name, member, _ := strings.Cut(sym, ".")
	obj := pkg.Scope().Lookup(name)
	if obj == nil {
		return nil, fmt.Errorf("allow-list entry %s: package %s has no %s", entry, path, name)
	}
	if member == "" {
		return obj, nil
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		return nil, fmt.Errorf("allow-list entry %s: %s.%s is not a type, so it has no member %s", entry, pkg.Name(), name, member)
	}
	T := tn.Type()
	if _, isIface := T.Underlying().(*types.Interface); !isIface {
		T = types.NewPointer(T)
	}
	m, _, _ := types.LookupFieldOrMethod(T, true, pkg, member)
	if m == nil {
		return nil, fmt.Errorf("allow-list entry %s: %s.%s has no field or method %s", entry, pkg.Name(), name, member)
	}
	return m, nil
}

// Check checks the submitted files of e (a student file name, as in
// e.Files, to its contents) and returns the rules they break, in file and
// line order; none means the files may be built. The package is
// type-checked with the exercise's other files of the repository, if any.
// An error means that the check could not run (the toolchain, or an
// exercise without an allow-list), never that the files are wrong.
func (s *Static) Check(ctx context.Context, e Exercise, files map[string][]byte) (vs []Violation, err error) {
	defer func() {
		// go/parser and go/types read hostile text: a failure of theirs
		// refuses the file, and never takes the grader down.
		if r := recover(); r != nil {
			vs, err = []Violation{{File: firstName(files), Line: 1, Rule: fmt.Sprintf("the type checker failed on this file: %v", r)}}, nil
		}
	}()
	return s.check(ctx, e, files)
}

// firstName returns the first of the file names, in order.
func firstName(files map[string][]byte) string {
	if names := sortedKeys(files); len(names) > 0 {
		return names[0]
	}
	return "(no file)"
}

func (s *Static) check(ctx context.Context, e Exercise, files map[string][]byte) ([]Violation, error) {
	if len(e.Allow) == 0 {
		return nil, fmt.Errorf("static check: exercise %s declares no allow-list", e.ID)
	}
	allow := parseAllow(e.Allow)
	fset := token.NewFileSet()
	var vs []Violation
	add := func(pos token.Pos, format string, args ...any) {
		p := fset.PositionFor(pos, false)
		vs = append(vs, Violation{File: p.Filename, Line: p.Line, Rule: fmt.Sprintf(format, args...)})
	}
	names := sortedKeys(files)
	var student []*ast.File
	for _, name := range names {
		// Line directives are disarmed before parsing (same length, so
		// that offsets and lines stay those of the file): every position,
		// the parser's errors included, is then the file's own.
		f, err := parser.ParseFile(fset, name, disarmLines(files[name]), parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) && len(list) > 0 {
				for i, e := range list {
					if i == maxViolations {
						break
					}
					vs = append(vs, Violation{File: name, Line: e.Pos.Line, Rule: e.Msg, Compile: true})
				}
			} else {
				vs = append(vs, Violation{File: name, Line: 1, Rule: err.Error(), Compile: true})
			}
			continue
		}
		student = append(student, f)
	}
	if len(vs) > 0 {
		return sortViolations(vs), nil
	}
	want, others, err := s.packageFiles(fset, e, names)
	if err != nil {
		return nil, err
	}
	imports := map[string]bool{}
	for _, f := range student {
		if want != "" && f.Name.Name != want {
			add(f.Name.Pos(), "the file's package is %s, not %s as the exercise's", f.Name.Name, want)
		}
		checkDirectives(fset, f, files[fset.PositionFor(f.Pos(), false).Filename], add)
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
			case !allow.pkgs[path]:
				add(spec.Pos(), "import %q is not allowed in %s (allowed: %s)", path, e.ID, strings.Join(sortedKeys(allow.pkgs), ", "))
				continue
			}
			if spec.Name != nil && spec.Name.Name == "." {
				add(spec.Pos(), "import %q with a dot is not allowed: name the package", path)
				continue
			}
			imports[path] = true
		}
	}
	if len(vs) > 0 {
		// Without their imports the files cannot be type-checked: the
		// rules that need no types are still reported.
		for _, f := range student {
			syntaxRules(f, add)
		}
		return sortViolations(vs), nil
	}
	for _, f := range others {
		for _, spec := range f.Imports {
			if path, err := strconv.Unquote(spec.Path.Value); err == nil {
				imports[path] = true
			}
		}
	}
	exports, err := s.exportData(ctx, sortedKeys(imports))
	if err != nil {
		return nil, err
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Implicits:  map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
	}
	conf := types.Config{
		Importer:  importerFor(fset, exports),
		GoVersion: s.goVersion,
		Sizes:     types.SizesFor("gc", runtime.GOARCH),
		Error: func(err error) {
			if len(vs) >= maxViolations {
				return
			}
			if te, ok := err.(types.Error); ok {
				p := fset.PositionFor(te.Pos, false)
				vs = append(vs, Violation{File: p.Filename, Line: p.Line, Rule: te.Msg, Compile: true})
			} else {
				vs = append(vs, Violation{File: names[0], Line: 1, Rule: err.Error(), Compile: true})
			}
		},
	}
	pkg, _ := conf.Check("stencillab.dev/exercises/"+e.ID, fset, append(append([]*ast.File(nil), student...), others...), info)
	if len(vs) > 0 {
		return sortViolations(vs), nil
	}
	c := &symbols{pkg: pkg, allow: allow, info: info, add: add, owners: map[*types.Var][]string{}, indexed: map[*types.Package]bool{}}
	c.check(student)
	return sortViolations(vs), nil
}

// packageFiles returns the package name of the exercise's files in the
// repository and its other non-test files there (parsed), which are built
// with the submitted ones.
func (s *Static) packageFiles(fset *token.FileSet, e Exercise, submitted []string) (string, []*ast.File, error) {
	dir := filepath.Join(s.root, "exercises", e.ID)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", nil, fmt.Errorf("static check: the exercise's folder: %w", err)
	}
	isSubmitted := map[string]bool{}
	for _, n := range submitted {
		isSubmitted[n] = true
	}
	want := ""
	var others []*ast.File
	ctxt := build.Default
	ctxt.CgoEnabled = false
	for _, de := range entries {
		n := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := ctxt.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		if isSubmitted[n] {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
			if err == nil {
				want = f.Name.Name
			}
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", nil, fmt.Errorf("static check: %w", err)
		}
		f, err := parser.ParseFile(fset, n, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return "", nil, fmt.Errorf("static check: the exercise's file %s: %w", n, err)
		}
		if want == "" {
			want = f.Name.Name
		}
		others = append(others, f)
	}
	return want, others, nil
}

// directives are the comment prefixes refused in a submission: compiler
// directives (//go:linkname, //go:embed, //go:build, …), line directives
// that would move positions, old build constraints and cgo's exports.
var directives = []string{"//go:", "//line", "/*line", "// +build", "//+build", "//export", "//extern", "//sys"}

// disarmLines returns src with "//line" and "/*line" written in capitals,
// which the scanner does not take for line directives.
func disarmLines(src []byte) []byte {
	out := bytes.ReplaceAll(src, []byte("//line"), []byte("//LINE"))
	return bytes.ReplaceAll(out, []byte("/*line"), []byte("/*LINE"))
}

// checkDirectives refuses the comments of f that are directives, read
// from the file's own text src (the parser saw line directives disarmed).
func checkDirectives(fset *token.FileSet, f *ast.File, src []byte, add func(token.Pos, string, ...any)) {
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			text := c.Text
			start, end := fset.PositionFor(c.Pos(), false).Offset, fset.PositionFor(c.End(), false).Offset
			if start >= 0 && end <= len(src) && start <= end {
				text = string(src[start:end])
			}
			for _, d := range directives {
				if strings.HasPrefix(text, d) {
					word := strings.Fields(text)[0]
					if d == "// +build" {
						word = "// +build"
					}
					add(c.Pos(), "the directive %s is not allowed in an exercise", word)
					break
				}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sortViolations orders vs by file, line and rule (the type checker's
// maps have no order) and drops repeats.
func sortViolations(vs []Violation) []Violation {
	sort.SliceStable(vs, func(a, b int) bool {
		if vs[a].File != vs[b].File {
			return vs[a].File < vs[b].File
		}
		if vs[a].Line != vs[b].Line {
			return vs[a].Line < vs[b].Line
		}
		return vs[a].Rule < vs[b].Rule
	})
	out := vs[:0]
	seen := map[Violation]bool{}
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) > maxViolations {
		out = out[:maxViolations]
	}
	return out
}

// symbols checks the objects a type-checked submission uses.
type symbols struct {
	pkg     *types.Package // the submission's
	allow   allowSet
	info    *types.Info
	add     func(token.Pos, string, ...any)
	owners  map[*types.Var][]string // a field → "Type.Field" of each named type it belongs to
	indexed map[*types.Package]bool
	seen    []*types.TypeName // typesSeen's, once listed
}

func (c *symbols) check(files []*ast.File) {
	for id, obj := range c.info.Uses {
		if b, ok := obj.(*types.Builtin); ok && b.Name() == "recover" {
			c.add(id.Pos(), "recover is not available in an exercise: a panic, the simulator's faults and barriers included, is the checks' to report")
		}
		c.object(id.Pos(), obj)
	}
	for n, obj := range c.info.Implicits {
		c.object(n.Pos(), obj)
	}
	for x, sel := range c.info.Selections {
		c.selection(x, sel)
	}
	for _, f := range files {
		c.rules(f)
		c.flows(f)
	}
	// A type argument is an interface to the generic code: inside it a
	// value of the type parameter goes to fmt as any other.
	for id, inst := range c.info.Instances {
		obj := c.info.Uses[id]
		if obj != nil && obj.Pkg() != nil && obj.Pkg() != c.pkg && c.allow.whole[obj.Pkg().Path()] {
			continue // the standard library's generics, gonum's
		}
		for i := 0; i < inst.TypeArgs.Len(); i++ {
			ta := inst.TypeArgs.At(i)
			if types.IsInterface(ta) {
				continue
			}
			if field, ok := c.opaque(ta, map[types.Type]bool{}); ok {
				c.add(id.Pos(), "a value of type %s becomes a type parameter here, which would open %s, not available in this exercise",
					types.TypeString(ta, c.qualifier), field)
			}
		}
	}
}

// foreign reports whether obj belongs to a package other than the
// submission's (the universe's objects, such as error.Error, belong to
// none).
func (c *symbols) foreign(obj types.Object) bool {
	return obj != nil && obj.Pkg() != nil && obj.Pkg() != c.pkg
}

// object refuses obj at pos unless the allow-list holds it.
func (c *symbols) object(pos token.Pos, obj types.Object) {
	if !c.foreign(obj) {
		return
	}
	if _, ok := obj.(*types.PkgName); ok {
		return
	}
	if name, ok := c.allowed(obj); !ok {
		c.add(pos, "%s is not available in this exercise", name)
	}
}

// allowed reports whether obj is allowed, and names it as a student
// writes it: lab.Grid3, sim.Thread.Sync.
func (c *symbols) allowed(obj types.Object) (string, bool) {
	p := obj.Pkg()
	var keys []string
	switch o := obj.(type) {
	case *types.Func:
		o = o.Origin()
		if recv := o.Type().(*types.Signature).Recv(); recv != nil {
			keys = []string{typeName(recv.Type()) + "." + o.Name()}
		} else {
			keys = []string{o.Name()}
		}
	case *types.Var:
		o = o.Origin()
		if o.IsField() {
			keys = c.fieldOwners(o)
			if len(keys) == 0 {
				keys = []string{"(struct)." + o.Name()}
			}
		} else {
			keys = []string{o.Name()}
		}
	default:
		keys = []string{obj.Name()}
	}
	if c.allow.whole[p.Path()] {
		return p.Name() + "." + keys[0], true
	}
	for _, k := range keys {
		if c.allow.names[p.Path()+"."+k] {
			return p.Name() + "." + k, true
		}
	}
	return p.Name() + "." + keys[0], false
}

// typeName names the named type of a receiver, through a pointer, or
// "(interface)" for an unnamed one.
func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := types.Unalias(t).(type) {
	case *types.Named:
		return n.Origin().Obj().Name()
	case *types.TypeParam:
		return n.Obj().Name()
	}
	return "(" + t.String() + ")"
}

// fieldOwners returns "Type.Field" for each named type of f's package
// whose struct holds f.
func (c *symbols) fieldOwners(f *types.Var) []string {
	p := f.Pkg()
	if !c.indexed[p] {
		c.indexed[p] = true
		for _, tn := range typeNames(p) {
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for i := 0; i < st.NumFields(); i++ {
					c.owners[st.Field(i)] = append(c.owners[st.Field(i)], tn.Name()+"."+st.Field(i).Name())
				}
			}
		}
	}
	return c.owners[f]
}

// selection checks x.f: every embedded field the selection crosses, then
// f itself.
func (c *symbols) selection(x *ast.SelectorExpr, sel *types.Selection) {
	t := sel.Recv()
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			if c.foreign(sel.Obj()) {
				c.add(x.Sel.Pos(), "%s, promoted through a type parameter, is not available in this exercise", x.Sel.Name)
			}
			return
		}
		f := st.Field(i)
		c.object(x.Sel.Pos(), f)
		t = f.Type()
	}
	c.object(x.Sel.Pos(), sel.Obj())
	if sel.Kind() == types.MethodVal {
		// A pointer method on an addressable value takes its address.
		recv := sel.Obj().Type().(*types.Signature).Recv()
		if _, ptr := recv.Type().(*types.Pointer); ptr && !sel.Indirect() {
			if _, isPtr := sel.Recv().Underlying().(*types.Pointer); !isPtr {
				c.mutates(x.X, "calls a pointer method of")
			}
		}
	}
}

// rules checks the rules that do not depend on names: init functions,
// package-level variables set by calls, other packages' variables changed,
// interfaces and struct types that would reach other packages' members.
func (c *symbols) rules(f *ast.File) {
	initRules(f, c.add, c.runsCode)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					c.mutates(l, "assigns to")
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				for _, l := range []ast.Expr{n.Key, n.Value} {
					if l != nil {
						c.mutates(l, "assigns to")
					}
				}
			}
		case *ast.IncDecStmt:
			c.mutates(n.X, "changes")
		case *ast.GoStmt:
			if c.allow.names[simThread] || c.allow.whole[simThread[:strings.LastIndex(simThread, ".")]] {
				c.add(n.Pos(), "a go statement is not available in a kernel exercise: the simulator runs the threads, and code it does not run escapes its counts and checks")
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				c.mutates(n.X, "takes the address of")
			}
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) > 0 {
				if b, ok := c.info.Uses[id].(*types.Builtin); ok {
					switch b.Name() {
					case "copy", "clear", "delete":
						c.mutates(n.Args[0], "changes")
					}
				}
			}
		case *ast.InterfaceType:
			c.iface(n)
		case *ast.StructType:
			c.structType(n)
		}
		return true
	})
}

// simThread is the simulator's thread: an exercise whose list holds it
// writes kernels, and may not start goroutines of its own.
const simThread = "stencillab.dev/lab/sim.Thread"

// pureInit are the calls a package-level variable may be initialised
// with: they only make an error value.
var pureInit = map[string]bool{"errors.New": true, "fmt.Errorf": true}

// runsCode returns the first call or receive in e that would run when the
// package is initialised, and what it is; conversions, a few builtins and
// pureInit do not count; a function literal's body runs only when called.
func (c *symbols) runsCode(e ast.Expr) (ast.Node, string) {
	var found ast.Node
	what := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found, what = n, "a receive"
				return false
			}
		case *ast.CallExpr:
			if tv, ok := c.info.Types[n.Fun]; ok && tv.IsType() {
				return true // a conversion
			}
			var obj types.Object
			switch fn := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				obj = c.info.Uses[fn]
			case *ast.SelectorExpr:
				obj = c.info.Uses[fn.Sel]
			}
			switch o := obj.(type) {
			case *types.Builtin:
				switch o.Name() {
				case "len", "cap", "min", "max", "complex", "real", "imag":
					return true
				}
			case *types.Func:
				if o.Pkg() != nil && pureInit[o.Pkg().Path()+"."+o.Name()] {
					return true
				}
			}
			found, what = n, "a function call"
			return false
		}
		return true
	})
	return found, what
}

// mutates refuses e when it designates another package's variable, or
// storage reached from one (a field, an element, what it points to).
func (c *symbols) mutates(e ast.Expr, verb string) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.IndexExpr:
			e = x.X
			continue
		case *ast.IndexListExpr:
			e = x.X
			continue
		case *ast.SliceExpr:
			e = x.X
			continue
		case *ast.SelectorExpr:
			if sel, ok := c.info.Selections[x]; ok && sel.Kind() == types.FieldVal {
				e = x.X
				continue
			}
			c.packageVar(x.Sel, x, verb)
		case *ast.Ident:
			c.packageVar(x, x, verb)
		}
		return
	}
}

func (c *symbols) packageVar(id *ast.Ident, at ast.Node, verb string) {
	v, ok := c.info.Uses[id].(*types.Var)
	if !ok || !c.foreign(v) || v.IsField() || v.Parent() != v.Pkg().Scope() {
		return
	}
	c.add(at.Pos(), "%s %s.%s, a variable of another package", verb, v.Pkg().Name(), v.Name())
}

// packagesSeen returns the packages the submission imports and those they
// depend on, as far as their export data names them.
func (c *symbols) packagesSeen() []*types.Package {
	seen := map[*types.Package]bool{}
	var out []*types.Package
	var walk func(p *types.Package)
	walk = func(p *types.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		out = append(out, p)
		for _, q := range p.Imports() {
			walk(q)
		}
	}
	for _, p := range c.pkg.Imports() {
		walk(p)
	}
	return out
}

// typesSeen returns the named types, aliases aside, declared at package
// level by the packagesSeen, listed once per check.
func (c *symbols) typesSeen() []*types.TypeName {
	if c.seen == nil {
		c.seen = []*types.TypeName{}
		for _, p := range c.packagesSeen() {
			c.seen = append(c.seen, typeNames(p)...)
		}
	}
	return c.seen
}

// typeNames returns the named types, aliases aside, declared at package
// level by p.
func typeNames(p *types.Package) []*types.TypeName {
	var out []*types.TypeName
	for _, n := range p.Scope().Names() {
		if tn, ok := p.Scope().Lookup(n).(*types.TypeName); ok && !tn.IsAlias() {
			out = append(out, tn)
		}
	}
	return out
}

// iface refuses an interface type of the submission whose method another
// package's type would supply while the allow-list does not hold it: a
// conversion to the interface, or a type assertion, would call it.
func (c *symbols) iface(n *ast.InterfaceType) {
	it, ok := c.info.TypeOf(n).(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return
	}
	for _, tn := range c.typesSeen() {
		T := tn.Type()
		if types.IsInterface(T) {
			continue
		}
		// A generic type is a candidate whatever its methods'
		// signatures (Implements does not take one uninstantiated).
		named, _ := T.(*types.Named)
		generic := named != nil && named.TypeParams().Len() > 0
		ptr := types.NewPointer(T)
		if !generic && !types.Implements(ptr, it) {
			continue
		}
		for i := 0; i < it.NumMethods(); i++ {
			m := it.Method(i)
			obj, idx, _ := types.LookupFieldOrMethod(ptr, true, c.pkg, m.Name())
			fn, ok := obj.(*types.Func)
			if !ok || !c.foreign(fn) {
				continue
			}
			for _, f := range c.embedded(ptr, idx) {
				if name, ok := c.allowed(f); !ok {
					c.add(m.Pos(), "the interface's method %s would reach %s, which is not available in this exercise", m.Name(), name)
				}
			}
			if name, ok := c.allowed(fn); !ok {
				c.add(m.Pos(), "the interface's method %s would call %s, which is not available in this exercise", m.Name(), name)
			}
		}
	}
}

// embedded returns the embedded fields that the path idx crosses from t
// (all but its last step), as far as they are struct fields.
func (c *symbols) embedded(t types.Type, idx []int) []*types.Var {
	var out []*types.Var
	for _, i := range idx[:max(len(idx)-1, 0)] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			break
		}
		out = append(out, st.Field(i))
		t = st.Field(i).Type()
	}
	return out
}

// structType refuses a struct type of the submission identical, tags
// aside, to another package's named struct that has a field the
// allow-list does not hold: a conversion, or an assignment, would open it.
func (c *symbols) structType(n *ast.StructType) {
	st, ok := c.info.TypeOf(n).(*types.Struct)
	if !ok || st.NumFields() == 0 {
		return
	}
	for _, tn := range c.typesSeen() {
		other, ok := tn.Type().Underlying().(*types.Struct)
		if !ok || !types.IdenticalIgnoreTags(st, other) {
			continue
		}
		for i := 0; i < other.NumFields(); i++ {
			if fname, ok := c.allowed(other.Field(i)); !ok {
				c.add(n.Pos(), "this struct type is %s.%s's, whose field %s is not available in this exercise", tn.Pkg().Name(), tn.Name(), fname)
				break
			}
		}
	}
}

// syntaxRules reports, from the syntax alone, the init functions and the
// package-level variables whose value calls a function or receives, where
// the file cannot be type-checked: a call of a builtin type, len, cap,
// min, max, errors.New or fmt.Errorf does not count.
func syntaxRules(f *ast.File, add func(token.Pos, string, ...any)) {
	initRules(f, add, syntaxRunsCode)
}

// initRules reports the init functions of f and its package-level
// variables whose value runsCode finds code in: code that would run before
// any check.
func initRules(f *ast.File, add func(token.Pos, string, ...any), runsCode func(ast.Expr) (ast.Node, string)) {
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
					if n, what := runsCode(v); n != nil {
						add(n.Pos(), "package-level variable %s is initialised by %s: code must not run before the checks call it", vspec.Names[0].Name, what)
					}
				}
			}
		}
	}
}

// pureSyntax are the callees, as written, that syntaxRules lets a
// package-level variable call: conversions to basic types and pure
// builtins, and pureInit.
var pureSyntax = map[string]bool{
	"len": true, "cap": true, "min": true, "max": true, "errors.New": true, "fmt.Errorf": true,
	"int": true, "int32": true, "int64": true, "uint": true, "float32": true, "float64": true, "string": true, "bool": true,
}

func syntaxRunsCode(e ast.Expr) (ast.Node, string) {
	var found ast.Node
	what := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found, what = n, "a receive"
				return false
			}
		case *ast.CallExpr:
			name := ""
			switch fn := ast.Unparen(n.Fun).(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				if x, ok := fn.X.(*ast.Ident); ok {
					name = x.Name + "." + fn.Sel.Name
				}
			}
			if pureSyntax[name] {
				return true
			}
			found, what = n, "a function call"
			return false
		}
		return true
	})
	return found, what
}

// flows refuses a value whose type holds a field the allow-list does not
// (sim.Global's Data, a thread's internals), wherever it would become an
// interface value: fmt, a panic, an any of the file's own. Printing it, or
// any code behind an interface, would read that field for the file. The
// sites are those of Go's assignability: call arguments and conversions,
// assignments and declarations, results, composite literals' elements,
// channel sends, map keys and comparisons.
func (c *symbols) flows(f *ast.File) {
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.CallExpr:
			tv, ok := c.info.Types[n.Fun]
			if !ok {
				return true
			}
			if tv.IsType() {
				if len(n.Args) == 1 {
					c.leak(n.Args[0], tv.Type)
				}
				return true
			}
			sig, ok := tv.Type.Underlying().(*types.Signature)
			if !ok {
				return true
			}
			params := sig.Params()
			if len(n.Args) == 1 && params.Len() > 1 {
				c.leakTuple(n.Args[0], params)
				return true
			}
			for i, a := range n.Args {
				var pt types.Type
				switch {
				case sig.Variadic() && i >= params.Len()-1 && !n.Ellipsis.IsValid():
					if sl, ok := params.At(params.Len() - 1).Type().Underlying().(*types.Slice); ok {
						pt = sl.Elem()
					}
				case i < params.Len():
					pt = params.At(i).Type()
				}
				c.leak(a, pt)
			}
		case *ast.AssignStmt:
			lhs := make([]types.Type, len(n.Lhs))
			for i, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && n.Tok == token.DEFINE && c.info.Defs[id] != nil {
					continue // a new variable takes the value's type
				}
				lhs[i] = c.info.TypeOf(l)
			}
			c.leakAll(n.Rhs, lhs)
		case *ast.ValueSpec:
			if n.Type != nil {
				t := c.info.TypeOf(n.Type)
				lhs := make([]types.Type, len(n.Names))
				for i := range lhs {
					lhs[i] = t
				}
				c.leakAll(n.Values, lhs)
			}
		case *ast.ReturnStmt:
			var sig *types.Signature
			for i := len(stack) - 2; i >= 0 && sig == nil; i-- {
				switch fn := stack[i].(type) {
				case *ast.FuncLit:
					sig, _ = c.info.TypeOf(fn).(*types.Signature)
				case *ast.FuncDecl:
					if obj := c.info.Defs[fn.Name]; obj != nil {
						sig, _ = obj.Type().(*types.Signature)
					}
				}
			}
			if sig != nil {
				res := make([]types.Type, sig.Results().Len())
				for i := range res {
					res[i] = sig.Results().At(i).Type()
				}
				c.leakAll(n.Results, res)
			}
		case *ast.CompositeLit:
			t := c.info.TypeOf(n)
			if t == nil {
				return true
			}
			switch u := t.Underlying().(type) {
			case *types.Struct:
				for i, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok {
							if v, ok := c.info.Uses[id].(*types.Var); ok {
								c.leak(kv.Value, v.Type())
							}
						}
					} else if i < u.NumFields() {
						c.leak(el, u.Field(i).Type())
					}
				}
			case *types.Slice, *types.Array, *types.Map:
				var key, elem types.Type
				switch u := u.(type) {
				case *types.Slice:
					elem = u.Elem()
				case *types.Array:
					elem = u.Elem()
				case *types.Map:
					key, elem = u.Key(), u.Elem()
				}
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if key != nil {
							c.leak(kv.Key, key)
						}
						c.leak(kv.Value, elem)
					} else {
						c.leak(el, elem)
					}
				}
			}
		case *ast.SendStmt:
			if ch, ok := c.info.TypeOf(n.Chan).Underlying().(*types.Chan); ok {
				c.leak(n.Value, ch.Elem())
			}
		case *ast.IndexExpr:
			if m, ok := c.info.TypeOf(n.X).Underlying().(*types.Map); ok {
				c.leak(n.Index, m.Key())
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				c.leak(n.X, c.info.TypeOf(n.Y))
				c.leak(n.Y, c.info.TypeOf(n.X))
			}
		}
		return true
	})
}

// leakAll pairs values with the types they are assigned to; a single
// call on the right gives its results in order.
func (c *symbols) leakAll(values []ast.Expr, to []types.Type) {
	if len(values) == 1 && len(to) > 1 {
		if tup, ok := c.info.TypeOf(values[0]).(*types.Tuple); ok {
			for i := 0; i < tup.Len() && i < len(to); i++ {
				c.leakType(values[0], tup.At(i).Type(), to[i])
			}
		}
		return
	}
	for i, v := range values {
		if i < len(to) {
			c.leak(v, to[i])
		}
	}
}

// leakTuple checks a call f(g()) whose single argument gives every
// parameter.
func (c *symbols) leakTuple(arg ast.Expr, params *types.Tuple) {
	if tup, ok := c.info.TypeOf(arg).(*types.Tuple); ok {
		for i := 0; i < tup.Len() && i < params.Len(); i++ {
			c.leakType(arg, tup.At(i).Type(), params.At(i).Type())
		}
		return
	}
	if params.Len() > 0 {
		c.leak(arg, params.At(0).Type())
	}
}

func (c *symbols) leak(e ast.Expr, to types.Type) { c.leakType(e, c.info.TypeOf(e), to) }

// leakType refuses e, of type from, where it becomes the interface to
// while from holds a field that is not allowed.
func (c *symbols) leakType(e ast.Expr, from, to types.Type) {
	if from == nil || to == nil || !types.IsInterface(to) || types.IsInterface(from) || c.methodsOnly(to) {
		return
	}
	if field, ok := c.opaque(from, map[types.Type]bool{}); ok {
		c.add(e.Pos(), "a value of type %s becomes an interface here, which would open %s, not available in this exercise",
			types.TypeString(from, c.qualifier), field)
	}
}

// qualifier names packages as a student writes them: sim.Global.
func (c *symbols) qualifier(p *types.Package) string {
	if p == c.pkg {
		return ""
	}
	return p.Name()
}

// methodsOnly reports whether values of the interface type t are used
// only through its methods: a named, non-empty interface of a package
// allowed whole (gonum's mat.Matrix), not an any that fmt would print
// field by field, nor an interface or type parameter of the file's own.
func (c *symbols) methodsOnly(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg() == c.pkg || !c.allow.whole[n.Obj().Pkg().Path()] {
		return false
	}
	it, ok := n.Underlying().(*types.Interface)
	return ok && it.NumMethods() > 0
}

// opaque returns the first field that t holds, by value or through
// pointers, slices, arrays, maps and channels, that the allow-list does
// not hold.
func (c *symbols) opaque(t types.Type, seen map[types.Type]bool) (string, bool) {
	if t == nil || seen[t] {
		return "", false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return c.opaque(u.Elem(), seen)
	case *types.Slice:
		return c.opaque(u.Elem(), seen)
	case *types.Array:
		return c.opaque(u.Elem(), seen)
	case *types.Chan:
		return c.opaque(u.Elem(), seen)
	case *types.Map:
		if f, ok := c.opaque(u.Key(), seen); ok {
			return f, ok
		}
		return c.opaque(u.Elem(), seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			fl := u.Field(i)
			if c.foreign(fl) {
				if name, ok := c.allowed(fl); !ok {
					return name, true
				}
			}
			if f, ok := c.opaque(fl.Type(), seen); ok {
				return f, ok
			}
		}
	}
	return "", false
}
