//go:build !unix

package gradebook

import "os"

// ownedByOther reports whether fi belongs to another user: not known
// here.
func ownedByOther(fi os.FileInfo) bool { return false }
