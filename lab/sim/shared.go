package sim

import (
	"fmt"
	"math"
	"strings"
)

// Shared memory of the simulated device. A kernel declares a shared array
// by name from each thread, as CUDA code declares a __shared__ array: the
// first thread of a block to declare it allocates it, the others get the
// same array. Each element carries shadow state (who wrote it last, who
// read it, in which barrier interval) that the accessors check:
//
//   - a read and a write of one element by two threads in the same barrier
//     interval are a race, whichever comes first. If the element held no
//     value before the write, the reader needed the write and a barrier
//     is missing before the read (read after write); if it held a value
//     of an earlier interval, the write replaced a value the reader may
//     have wanted and a barrier is missing after the read (write after
//     read);
//   - a write of a different value over another thread's write of the same
//     interval is a race (write after write);
//   - a read of an element that no thread of the block wrote is a read of
//     uninitialised memory; it returns NaN.
//
// Because the threads of a block run in a fixed order, a race is found
// whichever thread comes first: the later access sees the earlier one in
// the shadow state, and the report names the reader and the writer the
// same way whatever their order.

// sharedArray is one __shared__ float array of a block, with shadow state.
type sharedArray struct {
	name       string
	rank       int
	dims       [3]int // z, y, x extents; unused leading ones are 1
	data       []float32
	meta       []shadow
	declaredIn int64 // blockStart of the last block that declared it
}

// shadow is the access history of one shared element. Epochs are barrier
// intervals of the worker; an epoch before the block's start means "not in
// this block".
type shadow struct {
	wEpoch, rEpoch int64
	writer, reader int32
	reader2        int32 // a second reader of epoch rEpoch other than reader, or −1
	hadValue       bool  // the element held a value of an earlier interval of the block when epoch wEpoch began
}

// uninitRead is a read of an element not yet written in the block. It is
// reported at the end of the interval, unless another thread wrote the
// element later in the same interval: that is a race, reported by the
// write.
type uninitRead struct {
	a      *sharedArray
	idx    int
	reader int32
	epoch  int64
}

// Shared1 is a thread's view of a 1D __shared__ float array of its block.
type Shared1 struct {
	a *sharedArray
	t *Thread
}

// Shared2 is a thread's view of a 2D __shared__ float array of its block,
// indexed [y][x] as in CUDA.
type Shared2 struct {
	a *sharedArray
	t *Thread
}

// Shared3 is a thread's view of a 3D __shared__ float array of its block,
// indexed [z][y][x] as in CUDA.
type Shared3 struct {
	a *sharedArray
	t *Thread
}

// Shared1 declares __shared__ float name[n] in the thread's block and
// returns the thread's view of it. Every thread that declares the same name
// gets the same array. Shared memory counts towards the per-block limit.
func (t *Thread) Shared1(name string, n int) Shared1 {
	return Shared1{t.w.declare(t, name, 1, [3]int{1, 1, n}), t}
}

// Shared2 declares __shared__ float name[ny][nx] in the thread's block.
func (t *Thread) Shared2(name string, ny, nx int) Shared2 {
	return Shared2{t.w.declare(t, name, 2, [3]int{1, ny, nx}), t}
}

// Shared3 declares __shared__ float name[nz][ny][nx] in the thread's block.
func (t *Thread) Shared3(name string, nz, ny, nx int) Shared3 {
	return Shared3{t.w.declare(t, name, 3, [3]int{nz, ny, nx}), t}
}

// Load returns name[x], checking for races and uninitialised reads.
func (s Shared1) Load(x int) float32 {
	if uint(x) >= uint(s.a.dims[2]) {
		s.t.outOfBounds(s.a, "reads", x)
	}
	return s.a.load(s.t, x)
}

// Store writes name[x] = v, checking for races.
func (s Shared1) Store(x int, v float32) {
	if uint(x) >= uint(s.a.dims[2]) {
		s.t.outOfBounds(s.a, "writes", x)
	}
	s.a.store(s.t, x, v)
}

