//go:build unix

package handin

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens path for reading without following a final symbolic
// link and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// isLinkErr reports whether an open failed because the path is a link.
func isLinkErr(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// OpenFolder opens the folder at path for listing, without following a
// final symbolic link and without blocking (a path swapped for a FIFO
// fails instead of waiting for a writer).
func OpenFolder(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
