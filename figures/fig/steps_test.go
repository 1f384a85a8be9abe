package fig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// Every registered 3D step of the lab has a row in the style table, and a
// name without one is an error that names it, never another step's colour.
func TestEveryStepHasAStyle(t *testing.T) {
	assert.Empty(t, MissingStyles(), "add these steps to stepStyles")
	require.NotEmpty(t, lab.Names3(nil))
	seen := map[string]string{}
	for _, name := range lab.Names3(nil) {
		s, err := Style(name)
		require.NoError(t, err, name)
		assert.NotEmpty(t, s.Title, name)
		if name != "reference" { // drawn in no chart of the steps
			key := s.Title
			assert.NotContains(t, seen, key, "%s and %s share a legend name", name, seen[key])
			seen[key] = name
		}
	}
	for _, b := range lab.BrokenKernels() {
		_, step, err := lab.LookupKernel(b.Name)
		require.NoError(t, err)
		got, err := Style(b.Name)
		require.NoError(t, err)
		want, _ := Style(step.Name)
		assert.Equal(t, want.Color, got.Color, "%s is drawn as its step %s", b.Name, step.Name)
	}
	_, err := Style("no_such_step")
	assert.ErrorIs(t, err, ErrNoStyle)
	_, err = KernelColor("no_such_step")
	assert.ErrorIs(t, err, ErrNoStyle)
}
