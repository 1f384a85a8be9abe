package gpu

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoMulticast greps the sources of gpu and its packages (the binding
// among them): no code may create an NVLink multicast object.
func TestNoMulticast(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return err
	})
	require.NoError(t, err)
	require.Contains(t, files, filepath.Join("cu", "cgo.go"))
	cu, err := filepath.Glob("../cuda/*.cu")
	require.NoError(t, err)
	forbidden := "cuMulticast" + "Create"
	for _, f := range append(files, cu...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NotContains(t, string(b), forbidden, f)
	}
}