// Load returns name[y][x], checking for races and uninitialised reads.
func (s Shared2) Load(y, x int) float32 {
	d := &s.a.dims
	if uint(y) >= uint(d[1]) || uint(x) >= uint(d[2]) {
		s.t.outOfBounds(s.a, "reads", y, x)
	}
	return s.a.load(s.t, y*d[2]+x)
}

// Store writes name[y][x] = v, checking for races.
func (s Shared2) Store(y, x int, v float32) {
	d := &s.a.dims
	if uint(y) >= uint(d[1]) || uint(x) >= uint(d[2]) {
		s.t.outOfBounds(s.a, "writes", y, x)
	}
	s.a.store(s.t, y*d[2]+x, v)
}

// Load returns name[z][y][x], checking for races and uninitialised reads.
func (s Shared3) Load(z, y, x int) float32 {
	d := &s.a.dims
	if uint(z) >= uint(d[0]) || uint(y) >= uint(d[1]) || uint(x) >= uint(d[2]) {
		s.t.outOfBounds(s.a, "reads", z, y, x)
	}
	return s.a.load(s.t, (z*d[1]+y)*d[2]+x)
}

// Store writes name[z][y][x] = v, checking for races.
func (s Shared3) Store(z, y, x int, v float32) {
	d := &s.a.dims
	if uint(z) >= uint(d[0]) || uint(y) >= uint(d[1]) || uint(x) >= uint(d[2]) {
		s.t.outOfBounds(s.a, "writes", z, y, x)
	}
	s.a.store(s.t, (z*d[1]+y)*d[2]+x, v)
}

func (t *Thread) outOfBounds(a *sharedArray, verb string, idx ...int) {
	t.fail(ErrFault, "%s %s outside %s", verb, indexString(a.name, idx), a.declaration())
}

func indexString(name string, idx []int) string {
	var b strings.Builder
	b.WriteString(name)
	for _, i := range idx {
		fmt.Fprintf(&b, "[%d]", i)
	}
	return b.String()
}

// declaration writes the array as declared, e.g. "in_s[8][8][8]".
func (a *sharedArray) declaration() string {
	return indexString(a.name, a.dims[3-a.rank:])
}

// index returns the subscripts of flat element i in declared order.
func (a *sharedArray) index(i int) []int {
	full := []int{i / (a.dims[1] * a.dims[2]), i / a.dims[2] % a.dims[1], i % a.dims[2]}
	return full[3-a.rank:]
}

func (a *sharedArray) bytes() int { return ElemBytes * len(a.data) }

// declare returns the block's shared array called name, allocating it on
// this worker the first time and counting it against the block's limit the
// first time in each block.
func (w *worker) declare(t *Thread, name string, rank int, dims [3]int) *sharedArray {
	for _, a := range w.arrays {
		if a.name != name {
			continue
		}
		if a.rank != rank || a.dims != dims {
			t.fail(ErrFault, "declares __shared__ float %s, but the block declared it as %s", indexString(name, dims[3-rank:]), a.declaration())
		}
		if a.declaredIn != w.blockStart {
			w.addShared(t, a, float64(a.bytes()))
		}
		return a
	}
	a := &sharedArray{name: name, rank: rank, dims: dims}
	size := float64(ElemBytes)
	for _, d := range dims {
		if d < 1 {
			t.fail(ErrLimit, "declares __shared__ float %s with a dimension below 1", a.declaration())
		}
		size *= float64(d)
	}
	// Counted before allocating: the size may be absurd.
	w.addShared(t, a, size)
	elems := int(size) / ElemBytes
	a.data, a.meta = make([]float32, elems), make([]shadow, elems)
	w.arrays = append(w.arrays, a)
	return a
}

