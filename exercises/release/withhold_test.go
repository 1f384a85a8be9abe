package release

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/internal/cuda2go"
)

// withheldKernel is a marked kernel file: its body's lines are the secret.
const withheldKernel = `// k13.cu: a kernel that answers an exercise.
//
// release: instructor only — it answers exercise 23
//
// More prose.

#ifndef K_BX
#define K_BX 32
#endif
#define K_R 2

extern "C" __global__ void __launch_bounds__(K_BX)
k13(const float* __restrict__ in, float* out, int n,
    float c0, float c1, float c2, float c3, float c4, float c5, float c6,
    float c7, float c8, float c9, float c10, float c11, float c12)
{
    __shared__ float secretTile[K_BX + 2 * K_R];
    out[threadIdx.x] = c0 * in[threadIdx.x] + c12 * secretTile[threadIdx.x];
}
`

// bodyLine is a line of withheldKernel's body that no placeholder holds.
const bodyLine = "secretTile"

// signatures returns the text from each `extern "C"` to the "{" or ";"
// after it, white space at its end dropped: a plain reading, independent
// of the release's, of a file whose comments do not say extern "C".
func signatures(src string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?s)extern "C"[^{;]*`).FindAllString(src, -1) {
		out = append(out, strings.TrimRight(m, " \t\r\n"))
	}
	return out
}

// codeSignatures is signatures of src without its // comment lines.
func codeSignatures(src string) []string {
	var code []string
	for _, line := range strings.SplitAfter(src, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			code = append(code, line)
		}
	}
	return signatures(strings.Join(code, ""))
}

// checkPlaceholder asserts what a placeholder of src must be: the marker's
// reason in an #error before any code, the signatures byte for byte, the
// entries cuda2go reads unchanged, nothing of the body.
func checkPlaceholder(t *testing.T, name, src string, out []byte, body ...string) {
	t.Helper()
	why, err := WithheldReason(name, []byte(src))
	require.NoError(t, err)
	require.NotEmpty(t, why)
	text := string(out)
	again, err := WithheldReason(name, out)
	require.NoError(t, err)
	assert.Equal(t, why, again, "the placeholder keeps the marker")
	for _, line := range strings.SplitAfter(text, "\n") {
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "//") {
			continue
		}
		assert.Equal(t, `#error "withheld from the students' copy: `+why+`; your instructor can release it after grading"`, trim,
			"the first line of code is the #error, with the reason whole")
		break
	}
	want := codeSignatures(src)
	require.NotEmpty(t, want)
	for _, sig := range want {
		assert.Contains(t, text, sig+";", "the signature is kept byte for byte")
	}
	assert.Len(t, codeSignatures(text), len(want), "no other extern \"C\"")
	orig, err := cuda2go.Parse(name, src)
	require.NoError(t, err)
	kept, err := cuda2go.Parse(name, text)
	require.NoError(t, err)
	assert.Equal(t, orig, kept, "the launchers generated from it are the same")
	for _, b := range body {
		assert.NotContains(t, text, b)
	}
	assert.NotContains(t, text, "{", "no body")
	again2, err := Placeholder(name, out)
	require.NoError(t, err)
	assert.Equal(t, text, string(again2), "a placeholder's placeholder is itself")
}

func TestPlaceholderOfAWithheldKernel(t *testing.T) {
	out, err := Placeholder("cuda/k13.cu", []byte(withheldKernel))
	require.NoError(t, err)
	checkPlaceholder(t, "k13.cu", withheldKernel, out, bodyLine, "K_R", "More prose")
	assert.Contains(t, string(out), "#ifndef K_BX\n#define K_BX 32\n#endif\n", "the define's default stays")
	assert.True(t, strings.HasPrefix(string(out), "// k13.cu: withheld from the students' copy.\n"))

	_, err = Placeholder("cuda/plain.cu", []byte("extern \"C\" __global__ void k(float* out) { out[0] = 1; }\n"))
	assert.ErrorIs(t, err, ErrWithhold, "a file that is not withheld has no placeholder")
}

