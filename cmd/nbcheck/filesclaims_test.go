package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckFileClaims(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "a.json"), []byte("{}"), 0o644))

	assert.Empty(t, CheckFileClaims(root, "x", "The profile is committed<!-- committed: docs/a.json -->."))
	assert.Empty(t, CheckFileClaims(root, "x", "No profile of the H200 is committed<!-- absent: docs/b*.json -->."))
	assert.Empty(t, CheckFileClaims(root, "x", "Nothing here is about files."))

	bare := CheckFileClaims(root, "x", "No DRAM profile of the H200 is committed; the H100's stands in.")
	require.Len(t, bare, 1)
	assert.Contains(t, bare[0], "names no files")
	assert.Len(t, CheckFileClaims(root, "x", "it has not been run yet."), 1)
	assert.Len(t, CheckFileClaims(root, "x", "no machine of four GPUs was lent, so that is not measured"), 1)

	stale := CheckFileClaims(root, "x", "No profile is committed<!-- absent: docs/a.json -->.")
	require.Len(t, stale, 1)
	assert.Contains(t, stale[0], "it is (a.json)")
	missing := CheckFileClaims(root, "x", "The profile is committed<!-- committed: docs/c.json -->.")
	require.Len(t, missing, 1)
	assert.Contains(t, missing[0], "and it is not")

	assert.Len(t, CheckFileClaims(root, "x", "as in issue 27's model"), 1)
	assert.Len(t, CheckFileClaims(root, "x", "Unlike the issue's throwaway probe"), 1)
	assert.Empty(t, CheckFileClaims(root, "x", "the multiprocessors issue on 86 % of their cycles"))
}

// TestFileClaims: every statement of the course's prose about what is or
// is not committed, lent or run names its files, and the files agree.
func TestFileClaims(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	files := claimFiles(t, root)
	files = append(files[:len(files)-1], filepath.Join(root, "notebooks", "README.md"))
	for _, f := range files {
		prose, err := ProseOf(f)
		require.NoError(t, err)
		keys := make([]string, 0, len(prose))
		for k := range prose {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, p := range CheckFileClaims(root, k, prose[k]) {
				t.Error(p)
			}
		}
	}
}
