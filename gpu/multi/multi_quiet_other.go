//go:build !linux

package gpu

import "os"

// silenceStdout points os.Stdout at null: without dup3 (and NCCL, which
// the launches of several processes need, runs on Linux only) the
// descriptor itself stays.
func silenceStdout(null *os.File) { os.Stdout = null }
