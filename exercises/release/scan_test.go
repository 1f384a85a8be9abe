package release

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/cudacheck"
)

// The solution scan on made-up trees: what it finds and what it leaves.

const scanExercise = `package ex

import "fmt"

var errNotImplemented = fmt.Errorf("not implemented")

// Smooth averages each point with its neighbours, wrapping at the ends.
func Smooth(dst, src []float64, w0, w1 float64) error {
	// BEGIN SOLUTION
	if len(dst) != len(src) || len(src) < 3 {
		return fmt.Errorf("ex: smooth %d points into %d: need equal lengths of at least 3", len(src), len(dst))
	}
	n := len(src)
	for k := 0; k < n; k++ {
		left, right := src[(k+n-1)%n], src[(k+1)%n]
		dst[k] = w0*src[k] + w1*(left+right)
	}
	return nil
	// END SOLUTION
	// BEGIN STUB
	// return errNotImplemented
	// END STUB
}
`

// renamedCopy is the solution with every name changed, other spacing and
// another error text: the lines differ, the tokens do not.
const renamedCopy = `package lab

import "fmt"

// Blur is a helper of the lab.
func Blur(out, in []float64, a, b float64) error {
	if len(out) != len(in) || len(in) < 3 {
		return fmt.Errorf("lab: blur: bad sizes")
	}
	m := len(in)
	for i := 0; i < m; i++ {
		l, r := in[(i+m-1)%m], in[(i+1)%m]
		out[i] = a*in[i] + b*(l+r)
	}
	return nil
}
`

const scanKernel = `extern "C" __global__ void scale(const float* in, float* out, int n, float c0, float c1)
{
    // BEGIN SOLUTION
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= 1 && k < n - 1) {
        out[k] = c0 * in[k] + c1 * (in[k - 1] + in[k + 1]);
    }
    // END SOLUTION
    // BEGIN STUB
    // return;
    // END STUB
}
`

// kernelInGo holds the kernel's solution, renamed, in a Go raw string, as
// a notebook or a test might.
const kernelInGo = "package nb\n\nvar src = `\nextern \"C\" __global__ void other(const float* a, float* b, int m, float p, float q)\n{\n" +
	"    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= 1 && i < m - 1) {\n" +
	"        b[i] = p * a[i] + q * (a[i - 1] + a[i + 1]);\n    }\n}`\n"

func scanTree(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	writeFiles(t, root, files)
	return root
}

func TestScanFindsCopiesWithOtherNames(t *testing.T) {
	root := scanTree(t, map[string]string{
		"exercises/01_smooth/smooth.go": scanExercise,
		"exercises/02_scale/scale.cu":   scanKernel,
	})
	secrets, err := CollectSecrets(root)
	require.NoError(t, err)
	require.Len(t, secrets, 2)
	assert.Equal(t, Secret{Kind: SecretSolution, File: "exercises/01_smooth/smooth.go", Line: 10, Go: true,
		Text: strings.Join(strings.Split(scanExercise, "\n")[9:18], "\n") + "\n", Stub: "\treturn errNotImplemented\n"}, secrets[0])
	assert.False(t, secrets[1].Go)

	student := scanTree(t, map[string]string{
		"lab/blur.go":   renamedCopy,
		"nb/kernels.go": kernelInGo,
		"docs/notes.md": "Unrelated text.\n\n    n := len(src)\n    left, right := src[(k+n-1)%n], src[(k+1)%n]\n    dst[k] = w0*src[k] + w1*(left+right)\n",
		"lab/other.go":  "package lab\n\nfunc F(n int) int {\n\tfor k := 0; k < n; k++ {\n\t\tn += k\n\t}\n\treturn n\n}\n",
		"lab/image.png": "\x89PNG\x00\x00 dst[k] = w0*src[k] + w1*(left+right)",
	})
	found, err := Scan(student, secrets)
	require.NoError(t, err)
	got := map[string]Finding{}
	for _, f := range found {
		got[f.File] = f
	}
	require.Contains(t, got, "lab/blur.go", "a renamed copy keeps its tokens")
	assert.Equal(t, "tokens", got["lab/blur.go"].How)
	assert.Equal(t, 7, got["lab/blur.go"].Line, "the finding names the first copied line")
	assert.Contains(t, got["lab/blur.go"].String(), "lab/blur.go:7 holds")
	assert.Contains(t, got["lab/blur.go"].String(), "exercises/01_smooth/smooth.go:10")

	require.Contains(t, got, "nb/kernels.go", "CUDA in a Go string is read as CUDA")
	assert.Equal(t, secrets[1], got["nb/kernels.go"].Secret)
	assert.Equal(t, 6, got["nb/kernels.go"].Line)

	require.Contains(t, got, "docs/notes.md", "half the solution's lines, verbatim")
	assert.Equal(t, "lines", got["docs/notes.md"].How)
	assert.Equal(t, 3, got["docs/notes.md"].Line)

	assert.NotContains(t, got, "lab/other.go", "a loop like every other loop is no finding")
	assert.NotContains(t, got, "lab/image.png", "binary files are not text")
}

