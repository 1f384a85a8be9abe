package halo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Counters are what one rank of a ChanComm world has sent and received.
type Counters struct {
	SentMessages, SentBytes int64
	RecvMessages, RecvBytes int64
}

// A World is a set of goroutine ranks that talk over ChanComm
// communicators. It matches each send with its receive, counts the traffic
// of each rank and detects deadlock: when every live rank (one whose
// ChanComm is not closed) is blocked in a Send or Recv outside a group, or
// at the end of a Group, and none of them can proceed, every blocked call
// returns an error wrapping ErrDeadlock that names what each rank waits
// for.
type World struct {
	mu       sync.Mutex
	cond     *sync.Cond
	comms    []*ChanComm
	sends    map[pair][]*op // unmatched sends from pair.src to pair.dst
	recvs    map[pair][]*op // unmatched receives at pair.dst from pair.src
	waiting  [][]*op        // the ops each rank is blocked on; nil while it runs
	finished []bool
	live     int
	counters []Counters
	tracing  bool
	trace    []Message
}

// Message is one send met by its receive in a World, as its trace
// records it: who sent how many elements from where to where.
type Message struct {
	From, To int // the sending and the receiving rank
	SrcOff   int // the first element sent, in the sender's buffer
	DstOff   int // where it landed, in the receiver's buffer
	N        int // elements
}

// Trace starts (on) or stops recording the messages the world delivers,
// in the order they are matched: the exchange plane by plane, for a
// picture or a grader.
func (w *World) Trace(on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tracing = on
}

// Messages returns the messages recorded while tracing.
func (w *World) Messages() []Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.trace)
}

type pair struct{ src, dst int }

// maxTrace bounds a world's trace, so that a long run traced by mistake
// does not grow memory without end.
const maxTrace = 1 << 20

// op is one posted send or receive.
type op struct {
	send    bool
	rank    int // the rank that posted it
	peer    int
	buf     []float32
	off, n  int
	inGroup bool
	done    bool
	err     error
}

func (o *op) String() string {
	verb := "receives from"
	if o.send {
		verb = "sends to"
	}
	return fmt.Sprintf("rank %d %s %d", o.rank, verb, o.peer)
}

// ChanComm is one goroutine rank's communicator: a Comm on []float32
// buffers, and a Packer of them. Its methods are meant for that rank's
// goroutine only; Close it when the rank is done (RunRanks does).
type ChanComm struct {
	w      *World
	rank   int
	depth  int   // nesting of Group
	posted []*op // the ops of the open group
}

var (
	_ Comm[[]float32]   = (*ChanComm)(nil)
	_ Packer[[]float32] = (*ChanComm)(nil)
)

// NewChanComms returns the communicators of a new world of ranks
// goroutine ranks, indexed by rank; nil for a count outside 1 … MaxRanks
// (lab.MaxRanks).
func NewChanComms(ranks int) []*ChanComm {
	w, err := NewWorld(ranks)
	if err != nil {
		return nil
	}
	return w.Comms()
}

// NewWorld returns a world of ranks goroutine ranks; a count outside 1 …
// lab.MaxRanks is an error naming the limit.
func NewWorld(ranks int) (*World, error) {
	if ranks < 1 || ranks > maxRanks {
		return nil, fmt.Errorf("halo: world of %d ranks: the count must be from 1 to %d: %w", ranks, maxRanks, ErrComm)
	}
	w := &World{sends: map[pair][]*op{}, recvs: map[pair][]*op{},
		waiting: make([][]*op, ranks), finished: make([]bool, ranks), live: ranks, counters: make([]Counters, ranks)}
	w.cond = sync.NewCond(&w.mu)
	for r := range ranks {
		w.comms = append(w.comms, &ChanComm{w: w, rank: r})
	}
	return w, nil
}

// Comms returns the world's communicators, indexed by rank.
func (w *World) Comms() []*ChanComm { return slices.Clone(w.comms) }

// Counters returns what each rank has sent and received so far.
func (w *World) Counters() []Counters {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.counters)
}

// Rank returns this rank's index.
func (c *ChanComm) Rank() int { return c.rank }

// Size returns the number of ranks of the world.
func (c *ChanComm) Size() int { return len(c.w.comms) }

// Counters returns what this rank has sent and received so far.
func (c *ChanComm) Counters() Counters {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	return c.w.counters[c.rank]
}

// Send sends src[off:off+n] to rank peer. Outside a group it returns once
// the peer's matching Recv has taken the data.
func (c *ChanComm) Send(src []float32, off, n, peer int) error {
	return c.post(&op{send: true, rank: c.rank, peer: peer, buf: src, off: off, n: n})
}

// Recv receives n elements from rank peer into dst[off:off+n]. Outside a
// group it returns once they have arrived.
func (c *ChanComm) Recv(dst []float32, off, n, peer int) error {
	return c.post(&op{rank: c.rank, peer: peer, buf: dst, off: off, n: n})
}

