package cuda2go

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	src := `// extern "C" __global__ void commented(int x) {}
struct W { float c[3]; };
/* extern "C" __global__ void also_commented(int y) {} */
extern "C" __global__ void __launch_bounds__(256, 2)
k(const float* __restrict__ in, float *out, int n, long long m, const unsigned long long s, float c0, W w, double d)
{
}
extern "C" __global__ void BOUNDS
other(void)
{
}
extern "C" int host_side(int x);
__global__ void not_extern(int n) {}
`
	es, err := Parse("k.cu", src)
	require.NoError(t, err)
	require.Len(t, es, 2)
	assert.Equal(t, "k", es[0].Name)
	assert.Equal(t, "k.cu", es[0].File)
	assert.Equal(t, []string{"pointer", "pointer", "int", "long long", "unsigned long long", "float", "struct of 3 floats", "double"}, es[0].Kinds())
	var names []string
	for _, p := range es[0].Params {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"in", "out", "n", "m", "s", "c0", "w", "d"}, names)
	assert.Equal(t, "other", es[1].Name)
	assert.Empty(t, es[1].Params)

	_, err = Parse("bad.cu", `extern "C" __global__ void k(char c) {}`)
	assert.ErrorContains(t, err, `parameter c of type "char"`)
	assert.ErrorContains(t, err, "bad.cu: k")
	_, err = Parse("bad.cu", `extern "C" __global__ void k(int) {}`)
	assert.ErrorContains(t, err, "no type or no name")
}

// Every entry of package cuda is read, and its parameters counted as the
// source lists them: the commas of its parameter list, counted here from
// the raw text, plus one. An entry is defined ("{") or, in the students'
// copy of a withheld kernel, declared (";").
func TestEveryEntryOfTheLab(t *testing.T) {
	srcs, err := Sources()
	require.NoError(t, err)
	head := regexp.MustCompile(`(?s)extern "C"[^{;]*?\b(\w+)\s*\(([^()]*)\)\s*[{;]`)
	total := 0
	for file, src := range srcs {
		es, err := Parse(file, src)
		require.NoError(t, err, file)
		ms := head.FindAllStringSubmatch(stripComments(src), -1)
		require.Len(t, es, len(ms), file)
		for i, m := range ms {
			assert.Equal(t, m[1], es[i].Name, file)
			assert.Len(t, es[i].Params, strings.Count(m[2], ",")+1, "%s: %s", file, m[1])
		}
		total += len(es)
	}
	assert.Equal(t, strings.Count(strings.Join(values(srcs), "\n"), `extern "C"`), total)
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, stripComments(v))
	}
	return out
}

// The generated file is Go, with one function per parameter list, each
// taking the entry's parameters under their names, in order.
func TestGenerate(t *testing.T) {
	srcs := map[string]string{
		"a.cu": `extern "C" __global__ void a(const float* in, float* out, int n) {}
extern "C" __global__ void lone_entry(long long n, unsigned long long seed) {}`,
		"b.cu": `extern "C" __global__ void b(const float* in, float* out, int n) {}`,
		"c.cu": `extern "C" __global__ void lone_entry(long long n, unsigned long long seed) {}`,
	}
	out, err := Generate("p", "", srcs, []Name{{Go: "pairArgs", Selector: "a"}})
	require.NoError(t, err)
	f, err := parser.ParseFile(token.NewFileSet(), "gen.go", out, parser.ParseComments)
	require.NoError(t, err, string(out))
	funcs := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			funcs[fd.Name.Name] = fd
		}
	}
	require.Len(t, funcs, 2)
	assert.Len(t, funcs["pairArgs"].Type.Params.List, 3)
	assert.Len(t, funcs["loneEntryArgs"].Type.Params.List, 2)
	assert.Contains(t, string(out), "new(Args).Ptr(in).Ptr(out).I32(n)")
	assert.Contains(t, string(out), "new(Args).I64(n).U64(seed)")
	assert.NotContains(t, string(out), "b.cu", "an entry declared like a named one leaves no trace")

	// Another entry declared like a named one changes nothing.
	srcs["d.cu"] = srcs["b.cu"]
	again, err := Generate("p", "", srcs, []Name{{Go: "pairArgs", Selector: "a"}})
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again))

	_, err = Generate("p", "", srcs, nil)
	assert.ErrorContains(t, err, "share a parameter list: give it a name")
	srcs["e.cu"] = `extern "C" __global__ void lone_entry(int n) {}`
	_, err = Generate("p", "", srcs, []Name{{Go: "pairArgs", Selector: "a"}})
	assert.ErrorContains(t, err, "loneEntryArgs is the wrapper of")
	_, err = Generate("p", "", srcs, []Name{{Go: "pairArgs", Selector: "a"}, {Go: "x", Selector: "lone_entry"}})
	assert.ErrorContains(t, err, "lone_entry has 2 parameter lists")
	_, err = Generate("p", "", srcs, []Name{{Go: "pairArgs", Selector: "a"}, {Go: "x", Selector: "nothing"}})
	assert.ErrorContains(t, err, "no extern \"C\" entry nothing")
}

// A package that imports gpu wraps the entries of its own files with
// gpu's Args, and the patterns pick those files.
func TestGenerateElsewhere(t *testing.T) {
	srcs := map[string]string{
		"sed_a.cu": `extern "C" __global__ void sa(const float* in, int n) {}`,
		"other.cu": `extern "C" __global__ void o(float x) {}`,
	}
	mine, err := Select(srcs, "sed_*.cu", "")
	require.NoError(t, err)
	assert.Equal(t, []string{"sed_a.cu"}, keys(mine))
	rest, err := Select(srcs, "", "sed_*.cu")
	require.NoError(t, err)
	assert.Equal(t, []string{"other.cu"}, keys(rest))
	_, err = Select(srcs, "none_*.cu", "")
	assert.ErrorContains(t, err, "leave no .cu file")
	out, err := Generate("sed", "gpu", mine, nil)
	require.NoError(t, err)
	assert.Contains(t, string(out), "import \"stencillab.dev/gpu\"")
	assert.Contains(t, string(out), "func saArgs(in uint64, n int32) *gpu.Args {\n\treturn new(gpu.Args).Ptr(in).I32(n)")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestParseName(t *testing.T) {
	n, err := ParseName("sedHRowsArgs=sediment_best.cu:sed_h")
	require.NoError(t, err)
	assert.Equal(t, Name{Go: "sedHRowsArgs", Selector: "sediment_best.cu:sed_h"}, n)
	for _, bad := range []string{"", "x", "=a", "1x=a", "x="} {
		_, err := ParseName(bad)
		assert.Error(t, err, bad)
	}
}

func TestDirective(t *testing.T) {
	args, err := Directive("package p\n\n//go:generate go run ../cmd/cuda2go -o k.go -name a=b\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"-o", "k.go", "-name", "a=b"}, args)
	_, err = Directive("package p\n//go:generate stringer -type T\n")
	assert.Error(t, err)
}
