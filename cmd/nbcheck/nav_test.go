package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// navLinkRe finds the notebooks a Markdown text links to.
var navLinkRe = regexp.MustCompile(`\]\(([0-9][0-9][a-z]?_[A-Za-z0-9_]+\.ipynb)\)`)

// startPage is the notebook Jupyter opens first: the contents, the
// glossary and how the predictions work.
const startPage = "00_start_here.ipynb"

// TestNavigation: every notebook names its lexer go, ends with links to
// the one before and the one after it in the contents (notebooks/README.md),
// the start page and the glossary; the contents list every notebook.
func TestNavigation(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "notebooks", "[0-9][0-9]*_*.ipynb"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 11)

	readme, err := os.ReadFile(filepath.Join(root, "notebooks", "README.md"))
	require.NoError(t, err)
	var contents []string // the notebooks in the contents' order, once each
	for _, m := range navLinkRe.FindAllStringSubmatch(string(readme), -1) {
		if len(contents) == 0 || !strings.Contains(strings.Join(contents, " "), m[1]) {
			contents = append(contents, m[1])
		}
	}
	for _, f := range files {
		assert.Contains(t, contents, filepath.Base(f), "notebooks/README.md lists every notebook")
	}
	_, err = os.Stat(filepath.Join(root, "notebooks", "glossary.ipynb"))
	require.NoError(t, err, "the glossary the notebooks link to")

	for i, name := range contents {
		b, err := os.ReadFile(filepath.Join(root, "notebooks", name))
		require.NoError(t, err)
		// language_info is the kernel's own: TestCommittedNotebooksOpenClean.
		var nb struct {
			Cells []struct {
				CellType string    `json:"cell_type"`
				Source   multiline `json:"source"`
			} `json:"cells"`
		}
		require.NoError(t, json.Unmarshal(b, &nb), name)
		require.NotEmpty(t, nb.Cells, name)
		last := nb.Cells[len(nb.Cells)-1]
		require.Equal(t, "markdown", last.CellType, "%s ends with its links", name)
		links := string(last.Source)
		if name != startPage {
			assert.Contains(t, links, "("+startPage+")", name)
		}
		assert.Contains(t, links, "(glossary.ipynb)", name)
		// Every notebook links to the start page, the contents, so the
		// start page is left out of the one before and the one after.
		var linked []string
		for _, m := range navLinkRe.FindAllStringSubmatch(links, -1) {
			if m[1] != startPage {
				linked = append(linked, m[1])
			}
		}
		var want []string
		if i > 0 && contents[i-1] != startPage {
			want = append(want, contents[i-1])
		}
		if i+1 < len(contents) {
			want = append(want, contents[i+1])
		}
		assert.Equal(t, want, linked, "%s: links to the notebooks before and after it", name)
	}
}
