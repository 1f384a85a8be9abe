//go:build !amd64

package sim

import "runtime"

// callerPC returns the return address of the function that calls it,
// which must not be inlined: in Sync, the site in the kernel that called
// Sync.
//
//go:noinline
func callerPC() uintptr {
	var pc [1]uintptr
	// 0 is Callers, 1 callerPC, 2 its caller, 3 the caller's caller.
	if runtime.Callers(3, pc[:]) == 0 {
		return 0
	}
	return pc[0]
}
