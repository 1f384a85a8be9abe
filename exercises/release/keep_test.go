package release

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKeepSolutions writes out the second of two blocks and keeps the
// first for the stripping, which then turns it into its stub.
func TestKeepSolutions(t *testing.T) {
	block := func(body, stub string) string {
		return BeginSolution + "\n" + body + "\n" + EndSolution + "\n" + BeginStub + ": note\n" + stub + "\n" + EndStub + "\n"
	}
	src := "package p\n" + block("\treturn 1", "\t// return 0") + "between\n" + block("\treturn 2", "\t// return 0")
	got := KeepSolutions(src, func(i int) bool { return i == 1 })
	assert.Equal(t, "package p\n"+block("\treturn 1", "\t// return 0")+"between\n\treturn 2\n", got)
	assert.Equal(t, src, KeepSolutions(src, func(int) bool { return false }))
}
