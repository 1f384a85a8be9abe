package run

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProgressIsNotAnError checks that a long simulation reports its
// progress on standard output in a notebook, which Jupyter shows as plain
// text, and not on standard error, which it shows in a red box as an
// error; outside a notebook (these tests, tools) it stays quiet.
func TestProgressIsNotAnError(t *testing.T) {
	assert.Same(t, os.Stdout, progressOutput(true))
	assert.Nil(t, progressOutput(false))
	assert.Nil(t, ProgressOutput, "a test binary is no notebook")
}
