package sim

import (
	"errors"
	"fmt"
	"iter"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// This file is the simulated CUDA execution model: a kernel written in Go
// runs over a grid of blocks of threads, with per-block shared memory, a
// barrier with the semantics of __syncthreads, counted global and shared
// memory traffic, and checks for the hazards that a barrier prevents.
//
// How it runs. The blocks of a launch are shared out among a few worker
// goroutines, each taking the next block in linear order. Inside a block
// the threads run one after the other, each as a coroutine (iter.Pull):
// thread 0 runs until it reaches Sync or returns, then thread 1, and so on
// to the last thread; when every thread waits at the barrier, the barrier
// interval ends and the round starts again with thread 0. The order of the
// threads inside a block is therefore fixed, which makes every launch
// deterministic, and no two goroutines ever touch the same shared array.

// Errors of a launch. Every error of Simulator.Launch wraps one of them.
var (
	// ErrLimit is wrapped by errors about a launch that breaks a limit:
	// threads per block, shared memory per block, dimensions.
	ErrLimit = errors.New("launch limit exceeded")
	// ErrHazard is wrapped by errors reporting a race between threads of a
	// block or a read of shared memory that no thread wrote.
	ErrHazard = errors.New("shared-memory hazard")
	// ErrBarrier is wrapped by errors about a barrier that only part of a
	// block reached.
	ErrBarrier = errors.New("barrier not reached by every thread of the block")
	// ErrFault is wrapped by errors about a thread that failed: an access
	// outside an array, a panic in the kernel's code.
	ErrFault = errors.New("kernel fault")
)

// Dim3 is CUDA's dim3: the extents of a grid of blocks or of a block of
// threads, or the index of a block or thread in them. X varies fastest.
type Dim3 struct {
	X int `json:"x"`
	Y int `json:"y"`
	Z int `json:"z"`
}

// Size returns X·Y·Z, the number of blocks or threads.
func (d Dim3) Size() int { return d.X * d.Y * d.Z }

// String writes d as an index, "(x,y,z)", the form hazard reports use.
func (d Dim3) String() string { return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z) }

// Shape writes d as extents with trailing 1s left out: "34×34" for a
// 34×34×1 block, "8×8×8", "256".
func (d Dim3) Shape() string {
	parts := []string{strconv.Itoa(d.X), strconv.Itoa(d.Y), strconv.Itoa(d.Z)}
	n := 3
	for n > 1 && parts[n-1] == "1" {
		n--
	}
	return strings.Join(parts[:n], "×")
}

// at returns the index of the lin-th element of extents d, x fastest.
func (d Dim3) at(lin int) Dim3 {
	return Dim3{X: lin % d.X, Y: lin / d.X % d.Y, Z: lin / (d.X * d.Y)}
}

// CUDA's limits on the dimensions of a launch (compute capability 9.0).
const (
	maxBlockX, maxBlockY, maxBlockZ = 1024, 1024, 64
	maxGridX, maxGridY, maxGridZ    = 1<<31 - 1, 65535, 65535
)

// Kernel is one launch: the code every thread runs (a __global__ function
// with its arguments bound, as a closure) and the launch configuration
// <<<Grid, Block>>>.
type Kernel struct {
	Name  string          // shown in errors and Stats
	Grid  Dim3            // gridDim: blocks in x, y, z
	Block Dim3            // blockDim: threads per block in x, y, z
	Body  func(t *Thread) // the code of one thread
}

// label returns the name that errors give k: its Name, or "kernel".
func (k Kernel) label() string {
	if k.Name == "" {
		return "kernel"
	}
	return k.Name
}

// Global is an array in the simulated device's global memory. Threads read
// and write it through Thread.Load and Thread.Store, which count the traffic
// and check the index.
type Global struct {
	Name string    // used in error messages, e.g. "in"
	Data []float32 // the elements; a kernel sees them in place
}