// bugExercise is a find-the-bug exercise: its stub is the broken code, its
// solution the same code with the two mistakes fixed.
const bugExercise = `package bug

// Sum adds the products of a and b from index 1 to the end.
func Sum(a, b []float64) float64 {
	// BEGIN SOLUTION
	total := 0.0
	for index := 1; index < len(a) && index < len(b); index++ {
		total += a[index] * b[index] * weightOf(index, len(a))
	}
	return total
	// END SOLUTION
	// BEGIN STUB: two mistakes
	// total := 0.0
	// for index := 1; index < len(a)-1 && index < len(b); index++ {
	// 	total += a[index] * b[index-1] * weightOf(index, len(a))
	// }
	// return total
	// END STUB
}
`

func TestScanLooksForWhatTheStubDoesNotShow(t *testing.T) {
	root := gitRepo(t, map[string]string{"exercises/09_bug/bug.go": bugExercise})
	secrets, err := CollectSecrets(root)
	require.NoError(t, err)
	require.Len(t, secrets, 1)
	assert.Contains(t, secrets[0].Stub, "index < len(a)-1")
	p := prepare(secrets[0])
	assert.Len(t, p.lines, 2, "the two fixed lines are the secret: %v", p.lines)

	student := filepath.Join(t.TempDir(), "student")
	_, err = Tree(root, student)
	require.NoError(t, err)
	writeFiles(t, student, map[string]string{"lab/sum.go": "package lab\n\n" +
		"func add(a, b []float64) float64 {\n\ttotal := 0.0\n\tfor index := 1; index < len(a) && index < len(b); index++ {\n" +
		"\t\ttotal += a[index] * b[index] * weightOf(index, len(a))\n\t}\n\treturn total\n}\n"})
	found, err := Scan(student, secrets)
	require.NoError(t, err)
	require.Len(t, found, 1, "the released stub is no finding, the fixed code elsewhere is: %v", found)
	assert.Equal(t, "lab/sum.go", found[0].File)
	assert.Equal(t, "lines", found[0].How)
	assert.Equal(t, 2, found[0].Matched)

	assert.True(t, TooShort(Secret{Kind: SecretSolution, Go: true, Text: "\treturn float64(c.Ops) / float64(4*c.Loads), nil\n"}))
	assert.False(t, TooShort(secrets[0]))
	_, err = ScanAt(student, secrets, 0)
	assert.Error(t, err, "a share of 0 finds everything")
}

func TestScanIgnoresTrivialLines(t *testing.T) {
	for _, line := range []string{"}", "return nil", "  return nil, err", "if err != nil {", "// a comment of the solution", "", "x++"} {
		_, ok := nonTrivial(line)
		assert.False(t, ok, "%q", line)
	}
	for _, line := range []string{"n := len(src)", "\tdst[k] = w0*src[k] + w1*(left+right)", "#define OUT_TILE (IN_TILE - 4)"} {
		_, ok := nonTrivial(line)
		assert.True(t, ok, "%q", line)
	}
	// only the secret's trivial lines in a file: no finding
	secrets := []Secret{{Kind: SecretSolution, File: "a.go", Line: 1, Go: true, Text: "\treturn nil\n}\n"}}
	found, err := Scan(scanTree(t, map[string]string{"b.go": "package b\n\nfunc f() error {\n\treturn nil\n}\n"}), secrets)
	require.NoError(t, err)
	assert.Empty(t, found)
}

