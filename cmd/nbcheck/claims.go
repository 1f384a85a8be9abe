package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Claims: every percentage, time in milliseconds, bandwidth (GB/s, TB/s),
// rate (GFLOP/s, TFLOP/s) and ratio written with "×" right after its
// number (2.10× fast; not a count or a shape such as 2 × H200, 64×32 or
// 32×W) that the prose of a notebook or a doc states
// must say where it comes from, and the test checks it against that source. The source is an HTML comment right after
// the number, which neither Jupyter nor GitHub shows:
//
//	the basic kernel reached 39 %<!-- = {figures/data/bench_h200.json results[kernel=basic,n=512].pct_copy} -->
//	58 %<!-- = 100*(512-216)/512 --> of the threads idle
//
// After "=" comes an expression in Go syntax whose operands are numbers and
// data lookups in braces: {FILE PATH}, FILE relative to the repository's
// root and PATH a dotted path into its JSON, where a segment
// name[key=value,…] picks the one element of the array name whose fields
// have those values. A trailing "±T" widens the tolerance. The claim holds
// when the value, rounded to as many decimals as the prose writes, is the
// number written (within T). Go's constant arithmetic divides untyped
// integers as integers: write 512.0 where a fraction is meant.
//
// FILE may also be a Go source file and PATH the name of a constant or
// variable declared in it with a literal value or a constant expression,
// so that prose quoting a threshold of the code follows the code:
//
//	at least 90 %<!-- = 100*{exercises/checks/warps.go warpsEfficiency} -->
//
// A "%" followed by a number ("−1 % 5") is Go's remainder operator, not a
// share, and is not a claim.
//
// A number quoted from a publication rather than measured or computed here
// names it instead, and is not checked further:
//
//	160.88 GB/s<!-- cited: Su et al., ICCS 2013, Table 1 -->
//
// A number measured here in a run whose output is not committed names the
// run, its command in backquotes and the card, and a goal names itself as
// one; neither is checked further, and both are kept for the docs' logs of
// experiments, never for what a notebook concludes from:
//
//	91.6 %<!-- run: `stencil bench -n 512 -variant fast:…` on the NVIDIA H200 -->
//	95 %<!-- target: the goal set for the fast kernel -->

// Claim is one number of the prose with its unit and its source.
type Claim struct {
	Where  string  // file and cell or line
	Text   string  // the number as written, with its unit
	Value  float64 // the number written
	Places int     // decimals written
	Source string  // the comment's text after "=", "" when there is none
	Cited  string  // the publication a quoted number comes from
	Run    string  // the run, not committed, that measured the number
	Target string  // the goal the number is
}

var (
	// claimRe finds a number with its unit (%, ms, GB/s, TB/s, GFLOP/s,
	// TFLOP/s or ×), and the comment that may follow it.
	claimRe  = regexp.MustCompile(`(\d+(?:\.\d+)?)(?:\s|\x{00a0}|\x{202f})?(%|ms\b|GB/s|TB/s|GFLOP/s|TFLOP/s|×)(\s*<!--\s*(=|cited:|run:|target:)(.*?)-->)?`)
	lookupRe = regexp.MustCompile(`\{([^{}\s]+)\s+([^{}]+)\}`)
	segRe    = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?$`)
	fenceRe  = regexp.MustCompile("(?s)```.*?```")
	// runRe finds a command in backquotes.
	runRe = regexp.MustCompile("`[^`]+`")
	// operandRe matches what follows a remainder operator: its right operand.
	operandRe = regexp.MustCompile(`^[ \t\x{00a0}\x{202f}]*[−-]?\d`)
	// factorRe matches a letter right after "×": the other side of a shape.
	factorRe = regexp.MustCompile(`^\pL`)
)

// FindClaims returns the claims of one piece of prose, skipping code
// fences (tables printed by programs carry their own provenance).
func FindClaims(where, text string) []Claim {
	text = fenceRe.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat(" ", len(s)) })
	var out []Claim
	for _, loc := range claimRe.FindAllStringSubmatchIndex(text, -1) {
		m := make([]string, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = text[loc[2*i]:loc[2*i+1]]
			}
		}
		if m[2] == "%" && operandRe.MatchString(text[loc[5]:]) {
			continue // the remainder operator: −1 % 5
		}
		if m[2] == "×" && (loc[4] != loc[3] || operandRe.MatchString(text[loc[5]:]) || factorRe.MatchString(text[loc[5]:])) {
			continue // a count, a shape or a product: 2 × H200, 64×32, 4 × 0.277 ms, 32×W
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		places := 0
		if i := strings.IndexByte(m[1], '.'); i >= 0 {
			places = len(m[1]) - i - 1
		}
		c := Claim{Where: where, Text: m[1] + " " + m[2], Value: v, Places: places}
		switch m[4] {
		case "=":
			c.Source = strings.TrimSpace(m[5])
		case "cited:":
			c.Cited = strings.TrimSpace(m[5])
		case "run:":
			c.Run = strings.TrimSpace(m[5])
		case "target:":
			c.Target = strings.TrimSpace(m[5])
		}
		out = append(out, c)
	}
	return out
}