// Thread is one simulated CUDA thread. Its kernel reads its coordinates
// from the fields, as CUDA code reads the built-in variables, and reaches
// memory and the barrier through its methods. A Thread is only valid inside
// the Body that received it.
type Thread struct {
	BlockIdx  Dim3 // blockIdx
	ThreadIdx Dim3 // threadIdx
	BlockDim  Dim3 // blockDim
	GridDim   Dim3 // gridDim

	id      int32 // linear index in the block, x fastest
	w       *worker
	yield   func(threadEvent) bool
	abort   bool    // the block failed: unwind at the next Sync
	stopped bool    // the coroutine is being closed: unwind and return
	faulted bool    // the thread failed in this block (the fault is recorded)
	site    uintptr // where the thread last called Sync (barrier.go)
	stores  int64   // global stores of the thread in the current block
}

// threadEvent is what a thread's coroutine reports when it gives control
// back to its block.
type threadEvent uint8

const (
	evReady   threadEvent = iota // not yet run in this round
	evBarrier                    // waits at Sync
	evExit                       // returned from Body
	evFault                      // failed; the fault is recorded
	evAborted                    // unwound after its block failed
)

// abortSignal unwinds a thread whose block failed; runThread recovers it.
type abortSignal struct{}

// kernelFault is the panic value of a failed access. The thread records it
// before it panics (Thread.fail), so that the fault counts whoever
// recovers the panic: runThread, or a library the kernel called (fmt
// recovers a panic in a String method and prints it).
type kernelFault struct {
	msg      string // what happened, naming the thread and the block
	kind     error  // ErrFault or ErrLimit
	recorded bool   // already in the worker's record
}

// Sync is __syncthreads(): the thread waits until every thread of its block
// has reached the barrier. Shared-memory writes made before it are visible
// to every thread of the block after it. A barrier that some threads of the
// block never reach, because they returned, makes the launch fail with an
// error naming them, as CUDA leaves that case undefined; threads that wait
// at different calls of Sync are a DivergentBarrier hazard.
//
//go:noinline
func (t *Thread) Sync() {
	if t.abort || t.stopped || t.faulted {
		panic(abortSignal{})
	}
	t.site = callerPC() // the kernel's call of Sync (barrier.go)
	if !t.yield(evBarrier) {
		t.stopped = true
		panic(abortSignal{})
	}
	if t.abort {
		panic(abortSignal{})
	}
}

// Load reads g[i] from global memory and counts one global load of 4 bytes.
// An index outside g fails the thread and the launch.
func (t *Thread) Load(g *Global, i int) float32 {
	t.live()
	if g == nil || uint(i) >= uint(len(g.Data)) {
		t.fail(ErrFault, "loads %s", outside(g, i))
	}
	t.w.c.globalLoads++
	t.w.warps.access(t, GlobalLoad, g, nil, i)
	t.trace(GlobalLoad, g.Name, i, nil)
	return g.Data[i]
}

// Store writes v to g[i] in global memory and counts one global store of 4
// bytes. An index outside g fails the thread and the launch.
func (t *Thread) Store(g *Global, i int, v float32) {
	t.live()
	if g == nil || uint(i) >= uint(len(g.Data)) {
		t.fail(ErrFault, "stores %s", outside(g, i))
	}
	t.w.c.globalStores++
	t.stores++
	t.w.warps.access(t, GlobalStore, g, nil, i)
	t.trace(GlobalStore, g.Name, i, nil)
	g.Data[i] = v
}

// Flops counts n floating-point operations done by the thread, e.g. 13 for
// one seven-point update. The simulator cannot see arithmetic on Go
// values; a kernel reports its own, as the chapter counts them.
func (t *Thread) Flops(n int) { t.w.c.flops += int64(n) }

func outside(g *Global, i int) string {
	if g == nil {
		return fmt.Sprintf("index %d of a nil global array", i)
	}
	name := g.Name
	if name == "" {
		name = "global"
	}
	return fmt.Sprintf("%s[%d] outside its %d elements", name, i, len(g.Data))
}