// The attacks on the marker: the file renamed, CRLF line ends, a second
// kernel, a marker that went astray (after the code, in a string, in a
// block comment, in another form, without a reason).
func TestWithholdingMarkerAttacks(t *testing.T) {
	t.Run("renamed", func(t *testing.T) {
		// The marker is in the file: its name does not matter.
		for _, name := range []string{"cuda/k13.cu", "cuda/renamed.cu", "bench/elsewhere.cuh", "x.cu"} {
			why, err := WithheldReason(name, []byte(withheldKernel))
			require.NoError(t, err)
			assert.Equal(t, "it answers exercise 23", why, name)
		}
	})
	t.Run("CRLF", func(t *testing.T) {
		crlf := strings.ReplaceAll(withheldKernel, "\n", "\r\n")
		why, err := WithheldReason("k13.cu", []byte(crlf))
		require.NoError(t, err)
		assert.Equal(t, "it answers exercise 23", why, "the reason ends before the carriage return")
		out, err := Placeholder("k13.cu", []byte(crlf))
		require.NoError(t, err)
		checkPlaceholder(t, "k13.cu", crlf, out, bodyLine)
		assert.NotRegexp(t, "[^\r]\n", string(out), "every line ends in CRLF, as the file's do")
	})
	t.Run("a second kernel", func(t *testing.T) {
		two := withheldKernel + "\nextern \"C\" __global__ void k13b(const float* in, float* out, int n)\n{\n    out[0] = in[1] * 7.5f; // otherSecret\n}\n"
		out, err := Placeholder("k13.cu", []byte(two))
		require.NoError(t, err)
		checkPlaceholder(t, "k13.cu", two, out, bodyLine, "otherSecret", "7.5f")
		es, err := cuda2go.Parse("k13.cu", string(out))
		require.NoError(t, err)
		require.Len(t, es, 2, "the whole file is withheld, each kernel's signature kept")
	})
	t.Run("a host function and a declaration", func(t *testing.T) {
		src := withheldKernel + "extern \"C\" __global__ void decl(float* out);\nextern \"C\" __device__ float helper(float x) { return x * 3.25f; }\n"
		out, err := Placeholder("k13.cu", []byte(src))
		require.NoError(t, err)
		assert.Contains(t, string(out), "extern \"C\" __global__ void decl(float* out);")
		assert.NotContains(t, string(out), "3.25f")
		assert.NotContains(t, string(out), "helper", "only the __global__ entries, which cuda2go reads, are kept")
	})
	refused := map[string]string{
		"after the first kernel": strings.Replace(withheldKernel, "// release: instructor only — it answers exercise 23\n", "", 1) +
			"// release: instructor only — it answers exercise 23\n",
		"after a define": "#define X 1\n// release: instructor only — it answers exercise 23\n" + withheldKernel,
		"in a string": strings.Replace(withheldKernel, "// release: instructor only — it answers exercise 23\n", "", 1) +
			"__device__ const char* note = \"// release: instructor only — it answers exercise 23\";\n",
		"in a block comment":  "/*\n * release: instructor only — it answers exercise 23\n */\n" + withheldKernel,
		"block comment first": "/* release: instructor only — x */\n" + withheldKernel,
		"another case":        "// Release: Instructor-Only — it answers exercise 23\n" + withheldKernel,
		"a hyphen":            "// release: instructor only - it answers exercise 23\n" + withheldKernel,
		"no space":            "//release: instructor only — it answers exercise 23\n" + withheldKernel,
		"no reason":           "// release: instructor only —\n" + withheldKernel,
		"a blank reason":      "// release: instructor only —   \n" + withheldKernel,
		"a quote":             "// release: instructor only — it is \"secret\"\n" + withheldKernel,
		"a backslash":         "// release: instructor only — it answers 23 \\\n" + withheldKernel,
		"a trigraph":          "// release: instructor only — why??/\n" + withheldKernel,
		"a byte order mark":   "\ufeff// release: instructor only — it answers exercise 23\n" + withheldKernel,
		"a marker reason":     "// release: instructor only — release, instructor only\n" + withheldKernel,
	}
	for name, src := range refused {
		t.Run(name, func(t *testing.T) {
			why, err := WithheldReason("cuda/k13.cu", []byte(src))
			require.ErrorIs(t, err, ErrWithhold, "refused, never copied as it is: %q", why)
			assert.Regexp(t, `^release: cuda/k13\.cu:[0-9]+: `, err.Error(), "the message names the file and line")
			_, err = Placeholder("cuda/k13.cu", []byte(src))
			assert.ErrorIs(t, err, ErrWithhold)
		})
	}
	// A file that does not mention the marker is not withheld.
	why, err := WithheldReason("plain.cu", []byte("// Plain: released as it is; an instructor may read it.\nextern \"C\" __global__ void k(float* o) { o[0] = 1; }\n"))
	require.NoError(t, err)
	assert.Empty(t, why)
}

