package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// executed builds a notebook of two code cells: the first prints text in
// the given stream chunks, the second shows the given display outputs.
func executed(t *testing.T, code2 string, chunks []string, displays ...string) []byte {
	t.Helper()
	var outs []string
	for _, c := range chunks {
		outs = append(outs, fmt.Sprintf(`{"name": "stdout", "output_type": "stream", "text": %q}`, c))
	}
	return []byte(fmt.Sprintf(`{"cells": [
	 {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# title"},
	 {"cell_type": "code", "execution_count": 1, "id": "a", "metadata": {}, "outputs": [%s], "source": "%%%%\nfmt.Println(1)"},
	 {"cell_type": "code", "execution_count": 2, "id": "b", "metadata": {}, "outputs": [%s], "source": %q}
	], "metadata": {"stencillab": {"min_images": 1}}, "nbformat": 4, "nbformat_minor": 5}`,
		strings.Join(outs, ","), strings.Join(displays, ","), code2))
}

func displayOut(mime, data string) string {
	return fmt.Sprintf(`{"data": {%q: %q}, "metadata": {}, "output_type": "display_data"}`, mime, data)
}

// stamped writes b to a file, stamps it and returns what Stamp wrote.
func stamped(t *testing.T, b []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nb.ipynb")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	require.NoError(t, Stamp(path))
	out, err := os.ReadFile(path)
	require.NoError(t, err)
	return out
}

func TestStamp(t *testing.T) {
	b := stamped(t, executed(t, "show()", []string{"1\n"}, displayOut("image/png", "x")))
	var nb notebook
	require.NoError(t, json.Unmarshal(b, &nb))
	// The hash of the code cells' sources, each followed by a NUL byte.
	assert.Equal(t, CodeHash([]cell{{CellType: "code", Source: "%%\nfmt.Println(1)"}, {CellType: "code", Source: "show()"}}), nb.Metadata.StencilLab.OutputsOf)
	require.NotNil(t, nb.Metadata.StencilLab.MinImages)
	assert.Equal(t, 1, *nb.Metadata.StencilLab.MinImages, "the rest of the metadata stays")
	assert.True(t, strings.HasPrefix(string(b), "{\n \"cells\": ["), "nbformat's layout: one space of indentation")
	assert.NotEqual(t, CodeHash([]cell{{CellType: "code", Source: "a"}}), CodeHash([]cell{{CellType: "code", Source: "b"}}))
	var raw struct {
		Metadata struct {
			LanguageInfo map[string]any `json:"language_info"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(b, &raw))
	assert.NotContains(t, raw.Metadata.LanguageInfo, "pygments_lexer", "language_info stays as the kernel reported it")
}

func TestCompareCommitted(t *testing.T) {
	pic := pngBase64(t, 4, 4, color.White, color.Black)
	fresh := executed(t, "show()", []string{"1\n"}, displayOut("image/png", pic))
	committed := stamped(t, executed(t, "show()", []string{"1", "\n"}, displayOut("image/png", pic)))
	assert.Empty(t, CompareCommitted("c.ipynb", committed, fresh), "text split differently is the same output")

	unstamped := executed(t, "show()", []string{"1\n"}, displayOut("image/png", pic))
	assert.Contains(t, strings.Join(CompareCommitted("c.ipynb", unstamped, fresh), "; "), "records no outputs")

	// The code changed after the outputs were made.
	var raw map[string]any
	require.NoError(t, json.Unmarshal(committed, &raw))
	raw["cells"].([]any)[2].(map[string]any)["source"] = "show(2)"
	edited, err := json.Marshal(raw)
	require.NoError(t, err)
	got := strings.Join(CompareCommitted("c.ipynb", edited, fresh), "; ")
	assert.Contains(t, got, "its code changed since its outputs were made")
	assert.Contains(t, got, "committed code differs from the fresh run's")

	noImage := stamped(t, executed(t, "show()", []string{"1\n"}, displayOut("text/plain", "figure")))
	got = strings.Join(CompareCommitted("c.ipynb", noImage, fresh), "; ")
	assert.Contains(t, got, "committed outputs [display_data:text/plain], fresh run [display_data:image/png]")
	assert.Contains(t, got, "committed 0 images, fresh run 1 image")

	twoImages := stamped(t, executed(t, "show()", []string{"1\n"}, displayOut("image/png", pic), displayOut("image/png", pic)))
	assert.Contains(t, strings.Join(CompareCommitted("c.ipynb", twoImages, fresh), "; "), "committed 2 images, fresh run 1 image")

	html := `<img src="data:image/png;base64,` + pic + `">`
	inHTML := stamped(t, executed(t, "show()", []string{"1\n"}, displayOut("text/html", html)))
	freshHTML := executed(t, "show()", []string{"1\n"}, displayOut("text/html", html))
	assert.Contains(t, strings.Join(CompareCommitted("c.ipynb", inHTML, freshHTML), "; "), "which GitHub's notebook view may not show")
}

func TestRunCommitted(t *testing.T) {
	dir, committedDir := t.TempDir(), t.TempDir()
	pic := pngBase64(t, 4, 4, color.White, color.Black)
	path := filepath.Join(dir, "n.ipynb")
	require.NoError(t, os.WriteFile(path, executed(t, "show()", []string{"1\n"}, displayOut("image/png", pic)), 0o644))
	var out, errs strings.Builder
	assert.Equal(t, 1, run([]string{"-committed", committedDir, path}, &out, &errs), "no committed copy")
	assert.Contains(t, out.String(), "committed copy")

	require.NoError(t, os.WriteFile(filepath.Join(committedDir, "n.ipynb"), executed(t, "show()", []string{"1\n"}, displayOut("image/png", pic)), 0o644))
	require.Equal(t, 0, run([]string{"-stamp", filepath.Join(committedDir, "n.ipynb")}, &out, &errs), errs.String())
	out.Reset()
	assert.Equal(t, 0, run([]string{"-committed", committedDir, path}, &out, &errs), out.String())
}
