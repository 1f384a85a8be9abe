package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claimFiles are the prose whose numbers the claims test checks: every
// notebook (01 to 08, 07b, the exercises and any added later), every doc
// under docs/ and the README.
func claimFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "notebooks", "[0-9][0-9]*_*.ipynb"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 11, "the course's notebooks 01 to 08, 07b, 09 and 10")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	require.Contains(t, docs, filepath.Join(root, "docs", "gpu.md"))
	files = append(files, docs...)
	return append(files, filepath.Join(root, "README.md"))
}

// TestClaims: every percentage and millisecond figure of the course's prose
// names its source, and the source gives the number written.
func TestClaims(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	total := 0
	for _, f := range claimFiles(t, root) {
		prose, err := ProseOf(f)
		require.NoError(t, err)
		keys := make([]string, 0, len(prose))
		for k := range prose {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, c := range FindClaims(k, prose[k]) {
				total++
				if problem := CheckClaim(root, c); problem != "" {
					t.Error(problem)
				}
			}
		}
	}
	assert.Greater(t, total, 20, "the prose states measured numbers; the test must find them")
}

func TestFindClaims(t *testing.T) {
	text := "basic reached 39 %<!-- = {d.json results[k=a].p} --> and 0.6 to 1.3 ms, 58 % idle\n" +
		"```\n99 % in a printed table\n```\n12.50 % <!-- = 25.0/2 ±0.1 -->, 160.88 GB/s<!-- cited: Su et al. -->"
	cs := FindClaims("x", text)
	require.Len(t, cs, 5)
	assert.Equal(t, Claim{Where: "x", Text: "39 %", Value: 39, Places: 0, Source: "{d.json results[k=a].p}"}, cs[0])
	assert.Equal(t, "1.3 ms", cs[1].Text)
	assert.Equal(t, 1, cs[1].Places)
	assert.Equal(t, "", cs[1].Source)
	assert.Equal(t, "58 %", cs[2].Text)
	assert.Equal(t, "12.50 %", cs[3].Text)
	assert.Equal(t, 2, cs[3].Places)
	assert.Equal(t, "25.0/2 ±0.1", cs[3].Source)
	assert.Equal(t, Claim{Where: "x", Text: "160.88 GB/s", Value: 160.88, Places: 2, Cited: "Su et al."}, cs[4])
	assert.Empty(t, CheckClaim(".", cs[4]), "a cited number is not checked further")
}

func TestCheckClaim(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "d.json"), []byte(
		`{"copy": {"gbps": 4000}, "results": [{"k": "a", "n": 512, "p": 39.31}, {"k": "a", "n": 256, "p": 40.5}, {"k": "b", "n": 512, "p": 18.2}]}`), 0o644))
	ok := func(text string, v float64, places int, src string) string {
		return CheckClaim(root, Claim{Where: "w", Text: text, Value: v, Places: places, Source: src})
	}
	assert.Empty(t, ok("39 %", 39, 0, "{d.json results[k=a,n=512].p}"))
	assert.Empty(t, ok("39.3 %", 39.3, 1, "{d.json results[k=a,n=512].p}"))
	assert.Contains(t, ok("39.4 %", 39.4, 1, "{d.json results[k=a,n=512].p}"), "gives 39.31")
	assert.Empty(t, ok("40 %", 40, 0, "{d.json results[k=a,n=512].p} ±1"), "within the tolerance")
	assert.Contains(t, ok("39 %", 39, 0, "{d.json results[k=a].p}"), "2 elements", "an ambiguous selection")
	assert.Contains(t, ok("39 %", 39, 0, "{d.json results[k=c].p}"), "0 elements")
	assert.Contains(t, ok("39 %", 39, 0, "{nope.json copy.gbps}"), "data file")
	assert.Contains(t, ok("39 %", 39, 0, ""), "names no source")
	// A share computed from a field.
	assert.Empty(t, ok("18 %", 18, 0, "100*{d.json results[k=b].p}/100"))
	assert.Empty(t, ok("58 %", 58, 0, "100*(512-216)/512.0"), "296/512 = 57.8 %")
	assert.Contains(t, ok("58 %", 58, 0, "100*(512-216)/512"), "gives 57.0", "untyped integers divide as integers")
	assert.Contains(t, ok("2 ms", 2, 0, "1 +"), "expression")

	// A threshold quoted from the code.
	require.NoError(t, os.WriteFile(filepath.Join(root, "c.go"), []byte(
		"package c\n\nconst (\n\tshare = 0.9\n\tother = share / 3\n)\n\nvar limit = 1 << 10\n\nvar bare int\n"), 0o644))
	assert.Empty(t, ok("90 %", 90, 0, "100*{c.go share}"))
	assert.Contains(t, ok("90 %", 90, 0, "100*{c.go other}"), "not a constant expression", "other names share")
	assert.Empty(t, ok("1024 ms", 1024, 0, "{c.go limit}"))
	assert.Contains(t, ok("1 ms", 1, 0, "{c.go bare}"), "no value")
	assert.Contains(t, ok("1 ms", 1, 0, "{c.go missing}"), "no package-level")
	assert.Contains(t, ok("1 ms", 1, 0, "{../c.go share}"), "inside the repository")
}

