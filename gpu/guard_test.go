package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/gpu/multi"
	gsed "stencillab.dev/gpu/sediment"
	"stencillab.dev/internal/nameguard"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sediment"
)

// No registered name decides anything in the logic of gpu and its
// packages (gpu/multi among them): a step brings its tuning through the
// tuning interface, a sediment variant its launch through its
// registration, an overlap strategy its passes and a sediment kernel its
// entry, launch and arguments through their values.
// Comparisons, switch cases, prefix tests and map keys are all looked for
// (see internal/nameguard).
func TestNoStepNamesInTheLogic(t *testing.T) {
	var names []string
	for _, s := range lab.Steps3() {
		names = append(names, s.Name)
	}
	names = append(names, sediment.Variants...)
	names = append(names, multi.Overlaps()...)
	names = append(names, gsed.Kernels()...)
	fs, err := nameguard.Find(".", names)
	require.NoError(t, err)
	for _, f := range fs {
		assert.Fail(t, "decides by a name", "%s", f)
	}
}
