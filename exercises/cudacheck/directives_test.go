package cudacheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu"
)

func TestCheckDirectivesRefusesWhatReadsAFile(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"#include \"/etc/passwd\"\n", "k.cu:1: #include is not allowed"},
		{"int a;\n  #  include <cuda.h>\n", "k.cu:2: #include is not allowed"},
		{"/* x */ #include \"a\"\n", "k.cu:1: #include is not allowed"},
		{"#/* x */include \"a\"\n", "k.cu:1: #include is not allowed"},
		{"#inc\\\nlude \"a\"\n", "k.cu:1: #include is not allowed"},
		{"#\\\ninclude \"a\"\n", "k.cu:1: #include is not allowed"},
		{"\\\n#include \"a\"\n", "k.cu:2: #include is not allowed"},
		{"%:include \"a\"\n", "k.cu:1: #include is not allowed"},
		{"%\\\n:include \"a\"\n", "k.cu:1: #include is not allowed"},
		{"int x; /* a\nb */ #include \"a\"\n", "k.cu:2: #include is not allowed"},
		{"#define F \"/etc/passwd\"\n#include F\n", "k.cu:2: #include is not allowed"},
		{"#include_next <a>\n", "#include_next is not allowed"},
		{"#import \"a\"\n", "#import is not allowed"},
		{"#embed \"/etc/passwd\"\n", "#embed is not allowed"},
		{"#line 7 \"/etc/passwd\"\n", "#line is not allowed"},
		{"# 7 \"/etc/passwd\"\n", "k.cu:1: the directive \"# 7\" is not allowed"},
		{"#error secret\n", "#error is not allowed"},
		{"#warning x\n", "#warning is not allowed"},
		{"#ident \"x\"\n", "#ident is not allowed"},
		{"#pragma once\n", "#pragma once is not allowed"},
		{"#pragma GCC system_header\n", "#pragma GCC is not allowed"},
		{"#pragma push_macro(\"X\")\n", "is not allowed: only #pragma unroll is"},
		{"#if __has_include(\"/etc/passwd\")\n#endif\n", "k.cu:1: __has_include is not allowed"},
		{"#define P _Pragma(\"message(\\\"x\\\")\")\n", "k.cu:1: _Pragma is not allowed"},
		{"int f() { __pragma(x) }\n", "__pragma is not allowed"},
		{"int a;\x00#include \"a\"\n", "k.cu:1: control character U+0000"},
		{"\xff\xfe", "k.cu:1: the file is not UTF-8 text"},
		{"int a = 1; /* never closed\n", "k.cu:1: a comment is not closed"},
	} {
		err := CheckDirectives("k.cu", c.src)
		require.Error(t, err, "%q", c.src)
		assert.Contains(t, err.Error(), c.want, "%q", c.src)
	}
}

func TestCheckDirectivesAllowsMacrosConditionsAndUnroll(t *testing.T) {
	src := `// a kernel: #include in a comment is text
/* #include "x" */
#ifndef OUT_TILE_DIM
#define OUT_TILE_DIM 30
#endif
#define IN_TILE_DIM (OUT_TILE_DIM + 2)
#define STR(x) #x
#if defined(FOO) && FOO > 1
#elif 0
#else
#endif
#undef STR
  #
const char* s = "#include \"/etc/passwd\"";
const char* r = R"xy(
#include "a"
)xy";
const char c = '#';
float f = 1.5e+3f + 0x1p-3;
int sep = 1'000;
extern "C" __global__ void k(const float* in, float* out) {
    #pragma unroll
    for (int i = 0; i < 4; i++) out[i] = in[i];
    #pragma unroll 4
    for (int i = 0; i < 4; i++) out[i] += in[i];
}
`
	assert.NoError(t, CheckDirectives("k.cu", src))
}

