package grading

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testStatic checks against this repository's packages.
var testStatic = NewStatic(filepath.Join("..", ".."))

const (
	labPath = "stencillab.dev/lab"
	simPath = "stencillab.dev/lab/sim"
)

// warpsAllow is a small list for the tests, in the folder 10_warps
// (package warps): the standard library's fmt and errors, grading's
// ErrNotImplemented and a few names of the simulator.
var warpsAllow = []string{"errors", "fmt", "math", "stencillab.dev/exercises/grading.ErrNotImplemented",
	simPath + ".Dim3", simPath + ".Dim3.X", simPath + ".Dim3.Y", simPath + ".Dim3.Z", simPath + ".WarpThreads",
	simPath + ".Global", simPath + ".Limits", simPath + ".Limits.MaxThreads"}

// costAllow lets 04_intensity (package intensity) use the lab's BlockCost
// and its fields, not its methods.
var costAllow = []string{"errors", "fmt", labPath + ".BlockCost", labPath + ".BlockCost.Ops", labPath + ".BlockCost.Loads",
	labPath + ".BlockCost.Outputs", labPath + ".BlockCost.Threads", labPath + ".BlockCost.SharedBytes"}

// check runs the static check on one file of the exercise id and returns
// the violations as text.
func check(t *testing.T, id, file string, allow []string, src string) []string {
	t.Helper()
	vs, err := testStatic.Check(context.Background(), Exercise{ID: id, Allow: allow}, map[string][]byte{file: []byte(src)})
	require.NoError(t, err)
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

func warps(t *testing.T, src string) []string {
	return check(t, "10_warps", "warps.go", warpsAllow, "package warps\n\n"+src)
}

func cost(t *testing.T, src string) []string {
	return check(t, "04_intensity", "intensity.go", costAllow, "package intensity\n\nimport \"stencillab.dev/lab\"\n\n"+src)
}

func TestAFileThatUsesOnlyWhatItMayPasses(t *testing.T) {
	assert.Empty(t, warps(t, `import (
	"errors"
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

var errBad = errors.New("bad")

var errWrap = fmt.Errorf("wrapped: %w", errBad)

var errNotImplemented = grading.ErrNotImplemented

const side = float32(2)

// Block uses the allowed fields, and the universe's error.Error.
func Block(n int) (sim.Dim3, error) {
	b := sim.Dim3{X: n, Y: 1, Z: 1}
	lanes := sim.WarpThreads(b, 0)
	if len(lanes) == 0 {
		return b, fmt.Errorf("no lane: %s", errBad.Error())
	}
	type local struct{ a, b int }
	_ = local{1, 2}
	var e error = errWrap
	_ = e
	return sim.Dim3{X: lanes[0].X + 1, Y: b.Y, Z: b.Z}, nil
}
`))
}

func TestAFileThatDoesNotParseOrTypeCheckIsRefusedWithItsLine(t *testing.T) {
	got := warps(t, "import \"fmt\"\n\nfunc F {\n\tfmt.Println()\n}\n")
	require.NotEmpty(t, got)
	assert.Equal(t, "warps.go:5: expected '(', found '{'", got[0])
	assert.Equal(t, []string{"warps.go:4: undefined: helper"}, warps(t, "func F() int {\n\treturn helper()\n}\n"))
	assert.Equal(t, []string{`warps.go:3: "fmt" imported and not used`}, warps(t, "import \"fmt\"\n"))
	assert.Equal(t, []string{"warps.go:1: the file's package is main, not warps as the exercise's"},
		check(t, "10_warps", "warps.go", warpsAllow, "package main\n\nfunc main() {}\n"))
	// The parser's own errors, never "no violation".
	got = warps(t, "func F() {\n\tx := [\n}\n")
	require.NotEmpty(t, got)
	assert.True(t, strings.HasPrefix(got[0], "warps.go:5: "), got[0])
}

func TestDirectivesAndImportsAreRefused(t *testing.T) {
	got := warps(t, `//line other.go:100
import (
	"os"
	"strings"
	. "fmt"
	"C"
	_ "embed"
)

//go:linkname now runtime.nanotime
func now() int64

/*line x.go:1*/
//go:embed secret
var s string

//export F
func F() { Println(os.Args, strings.ToUpper("")) }
`)
	assert.Equal(t, []string{
		"warps.go:3: the directive //line is not allowed in an exercise",
		`warps.go:5: import "os" is forbidden: no unsafe, reflect, os, syscall, runtime, net, plugin or cgo in an exercise`,
		`warps.go:6: import "strings" is not allowed in 10_warps (allowed: errors, fmt, math, stencillab.dev/exercises/grading, stencillab.dev/lab/sim)`,
		`warps.go:7: import "fmt" with a dot is not allowed: name the package`,
		`warps.go:8: import "C" is forbidden: no unsafe, reflect, os, syscall, runtime, net, plugin or cgo in an exercise`,
		`warps.go:9: import "embed" is not allowed in 10_warps (allowed: errors, fmt, math, stencillab.dev/exercises/grading, stencillab.dev/lab/sim)`,
		"warps.go:12: the directive //go:linkname is not allowed in an exercise",
		"warps.go:15: the directive /*line is not allowed in an exercise",
		"warps.go:16: the directive //go:embed is not allowed in an exercise",
		"warps.go:19: the directive //export is not allowed in an exercise",
	}, got)
	assert.Equal(t, []string{"warps.go:1: the directive //go:build is not allowed in an exercise"},
		check(t, "10_warps", "warps.go", warpsAllow, "//go:build !hidden\n\npackage warps\n"))
	assert.Equal(t, []string{"warps.go:1: the directive // +build is not allowed in an exercise"},
		check(t, "10_warps", "warps.go", warpsAllow, "// +build ignore\n\npackage warps\n"))
}

// TestEveryRouteToASymbolIsRefused reaches names that are not in the list
// by every route the language has; each is refused on its line, named as
// the student writes it.
func TestEveryRouteToASymbolIsRefused(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"qualified name", "var _ = lab.Steps3", "lab.Steps3 is not available in this exercise"},
		{"a field of a value an allowed name returns", "func F(c lab.BlockCost) int { return c.Ops + len(fmt.Sprint(c.OpPerByte())) }", "lab.BlockCost.OpPerByte is not available in this exercise"},
		{"a method value in a variable", "func F(c lab.BlockCost) float64 {\n\tf := c.OpPerByte\n\treturn f()\n}", "lab.BlockCost.OpPerByte is not available in this exercise"},
		{"a method expression", "var f = lab.BlockCost.OpPerByte", "lab.BlockCost.OpPerByte is not available in this exercise"},
		{"a pointer method expression", "var f = (*lab.BlockCost).OpPerByte", "lab.BlockCost.OpPerByte is not available in this exercise"},
		{"a promoted method of an embedded field", "type my struct{ lab.BlockCost }\n\nfunc F(m my) float64 { return m.OpPerByte() }", "lab.BlockCost.OpPerByte is not available in this exercise"},
		{"a type alias", "type step = lab.Step3", "lab.Step3 is not available in this exercise"},
		{"an alias of an allowed type, then a method", "type c = lab.BlockCost\n\nfunc F(x c) float64 { return x.OpPerByte() }", "lab.BlockCost.OpPerByte is not available in this exercise"},
		{"a generic instantiation", "var g, _ = lab.NewGrid3[float32](1, 1, 1)", "lab.NewGrid3 is not available in this exercise"},
		{"a composite literal's key", "var s = lab.Step3{DefaultTile: 8}", "lab.Step3.DefaultTile is not available in this exercise"},
		{"a declared interface", "type ratio interface{ OpPerByte() float64 }\n\nfunc F(c lab.BlockCost) float64 { var r ratio = c; return r.OpPerByte() }", "the interface's method OpPerByte would call lab.BlockCost.OpPerByte, which is not available in this exercise"},
		{"an interface in a type assertion", "func F(c lab.BlockCost) float64 { return any(c).(interface{ OpPerByte() float64 }).OpPerByte() }", "would call lab.BlockCost.OpPerByte"},
		{"a generic constraint", "func op[T interface{ OpPerByte() float64 }](c T) float64 { return c.OpPerByte() }\n\nvar _ = op[lab.BlockCost]", "would call lab.BlockCost.OpPerByte"},
		{"a struct identical to another package's", "type mine struct{ Name string; Tile int }\n\nfunc F(c lab.BlockCost) {}", ""},
		{"a type of a package reached without importing it", "func F(c lab.BlockCost) { _ = fmt.Sprint(c) }", ""},
	} {
		var got []string
		if strings.Contains(c.src, "fmt.") {
			got = check(t, "04_intensity", "intensity.go", costAllow, "package intensity\n\nimport (\n\t\"fmt\"\n\n\t\"stencillab.dev/lab\"\n)\n\n"+c.src+"\n")
		} else {
			got = cost(t, c.src+"\n")
		}
		if c.want == "" {
			assert.Empty(t, got, c.name)
			continue
		}
		require.NotEmpty(t, got, c.name)
		assert.Contains(t, strings.Join(got, "\n"), c.want, c.name)
		for _, v := range got {
			assert.Regexp(t, `^intensity\.go:\d+: `, v, c.name)
		}
	}
}

