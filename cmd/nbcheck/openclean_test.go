package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/internal/nbformat"
)

// kernelLanguageInfo is the language_info that the GoNB kernel (v0.11.4,
// scripts/install-gonb.sh) reports, built by the toolchain go.mod pins:
// Jupyter Notebook compares a notebook's language_info with it when the
// notebook opens, and marks the notebook changed on any difference.
func kernelLanguageInfo(t *testing.T) map[string]any {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^toolchain (go\S+)$`).FindSubmatch(mod)
	require.NotNil(t, m, "go.mod pins a toolchain, with which install-gonb.sh builds the kernel")
	return map[string]any{"name": "go", "version": string(m[1]), "mimetype": "text/x-go", "file_extension": ".go",
		"pygments_lexer": "", "codemirror_mode": "", "nbconvert_exporter": ""}
}

// TestCommittedNotebooksOpenClean checks that Jupyter Notebook opens every
// committed notebook without marking it changed: the file is laid out as
// nbformat writes it, its kernelspec is the gonb kernel's, and its
// language_info is what the kernel reports. make notebooks rewrites 01 to
// 08 so; the others are written by hand or by cmd/exercisegen.
func TestCommittedNotebooksOpenClean(t *testing.T) {
	want := kernelLanguageInfo(t)
	paths, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			var raw map[string]any
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			require.NoError(t, d.Decode(&raw))
			again, err := nbformat.Encode(raw)
			require.NoError(t, err)
			assert.Equal(t, string(again), string(data), "laid out as nbformat writes it: sorted keys, one-space indent, a final newline")
			assert.Equal(t, json.Number("4"), raw["nbformat"])
			assert.Equal(t, json.Number("5"), raw["nbformat_minor"])
			meta, _ := raw["metadata"].(map[string]any)
			assert.Equal(t, map[string]any{"display_name": "Go (gonb)", "language": "go", "name": "gonb"}, meta["kernelspec"])
			assert.Equal(t, want, meta["language_info"], "language_info as the kernel reports it (make notebooks writes it)")
			cells, _ := raw["cells"].([]any)
			for i, c := range cells {
				cm, _ := c.(map[string]any)
				id, _ := cm["id"].(string)
				assert.NotEmpty(t, id, "cell %d has an id, which nbformat 4.5 requires", i)
			}
		})
	}
}