// Every line of a refused directive is named, up to the bound.
func TestCheckDirectivesNamesEachLine(t *testing.T) {
	var sb strings.Builder
	for i := range 20 {
		fmt.Fprintf(&sb, "int x%d;\n#include \"f%d\"\n", i, i)
	}
	err := CheckDirectives("k.cu", sb.String())
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	assert.Len(t, lines, maxDirectiveErrors)
	for i, l := range lines {
		assert.True(t, strings.HasPrefix(l, fmt.Sprintf("k.cu:%d: #include", 2*i+2)), l)
	}
}

// The text as NVRTC's preprocessor reads it, after phases 1 to 3: a
// comment that spans lines is one space, so "# /* … */ include" is one
// directive; CR, CRLF and LF each end a line, so a lone CR before # starts
// one; what compilers read differently is refused outright.
func TestCheckDirectivesReadsTheTextAsThePreprocessor(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"# /*\n*/ include \"/etc/passwd\"\n", "k.cu:1: #include is not allowed"},
		{"#/* a\r\n b */include \"/etc/passwd\"\n", "k.cu:1: #include is not allowed"},
		{"%: /* a\n\n*/ include \"a\"\n", "k.cu:1: #include is not allowed"},
		{"#define A 1 /* a\n*/\n#include \"a\"\n", "k.cu:3: #include is not allowed"},
		{"# /* a\n */ pragma once\n", "k.cu:1: #pragma once is not allowed"},
		{"int x;\r#include \"/proc/self/environ\"\r", "k.cu:2: #include is not allowed"},
		{"int x;\r\r  #  include <a>\r", "k.cu:3: #include is not allowed"},
		{"#\rinclude \"/etc/passwd\"\n", "k.cu:1: #include is not allowed"},
		{"int a;\n#\\\rinclude \"a\"\n", "k.cu:2: #include is not allowed"},
		{"#\\\r\ninclude \"a\"\n", "k.cu:1: #include is not allowed"},
		{"int x; /* a\rb */ #include \"a\"\n", "k.cu:2: #include is not allowed"},
		{"#define X \\ \n#include \"a\"\n", "k.cu:1: a backslash followed by spaces"},
		{"#define X \\\t\r\ninclude \"a\"\n", "k.cu:1: a backslash followed by spaces"},
		{"??=include \"a\"\n", "k.cu:1: the trigraph ??= is not allowed"},
		{"int a;\n#define X ??/\ninclude \"a\"\n", "k.cu:2: the trigraph ??/ is not allowed"},
		{"#if __has_incl\\u0075de(\"a\")\n#endif\n", "k.cu:1: a backslash is allowed only"},
		{"#\\u0069nclude \"a\"\n", "k.cu:1: a backslash is allowed only"},
		{"const char* r = R\"x(\\\n)x\";\n", "k.cu:1: a backslash at the end of a line inside a raw string"},
		{"const char* s = \"a\\\rb\";\n#include \"a\"\n", "k.cu:3: #include is not allowed"},
	} {
		err := CheckDirectives("k.cu", c.src)
		require.Error(t, err, "%q", c.src)
		assert.Contains(t, err.Error(), c.want, "%q", c.src)
	}
	// Line ends of every kind, splices and comments in honest code pass.
	for _, src := range []string{
		"#ifndef T\r\n#define T 8\r\n#endif\r\nint a = T; /* a\r\n b */\r\n",
		"#ifndef T\r#define T 8\r#endif\rint a = T;\r",
		"#define LONG(x) \\\r\n  ((x) + \\\n   1)\nint b = LONG(2); // a \\\n continued comment\n",
		"#\r\ninclude_guard_t x;\n",
		"/* a comment\n   over lines */ int c;\n#pragma unroll\n",
		"const char* s = \"what?\";\nconst char* q = \"a ? b : c\";\n",
	} {
		assert.NoError(t, CheckDirectives("k.cu", src), "%q", src)
	}
}

