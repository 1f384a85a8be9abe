package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claimFiles are the prose whose numbers the claims test checks: the
// course's notebooks and the docs written for them.
func claimFiles(t *testing.T, root string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "notebooks", "0[1-8]_*.ipynb"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 8, "the course's notebooks 01 to 08")
	return append(files, filepath.Join(root, "docs", "sediment.md"))
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
}