func TestAStructTypeThatWouldConvertAnotherPackagesIsRefused(t *testing.T) {
	// sim.Global is allowed, its fields are not: a struct of the file's
	// own with the same fields would open them by a conversion.
	got := warps(t, `import "stencillab.dev/lab/sim"

type open struct {
	Name string `+"`json:\"n\"`"+`
	Data []float32
}

func F(g *sim.Global) float32 { return (*open)(g).Data[0] }
`)
	require.Len(t, got, 1)
	assert.Equal(t, "warps.go:5: this struct type is sim.Global's, whose field sim.Global.Name is not available in this exercise", got[0])
	assert.Equal(t, []string{"warps.go:5: sim.Global.Data is not available in this exercise"},
		warps(t, "import \"stencillab.dev/lab/sim\"\n\nfunc F(g *sim.Global) float32 { return g.Data[0] }\n"))
}

// TestAValueWithHiddenFieldsNeverBecomesAnInterface: fmt would print
// sim.Global's Data, which the list does not allow, for a file that hands
// it a *sim.Global by any route.
func TestAValueWithHiddenFieldsNeverBecomesAnInterface(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"a call's variadic any", "func F(g *sim.Global) string { return fmt.Sprint(g) }"},
		{"a dereference", "func F(g *sim.Global) string { return fmt.Sprint(*g) }"},
		{"an explicit conversion", "func F(g *sim.Global) any { return any(g) }"},
		{"an assignment", "func F(g *sim.Global) { var x any\n\tx = g\n\t_ = x }"},
		{"a declaration", "func F(g *sim.Global) { var x interface{} = g\n\t_ = x }"},
		{"a result", "func F(g *sim.Global) (any, error) { return g, nil }"},
		{"a slice literal", "func F(g *sim.Global) []any { return []any{g} }"},
		{"a struct of the file's own", "type box struct{ g sim.Global }\n\nfunc F(g *sim.Global) string { return fmt.Sprint(box{*g}) }"},
		{"a map key", "func F(g *sim.Global, m map[any]int) int { return m[g] }"},
		{"a channel", "func F(g *sim.Global, ch chan any) { ch <- g }"},
		{"a panic", "func F(g *sim.Global) { panic(g) }"},
		{"a type parameter", "func show[T any](x T) string { return fmt.Sprint(x) }\n\nfunc F(g *sim.Global) string { return show(g) }"},
		{"an interface of the file's own", "type none interface{}\n\nfunc F(g *sim.Global) none { return g }"},
	} {
		got := warps(t, "import (\n\t\"fmt\"\n\n\t\"stencillab.dev/lab/sim\"\n)\n\nvar _ = fmt.Sprint\n\n"+c.src+"\n")
		require.NotEmpty(t, got, c.name)
		assert.Regexp(t, "becomes (an interface|a type parameter) here, which would open sim.Global.Name, not available in this exercise", strings.Join(got, "\n"), c.name)
	}
	// Fields it may use, and values without hidden fields, go anywhere.
	assert.Empty(t, warps(t, "import (\n\t\"fmt\"\n\n\t\"stencillab.dev/lab/sim\"\n)\n\nfunc F(g *sim.Global, d sim.Dim3) string { return fmt.Sprint(d, d.X, g == nil) }\n"))
}

