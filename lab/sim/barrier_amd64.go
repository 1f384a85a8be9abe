package sim

// callerPC returns the return address of the function that calls it,
// which must not be inlined: in Sync, the site in the kernel that called
// Sync. A few nanoseconds, where runtime.Callers takes a few hundred
// (barrier_other.go); TestCallerPCMatchesCallers checks that both agree.
//
//go:noescape
func callerPC() uintptr
