//go:build !linux

package lab

// systemMemory knows no system figure outside Linux: MemoryLimit and
// STENCIL_MEMORY_LIMIT are the only bounds.
func systemMemory(func(b uint64, src string)) {}