// CheckClaim evaluates a claim's source in the repository at root and says
// what is wrong with the claim, or "" when it holds.
func CheckClaim(root string, c Claim) string {
	if c.Cited != "" || c.Target != "" {
		return ""
	}
	if c.Run != "" {
		if !runRe.MatchString(c.Run) || !strings.Contains(c.Run, "NVIDIA") {
			return fmt.Sprintf("%s: %q: the run %q must name its command in backquotes and the card (NVIDIA …)", c.Where, c.Text, c.Run)
		}
		if strings.HasSuffix(c.Where, ".ipynb") || strings.Contains(c.Where, ".ipynb ") {
			return fmt.Sprintf("%s: %q: a notebook states only numbers of committed data (=) or publications (cited:), not of a run", c.Where, c.Text)
		}
		return ""
	}
	if c.Source == "" {
		return fmt.Sprintf("%s: %q names no source: follow it with <!-- = EXPRESSION --> (see cmd/nbcheck/claims.go)", c.Where, c.Text)
	}
	expr, tol := c.Source, 0.0
	if i := strings.LastIndex(expr, "±"); i >= 0 {
		t, err := strconv.ParseFloat(strings.TrimSpace(expr[i+len("±"):]), 64)
		if err != nil {
			return fmt.Sprintf("%s: %q: bad tolerance in %q", c.Where, c.Text, c.Source)
		}
		expr, tol = expr[:i], t
	}
	var lookupErr error
	expr = lookupRe.ReplaceAllStringFunc(expr, func(s string) string {
		m := lookupRe.FindStringSubmatch(s)
		v, err := Lookup(root, m[1], strings.TrimSpace(m[2]))
		if err != nil && lookupErr == nil {
			lookupErr = err
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	})
	if lookupErr != nil {
		return fmt.Sprintf("%s: %q: %v", c.Where, c.Text, lookupErr)
	}
	v, err := Eval(expr)
	if err != nil {
		return fmt.Sprintf("%s: %q: %v", c.Where, c.Text, err)
	}
	half := 0.5 * math.Pow(10, -float64(c.Places))
	if math.Abs(v-c.Value) > half+tol+1e-9 {
		return fmt.Sprintf("%s: %q, but its source %q gives %.*f", c.Where, c.Text, c.Source, c.Places+1, v)
	}
	return ""
}

// Eval evaluates a constant expression in Go syntax, such as 100*(1-216.0/512).
func Eval(expr string) (float64, error) {
	tv, err := types.Eval(token.NewFileSet(), nil, token.NoPos, expr)
	if err != nil {
		return 0, fmt.Errorf("expression %q: %w", expr, err)
	}
	if tv.Value == nil {
		return 0, fmt.Errorf("expression %q is not a constant", expr)
	}
	v, _ := constant.Float64Val(constant.ToFloat(tv.Value))
	return v, nil
}

// Lookup reads the number at path in the JSON file (relative to root).
func Lookup(root, file, path string) (float64, error) {
	if filepath.IsAbs(file) || strings.Contains(file, "..") {
		return 0, fmt.Errorf("data file %q: give a path inside the repository", file)
	}
	if strings.HasSuffix(file, ".go") {
		return lookupGo(root, file, strings.TrimSpace(path))
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return 0, fmt.Errorf("data file: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return 0, fmt.Errorf("data file %s: %w", file, err)
	}
	for _, seg := range strings.Split(path, ".") {
		m := segRe.FindStringSubmatch(strings.TrimSpace(seg))
		if m == nil {
			return 0, fmt.Errorf("%s: bad path segment %q in %q", file, seg, path)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return 0, fmt.Errorf("%s: %q: not an object before %q", file, path, m[1])
		}
		if v, ok = obj[m[1]]; !ok {
			return 0, fmt.Errorf("%s: %q: no field %q", file, path, m[1])
		}
		if m[2] == "" {
			continue
		}
		arr, ok := v.([]any)
		if !ok {
			return 0, fmt.Errorf("%s: %q: %q is not an array", file, path, m[1])
		}
		var found []any
		for _, el := range arr {
			if matches(el, m[2]) {
				found = append(found, el)
			}
		}
		if len(found) != 1 {
			return 0, fmt.Errorf("%s: %q: %d elements of %s match [%s], want 1", file, path, len(found), m[1], m[2])
		}
		v = found[0]
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: %q is not a number", file, path)
	}
	return n.Float64()
}

// lookupGo evaluates the constant or variable name declared at package
// level in the Go file (relative to root) with a constant expression.
func lookupGo(root, file, name string) (float64, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, filepath.FromSlash(file)), nil, 0)
	if err != nil {
		return 0, fmt.Errorf("source file: %w", err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) {
			continue
		}
		for _, sp := range g.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for i, n := range vs.Names {
				if n.Name != name {
					continue
				}
				if i >= len(vs.Values) {
					return 0, fmt.Errorf("%s: %s has no value of its own", file, name)
				}
				var b strings.Builder
				if err := format.Node(&b, token.NewFileSet(), vs.Values[i]); err != nil {
					return 0, fmt.Errorf("%s: %s: %w", file, name, err)
				}
				v, err := Eval(b.String())
				if err != nil {
					return 0, fmt.Errorf("%s: %s is not a constant expression: %w", file, name, err)
				}
				return v, nil
			}
		}
	}
	return 0, fmt.Errorf("%s: no package-level constant or variable %q", file, name)
}

// matches reports whether the JSON object el has every key=value of sel.
func matches(el any, sel string) bool {
	obj, ok := el.(map[string]any)
	if !ok {
		return false
	}
	for _, kv := range strings.Split(sel, ",") {
		k, want, ok := strings.Cut(kv, "=")
		if !ok {
			return false
		}
		got, ok := obj[strings.TrimSpace(k)]
		if !ok || fmt.Sprint(got) != strings.TrimSpace(want) {
			return false
		}
	}
	return true
}

// ProseOf returns the prose of a notebook (its markdown cells, each named by
// its id) or of a Markdown file, for FindClaims.
func ProseOf(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".ipynb") {
		return map[string]string{filepath.Base(path): string(b)}, nil
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]string{}
	for i, c := range nb.Cells {
		if c.CellType == "markdown" {
			out[fmt.Sprintf("%s cell %d (%s)", filepath.Base(path), i+1, c.ID)] = string(c.Source)
		}
	}
	return out, nil
}
