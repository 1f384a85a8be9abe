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

// mdLinkRe finds the target of a Markdown link.
var mdLinkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// mojibake are what UTF-8 text shows when it is read as Latin-1 or
// Windows-1252: "â‰ˆ" for "≈", "Ã—" for "×", "Â " for a no-break space.
var mojibake = []string{"â€", "â‰", "Ã", "Â", "Î", "Ï€"}

// markdownCells returns the markdown cells of a notebook by id.
func markdownCells(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var nb notebook
	require.NoError(t, json.Unmarshal(b, &nb), path)
	out := map[string]string{}
	for _, c := range nb.Cells {
		if c.CellType == "markdown" {
			out[c.ID] = string(c.Source)
		}
	}
	return out
}

// TestStartPage: the start page, a notebook so that Jupyter renders it,
// holds the contents of notebooks/README.md as they are there (the run
// times included), says how the predictions work and links to the
// glossary, a notebook too; every link of both opens a file of the
// repository, and neither holds mojibake.
func TestStartPage(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	dir := filepath.Join(root, "notebooks")
	start := markdownCells(t, filepath.Join(dir, startPage))
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	contents := string(readme)
	i := strings.Index(contents, "## Contents")
	require.GreaterOrEqual(t, i, 0, "notebooks/README.md has its contents")
	contents = contents[i:]
	contents = contents[:strings.Index(contents, "\n\nNotebooks 1 to 8")]
	assert.Equal(t, contents, start["contents"], "the start page's contents are notebooks/README.md's")
	assert.Contains(t, start["predictions"], "## How predictions work")
	assert.Contains(t, start["glossary"], "(glossary.ipynb)")

	glossary := markdownCells(t, filepath.Join(dir, "glossary.ipynb"))
	assert.Greater(t, len(glossary), 20, "the glossary's entries")
	for name, cells := range map[string]map[string]string{startPage: start, "glossary.ipynb": glossary} {
		for id, text := range cells {
			for _, bad := range mojibake {
				assert.NotContains(t, text, bad, "%s cell %s: mojibake", name, id)
			}
			for _, m := range mdLinkRe.FindAllStringSubmatch(text, -1) {
				target := m[1]
				if strings.HasPrefix(target, "http") || strings.HasPrefix(target, "#") {
					continue
				}
				_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(strings.SplitN(target, "#", 2)[0])))
				assert.NoError(t, err, "%s cell %s links to %s", name, id, target)
			}
		}
	}
}