func TestRecoverIsRefused(t *testing.T) {
	assert.Equal(t, []string{"warps.go:4: recover is not available in an exercise: a panic, the simulator's faults and barriers included, is the checks' to report"},
		warps(t, "func F() {\n\tdefer func() { _ = recover() }()\n}\n"))
}

func TestAGoroutineIsRefusedInAKernelExercise(t *testing.T) {
	src := "package warps\n\nfunc F() {\n\tgo F()\n}\n"
	assert.Equal(t, []string{"warps.go:4: a go statement is not available in a kernel exercise: the simulator runs the threads, and code it does not run escapes its counts and checks"},
		check(t, "10_warps", "warps.go", append([]string{simPath + ".Thread"}, warpsAllow...), src))
	assert.Empty(t, warps(t, "func F() {\n\tgo F()\n}\n"), "outside the simulator a goroutine runs the student's own code")
}

func TestCodeThatRunsBeforeTheChecksIsRefused(t *testing.T) {
	assert.Equal(t, []string{
		"warps.go:7: an init function is not allowed: code must not run before the checks call it",
		"warps.go:11: package-level variable x is initialised by a receive: code must not run before the checks call it",
		"warps.go:13: package-level variable y is initialised by a function call: code must not run before the checks call it",
		"warps.go:15: package-level variable z is initialised by a function call: code must not run before the checks call it",
	}, warps(t, `import "fmt"

var ch chan int

func init() {}

var n = int64(len("abc"))

var x = <-ch

var y = fmt.Sprint(n)

var z = func() int { return 1 }()

var later = func() int { return <-ch }
`))
}

