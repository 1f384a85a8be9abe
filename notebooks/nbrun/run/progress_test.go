package run

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProgressIsNotAnError checks that a long simulation reports its
// progress on standard output, which Jupyter shows as plain text, and not
// on standard error, which it shows in a red box as an error.
func TestProgressIsNotAnError(t *testing.T) {
	assert.Same(t, os.Stdout, defaultProgress)
}
