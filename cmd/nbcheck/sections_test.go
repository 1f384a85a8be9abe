package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFigSections(t *testing.T) {
	assert.Equal(t, "§8.3", figSections("Fig. 8.8"))
	assert.Equal(t, "§8.4", figSections("Figs. 8.9 and 8.10"))
	assert.Equal(t, "§8.4, §8.5", figSections("Figs. 8.10 and 8.12"))
	assert.Equal(t, "§8.1", figSections("Figs. 8.3–8.5"))
	assert.Equal(t, "§8.1, §8.2", figSections("Figs. 8.5, 8.6"))
	assert.Equal(t, "", figSections("Fig. 8.13"))
	// Fig. 8.11's caption speaks of the coarsened kernel's shared arrays.
	assert.Equal(t, "§8.4", figSections("Fig. 8.11"))
	assert.Equal(t, "§8.4, §8.5", figSections("Figs. 8.11 and 8.12"))
	// A panel's letter belongs to the figure's number.
	assert.Empty(t, MissingSections("the stencil of Fig. 8.3C (§8.1) and Figs. 8.3B and 8.3D (§8.1)"))
	assert.Equal(t, []string{"Fig. 8.3 (§8.1)C"}, SplitPanels("the stencil of Fig. 8.3 (§8.1)C is"))
	assert.Empty(t, SplitPanels("Fig. 8.3C (§8.1) and Fig. 8.6 (§8.2)."))

	assert.Empty(t, MissingSections("as Fig. 8.8 (§8.3) shows, and (Fig. 8.1, §8.1)"))
	assert.Equal(t, []string{"Fig. 8.8", "Figs. 8.9 and 8.10"}, MissingSections("Fig. 8.8 and Figs. 8.9 and 8.10 (§8.3)"))
}

// TestNotebookSections: in the course's prose (notebooks 01 to 08, 07b) every figure number of the
// chapter comes with its section.
func TestNotebookSections(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "notebooks", "0[1-8]*_*.ipynb"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 9, "the course's notebooks 01 to 08 and 07b")
	files = append(files, filepath.Join(root, "docs", "sediment.md"), filepath.Join(root, "notebooks", "README.md"))
	for _, f := range files {
		prose, err := ProseOf(f)
		require.NoError(t, err)
		for where, text := range prose {
			for _, ref := range MissingSections(text) {
				t.Errorf("%s: %q without its section", where, ref)
			}
			for _, ref := range SplitPanels(text) {
				t.Errorf("%s: %q: the panel's letter goes with the figure's number", where, ref)
			}
		}
	}
}
