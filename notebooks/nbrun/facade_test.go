package nbrun

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFacadeIsWhatNotebooksCall checks that the façade exports exactly the
// names the notebooks call as nbrun.X: a name no notebook calls belongs in
// its sub-package only, and a notebook's call of a name the façade lacks
// would fail when the notebook runs.
func TestFacadeIsWhatNotebooksCall(t *testing.T) {
	nbs, err := filepath.Glob(filepath.Join("..", "*.ipynb"))
	require.NoError(t, err)
	require.NotEmpty(t, nbs, "the notebooks are beside nbrun")
	call := regexp.MustCompile(`nbrun\.([A-Za-z_][A-Za-z0-9_]*)`)
	var called []string
	for _, nb := range nbs {
		b, err := os.ReadFile(nb)
		require.NoError(t, err)
		for _, m := range call.FindAllStringSubmatch(string(b), -1) {
			called = append(called, m[1])
		}
	}
	slices.Sort(called)
	called = slices.Compact(called)

	f, err := parser.ParseFile(token.NewFileSet(), "nbrun.go", nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	var exported []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			exported = append(exported, d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					exported = append(exported, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						exported = append(exported, n.Name)
					}
				}
			}
		}
	}
	slices.Sort(exported)
	assert.Equal(t, called, exported)
}
