package widgets

import (
	"io"
	"os"
	"testing"

	"stencillab.dev/notebooks/nbrun/run"
)

// defaultProgress is ProgressOutput as the package sets it.
var defaultProgress io.Writer

// TestMain keeps the tests quiet: a long simulated run reports its
// progress to ProgressOutput, standard output in a notebook.
func TestMain(m *testing.M) {
	defaultProgress = run.ProgressOutput
	run.ProgressOutput = nil
	os.Exit(m.Run())
}
