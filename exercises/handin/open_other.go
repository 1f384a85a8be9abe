//go:build !unix

package handin

import "os"

// openNoFollow opens path for reading; the caller checks afterwards that
// the file opened is the regular file it looked at.
func openNoFollow(path string) (*os.File, error) {
	return os.Open(path)
}

// isLinkErr reports whether an open failed because the path is a link.
func isLinkErr(error) bool { return false }

// OpenFolder opens the folder at path for listing.
func OpenFolder(path string) (*os.File, error) {
	return os.Open(path)
}
