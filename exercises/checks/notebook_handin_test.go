package checks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/handin"
	"stencillab.dev/exercises/release"
)

// partialNotebook returns the repository's notebook as a student who wrote
// the solution blocks for which keep(cell, i) holds has it: every other
// block is its stub, outputs cleared.
func partialNotebook(t *testing.T, root string, keep func(cell string, i int) bool) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "notebooks", handin.NotebookName))
	require.NoError(t, err)
	var nb map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &nb))
	var cells []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(nb["cells"], &cells))
	for _, c := range cells {
		var id string
		var lines []string
		require.NoError(t, json.Unmarshal(c["id"], &id))
		if json.Unmarshal(c["source"], &lines) != nil {
			continue
		}
		src := release.KeepSolutions(strings.Join(lines, ""), func(i int) bool { return keep(id, i) })
		c["source"], err = json.Marshal([]string{src})
		require.NoError(t, err)
	}
	nb["cells"], err = json.Marshal(cells)
	require.NoError(t, err)
	b, err = json.Marshal(nb)
	require.NoError(t, err)
	b, err = release.StripNotebook(handin.NotebookName, b)
	require.NoError(t, err)
	return b
}

// TestANotebookWithStubsCompiles extracts the students' notebook, every
// function a stub, and the same notebook with the first function of each
// exercise written: each cell's file passes the static check, which
// type-checks it, although its imports are no longer all used and
// errNotImplemented is declared in another cell.
func TestANotebookWithStubsCompiles(t *testing.T) {
	root := filepath.Join("..", "..")
	if !release.IsInstructorTree(root) {
		t.Skip("needs the instructor's notebook, with its solutions")
	}
	exs := All()
	for name, keep := range map[string]func(string, int) bool{
		"stubs":   func(string, int) bool { return false },
		"partial": func(_ string, i int) bool { return i == 0 },
	} {
		cells, err := handin.NotebookCells(partialNotebook(t, root, keep))
		require.NoError(t, err)
		dir := t.TempDir()
		_, err = handin.ExtractNotebookLines(dir, root, cells, exs)
		require.NoError(t, err)
		for _, e := range exs {
			if len(e.Files) != 1 {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.ID, e.Files[0]))
			require.NoError(t, err, "%s: %s has a cell", name, e.ID)
			vs, err := static.Check(context.Background(), e, map[string][]byte{e.Files[0]: b})
			require.NoError(t, err, e.ID)
			assert.Empty(t, vs, "%s: %s:\n%s", name, e.ID, b)
		}
	}
}
