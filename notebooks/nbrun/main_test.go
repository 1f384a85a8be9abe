package nbrun

import (
	"os"
	"testing"
)

// TestMain keeps the tests quiet: a long simulated run reports its
// progress to ProgressOutput, standard error in a notebook.
func TestMain(m *testing.M) {
	ProgressOutput = nil
	os.Exit(m.Run())
}