func TestARefusedImportStillReportsTheRulesOfTheSyntax(t *testing.T) {
	assert.Equal(t, []string{
		`warps.go:3: import "time" is not allowed in 10_warps (allowed: errors, fmt, math, stencillab.dev/exercises/grading, stencillab.dev/lab/sim)`,
		"warps.go:5: an init function is not allowed: code must not run before the checks call it",
		"warps.go:7: package-level variable started is initialised by a function call: code must not run before the checks call it",
	}, warps(t, "import \"time\"\n\nfunc init() {}\n\nvar started = func() bool { time.Sleep(1); return true }()\n\nvar n = float64(len(\"ab\"))\n"))
}

func TestAnotherPackagesVariablesAreNotChanged(t *testing.T) {
	got := warps(t, `import (
	"errors"
	"fmt"

	"stencillab.dev/exercises/grading"
)

func F() {
	grading.ErrNotImplemented = errors.New("x")
	p := &grading.ErrNotImplemented
	_ = p
	for _, grading.ErrNotImplemented = range []error{nil} {
	}
	fmt.Println(grading.ErrNotImplemented)
}
`)
	assert.Equal(t, []string{
		"warps.go:11: assigns to grading.ErrNotImplemented, a variable of another package",
		"warps.go:12: takes the address of grading.ErrNotImplemented, a variable of another package",
		"warps.go:14: assigns to grading.ErrNotImplemented, a variable of another package",
	}, got)
}

func TestAWholePackageAndItsMembersAreAllowed(t *testing.T) {
	src := "package warps\n\nimport \"stencillab.dev/lab/sim\"\n\nfunc F(s *sim.Simulator) sim.Stats { return s.Last() }\n"
	assert.Empty(t, check(t, "10_warps", "warps.go", []string{simPath}, src))
	got := check(t, "10_warps", "warps.go", warpsAllow, src)
	assert.Equal(t, []string{
		"warps.go:5: sim.Simulator is not available in this exercise",
		"warps.go:5: sim.Simulator.Last is not available in this exercise",
		"warps.go:5: sim.Stats is not available in this exercise",
	}, got)
}

func TestTheCheckNeedsAnAllowList(t *testing.T) {
	_, err := testStatic.Check(context.Background(), Exercise{ID: "10_warps"}, map[string][]byte{"warps.go": []byte("package warps\n")})
	assert.ErrorContains(t, err, "declares no allow-list")
}

func TestSplitAllow(t *testing.T) {
	for entry, want := range map[string][2]string{
		"fmt":                                {"fmt", ""},
		"math/bits":                          {"math/bits", ""},
		"stencillab.dev/lab":                 {"stencillab.dev/lab", ""},
		"stencillab.dev/lab/sim.Thread":      {"stencillab.dev/lab/sim", "Thread"},
		"stencillab.dev/lab/sim.Thread.Sync": {"stencillab.dev/lab/sim", "Thread.Sync"},
		"gonum.org/v1/gonum/mat.Dense.At":    {"gonum.org/v1/gonum/mat", "Dense.At"},
	} {
		p, s := SplitAllow(entry)
		assert.Equal(t, want, [2]string{p, s}, fmt.Sprint(entry))
	}
}

// FuzzStaticCheck hands the check arbitrary text as a submitted file: it
// returns rules or nothing, never an error (which would blame the
// toolchain) and never a panic, and every rule names the file and a line
// of it.
func FuzzStaticCheck(f *testing.F) {
	f.Add("package warps\n")
	f.Add("package warps\n\nimport \"stencillab.dev/lab/sim\"\n\nfunc F(g *sim.Global) any { return g }\n")
	f.Add("package warps\n\nfunc init() { for {} }\n")
	f.Add("//line x.go:1\npackage warps\n\nvar _ = [\n")
	f.Add("package warps\n\ntype T[P any] struct{ f *T[T[P]] }\n")
	f.Add("\x00\xff")
	f.Fuzz(func(t *testing.T, src string) {
		vs, err := testStatic.Check(context.Background(), Exercise{ID: "10_warps", Allow: warpsAllow}, map[string][]byte{"warps.go": []byte(src)})
		require.NoError(t, err)
		lines := strings.Count(src, "\n") + 1
		for _, v := range vs {
			assert.NotContains(t, v.Rule, "the type checker failed", "a panic of the check, recovered by Check")
			assert.Equal(t, "warps.go", v.File, v.String())
			assert.True(t, v.Line >= 0 && v.Line <= lines, "%s: line within the file's %d", v, lines)
		}
	})
}
