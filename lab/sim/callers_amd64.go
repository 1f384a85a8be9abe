//go:build amd64 && gc

package sim

// framePCs fills pcs with the return addresses of the frames above its
// caller, nearest first, by following the frame pointers that Go keeps on
// amd64; entries past the goroutine's first frame are left zero. It costs
// a few nanoseconds where runtime.Callers costs hundreds, which matters
// because it runs on every memory access of a simulated thread.
//
//go:noescape
func framePCs(pcs *pcKey)

// callerKey returns a key of the call path of its caller: equal keys
// mean the same chain of call instructions, so the same access site.
func callerKey(k *pcKey) { framePCs(k) }
