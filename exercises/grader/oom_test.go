package grader

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutOfMemoryRecognisesEachWayAProcessDies(t *testing.T) {
	for _, s := range []string{
		"fatal error: runtime: out of memory\n\nruntime stack:\n",
		"runtime: failed to create new OS thread (have 9 already; errno=11)\nfatal error: newosproc\n",
		"runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\nPC=0x7f3845282eec m=3 sigcode=18446744073709551610\n",
		"fatal error: runtime: cannot allocate memory\n",
	} {
		assert.True(t, outOfMemory(s), s)
	}
	for _, s := range []string{
		"panic: runtime error: index out of range [7] with length 7\n",
		"fatal error: all goroutines are asleep - deadlock!\n",
		"",
	} {
		assert.False(t, outOfMemory(s), s)
	}
}
