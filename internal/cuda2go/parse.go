// Package cuda2go writes typed Go launch wrappers from the extern "C"
// __global__ entries of CUDA C sources, as mumax/3's cuda2go does: the
// parameter list of an entry is written once, in its .cu file, and the Go
// function that packs its arguments is derived from it.
//
// Parse reads the entries of one source; Generate groups the entries of
// many sources by their parameter lists (types and names) and writes one
// wrapper for each list. An entry with the same list as another shares
// its wrapper, so a new step declared like an old one changes nothing in
// the generated file.
package cuda2go

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Kind is the Go-side kind of a kernel parameter.
type Kind int

// The kinds of parameters the launchers pass.
const (
	Pointer Kind = iota + 1 // a device pointer, passed as uint64
	Int32                   // C int
	Int64                   // C long long
	Uint64                  // C unsigned long long
	Float32                 // C float
	Float64                 // C double
	Floats                  // a struct of float fields passed by value
)

// kindInfo is a kind's C description, Go type and the builder method of
// the launchers' argument list.
var kindInfo = map[Kind]struct{ c, goType, method string }{
	Pointer: {"pointer", "uint64", "Ptr"},
	Int32:   {"int", "int32", "I32"},
	Int64:   {"long long", "int64", "I64"},
	Uint64:  {"unsigned long long", "uint64", "U64"},
	Float32: {"float", "float32", "F32"},
	Float64: {"double", "float64", "F64"},
	Floats:  {"struct of floats", "", "Floats"},
}

// String is the kind's C description: "pointer", "int", "long long", …
func (k Kind) String() string {
	if i, ok := kindInfo[k]; ok {
		return i.c
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Size returns the bytes of a parameter of kind k; n is the number of
// floats of a Floats parameter.
func (k Kind) Size(n int) int {
	switch k {
	case Int32, Float32:
		return 4
	case Floats:
		return 4 * n
	default:
		return 8
	}
}

// Align returns the alignment of a parameter of kind k.
func (k Kind) Align() int {
	if k == Floats {
		return 4
	}
	return k.Size(0)
}

// Param is one parameter of an entry.
type Param struct {
	Name string // as the .cu file names it
	Kind Kind
	N    int // floats of a Floats parameter
}

// String writes the parameter's C kind, with the float count of a struct.
func (p Param) String() string {
	if p.Kind == Floats {
		return fmt.Sprintf("struct of %d floats", p.N)
	}
	return p.Kind.String()
}

// Entry is one extern "C" __global__ function of a source.
type Entry struct {
	File   string // the source's file name, e.g. "basic.cu"
	Name   string // the entry point, e.g. "basic"
	Params []Param
}

// Kinds returns the C kinds of the entry's parameters, in order.
func (e Entry) Kinds() []string {
	out := make([]string, len(e.Params))
	for i, p := range e.Params {
		out[i] = p.String()
	}
	return out
}

// signature is the key of an entry's parameter list: kinds and names.
func (e Entry) signature() string {
	var b strings.Builder
	for _, p := range e.Params {
		fmt.Fprintf(&b, "%s %s/%d,", p.Kind, p.Name, p.N)
	}
	return b.String()
}

// ident matches a C identifier at the end of a string.
var ident = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*$`)

// structOfFloats matches a struct whose only field is an array of floats:
// struct Weights1 { float c[9]; };
var structOfFloats = regexp.MustCompile(`struct\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{\s*float\s+[A-Za-z_][A-Za-z0-9_]*\s*\[\s*(\d+)\s*\]\s*;\s*\}`)

// Parse returns the extern "C" __global__ entries of the CUDA C source src
// of file, in the order they appear. Comments are skipped; a parameter of
// a type it does not know is an error that names the entry and the type.
func Parse(file, src string) ([]Entry, error) {
	code := stripComments(src)
	structs := map[string]int{}
	for _, m := range structOfFloats.FindAllStringSubmatch(code, -1) {
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return nil, fmt.Errorf("cuda2go: %s: struct %s: %w", file, m[1], err)
		}
		structs[m[1]] = n
	}
	var out []Entry
	rest := code
	for {
		i := strings.Index(rest, `extern "C"`)
		if i < 0 {
			break
		}
		rest = rest[i+len(`extern "C"`):]
		end := strings.IndexAny(rest, "{;")
		if end < 0 {
			return nil, fmt.Errorf("cuda2go: %s: an extern \"C\" declaration has no body", file)
		}
		head := rest[:end]
		if !strings.Contains(head, "__global__") {
			continue
		}
		e, err := parseHead(file, head, structs)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// parseHead reads an entry's name and parameters from the text between
// extern "C" and its body: the parameter list is the last parenthesised
// group, the name the identifier before it.
func parseHead(file, head string, structs map[string]int) (Entry, error) {
	head = strings.TrimSpace(head)
	if !strings.HasSuffix(head, ")") {
		return Entry{}, fmt.Errorf("cuda2go: %s: cannot find the parameter list of %q", file, head)
	}
	depth, open := 0, -1
	for i := len(head) - 1; i >= 0; i-- {
		switch head[i] {
		case ')':
			depth++
		case '(':
			depth--
		}
		if depth == 0 {
			open = i
			break
		}
	}
	if open < 0 {
		return Entry{}, fmt.Errorf("cuda2go: %s: unbalanced parentheses in %q", file, head)
	}
	m := ident.FindStringSubmatch(head[:open])
	if m == nil {
		return Entry{}, fmt.Errorf("cuda2go: %s: no entry name before the parameters in %q", file, head)
	}
	e := Entry{File: file, Name: m[1]}
	list := strings.TrimSpace(head[open+1 : len(head)-1])
	if list == "" || list == "void" {
		return e, nil
	}
	for _, raw := range strings.Split(list, ",") {
		p, err := parseParam(raw, structs)
		if err != nil {
			return Entry{}, fmt.Errorf("cuda2go: %s: %s: %w", file, e.Name, err)
		}
		e.Params = append(e.Params, p)
	}
	return e, nil
}

// parseParam reads one parameter: its name is the last word, its type the
// words before, qualifiers dropped.
func parseParam(raw string, structs map[string]int) (Param, error) {
	words := strings.Fields(strings.ReplaceAll(raw, "*", " * "))
	if len(words) < 2 {
		return Param{}, fmt.Errorf("parameter %q has no type or no name", strings.TrimSpace(raw))
	}
	name := words[len(words)-1]
	if !ident.MatchString(name) || strings.Contains(name, "*") {
		return Param{}, fmt.Errorf("parameter %q has no name", strings.TrimSpace(raw))
	}
	var typ []string
	pointer := false
	for _, w := range words[:len(words)-1] {
		switch w {
		case "const", "__restrict__", "volatile":
		case "*":
			pointer = true
		default:
			typ = append(typ, w)
		}
	}
	t := strings.Join(typ, " ")
	if pointer {
		return Param{Name: name, Kind: Pointer}, nil
	}
	for k, info := range kindInfo {
		if k != Floats && k != Pointer && info.c == t {
			return Param{Name: name, Kind: k}, nil
		}
	}
	if n, ok := structs[strings.TrimPrefix(t, "struct ")]; ok {
		return Param{Name: name, Kind: Floats, N: n}, nil
	}
	return Param{}, fmt.Errorf("parameter %s of type %q: the launchers know pointers, int, long long, unsigned long long, float, double and structs of floats", name, t)
}

// stripComments replaces the comments of C source with spaces, leaving
// string and character literals as they are.
func stripComments(src string) string {
	b := []byte(src)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'':
			q := b[i]
			for i++; i < len(b) && b[i] != q; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}