// addShared counts the size bytes of a against the block's limit on shared
// memory, once per block.
func (w *worker) addShared(t *Thread, a *sharedArray, size float64) {
	total := float64(w.sharedBytes) + size
	if limit := w.l.lim.MaxSharedBytes; total > float64(limit) {
		t.fail(ErrLimit, "declares __shared__ float %s (%.0f B): the block's shared memory, %.0f B, exceeds the limit of %d bytes per block",
			a.declaration(), size, total, limit)
	}
	w.sharedBytes = int(total)
	a.declaredIn = w.blockStart
}

var nan32 = float32(math.NaN())

// load reads element idx for thread t.
func (a *sharedArray) load(t *Thread, idx int) float32 {
	t.live()
	w := t.w
	m := &a.meta[idx]
	w.c.sharedLoads++
	w.warps.access(t, SharedLoad, nil, a, idx)
	t.trace(SharedLoad, "", idx, a)
	v := a.data[idx]
	switch {
	case m.wEpoch < w.blockStart:
		w.pending = append(w.pending, uninitRead{a: a, idx: idx, reader: t.id, epoch: w.epoch})
		v = nan32
	case m.wEpoch == w.epoch && m.writer != t.id:
		w.race(t.id, m.writer, m.hadValue, a, idx)
	}
	if m.rEpoch != w.epoch {
		m.rEpoch, m.reader, m.reader2 = w.epoch, t.id, -1
	} else if m.reader != t.id && m.reader2 < 0 {
		m.reader2 = t.id
	}
	if f := w.l.sharedReads; f != nil && m.wEpoch >= w.blockStart {
		v = f(v)
	}
	return v
}

// store writes element idx for thread t.
func (a *sharedArray) store(t *Thread, idx int, v float32) {
	t.live()
	w := t.w
	m := &a.meta[idx]
	w.c.sharedStores++
	w.warps.access(t, SharedStore, nil, a, idx)
	t.trace(SharedStore, "", idx, a)
	if m.wEpoch != w.epoch {
		// First write of the interval: did the element hold a value of
		// an earlier interval of this block?
		m.hadValue = m.wEpoch >= w.blockStart
	} else if m.writer != t.id && a.data[idx] != v {
		w.hazard(WriteAfterWrite, t.id, m.writer, a, idx)
	}
	if m.rEpoch == w.epoch {
		other := m.reader
		if other == t.id {
			other = m.reader2
		}
		if other >= 0 {
			w.race(other, t.id, m.hadValue, a, idx)
		}
	}
	m.wEpoch, m.writer = w.epoch, t.id
	a.data[idx] = v
}

// race records a read by reader and a write by writer of one element in
// the same barrier interval. When the element held a value of an earlier
// interval, the write replaced a value the reader may have wanted: a
// write after read. Otherwise the reader needed the write: a read after
// write. Either way the report is the same whichever thread ran first.
func (w *worker) race(reader, writer int32, hadValue bool, a *sharedArray, idx int) {
	if hadValue {
		w.hazard(WriteAfterRead, writer, reader, a, idx)
	} else {
		w.hazard(ReadAfterWrite, reader, writer, a, idx)
	}
}

// resolvePending reports the reads of unwritten elements of the interval
// that just ended, except those that another thread's later write in the
// same interval turned into a race (already reported by that write).
func (w *worker) resolvePending() {
	if len(w.pending) == 0 {
		return
	}
	for _, p := range w.pending {
		m := &p.a.meta[p.idx]
		if m.wEpoch == p.epoch && m.writer != p.reader {
			continue
		}
		w.hazard(Uninitialised, p.reader, -1, p.a, p.idx)
	}
	w.pending = w.pending[:0]
}

// HazardKind says what went wrong between threads of a block.
type HazardKind int

// The hazards the simulator detects in shared memory.
const (
	// ReadAfterWrite: a thread read an element that another thread wrote
	// in the same barrier interval, and that held no value before; a
	// __syncthreads is missing between the write and the read.
	ReadAfterWrite HazardKind = iota + 1
	// WriteAfterRead: a thread overwrote an element's value of an earlier
	// interval that another thread read in the same interval; the reader
	// may see the new value or the old, and a __syncthreads is missing
	// between the read and the write.
	WriteAfterRead
	// WriteAfterWrite: two threads wrote different values to one element
	// in the same interval.
	WriteAfterWrite
	// Uninitialised: a thread read an element that no thread of the block
	// wrote.
	Uninitialised
)

