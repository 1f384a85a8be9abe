// Package sim is a simulated CUDA machine on the CPU. A kernel written in
// Go runs over a grid of blocks of threads, as CUDA runs a __global__
// function: each thread reads its coordinates from Thread, reaches global
// memory through Thread.Load and Thread.Store, declares __shared__ arrays
// with Thread.Shared1, Shared2 and Shared3, and waits at the barrier with
// Thread.Sync. The machine counts the traffic of every launch (Stats):
// per thread, and per warp of 32 threads as the hardware moves it, in
// 32-byte sectors and shared-memory bank passes per request and per
// source line (Stats.Memory). It checks the launch against the
// hardware's limits (Limits), and reports
// the hazards a missing barrier causes: races on shared memory, reads of
// shared memory no thread wrote, and barriers that part of a block never
// reaches. Where asked (Simulator.Trace), it reports every access, with
// its thread, block and barrier interval, to a Tracer; a Recorder keeps
// those of one block, from which a figure can show which thread loads,
// computes or idles.
//
// The package knows nothing about stencils: the lab's kernels use it as
// any CUDA program would use a GPU.
package sim

// ElemBytes is the size of one element of global or shared memory: the
// machine holds float32 values.
const ElemBytes = 4

// Hardware limits of one block (compute capability 9.0 without opting in
// to more shared memory).
const (
	// MaxThreadsPerBlock is CUDA's limit on the threads of one block.
	MaxThreadsPerBlock = 1024
	// DefaultSharedPerBlock is the shared memory a block may use without
	// opting in to more: 48 KiB.
	DefaultSharedPerBlock = 48 * 1024
)

// MaxThreadsPerLaunch bounds the threads of one simulated launch: every
// thread runs in Go, and past this a launch would take hours.
const MaxThreadsPerLaunch = 1 << 32

// Limits are the limits on one block that a launch must respect.
type Limits struct {
	MaxThreads     int // threads per block allowed, e.g. 1024
	MaxSharedBytes int // shared memory per block allowed, e.g. 48 KiB
}

// DefaultLimits are CUDA's 1024 threads and 48 KiB of shared memory per block.
func DefaultLimits() Limits {
	return Limits{MaxThreads: MaxThreadsPerBlock, MaxSharedBytes: DefaultSharedPerBlock}
}