func FuzzCheckDirectives(f *testing.F) {
	f.Add("# /*\n*/ include \"a\"\n")
	f.Add("int x;\r#include \"a\"\r")
	f.Add("#\\\rinclude \"a\"\n")
	f.Add("#include \"a\"\n")
	f.Add("#define X 1\n#if X\n#endif\n")
	f.Add("R\"x(#include)x\"")
	f.Add("%\\\n:include")
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckDirectives("k.cu", s)
		// Whatever the text, a file that would reach NVRTC has no
		// #include at the start of a line once splices and comments
		// are gone, as far as a plain reading can tell.
		if err == nil {
			plain := strings.NewReplacer("\\\r\n", "", "\\\n", "", "\\\r", "").Replace(s)
			for _, l := range strings.FieldsFunc(plain, func(r rune) bool { return r == '\n' || r == '\r' }) {
				tl := strings.TrimLeft(l, " \t")
				if strings.HasPrefix(tl, "#include") || strings.HasPrefix(tl, "%:include") {
					if !strings.Contains(s, "R\"") && !strings.Contains(s, "/*") && !strings.Contains(s, "\"") && !strings.Contains(s, "'") {
						t.Fatalf("%q passed with an #include line", s)
					}
				}
			}
		}
	})
}

// The policy refuses a directive before it needs the device or NVRTC;
// gpu refuses a text over its limit.
func TestCompileStudentRefusesADirectiveBeforeCompiling(t *testing.T) {
	d := &gpu.Device{}
	geom := func(nz, ny, nx int) (gpu.Geometry, error) { return gpu.Geometry{}, nil }
	_, err := compileStudent(d, "basic.cu", "int a;\n#include \"/etc/passwd\"\n", "basic", nil, geom)
	var de *DirectiveError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []string{"basic.cu:2: #include is not allowed: the file must hold everything it needs (allowed: " + DirectivesAllowed + ")"}, de.Lines)
	_, err = studentPTX(d, "basic.cu", "#include <x>\n", nil)
	require.ErrorAs(t, err, &de)
	_, err = compileStudent(d, "basic.cu", strings.Repeat("x", gpu.MaxSource+1), "basic", nil, geom)
	assert.ErrorContains(t, err, fmt.Sprintf("over the limit of %d", gpu.MaxSource))
}

// NVRTC itself, given each attack with the check skipped (gpu compiles
// what it is given), with a readable header that stops the compilation
// with a marker: whatever NVRTC reads the header of, the check refuses.
func TestGPUNVRTCIncludesOnlyWhatTheCheckRefuses(t *testing.T) {
	d, err := gpu.Default()
	if err != nil {
		t.Skipf("needs a GPU and NVRTC: %v", err)
	}
	header := filepath.Join(t.TempDir(), "s.h")
	require.NoError(t, os.WriteFile(header, []byte("#error LEAKED_MARKER\n"), 0o644))
	for _, tmpl := range []string{
		"#include \"%s\"\n",
		"# /*\n*/ include \"%s\"\n",
		"#/* a\r\n b */include \"%s\"\n",
		"int x;\r#include \"%s\"\r",
		"#\rinclude \"%s\"\n",
		"#\\\rinclude \"%s\"\n",
		"int x; /* a\nb */ #include \"%s\"\n",
		"#define X \\ \n#include \"%s\"\n",
		"#define Y 1 \\ \ninclude \"%s\"\n",
		"# \\ \ninclude \"%s\"\n",
		"??=include \"%s\"\n",
		"#define X ??/\n#include \"%s\"\n",
		"#\\u0069nclude \"%s\"\n",
	} {
		src := fmt.Sprintf(tmpl, header)
		_, cerr := d.SourcePTX("k.cu", src, nil)
		log := ""
		var ce *gpu.CompileLogError
		if errors.As(cerr, &ce) {
			log = ce.Log
		}
		read := strings.Contains(log, "LEAKED_MARKER")
		err := CheckDirectives("k.cu", src)
		t.Logf("%q: NVRTC read the header: %v; the check: %v", tmpl, read, err)
		if read {
			assert.Error(t, err, "%q", tmpl)
		}
		assert.NotContains(t, StudentLog("k.cu", log), "LEAKED_MARKER", "%q: the header's lines stay out of the student's log", tmpl)
	}
}