// TestRunAndTargetClaims: a docs' number from a run not committed names
// the command and the card; a notebook may not rely on one.
func TestRunAndTargetClaims(t *testing.T) {
	cs := FindClaims("gpu.md", "fast 91.6 %<!-- run: `stencil bench -n 512` on the NVIDIA H200 -->, goal 95 %<!-- target: the goal -->, "+
		"88 %<!-- run: a profile -->, 89 %<!-- run: `ncu` somewhere -->")
	require.Len(t, cs, 4)
	assert.Equal(t, "`stencil bench -n 512` on the NVIDIA H200", cs[0].Run)
	assert.Empty(t, CheckClaim(".", cs[0]))
	assert.Equal(t, "the goal", cs[1].Target)
	assert.Empty(t, CheckClaim(".", cs[1]))
	assert.Contains(t, CheckClaim(".", cs[2]), "backquotes")
	assert.Contains(t, CheckClaim(".", cs[3]), "the card")
	nb := FindClaims("07.ipynb cell 3 (x)", "91.6 %<!-- run: `stencil bench` on the NVIDIA H200 -->")
	require.Len(t, nb, 1)
	assert.Contains(t, CheckClaim(".", nb[0]), "a notebook states only")
}

// TestRemainderIsNoClaim: Go's % between two numbers is an operator.
func TestRemainderIsNoClaim(t *testing.T) {
	cs := FindClaims("x", "Go's `%` keeps the sign: −1 % 5 is −1, and 7 %-2 too; 39 % of the time, 12 %.")
	require.Len(t, cs, 2)
	assert.Equal(t, "39 %", cs[0].Text)
	assert.Equal(t, "12 %", cs[1].Text)
}

// A ratio written with "×" is a claim; a shape or a product, whose "×" a
// number or a letter follows, is not.
func TestTimesClaims(t *testing.T) {
	text := "2.10×<!-- = 4.2/2 --> fast, a 64×32 tile of 2 × 2 ranks on 4 × H200, 4 × 0.277 ms<!-- = 1.108 -->, 32×W lanes, 1.58× fast"
	cs := FindClaims("x", text)
	require.Len(t, cs, 3)
	assert.Equal(t, Claim{Where: "x", Text: "2.10 ×", Value: 2.1, Places: 2, Source: "4.2/2"}, cs[0])
	assert.Empty(t, CheckClaim(".", cs[0]))
	assert.Equal(t, "0.277 ms", cs[1].Text)
	assert.Equal(t, "1.58 ×", cs[2].Text)
	assert.Equal(t, "", cs[2].Source)
	assert.NotEmpty(t, CheckClaim(".", cs[2]), "a ratio with no source fails")
	// A wrong ratio fails against its source.
	bad := FindClaims("x", "1.58×<!-- = 4.19/2.0 -->")
	require.Len(t, bad, 1)
	assert.Contains(t, CheckClaim(".", bad[0]), "gives 2.095")
}
