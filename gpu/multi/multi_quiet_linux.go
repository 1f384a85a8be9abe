package multi

import (
	"os"
	"syscall"
)

// silenceStdout points the process's standard output at null, the
// descriptor itself, so that what a holder of os.Stdout taken earlier
// writes is dropped too; where that fails, os.Stdout alone.
func silenceStdout(null *os.File) {
	if err := syscall.Dup3(int(null.Fd()), 1, 0); err != nil {
		os.Stdout = null
		return
	}
	null.Close()
}