func TestKGramHashRenamesConsistently(t *testing.T) {
	a := cTokens("a = b + a * c;")
	b := cTokens("x = y + x * z;")
	c := cTokens("x = y + y * z;")
	assert.Equal(t, kgramHash(a), kgramHash(b), "renamed alike")
	assert.NotEqual(t, kgramHash(a), kgramHash(c), "a different pattern of names")
	assert.NotEqual(t, kgramHash(cTokens("a = b + 1;")), kgramHash(cTokens("a = b + 2;")), "numbers are kept")
	assert.Equal(t, kgramHash(goTokens(`return fmt.Errorf("one")`)), kgramHash(goTokens(`return fmt.Errorf("two")`)), "strings are folded")
}

func TestCollectSecretsOfNotebooksAndHiddenFiles(t *testing.T) {
	nb := `{"cells": [
 {"cell_type": "code", "id": "ex-code", "metadata": {}, "outputs": [], "source": ["func F() int {\n", "\t// BEGIN SOLUTION\n", "\treturn 42 * 17 + 3\n", "\t// END SOLUTION\n", "\t// BEGIN STUB\n", "\t// return 0\n", "\t// END STUB\n", "}"]},
 {"cell_type": "markdown", "id": "q1-answer", "metadata": {"tags": ["answer"]}, "source": ["**Answer.** 13.5 bytes per output."]}
], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	root := scanTree(t, map[string]string{
		"notebooks/ex.ipynb":          nb,
		"exercises/checks/hidden.go":  "//go:build hidden\n\npackage checks\n",
		"exercises/release/doc.go":    "package release\n\n// BEGIN SOLUTION\n// END SOLUTION\n",
		"exercises/checks/public.go":  "package checks\n",
		"exercises/03_x/x_test.go.md": "// BEGIN SOLUTION\n",
	})
	secrets, err := CollectSecrets(root)
	require.NoError(t, err)
	byKind := map[string][]Secret{}
	for _, s := range secrets {
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	require.Len(t, byKind[SecretSolution], 1, "only exercises and notebooks hold solutions: %v", secrets)
	assert.Equal(t, "\treturn 42 * 17 + 3\n", byKind[SecretSolution][0].Text)
	assert.Equal(t, "notebooks/ex.ipynb cell ex-code line 3", byKind[SecretSolution][0].Where())
	require.Len(t, byKind[SecretHidden], 1)
	assert.Equal(t, "exercises/checks/hidden.go", byKind[SecretHidden][0].File)
	require.Len(t, byKind[SecretAnswer], 1)
	assert.Equal(t, "q1-answer", byKind[SecretAnswer][0].Cell)

	_, err = CollectSecrets(scanTree(t, map[string]string{"exercises/04_y/y.cu": "// BEGIN SOLUTION\nint x;\n"}))
	assert.ErrorIs(t, err, ErrMarkers, "an unclosed solution is an error, not a secret left out")
}

// TestTheReleaseHoldsNoSolution makes the students' copy of this
// repository and scans every one of its files for every solution, hidden
// check and answer of the instructor's tree. A finding names the file and
// line of the copy and the solution it holds.
func TestTheReleaseHoldsNoSolution(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and scans the whole release; not in -short mode")
	}
	root := repoRoot(t)
	if !IsInstructorTree(root) {
		t.Skip("needs the instructor's tree to collect the solutions")
	}
	secrets, err := CollectSecrets(root)
	require.NoError(t, err)

	// Every exercise, Go and CUDA, gives at least one solution, and the
	// hidden checks are among the secrets.
	files := map[string]bool{}
	kinds := map[string]int{}
	for _, s := range secrets {
		files[s.File] = true
		kinds[s.Kind]++
	}
	for _, e := range checks.All() {
		for _, f := range e.Files {
			assert.True(t, files["exercises/"+e.ID+"/"+f], "no solution collected from exercise %s's %s", e.ID, f)
		}
	}
	for _, s := range cudacheck.Specs() {
		assert.True(t, files["exercises/"+s.ID+"/"+s.File], "no solution collected from exercise %s's %s", s.ID, s.File)
	}
	assert.True(t, files["notebooks/09_exercises.ipynb"] && files["notebooks/10_cuda_exercises.ipynb"], "the notebooks' solutions")
	assert.Positive(t, kinds[SecretHidden], "the hidden checks")
	t.Logf("%d secrets: %v", len(secrets), kinds)

	out := filepath.Join(t.TempDir(), "student")
	sum, err := Tree(root, out)
	require.NoError(t, err)
	var withheld []string
	for _, s := range secrets {
		switch s.Kind {
		case SecretHidden:
			assert.Contains(t, sum.Left, s.File, "the release leaves out every file built with the tag hidden")
			assert.NoFileExists(t, filepath.Join(out, filepath.FromSlash(s.File)))
		case SecretWithheld:
			// A withheld kernel's file holds its placeholder alone; the
			// scan below looks for its body everywhere else.
			withheld = append(withheld, s.File)
			b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(s.File)))
			require.NoError(t, err, "%s: the placeholder keeps the launchers' signatures", s.File)
			assert.Equal(t, s.Stub, string(b), "%s is its placeholder", s.File)
			assert.NotEqual(t, s.Text, string(b), s.File)
		}
	}
	assert.ElementsMatch(t, withheld, sum.Withheld, "the release withholds the files the scan looks for, and no other")
	t.Logf("withheld: %v", withheld)
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			assert.False(t, IsHidden(b), "%s is built with the tag hidden", p)
			assert.False(t, GoHasSolution(b), "%s still has a solution block", p)
		}
		return err
	}))

	var short []string
	for _, s := range secrets {
		if TooShort(s) {
			short = append(short, s.Kind+" "+s.Where())
		}
	}
	t.Logf("too short to tell from ordinary code, not looked for: %d: %s", len(short), strings.Join(short, ", "))

	found, err := Scan(out, secrets)
	require.NoError(t, err)
	// What comes close, between half and a quarter of a secret, is shown
	// (not failed) for a reader to judge.
	near, err := ScanAt(out, secrets, MinShare/2)
	require.NoError(t, err)
	failed := map[string]bool{}
	for _, f := range found {
		failed[f.Secret.Where()+" "+where(f.File, f.Cell, 0)] = true
	}
	for _, f := range near {
		if !failed[f.Secret.Where()+" "+where(f.File, f.Cell, 0)] {
			t.Logf("close to a finding: %s", f)
		}
	}
	if len(found) == 0 {
		return
	}
	// One line per finding, grouped by the solution found, so that a
	// solution copied into several files reads as one story.
	bySecret := map[string][]Finding{}
	var keys []string
	for _, f := range found {
		k := f.Secret.Kind + " " + f.Secret.Where()
		if _, ok := bySecret[k]; !ok {
			keys = append(keys, k)
		}
		bySecret[k] = append(bySecret[k], f)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "the students' copy holds %d of the %d secrets (%d findings):\n", len(keys), len(secrets), len(found))
	for _, k := range keys {
		fmt.Fprintf(&b, "%s is in:\n", k)
		for _, f := range bySecret[k] {
			fmt.Fprintf(&b, "    %s\n", f)
		}
	}
	t.Error(b.String())
}

func TestScanTokenizersTakeAnyBytes(t *testing.T) {
	// Unclosed comments and strings, a lone backslash, invalid UTF-8, NUL
	// bytes and random bytes: tokens or nothing, never a panic.
	inputs := []string{"/*", "/* a", "\"abc", "'\\", "1e", "1e+", ".5", "\xff\xfe", "a\x00b", "`", "\\", "#define", "0x"}
	seed := uint64(12345)
	for range 300 {
		b := make([]byte, int(seed%64))
		for i := range b {
			seed = seed*6364136223846793005 + 1442695040888963407
			b[i] = byte(seed >> 56)
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		assert.NotPanics(t, func() {
			cTokens(in)
			goTokens(in)
			winnow(cTokens(in + in + in + in + in + in + in))
			readTexts("x.ipynb", []byte(in))
			nonTrivial(in)
		}, "%q", in)
	}
}