// fail stops the thread: the launch reports the error, wrapping kind. The
// fault is recorded here, before the panic, so that a kernel whose code
// recovers the panic (its own or a library's recover) still fails: the
// thread is marked, its next access or barrier unwinds it, and its end
// counts as a fault whatever it returns.
func (t *Thread) fail(kind error, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f := kernelFault{msg: fmt.Sprintf("thread %v of block %v %s", t.ThreadIdx, t.BlockIdx, msg), kind: kind}
	if !t.faulted {
		t.faulted = true
		t.w.fault(f)
	}
	f.recorded = true
	panic(f)
}

// live unwinds a thread that already failed in this block, when its code
// recovered the panic of the fault and went on.
func (t *Thread) live() {
	if t.faulted {
		panic(abortSignal{})
	}
}

// counters are the traffic of a launch, in elements and operations.
type counters struct {
	globalLoads, globalStores int64
	sharedLoads, sharedStores int64
	flops                     int64
	storingThreads            int64 // threads that stored to global memory
	maxThreadStores           int64 // the most global stores of one thread
}

func (c *counters) add(o counters) {
	c.globalLoads += o.globalLoads
	c.globalStores += o.globalStores
	c.sharedLoads += o.sharedLoads
	c.sharedStores += o.sharedStores
	c.flops += o.flops
	c.storingThreads += o.storingThreads
	c.maxThreadStores = max(c.maxThreadStores, o.maxThreadStores)
}

// Simulator runs kernels on the simulated device and keeps the Stats of its
// last launch. The zero value is ready to use, with CUDA's default limits.
// A Simulator may be used from several goroutines; Last then returns
// whichever launch finished last.
type Simulator struct {
	// Limits bound every launch; a zero field takes the default of
	// DefaultLimits (1024 threads, 48 KiB of shared memory per block).
	Limits Limits
	// Workers is the number of goroutines that run blocks; 0 means
	// GOMAXPROCS. Results do not depend on it.
	Workers int
	// Progress, when set, is called from another goroutine about once
	// every ProgressEvery while a launch that has run longer than
	// ProgressAfter goes on, with the blocks done so far, and once more at
	// the end of such a launch. Nil keeps launches silent.
	Progress func(Progress)
	// Trace, when set, receives every global and shared access of every
	// launch (trace.go); nil, the default, costs one test per access.
	Trace Tracer
	// SharedReads, when set, makes every shared-memory load return
	// SharedReads(v) for the stored value v: an audit run, in which the
	// outputs that depend on what threads read back from shared memory
	// change in a way the caller can predict, and the others do not. An
	// idempotent function (a rounding) keeps a value copied from one
	// shared array to another as it was after the first read. Nil, the
	// default, returns what was stored.
	SharedReads func(float32) float32

	mu   sync.Mutex
	last Stats
}

// Last returns the Stats of the last launch, including one that failed:
// its hazards and its traffic (all zero for a launch that was refused).
func (s *Simulator) Last() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.last
	st.Hazards = append([]Hazard(nil), st.Hazards...)
	return st
}

func (s *Simulator) limits() Limits {
	l := DefaultLimits()
	if s.Limits.MaxThreads > 0 {
		l.MaxThreads = s.Limits.MaxThreads
	}
	if s.Limits.MaxSharedBytes > 0 {
		l.MaxSharedBytes = s.Limits.MaxSharedBytes
	}
	return l
}