// String returns a short name: "read after write", "uninitialised read"...
func (k HazardKind) String() string {
	switch k {
	case ReadAfterWrite:
		return "read after write"
	case WriteAfterRead:
		return "write after read"
	case WriteAfterWrite:
		return "write after write"
	case Uninitialised:
		return "uninitialised read"
	case DivergentBarrier:
		return "divergent barriers"
	}
	return fmt.Sprintf("HazardKind(%d)", int(k))
}

// Hazard is one hazard found in a block's shared memory.
type Hazard struct {
	Kind     HazardKind `json:"kind"`
	Block    Dim3       `json:"block"`    // blockIdx of the block
	Thread   Dim3       `json:"thread"`   // threadIdx of the thread whose access was flagged
	Other    Dim3       `json:"other"`    // threadIdx of the other thread; zero for Uninitialised
	Array    string     `json:"array"`    // the shared array, e.g. "in_s"
	Index    []int      `json:"index"`    // its subscripts, in declared order ([z][y][x])
	Interval int        `json:"interval"` // barrier interval in the block: 0 before the first Sync
	// For DivergentBarrier: the site where thread (0,0,0) waited, how
	// many threads waited there, and the other sites.
	Site       string `json:"site,omitempty"`
	Reached    int    `json:"reached,omitempty"`
	OtherSites string `json:"other_sites,omitempty"`
}

// String describes the hazard in one line, e.g.
//
//	race: thread (3,1,0) of block (0,2,1) reads in_s[0][1][4] written by thread (4,1,0) with no barrier between
func (h Hazard) String() string {
	elem := indexString(h.Array, h.Index)
	who := fmt.Sprintf("thread %v of block %v", h.Thread, h.Block)
	switch h.Kind {
	case ReadAfterWrite:
		return fmt.Sprintf("race: %s reads %s written by thread %v with no barrier between", who, elem, h.Other)
	case WriteAfterRead:
		return fmt.Sprintf("race: %s writes %s read by thread %v with no barrier between", who, elem, h.Other)
	case WriteAfterWrite:
		return fmt.Sprintf("race: %s writes %s, also written by thread %v with no barrier between", who, elem, h.Other)
	case Uninitialised:
		return fmt.Sprintf("uninitialised read: %s reads %s, which no thread of the block wrote", who, elem)
	case DivergentBarrier:
		return h.barrierString()
	}
	return fmt.Sprintf("%v: %s, %s", h.Kind, who, elem)
}

// hazardRecord is a hazard as a worker records it, turned into a Hazard
// when the launch ends.
type hazardRecord struct {
	kind          HazardKind
	block         int
	thread, other int32
	a             *sharedArray
	idx           int
	interval      int
	barrier       *barrierRecord // for DivergentBarrier (barrier.go)
}

func (w *worker) hazard(kind HazardKind, thread, other int32, a *sharedArray, idx int) {
	w.hazardCount.count(kind)
	if len(w.hazards) < maxReports {
		w.hazards = append(w.hazards, hazardRecord{kind: kind, block: w.blockID, thread: thread, other: other,
			a: a, idx: idx, interval: w.barriers})
	}
}

func (r hazardRecord) hazard(k Kernel) Hazard {
	h := Hazard{
		Kind:     r.kind,
		Block:    k.Grid.at(r.block),
		Thread:   k.Block.at(int(r.thread)),
		Interval: r.interval,
	}
	if r.a != nil {
		h.Array, h.Index = r.a.name, r.a.index(r.idx)
	}
	if r.barrier != nil {
		r.barrier.describe(&h)
	}
	if r.other >= 0 {
		h.Other = k.Block.at(int(r.other))
	}
	return h
}
