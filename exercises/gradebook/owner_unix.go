//go:build unix

package gradebook

import (
	"os"
	"syscall"
)

// ownedByOther reports whether fi belongs to a user other than this
// process's.
func ownedByOther(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Getuid()
}