func (c *ChanComm) post(o *op) error {
	verb := "receive from"
	if o.send {
		verb = "send to"
	}
	switch {
	case o.peer < 0 || o.peer >= c.Size():
		return fmt.Errorf("halo: rank %d: %s rank %d: the world has ranks 0 to %d: %w", c.rank, verb, o.peer, c.Size()-1, ErrComm)
	case o.peer == c.rank:
		return fmt.Errorf("halo: rank %d: %s itself: a rank exchanges with its neighbours only: %w", c.rank, verb, ErrComm)
	case o.off < 0 || o.n < 0 || o.off > len(o.buf) || o.n > len(o.buf)-o.off:
		return fmt.Errorf("halo: rank %d: %s rank %d: elements [%d, %d) lie outside the buffer of %d: %w",
			c.rank, verb, o.peer, o.off, o.off+o.n, len(o.buf), ErrComm)
	}
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished[c.rank] {
		return fmt.Errorf("halo: rank %d: %s rank %d after the rank closed: %w", c.rank, verb, o.peer, ErrComm)
	}
	o.inGroup = c.depth > 0
	w.match(o)
	if o.inGroup {
		c.posted = append(c.posted, o)
		return nil
	}
	return w.wait(c.rank, []*op{o})
}

// match pairs o with the oldest unmatched op of the other side, or queues
// it. Called with w.mu held.
func (w *World) match(o *op) {
	var key pair
	var mine, theirs map[pair][]*op
	if o.send {
		key, mine, theirs = pair{o.rank, o.peer}, w.sends, w.recvs
	} else {
		key, mine, theirs = pair{o.peer, o.rank}, w.recvs, w.sends
	}
	q := theirs[key]
	if len(q) == 0 {
		mine[key] = append(mine[key], o)
		return
	}
	other := q[0]
	theirs[key] = q[1:]
	s, r := o, other
	if !o.send {
		s, r = other, o
	}
	if s.n != r.n {
		err := fmt.Errorf("halo: rank %d sends %d elements to rank %d, which receives %d: %w", s.rank, s.n, r.rank, r.n, ErrComm)
		s.err, r.err = err, err
	} else {
		copy(r.buf[r.off:r.off+r.n], s.buf[s.off:s.off+s.n])
		b := 4 * int64(s.n)
		w.counters[s.rank].SentMessages++
		w.counters[s.rank].SentBytes += b
		w.counters[r.rank].RecvMessages++
		w.counters[r.rank].RecvBytes += b
		if w.tracing && len(w.trace) < maxTrace {
			w.trace = append(w.trace, Message{From: s.rank, To: r.rank, SrcOff: s.off, DstOff: r.off, N: s.n})
		}
	}
	s.done, r.done = true, true
	w.cond.Broadcast()
}

// wait blocks rank until every op of ops is done, or a deadlock is
// found, and returns their errors. Called with w.mu held.
func (w *World) wait(rank int, ops []*op) error {
	w.waiting[rank] = ops
	w.checkDeadlock()
	for !allDone(ops) {
		w.cond.Wait()
	}
	w.waiting[rank] = nil
	var errs []error
	for _, o := range ops {
		if o.err != nil && !slices.ContainsFunc(errs, func(e error) bool { return e == o.err }) {
			errs = append(errs, o.err)
		}
	}
	return errors.Join(errs...)
}

func allDone(ops []*op) bool {
	for _, o := range ops {
		if !o.done {
			return false
		}
	}
	return true
}

