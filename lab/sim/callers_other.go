//go:build !amd64 || !gc

package sim

import "runtime"

// callerKey returns a key of the call path of its caller: equal keys
// mean the same chain of call instructions, so the same access site.
// Without frame pointers to follow it asks the runtime, which is slower.
func callerKey(k *pcKey) {
	*k = pcKey{}
	runtime.Callers(2, k[:])
}