// Validate checks a launch configuration against the limits without running
// it: every dimension positive and within CUDA's bounds, at most
// MaxThreads threads per block, at most MaxThreadsPerLaunch threads in all (the
// simulator's own bound), a Body to run. The error names the limit,
// e.g. "block 34×34 = 1156 threads exceeds 1024 threads per block".
func (s *Simulator) Validate(k Kernel) error {
	lim := s.limits()
	wrap := func(format string, args ...any) error {
		return fmt.Errorf("sim: launch %s: %s: %w", k.label(), fmt.Sprintf(format, args...), ErrLimit)
	}
	if k.Body == nil {
		return wrap("no Body to run")
	}
	for _, d := range []struct {
		what string
		v    Dim3
	}{{"grid", k.Grid}, {"block", k.Block}} {
		if d.v.X < 1 || d.v.Y < 1 || d.v.Z < 1 {
			return wrap("%s dimensions %v must all be positive", d.what, d.v)
		}
	}
	if k.Block.X > maxBlockX || k.Block.Y > maxBlockY || k.Block.Z > maxBlockZ {
		return wrap("block %s exceeds the largest block dimensions %d×%d×%d", k.Block.Shape(), maxBlockX, maxBlockY, maxBlockZ)
	}
	if k.Grid.X > maxGridX || k.Grid.Y > maxGridY || k.Grid.Z > maxGridZ {
		return wrap("grid %s exceeds the largest grid dimensions %d×%d×%d", k.Grid.Shape(), maxGridX, maxGridY, maxGridZ)
	}
	if n := k.Block.Size(); n > lim.MaxThreads {
		return wrap("block %s = %d threads exceeds %d threads per block", k.Block.Shape(), n, lim.MaxThreads)
	}
	if total := float64(k.Grid.X) * float64(k.Grid.Y) * float64(k.Grid.Z) * float64(k.Block.Size()); total > MaxThreadsPerLaunch {
		return wrap("grid %s of blocks %s = %.0f threads exceeds the simulator's %d threads per launch",
			k.Grid.Shape(), k.Block.Shape(), total, int64(MaxThreadsPerLaunch))
	}
	return nil
}

// Launch runs k: every block of k.Grid, every thread of k.Block, to the
// end. It returns the launch's Stats and an error when the launch was
// rejected (wrapping ErrLimit: nothing ran), when a thread failed
// (ErrFault), when a barrier was reached by only part of a block
// (ErrBarrier), or when a hazard was seen (ErrHazard). A failure in one
// block stops that block only; the others run, so the Stats and the output
// are the same on every run. The error describes the first problem in
// block order and says how many more there were.
func (s *Simulator) Launch(k Kernel) (Stats, error) {
	st, err := s.launch(k)
	s.mu.Lock()
	s.last = st
	s.mu.Unlock()
	return st, err
}

func (s *Simulator) launch(k Kernel) (Stats, error) {
	st := Stats{Kernel: k.Name, Grid: k.Grid, Block: k.Block}
	if err := s.Validate(k); err != nil {
		return st, err
	}
	l := &launch{k: k, lim: s.limits(), blocks: k.Grid.Size(), trace: s.Trace, sharedReads: s.SharedReads}
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, l.blocks))
	ws := make([]*worker, workers)
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = newWorker(l)
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			defer w.close()
			for {
				b := int(l.next.Add(1) - 1)
				if b >= l.blocks {
					return
				}
				w.runBlock(b)
				l.done.Add(1)
			}
		}(ws[i])
	}
	stop := s.watch(l)
	wg.Wait()
	stop()
	return l.collect(ws, st)
}

// launch is the state of one launch shared by its workers.
type launch struct {
	k      Kernel
	lim    Limits
	blocks int
	next   atomic.Int64
	done   atomic.Int64 // blocks finished, for Progress
	trace  Tracer       // Simulator.Trace, or nil

	sharedReads func(float32) float32 // Simulator.SharedReads, or nil
}

// maxReports bounds the hazards and faults a worker keeps in detail; it
// counts the rest.
const maxReports = 16

// blockFault is the first failure in one block.
type blockFault struct {
	block int
	kernelFault
}

// worker runs blocks one at a time. Each of its thread coroutines serves
// every block it runs, so a launch creates Block.Size() coroutines per
// worker, not per block.
type worker struct {
	l       *launch
	threads []*Thread
	next    []func() (threadEvent, bool)
	stop    []func()
	state   []threadEvent

	blockID    int   // linear index of the block being run
	epoch      int64 // current barrier interval; grows across blocks
	blockStart int64 // epoch at which the current block began
	barriers   int   // barriers completed in the current block

	arrays      []*sharedArray // shared arrays declared on this worker
	sharedBytes int            // shared memory declared by the current block
	maxShared   int            // largest sharedBytes of any block

	pending []uninitRead // reads of unwritten elements, resolved at each barrier

	c           counters
	hazards     []hazardRecord
	hazardCount HazardCounts
	faults      []blockFault
	faultCount  int64
	blocksRun   int64
	intervals   int64

	warps warpCounter // the warps' requests (warp.go)
}