// TestTreeWithholdsMarkedKernels releases a tree with a marked kernel
// under a new name, a marked header, an unmarked kernel and a CUDA
// exercise: the marked files become their placeholders, the others are
// copied or stripped as before, and a marker gone astray stops the
// release, naming the file and line.
func TestTreeWithholdsMarkedKernels(t *testing.T) {
	files := map[string]string{
		"go.mod":                  "module example.com/demo\n",
		"cuda/renamed_answer.cu":  withheldKernel,
		"cuda/plain.cu":           "extern \"C\" __global__ void plain(float* out) { out[0] = 1.0f; }\n",
		"include/answer.cuh":      "// release: instructor only — a header of the answer\n\n__device__ float answerHelper(float x) { return x * 0.125f; }\n",
		"exercises/20_demo/k.cu":  "__global__ void k(float* out)\n{\n    // BEGIN SOLUTION\n    out[0] = 1.0f;\n    // END SOLUTION\n    // BEGIN STUB\n    // return;\n    // END STUB\n}\n",
		"docs/about.md":           "release: instructor only — prose outside CUDA is not a marker\n",
		"exercises/checks/pub.go": "package checks\n",
		"cuda/crlf_answer.cu":     strings.ReplaceAll(withheldKernel, "\n", "\r\n"),
	}
	root := gitRepo(t, files)
	out := filepath.Join(t.TempDir(), "student")
	sum, err := Tree(root, out)
	require.NoError(t, err)
	assert.Equal(t, []string{"cuda/crlf_answer.cu", "cuda/renamed_answer.cu", "include/answer.cuh"}, sum.Withheld)
	assert.Equal(t, []string{"exercises/20_demo/k.cu"}, sum.Stripped)
	for _, rel := range sum.Withheld {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		require.NoError(t, err)
		want, err := Placeholder(rel, []byte(files[rel]))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), rel)
		assert.NotContains(t, string(got), bodyLine, rel)
		assert.NotContains(t, string(got), "0.125f", rel)
	}
	for _, rel := range []string{"cuda/plain.cu", "docs/about.md"} {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
		require.NoError(t, err)
		assert.Equal(t, files[rel], string(got), rel)
	}

	astray := gitRepo(t, map[string]string{
		"go.mod": "module example.com/demo\n",
		"cuda/sneaky.cu": strings.Replace(withheldKernel, "// release: instructor only — it answers exercise 23\n", "", 1) +
			"// release: instructor only — it answers exercise 23\n",
	})
	_, err = Tree(astray, filepath.Join(t.TempDir(), "student"))
	require.ErrorIs(t, err, ErrWithhold)
	assert.Contains(t, err.Error(), "cuda/sneaky.cu:19: ")
	_, err = CollectSecrets(astray)
	assert.ErrorIs(t, err, ErrWithhold, "the scan refuses it too")
}

// TestTheScanFindsAWithheldKernel: a withheld kernel's body copied into
// another file of the release (renamed, in a Go string) is a finding;
// the placeholder is not.
func TestTheScanFindsAWithheldKernel(t *testing.T) {
	body := `    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long plane = (long long)ny * nx;
    float zm2 = 0.f, zm1 = 0.f, ce = 0.f, zp1 = 0.f, zp2 = 0.f;
    for (int z = z0; z < z1; ++z) {
        tile[ty + 2][tx + 2] = ce;
        __syncthreads();
        float acc = c0 * ce + c1 * zm1 + c2 * zp1 + c7 * zm2 + c8 * zp2
                  + c3 * tile[ty + 1][tx + 2] + c4 * tile[ty + 3][tx + 2]
                  + c5 * tile[ty + 2][tx + 1] + c6 * tile[ty + 2][tx + 3]
                  + c9 * tile[ty][tx + 2] + c10 * tile[ty + 4][tx + 2]
                  + c11 * tile[ty + 2][tx] + c12 * tile[ty + 2][tx + 4];
        out[(long long)z * plane + (long long)ty * nx + tx] = acc;
        __syncthreads();
        zm2 = zm1; zm1 = ce; ce = zp1; zp1 = zp2;
        zp2 = in[(long long)(z + 3) * plane + (long long)ty * nx + tx];
    }
`
	kernel := strings.Replace(withheldKernel, "    __shared__ float secretTile[K_BX + 2 * K_R];\n    out[threadIdx.x] = c0 * in[threadIdx.x] + c12 * secretTile[threadIdx.x];\n",
		"    __shared__ float tile[20][36];\n    int z0 = 2, z1 = n - 2, nx = n, ny = n;\n"+body, 1)
	require.NotEqual(t, withheldKernel, kernel)
	root := scanTree(t, map[string]string{"cuda/k13.cu": kernel})
	secrets, err := CollectSecrets(root)
	require.NoError(t, err)
	require.Len(t, secrets, 1)
	assert.Equal(t, SecretWithheld, secrets[0].Kind)
	assert.False(t, TooShort(secrets[0]), "the scan looks for it")

	placeholder, err := Placeholder("cuda/k13.cu", []byte(kernel))
	require.NoError(t, err)
	renamed := strings.NewReplacer("zm2", "below2", "zp2", "above2", "tile", "plane_s", "acc", "sum").Replace(body)
	release := scanTree(t, map[string]string{
		"cuda/k13.cu":         string(placeholder),
		"notebooks/x/cell.go": "package x\n\nconst kernel = `extern \"C\" __global__ void mine(const float* in, float* out, int n) {\n" + renamed + "}`\n",
	})
	found, err := Scan(release, secrets)
	require.NoError(t, err)
	require.Len(t, found, 1, "%v", found)
	assert.Equal(t, "notebooks/x/cell.go", found[0].File)
	assert.Equal(t, "cuda/k13.cu:1", found[0].Secret.Where())
}
