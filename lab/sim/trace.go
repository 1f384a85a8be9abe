package sim

import (
	"fmt"
	"slices"
	"sync"
)

// Access is one memory access of a traced launch: which thread of which
// block touched which element, and in which barrier interval of its block.
type Access struct {
	Kind     AccessKind // global or shared, load or store
	Block    Dim3       // blockIdx of the thread
	Thread   Dim3       // threadIdx of the thread
	Array    string     // the global array's Name, or the shared array's
	Index    int        // the element: its index in the global array, or its flat index in the shared one
	At       []int      // a shared element's subscripts in declared order; nil for global memory
	Interval int        // barriers the block had completed before the access: 0 before the first Sync
}

// Tracer receives every access of a launch, when set as Simulator.Trace.
// The goroutines that run blocks call it concurrently (Simulator.Workers
// of them), so it must be safe for that; Recorder is one that is.
type Tracer func(Access)

// trace passes one access of t to the launch's tracer, if it has one.
func (t *Thread) trace(kind AccessKind, name string, idx int, a *sharedArray) {
	tr := t.w.l.trace
	if tr == nil {
		return
	}
	acc := Access{Kind: kind, Block: t.BlockIdx, Thread: t.ThreadIdx, Array: name, Index: idx, Interval: t.w.barriers}
	if a != nil {
		acc.Array = a.name
		acc.At = a.index(idx)
	}
	tr(acc)
}

// Recorder keeps the accesses of the threads of one block of a launch:
// set its Block, pass its Trace to Simulator.Trace, launch, and read
// Accesses. It is safe for the concurrent calls of a launch.
type Recorder struct {
	// Block is the blockIdx whose accesses are kept; the others are
	// dropped.
	Block Dim3
	// Max bounds the accesses kept; 0 means DefaultRecorderMax. Past it the
	// recorder counts the rest in Dropped, so that tracing a large block
	// cannot exhaust memory.
	Max int

	mu       sync.Mutex
	accesses []Access
	dropped  int64
}

// DefaultRecorderMax is the number of accesses a Recorder keeps when its
// Max is 0: about 80 MB.
const DefaultRecorderMax = 1 << 20

// Trace is the Tracer that records r's block. A nil Recorder records
// nothing.
func (r *Recorder) Trace(a Access) {
	if r == nil || a.Block != r.Block {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.accesses) >= r.limit() {
		r.dropped++
		return
	}
	r.accesses = append(r.accesses, a)
}

// limit is the number of accesses r keeps: Max, or DefaultRecorderMax
// when Max is 0.
func (r *Recorder) limit() int {
	if r.Max <= 0 {
		return DefaultRecorderMax
	}
	return r.Max
}

// Accesses returns a copy of the recorded accesses, sorted by interval,
// then by thread (x fastest), then in the order each thread made them.
func (r *Recorder) Accesses() []Access {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	out := slices.Clone(r.accesses)
	r.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Access) int {
		if a.Interval != b.Interval {
			return a.Interval - b.Interval
		}
		if a.Thread.Z != b.Thread.Z {
			return a.Thread.Z - b.Thread.Z
		}
		if a.Thread.Y != b.Thread.Y {
			return a.Thread.Y - b.Thread.Y
		}
		return a.Thread.X - b.Thread.X
	})
	return out
}

// Dropped returns the number of accesses of the block not kept because
// Max was reached.
func (r *Recorder) Dropped() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Err returns an error when the recorder dropped accesses, naming its
// limit, or nil when it kept them all.
func (r *Recorder) Err() error {
	if d := r.Dropped(); d > 0 {
		return fmt.Errorf("sim: trace of block %v: %d accesses past the recorder's limit of %d were dropped: %w", r.Block, d, r.limit(), ErrLimit)
	}
	return nil
}