func newWorker(l *launch) *worker {
	n := l.k.Block.Size()
	w := &worker{
		l:       l,
		threads: make([]*Thread, n),
		next:    make([]func() (threadEvent, bool), n),
		stop:    make([]func(), n),
		state:   make([]threadEvent, n),
	}
	for r := range n {
		w.threads[r] = &Thread{
			ThreadIdx: l.k.Block.at(r),
			BlockDim:  l.k.Block,
			GridDim:   l.k.Grid,
			id:        int32(r),
			w:         w,
		}
		w.spawn(r)
	}
	w.warps.init(n)
	return w
}

// spawn (re)creates the coroutine of thread r. The coroutine runs Body once
// per block, reporting each barrier and the end of Body to the worker.
func (w *worker) spawn(r int) {
	t := w.threads[r]
	t.stopped = false
	w.next[r], w.stop[r] = iter.Pull(func(yield func(threadEvent) bool) {
		t.yield = yield
		for {
			ev := w.runThread(t)
			if t.stopped || !yield(ev) {
				return
			}
		}
	})
}

func (w *worker) close() {
	for _, stop := range w.stop {
		stop()
	}
}

// runThread runs Body for t in the current block and turns a panic into a
// recorded fault.
func (w *worker) runThread(t *Thread) (ev threadEvent) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		switch r := r.(type) {
		case abortSignal:
			ev = evAborted
			if t.faulted {
				ev = evFault
			}
		case kernelFault:
			if !r.recorded {
				w.fault(r)
			}
			ev = evFault
		default:
			w.fault(kernelFault{msg: fmt.Sprintf("thread %v of block %v panicked: %v", t.ThreadIdx, t.BlockIdx, r), kind: ErrFault})
			ev = evFault
		}
	}()
	w.l.k.Body(t)
	if t.faulted {
		return evFault // the kernel recovered its fault and returned
	}
	return evExit
}

// resume runs thread r until its next event.
func (w *worker) resume(r int) threadEvent {
	ev, ok := w.next[r]()
	if !ok {
		// The coroutine ended: the kernel swallowed the unwinding of a
		// closed thread. Start a fresh one for the next block.
		w.spawn(r)
		return evAborted
	}
	return ev
}

// runBlock runs every thread of block b to its end, one barrier interval
// at a time.
func (w *worker) runBlock(b int) {
	w.blockID = b
	idx := w.l.k.Grid.at(b)
	w.epoch++
	w.blockStart = w.epoch
	w.barriers = 0
	w.sharedBytes = 0
	for r, t := range w.threads {
		t.BlockIdx = idx
		t.abort, t.faulted, t.stores = false, false, 0
		w.state[r] = evReady
	}
	exited := 0
	for {
		waiting, faulted := 0, 0
		for r := range w.threads {
			if w.state[r] != evReady {
				continue
			}
			ev := w.resume(r)
			w.state[r] = ev
			switch ev {
			case evBarrier:
				waiting++
			case evExit:
				exited++
			default:
				faulted++
			}
		}
		w.resolvePending()
		w.intervals++
		if faulted > 0 {
			w.abortWaiting()
			break
		}
		if waiting == 0 {
			break // every thread returned
		}
		if exited > 0 {
			w.partialBarrier(waiting, exited)
			w.abortWaiting()
			break
		}
		w.checkBarrierSites()
		w.epoch++
		w.barriers++
		for r := range w.state {
			w.state[r] = evReady
		}
	}
	for _, t := range w.threads {
		if t.stores > 0 {
			w.c.storingThreads++
			w.c.maxThreadStores = max(w.c.maxThreadStores, t.stores)
		}
	}
	w.warps.endBlock()
	w.maxShared = max(w.maxShared, w.sharedBytes)
	w.blocksRun++
}