// checkDeadlock fails every pending op of the blocked ranks when every
// live rank is blocked on an op that is not done: matching is eager, so
// none of them can be met any more. Called with w.mu held.
func (w *World) checkDeadlock() {
	if w.live == 0 {
		return
	}
	var stuck []*op
	for r, ops := range w.waiting {
		if w.finished[r] {
			continue
		}
		if ops == nil || allDone(ops) {
			return // a rank that runs, or is about to
		}
		for _, o := range ops {
			if !o.done {
				stuck = append(stuck, o)
			}
		}
	}
	var parts []string
	for _, o := range stuck {
		state := "waiting"
		switch {
		case w.finished[o.peer]:
			state = fmt.Sprintf("rank %d has finished", o.peer)
		case o.inGroup:
			state = "waiting in a group"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", o, state))
	}
	err := fmt.Errorf("halo: %w: %s", ErrDeadlock, strings.Join(parts, ", "))
	for _, o := range stuck {
		o.err, o.done = err, true
		w.unqueue(o)
	}
	w.cond.Broadcast()
}

// unqueue removes an unmatched op from its queue. Called with w.mu held.
func (w *World) unqueue(o *op) {
	key, q := pair{o.peer, o.rank}, w.recvs
	if o.send {
		key, q = pair{o.rank, o.peer}, w.sends
	}
	q[key] = slices.DeleteFunc(q[key], func(x *op) bool { return x == o })
}

// Group runs f, whose sends and receives are posted at once, then waits
// for all of them: no order among them can deadlock. A group inside a
// group belongs to the outer one. When f fails, its ops not yet matched
// are withdrawn and f's error returned.
func (c *ChanComm) Group(f func() error) error {
	c.depth++
	var ferr error
	func() {
		defer func() {
			if p := recover(); p != nil {
				ferr = fmt.Errorf("halo: rank %d: panic in a group: %v: %w", c.rank, p, ErrComm)
			}
		}()
		ferr = f()
	}()
	c.depth--
	if c.depth > 0 {
		return ferr
	}
	ops := c.posted
	c.posted = nil
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if ferr != nil {
		for _, o := range ops {
			if !o.done {
				o.done = true
				w.unqueue(o)
			}
		}
		w.checkDeadlock()
		return ferr
	}
	return w.wait(c.rank, ops)
}

// Close marks the rank finished: its peers' calls that wait on it fail
// as a deadlock once no live rank can proceed. Closing twice does nothing.
func (c *ChanComm) Close() error {
	w := c.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished[c.rank] {
		return nil
	}
	w.finished[c.rank] = true
	w.live--
	w.checkDeadlock()
	return nil
}

// Alloc returns a staging buffer of n elements.
func (c *ChanComm) Alloc(n int) ([]float32, error) {
	if n < 0 || n > maxStaging {
		return nil, fmt.Errorf("halo: rank %d: staging buffer of %d elements: want 0 to %d: %w", c.rank, n, maxStaging, ErrComm)
	}
	return make([]float32, n), nil
}

// Free releases a staging buffer (the garbage collector does).
func (c *ChanComm) Free([]float32) error { return nil }

// Pack copies count blocks of n elements, the i-th at srcOff + i·stride
// of src, one after the other into dst from dstOff.
func (c *ChanComm) Pack(dst []float32, dstOff int, src []float32, srcOff, n, stride, count int) error {
	if err := checkStrided("pack", len(src), srcOff, n, stride, count, len(dst), dstOff); err != nil {
		return fmt.Errorf("halo: rank %d: %w", c.rank, err)
	}
	for i := range count {
		copy(dst[dstOff+i*n:dstOff+(i+1)*n], src[srcOff+i*stride:srcOff+i*stride+n])
	}
	return nil
}

// Unpack copies count blocks of n elements, one after the other in src
// from srcOff, into dst at dstOff + i·stride.
func (c *ChanComm) Unpack(dst []float32, dstOff, n, stride, count int, src []float32, srcOff int) error {
	if err := checkStrided("unpack", len(dst), dstOff, n, stride, count, len(src), srcOff); err != nil {
		return fmt.Errorf("halo: rank %d: %w", c.rank, err)
	}
	for i := range count {
		copy(dst[dstOff+i*stride:dstOff+i*stride+n], src[srcOff+i*n:srcOff+(i+1)*n])
	}
	return nil
}

// checkStrided checks that count blocks of n elements at off + i·stride
// lie in a strided buffer of length slen and their packed copy at coff in
// one of length clen.
func checkStrided(what string, slen, off, n, stride, count, clen, coff int) error {
	switch {
	case n < 0 || count < 0 || off < 0 || coff < 0:
		return fmt.Errorf("%s %d blocks of %d at %d (packed at %d): counts and offsets must not be negative: %w", what, count, n, off, coff, ErrComm)
	case count == 0 || n == 0:
		return nil
	case stride < n:
		return fmt.Errorf("%s blocks of %d with stride %d: the blocks overlap: %w", what, n, stride, ErrComm)
	case int64(count-1)*int64(stride)+int64(off)+int64(n) > int64(slen):
		return fmt.Errorf("%s %d blocks of %d with stride %d from %d: they end at %d, past the buffer of %d: %w",
			what, count, n, stride, off, int64(count-1)*int64(stride)+int64(off)+int64(n), slen, ErrComm)
	case int64(count)*int64(n)+int64(coff) > int64(clen):
		return fmt.Errorf("%s %d blocks of %d packed at %d: they end at %d, past the staging buffer of %d: %w",
			what, count, n, coff, int64(count)*int64(n)+int64(coff), clen, ErrComm)
	}
	return nil
}

// RunRanks runs f on every communicator, each in a goroutine of its own,
// closes each communicator when its f returns, and returns the ranks'
// errors joined, each naming its rank. A panic in f is an error of its
// rank.
func RunRanks(comms []*ChanComm, f func(c *ChanComm) error) error {
	errs := make([]error, len(comms))
	var wg sync.WaitGroup
	for i, c := range comms {
		wg.Go(func() {
			defer c.Close()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("halo: rank %d panicked: %v", c.rank, p)
				}
			}()
			if err := f(c); err != nil {
				errs[i] = fmt.Errorf("rank %d: %w", c.rank, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