// abortWaiting unwinds the threads waiting at a barrier of a failed block.
func (w *worker) abortWaiting() {
	for r, t := range w.threads {
		if w.state[r] == evBarrier {
			t.abort = true
			w.state[r] = w.resume(r)
		}
	}
}

// partialBarrier records a barrier that the threads which returned never
// reached.
func (w *worker) partialBarrier(waiting, exited int) {
	var names []string
	for r, t := range w.threads {
		if w.state[r] == evExit {
			if len(names) == 4 {
				names = append(names, fmt.Sprintf("and %d more", exited-4))
				break
			}
			names = append(names, t.ThreadIdx.String())
		}
	}
	verb := "threads"
	if exited == 1 {
		verb = "thread"
	}
	total := len(w.threads)
	w.fault(kernelFault{msg: fmt.Sprintf("barrier %d of block %v reached by %d of %d threads: %s %s returned without reaching it",
		w.barriers+1, w.l.k.Grid.at(w.blockID), waiting, total, verb, strings.Join(names, ", ")), kind: ErrBarrier})
}

// fault records the failure of the current block; only the first of each
// block is kept.
func (w *worker) fault(f kernelFault) {
	w.faultCount++
	if n := len(w.faults); n > 0 && w.faults[n-1].block == w.blockID {
		return
	}
	if len(w.faults) < maxReports {
		w.faults = append(w.faults, blockFault{block: w.blockID, kernelFault: f})
	}
}

// collect merges the workers' counts into st and builds the error.
func (l *launch) collect(ws []*worker, st Stats) (Stats, error) {
	var c counters
	var hazards []hazardRecord
	var faults []blockFault
	for _, w := range ws {
		c.add(w.c)
		st.BlocksRun += w.blocksRun
		st.Intervals += w.intervals
		st.HazardCounts.add(w.hazardCount)
		st.SharedBytesPerBlock = max(st.SharedBytesPerBlock, w.maxShared)
		hazards = append(hazards, w.hazards...)
		faults = append(faults, w.faults...)
		st.FaultCount += w.faultCount
	}
	st.Threads = st.BlocksRun * int64(l.k.Block.Size())
	st.GlobalLoads, st.GlobalStores = c.globalLoads, c.globalStores
	st.SharedLoads, st.SharedStores = c.sharedLoads, c.sharedStores
	st.GlobalLoadBytes, st.GlobalStoreBytes = ElemBytes*c.globalLoads, ElemBytes*c.globalStores
	st.SharedLoadBytes, st.SharedStoreBytes = ElemBytes*c.sharedLoads, ElemBytes*c.sharedStores
	st.Flops = c.flops
	st.StoringThreads, st.MaxStoresPerThread = c.storingThreads, c.maxThreadStores
	st.Memory = collectMemory(ws)
	// Each worker keeps its first reports in block order; the first ones
	// over all workers are therefore among them, whatever the scheduling.
	sort.SliceStable(hazards, func(a, b int) bool { return hazards[a].block < hazards[b].block })
	sort.SliceStable(faults, func(a, b int) bool { return faults[a].block < faults[b].block })
	for i, h := range hazards {
		if i == maxReports {
			break
		}
		st.Hazards = append(st.Hazards, h.hazard(l.k))
	}
	name := l.k.label()
	var errs []error
	if len(faults) > 0 {
		msg := faults[0].msg
		if more := st.FaultCount - 1; more > 0 {
			msg += fmt.Sprintf(" (and %d more failures)", more)
		}
		errs = append(errs, fmt.Errorf("sim: launch %s: %s: %w", name, msg, faults[0].kind))
	}
	if len(st.Hazards) > 0 {
		msg := st.Hazards[0].String()
		if more := st.HazardCounts.Total() - 1; more > 0 {
			msg += fmt.Sprintf(" (and %d more hazards)", more)
		}
		errs = append(errs, fmt.Errorf("sim: launch %s: %s: %w", name, msg, ErrHazard))
	}
	return st, errors.Join(errs...)
}
