package checks

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/halo"
)

// Exercise 12: the halo exchange of a z-slab split (chapter 20 applied to
// chapter 8). The student's Exchange runs on one rank: it takes that
// rank's communicator, whose Send and Recv block (a send waits for the
// matching receive) and whose Group is refused, the rank's local buffer
// and its part of the split. Exchange takes a communicator, which cannot
// cross the channel to the grader's child, so the checks call haloFuncs.Run
// with a case instead: the child runs every rank in a goroutine of its own
// over the lab's channel communicator (halo.World, which detects a
// deadlock and names it), each rank's buffer a fresh slice only its
// goroutine holds, and sends back every rank's buffer, error and messages;
// the grader compares them with its own reference, the global grid's
// planes.

// HaloFunc is the signature of Exchange in exercises/12_halo.
type HaloFunc func(c halo.Comm[[]float32], local []float32, p halo.Part, ny, nx int) error

// haloFuncs is exercise 12 as the checks call it.
type haloFuncs struct {
	// Run runs Exchange on every rank of the case and returns what each
	// rank's buffer, error and messages were.
	Run func(a haloCase) (haloRun, error)
}

// haloCase is one split grid: the parts of every rank (halo.Decompose's)
// and each rank's local buffer before the exchange, its halo planes
// poisoned (NaN).
type haloCase struct {
	NY, NX    int
	Parts     []halo.Part
	Local     [][]float32
	TimeoutMs int // how long the ranks may take, all together
}

// haloRun is what the ranks of a case did.
type haloRun struct {
	Local    [][]float32 // each rank's buffer after Exchange (nil for a rank still running)
	Err      []string    // each rank's error, "" for none
	Deadlock []bool      // whether it wraps halo.ErrDeadlock
	NotImpl  []bool      // whether it wraps grading.ErrNotImplemented
	Running  []int       // the ranks that had not returned when the time ran out
	Sent     []haloMsg   // every send that completed, in the order of each rank
	Received []haloMsg   // every receive that completed
}

// haloMsg is one completed send or receive: From sent N values to To; Off
// is the offset in the buffer of the rank that called (the sender's for a
// send, the receiver's for a receive), Data what the message carried.
type haloMsg struct {
	From, To, Off, N int
	Data             []float32
}

// Halo returns exercise 12, the halo exchange of a z-slab split, checking
// ex.
func Halo(ex HaloFunc) grading.Exercise {
	return haloDecl.Exercise(haloFuncs{Run: func(a haloCase) (haloRun, error) { return runHalo(ex, a) }})
}

// haloPkg is the import path of the halo package, as allow-list entries
// name it.
const haloPkg = "stencillab.dev/lab/halo"

// haloDecl declares exercise 12.
var haloDecl = declare(&Decl[haloFuncs]{
	ID:    "12_halo",
	Title: "The halo exchange of a z-slab split over ranks: which planes go where, in an order that cannot deadlock (chapter 20)",
	Files: []string{"halo.go"},
	// The communicator's Rank, Size, Send and Recv (not Group: the
	// exercise is the order), the part's fields (not its methods, which
	// compute offsets) and ErrComm; not Exchange or Decompose.
	Allow: sym(haloPkg, "Comm", "Comm.Rank", "Comm.Size", "Comm.Send", "Comm.Recv",
		"Part", "Part.Rank", "Part.Ranks", "Part.Z0", "Part.Z1", "Part.Y0", "Part.Y1", "Part.Halo",
		"Part.LZ0", "Part.LZ1", "Part.LY0", "Part.LY1", "Part.Down", "Part.Up", "Part.South", "Part.North",
		"Part.NZ", "Part.NY", "Part.NX", "Part.PZ", "Part.PY", "Part.IZ", "Part.IY", "ErrComm"),
	Checks: func(fn haloFuncs) []grading.Check {
		return []grading.Check{
			{ID: "two-ranks", Title: "h = 1 on 2 ranks: one plane up, one plane down", Points: 1,
				Run: func(t *grading.T) { haloTrials(t, fn, 3, []int{2}, []int{1}, 14, 9) }},
			{ID: "h1", Title: "h = 1 on 3 and 5 ranks, sides that are odd and do not divide, random data", Points: 3,
				Run: func(t *grading.T) { haloTrials(t, fn, 4, []int{3, 5}, []int{1}, 24, 11) }},
			{ID: "deep", Title: "deep halos, h = 2 and h = 3 (a temporally blocked pass of k steps exchanges k planes)", Points: 3,
				Run: func(t *grading.T) { haloTrials(t, fn, 4, []int{2, 3, 4, 5}, []int{2, 3}, 30, 9) }},
			{ID: "messages", Title: "one message each way per neighbour, of h·ny·nx values carrying the owned edge planes, on runs whose planes are right", Points: 2,
				Run: func(t *grading.T) { haloMessages(t, fn) }},
			{ID: "bad-input", Title: "a buffer that does not hold the part's planes, or a side below 1, is an error on every rank, not a panic", Points: 1,
				Run: func(t *grading.T) { haloBadInput(t, fn) }},
		}
	},
})

// Limits of a case the child accepts: far above the checks' grids.
const (
	maxHaloRanks  = 64
	maxHaloSide   = 256
	maxHaloPoints = 1 << 22
	// maxHaloTimeoutMs is the longest time limit a case may ask for.
	maxHaloTimeoutMs = 60000
)

// haloTimeout is how long the ranks of a case may take, all together,
// before the check reports those still running (the tests shorten it).
var haloTimeout = 5 * time.Second

// rankComm is the communicator a rank's Exchange gets: the lab's channel
// communicator, which blocks and detects deadlock, behind a wrapper that
// records every completed message, refuses Group and refuses a second call
// while one of the same rank waits (goroutines would sidestep the order
// the exercise is about). Its fields are unexported: a submission reaches
// only the methods of halo.Comm.
type rankComm struct {
	inner    *halo.ChanComm
	busy     atomic.Bool
	sent     []haloMsg
	received []haloMsg
	deadlock string // the first deadlock the communicator reported to the rank, "" for none
}

// failed records an error of the inner communicator: a deadlock counts
// whatever the rank's code does with the error (a deadlock caught and
// retried in another order is still one).
func (c *rankComm) failed(err error) error {
	if errors.Is(err, halo.ErrDeadlock) && c.deadlock == "" {
		c.deadlock = clip(err.Error(), 400)
	}
	return err
}

func (c *rankComm) Rank() int { return c.inner.Rank() }
func (c *rankComm) Size() int { return c.inner.Size() }

// enter marks a call of verb as running, or refuses it while another
// call of the rank waits.
func (c *rankComm) enter(verb string, peer int) error {
	if c.busy.CompareAndSwap(false, true) {
		return nil
	}
	return fmt.Errorf("rank %d: %s rank %d while another Send or Recv of the rank still waits: this communicator takes a rank's calls one at a time, so order them rather than running them in goroutines: %w",
		c.Rank(), verb, peer, halo.ErrComm)
}

// window returns a copy of buf[off:off+n], or nil when it lies outside
// buf (the inner communicator then refuses the call).
func window(buf []float32, off, n int) []float32 {
	if off < 0 || n < 0 || off > len(buf) || n > len(buf)-off {
		return nil
	}
	return slices.Clone(buf[off : off+n])
}

func (c *rankComm) Send(src []float32, off, n, peer int) error {
	if err := c.enter("Send to", peer); err != nil {
		return err
	}
	defer c.busy.Store(false)
	data := window(src, off, n)
	if err := c.inner.Send(src, off, n, peer); err != nil {
		return c.failed(err)
	}
	c.sent = append(c.sent, haloMsg{From: c.Rank(), To: peer, Off: off, N: n, Data: data})
	return nil
}

func (c *rankComm) Recv(dst []float32, off, n, peer int) error {
	if err := c.enter("Recv from", peer); err != nil {
		return err
	}
	defer c.busy.Store(false)
	if err := c.inner.Recv(dst, off, n, peer); err != nil {
		return c.failed(err)
	}
	c.received = append(c.received, haloMsg{From: peer, To: c.Rank(), Off: off, N: n, Data: window(dst, off, n)})
	return nil
}

func (c *rankComm) Group(func() error) error {
	return fmt.Errorf("rank %d: Group is not available in this exercise: Send and Recv block, so choose an order in which no rank waits for a rank that waits for it: %w",
		c.Rank(), halo.ErrComm)
}

// checkHaloCase refuses a case the child cannot run.
func checkHaloCase(a haloCase) error {
	ranks := len(a.Parts)
	switch {
	case ranks < 1 || ranks > maxHaloRanks:
		return fmt.Errorf("a case of %d ranks: want 1 … %d", ranks, maxHaloRanks)
	case len(a.Local) != ranks:
		return fmt.Errorf("a case of %d ranks with %d buffers", ranks, len(a.Local))
	case a.NY < -maxHaloSide || a.NY > maxHaloSide || a.NX < -maxHaloSide || a.NX > maxHaloSide:
		return fmt.Errorf("a case of rows of %d×%d: each side must be within ±%d", a.NY, a.NX, maxHaloSide)
	case a.TimeoutMs < 1 || a.TimeoutMs > maxHaloTimeoutMs:
		return fmt.Errorf("a case with a time limit of %d ms: want 1 … %d", a.TimeoutMs, maxHaloTimeoutMs)
	}
	total := 0
	for _, l := range a.Local {
		total += len(l)
	}
	if total > maxHaloPoints {
		return fmt.Errorf("a case of %d values: at most %d", total, maxHaloPoints)
	}
	return nil
}

// runHalo runs ex on every rank of the case, each rank in a goroutine of
// its own over a fresh world of channel communicators, and returns what
// they did. It runs in the grader's child (and in go test).
func runHalo(ex HaloFunc, a haloCase) (haloRun, error) {
	if err := checkHaloCase(a); err != nil {
		return haloRun{}, err
	}
	ranks := len(a.Parts)
	w, err := halo.NewWorld(ranks)
	if err != nil {
		return haloRun{}, err
	}
	comms := w.Comms()
	var mu sync.Mutex
	res := haloRun{Local: make([][]float32, ranks), Err: make([]string, ranks),
		Deadlock: make([]bool, ranks), NotImpl: make([]bool, ranks)}
	sent := make([][]haloMsg, ranks)
	received := make([][]haloMsg, ranks)
	returned := make([]bool, ranks)
	done := make(chan struct{}, ranks)
	for r := range ranks {
		go func() {
			// The rank's buffer: a fresh slice that only this goroutine
			// and the rank's Exchange hold.
			buf := slices.Clone(a.Local[r])
			c := &rankComm{inner: comms[r]}
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("rank %d panicked: %v", r, p)
					}
				}()
				err = ex(c, buf, a.Parts[r], a.NY, a.NX)
			}()
			_ = comms[r].Close()
			mu.Lock()
			res.Local[r] = slices.Clone(buf)
			if err != nil {
				res.Err[r] = clip(err.Error(), 600)
				res.Deadlock[r] = errors.Is(err, halo.ErrDeadlock)
				res.NotImpl[r] = errors.Is(err, grading.ErrNotImplemented)
			}
			if c.deadlock != "" && !res.Deadlock[r] {
				// The communicator reported a deadlock that the rank's
				// code caught: it counts as one all the same.
				res.Deadlock[r] = true
				res.Err[r] = "a deadlock that Exchange caught and went on from (even one retried in another order scores 0): " + c.deadlock
			}
			sent[r], received[r] = c.sent, c.received
			returned[r] = true
			mu.Unlock()
			done <- struct{}{}
		}()
	}
	timer := time.NewTimer(time.Duration(a.TimeoutMs) * time.Millisecond)
	defer timer.Stop()
wait:
	for range ranks {
		select {
		case <-done:
		case <-timer.C:
			break wait
		}
	}
	mu.Lock()
	defer mu.Unlock()
	out := haloRun{Local: make([][]float32, ranks), Err: slices.Clone(res.Err),
		Deadlock: slices.Clone(res.Deadlock), NotImpl: slices.Clone(res.NotImpl)}
	for r := range ranks {
		if !returned[r] {
			out.Running = append(out.Running, r)
			continue
		}
		out.Local[r] = res.Local[r]
		out.Sent = append(out.Sent, sent[r]...)
		out.Received = append(out.Received, received[r]...)
	}
	return out, nil
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// haloGrid is a case on the grader's side: the global grid, the parts and
// the buffers sent.
type haloGrid struct {
	nz, ny, nx, h int
	parts         []halo.Part
	global        []float32 // nz planes of ny·nx
}

// plane returns global plane z.
func (g *haloGrid) plane(z int) []float32 {
	n := g.ny * g.nx
	return g.global[z*n : (z+1)*n]
}

// newHaloGrid draws a global grid of random values in [−1, 1) and splits
// it with halo.Decompose.
func newHaloGrid(t *grading.T, nz, ny, nx, ranks, h int) *haloGrid {
	parts, err := halo.Decompose(nz, ny, nx, ranks, 1, h)
	if err != nil {
		t.Fatalf("checks: a case of %d×%d×%d on %d ranks, h = %d: %v", nz, ny, nx, ranks, h, err)
	}
	g := &haloGrid{nz: nz, ny: ny, nx: nx, h: h, parts: parts, global: make([]float32, nz*ny*nx)}
	for i := range g.global {
		g.global[i] = float32(2*t.Rand().Float64() - 1)
	}
	return g
}

// starts reports whether rank p's buffer starts with global plane z: a
// plane it owns, or a face of the grid (a boundary condition every rank
// touching it holds).
func (g *haloGrid) starts(p halo.Part, z int) bool {
	return (z >= p.Z0 && z < p.Z1) || z == 0 || z == g.nz-1
}

// locals returns each rank's buffer before the exchange: its owned planes
// and the faces of the grid it holds, its halo planes NaN.
func (g *haloGrid) locals() [][]float32 {
	n := g.ny * g.nx
	out := make([][]float32, len(g.parts))
	for r, p := range g.parts {
		buf := make([]float32, (p.LZ1-p.LZ0)*n)
		for z := p.LZ0; z < p.LZ1; z++ {
			dst := buf[(z-p.LZ0)*n : (z-p.LZ0+1)*n]
			if g.starts(p, z) {
				copy(dst, g.plane(z))
			} else {
				for i := range dst {
					dst[i] = float32(math.NaN())
				}
			}
		}
		out[r] = buf
	}
	return out
}

// run sends the case to fn and fails the check on what stops every rank:
// a stub, a deadlock, a rank still running, a rank's error, a message of
// the wrong count. It returns the run and the words that describe the
// case.
func (g *haloGrid) run(t *grading.T, fn haloFuncs) (haloRun, string) {
	what := fmt.Sprintf("Exchange on a %d×%d×%d grid split over %d ranks, h = %d", g.nz, g.ny, g.nx, len(g.parts), g.h)
	r, err := fn.Run(haloCase{NY: g.ny, NX: g.nx, Parts: g.parts, Local: g.locals(), TimeoutMs: int(haloTimeout / time.Millisecond)})
	t.Must(err, what)
	if len(r.Err) != len(g.parts) || len(r.Local) != len(g.parts) || len(r.Deadlock) != len(g.parts) || len(r.NotImpl) != len(g.parts) {
		t.Fatalf("%s: the run reported %d ranks", what, len(r.Err))
	}
	if slices.Contains(r.NotImpl, true) {
		t.NotImplemented(what)
	}
	if len(r.Running) > 0 {
		t.Fatalf("%s: rank %s had not returned after %v: a rank waits for something that never comes (a loop, a lock or a goroutine of its own)",
			what, joinInts(r.Running), haloTimeout)
	}
	// A rank's own error first: its neighbours then wait on a rank that
	// has finished, which the communicator reports as a deadlock.
	for rank, e := range r.Err {
		if e != "" && !r.Deadlock[rank] {
			t.Fatalf("%s: rank %d returned an error on valid input: %s", what, rank, e)
		}
	}
	if i := slices.Index(r.Deadlock, true); i >= 0 {
		t.Fatalf("%s: the ranks deadlocked: %s. A Send waits until its peer receives: when every rank sends before it receives, every rank waits. Let even ranks send first and odd ranks receive first, one direction at a time",
			what, r.Err[i])
	}
	want := g.h * g.ny * g.nx
	for _, m := range slices.Concat(r.Sent, r.Received) {
		if m.N != want {
			t.Fatalf("%s: rank %d sent %d values to rank %d; a halo of h = %d planes of %d×%d is %d values (h·ny·nx)",
				what, m.From, m.N, m.To, g.h, g.ny, g.nx, want)
		}
		if len(m.Data) != m.N {
			t.Fatalf("%s: the run reported a message of %d values from rank %d to rank %d that carried %d", what, m.N, m.From, m.To, len(m.Data))
		}
	}
	return r, what
}

// planeOf returns which global plane p equals, or −1.
func (g *haloGrid) planeOf(p []float32) int {
	for z := range g.nz {
		if slices.Equal(p, g.plane(z)) {
			return z
		}
	}
	return -1
}

// describe says what a wrong plane holds.
func (g *haloGrid) describe(got []float32) string {
	nan := 0
	for _, v := range got {
		if v != v {
			nan++
		}
	}
	switch {
	case nan == len(got):
		return "was never written"
	case g.planeOf(got) >= 0:
		return fmt.Sprintf("holds plane %d", g.planeOf(got))
	case nan > 0:
		return fmt.Sprintf("was only partly written (%d of its %d values never were)", nan, len(got))
	}
	return "holds values of no plane of the grid"
}

// checkPlanes checks every rank's buffer against the global grid: every
// plane of [LZ0, LZ1) must be the global plane, and every halo plane must
// have come in a message.
func (g *haloGrid) checkPlanes(t *grading.T, r haloRun, what string) {
	n := g.ny * g.nx
	for rank, p := range g.parts {
		buf := r.Local[rank]
		if len(buf) != (p.LZ1-p.LZ0)*n {
			t.Fatalf("%s: rank %d's buffer came back with %d values, want %d", what, rank, len(buf), (p.LZ1-p.LZ0)*n)
		}
		for z := p.LZ0; z < p.LZ1; z++ {
			got := buf[(z-p.LZ0)*n : (z-p.LZ0+1)*n]
			if slices.Equal(got, g.plane(z)) {
				continue
			}
			kind, hint := "halo", ""
			from := p.Down
			if z >= p.Z1 {
				from = p.Up
			}
			if g.starts(p, z) {
				kind = "owned"
				if z == 0 || z == g.nz-1 {
					kind = "boundary"
				}
				hint = ": a rank receives only into its halo planes, never over what it owns"
			} else {
				e := edge(g.parts[from], p, g.h)
				hint = fmt.Sprintf(": rank %d sends its owned planes [%d, %d), those nearest rank %d", from, e[0], e[1], rank)
				off := (z - p.LZ0) * n
				if g.describe(got) == "was never written" && slices.ContainsFunc(r.Received, func(m haloMsg) bool {
					return m.To == rank && m.Off <= off && off+n <= m.Off+m.N
				}) {
					t.Fatalf("%s: rank %d's halo plane z = %d received garbage: rank %d sent a halo plane of its own, not yet received, instead of its owned planes [%d, %d)",
						what, rank, z, from, e[0], e[1])
				}
			}
			t.Fatalf("%s: rank %d's %s plane z = %d %s, want plane %d%s", what, rank, kind, z, g.describe(got), z, hint)
		}
		// Every halo plane came in a message from the neighbour that owns it.
		for z := p.LZ0; z < p.LZ1; z++ {
			if g.starts(p, z) {
				continue
			}
			off := (z - p.LZ0) * n
			from := p.Down
			if z >= p.Z1 {
				from = p.Up
			}
			if !slices.ContainsFunc(r.Received, func(m haloMsg) bool {
				return m.From == from && m.To == rank && m.Off <= off && off+n <= m.Off+m.N && slices.Equal(m.Data[off-m.Off:off-m.Off+n], g.plane(z))
			}) {
				t.Fatalf("%s: rank %d's halo plane z = %d is right, but no message brought it from rank %d, which owns it: ranks share nothing but the communicator, so a halo is received with Recv from its owner", what, rank, z, from)
			}
		}
	}
}

// edge returns the planes [a, b) that the rank of part from sends to the
// rank of part to: its h owned planes nearest to.
func edge(from, to halo.Part, h int) [2]int {
	if to.Z0 >= from.Z1 {
		return [2]int{from.Z1 - h, from.Z1}
	}
	return [2]int{from.Z0, from.Z0 + h}
}

// checkMessages checks that each rank sent one message to each
// neighbour, carrying its h owned planes nearest that neighbour, and none
// to any other rank.
func (g *haloGrid) checkMessages(t *grading.T, r haloRun, what string) {
	for rank, p := range g.parts {
		byPeer := map[int][]haloMsg{}
		for _, m := range r.Sent {
			if m.From == rank {
				byPeer[m.To] = append(byPeer[m.To], m)
			}
		}
		for peer, ms := range byPeer {
			if peer != p.Down && peer != p.Up {
				t.Fatalf("%s: rank %d sent %d message(s) to rank %d, which is not its neighbour (those are Down = %d and Up = %d)", what, rank, len(ms), peer, p.Down, p.Up)
			}
		}
		for _, peer := range []int{p.Down, p.Up} {
			if peer < 0 {
				continue
			}
			ms := byPeer[peer]
			if len(ms) != 1 {
				t.Fatalf("%s: rank %d sent %d messages to rank %d, want 1: its h = %d edge planes lie one after the other in its buffer, so one message carries them all", what, rank, len(ms), peer, g.h)
			}
			e := edge(p, g.parts[peer], g.h)
			var want []float32
			for z := e[0]; z < e[1]; z++ {
				want = append(want, g.plane(z)...)
			}
			if !slices.Equal(ms[0].Data, want) {
				t.Fatalf("%s: rank %d's message to rank %d carried %s, want its owned planes [%d, %d)", what, rank, peer, g.carried(ms[0].Data), e[0], e[1])
			}
		}
		// The receives: one from each neighbour, none from another rank.
		for _, peer := range []int{p.Down, p.Up} {
			if peer < 0 {
				continue
			}
			n := 0
			for _, m := range r.Received {
				if m.To == rank && m.From == peer {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%s: rank %d received %d messages from rank %d, want 1: the decomposition needs one message each way per neighbour", what, rank, n, peer)
			}
		}
	}
	if want := 2 * (len(g.parts) - 1); len(r.Sent) != want || len(r.Received) != want {
		t.Fatalf("%s: %d messages were sent and %d received; %d ranks in a line exchange %d, one each way between each pair of neighbours", what, len(r.Sent), len(r.Received), len(g.parts), want)
	}
}

// carried names the planes a message's data hold.
func (g *haloGrid) carried(data []float32) string {
	n := g.ny * g.nx
	var zs []string
	for i := 0; i+n <= len(data); i += n {
		if z := g.planeOf(data[i : i+n]); z >= 0 {
			zs = append(zs, fmt.Sprint(z))
		} else {
			zs = append(zs, "?")
		}
	}
	return "planes " + strings.Join(zs, ", ")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// haloSides draws a grid for ranks ranks and halo h: at least h planes
// per rank, up to extra more in all, ny and nx from 3 to maxSide, odd
// more often than not.
func haloSides(t *grading.T, ranks, h, extra, maxSide int) (nz, ny, nx int) {
	nz = 2 + ranks*h + t.Rand().IntN(extra+1)
	side := func() int {
		n := 3 + t.Rand().IntN(maxSide-2)
		if n%2 == 0 && t.Rand().IntN(4) > 0 {
			n++
		}
		return n
	}
	return nz, side(), side()
}

// haloTrials runs trials random cases for each count of ranks and each h,
// checking the planes of every rank.
func haloTrials(t *grading.T, fn haloFuncs, trials int, ranks, hs []int, extra, maxSide int) {
	for _, h := range hs {
		for _, rk := range ranks {
			for range trials {
				nz, ny, nx := haloSides(t, rk, h, extra, maxSide)
				g := newHaloGrid(t, nz, ny, nx, rk, h)
				r, what := g.run(t, fn)
				g.checkPlanes(t, r, what)
				if t.Failed() {
					return
				}
			}
		}
	}
}

// haloMessages checks the messages of runs whose planes are right.
func haloMessages(t *grading.T, fn haloFuncs) {
	for _, c := range []struct{ ranks, h int }{{3, 1}, {4, 2}, {5, 1}, {2, 3}} {
		nz, ny, nx := haloSides(t, c.ranks, c.h, 12, 9)
		g := newHaloGrid(t, nz, ny, nx, c.ranks, c.h)
		r, what := g.run(t, fn)
		g.checkPlanes(t, r, what)
		g.checkMessages(t, r, what)
		if t.Failed() {
			return
		}
	}
}

// haloBadInput gives every rank a buffer one value short or long, or a
// side of 0: every rank must return an error, and none panic.
func haloBadInput(t *grading.T, fn haloFuncs) {
	ranks := 2 + t.Rand().IntN(3)
	nz, ny, nx := haloSides(t, ranks, 1, 8, 9)
	g := newHaloGrid(t, nz, ny, nx, ranks, 1)
	for _, c := range []struct {
		name    string
		ny, nx  int
		reshape func([]float32) []float32
	}{
		{"a buffer one value short", ny, nx, func(b []float32) []float32 { return b[:len(b)-1] }},
		{"a buffer one value long", ny, nx, func(b []float32) []float32 { return append(b, 0) }},
		{"ny = 0", 0, nx, func(b []float32) []float32 { return b }},
		{"nx = −1", ny, -1, func(b []float32) []float32 { return b }},
	} {
		locals := g.locals()
		for i := range locals {
			locals[i] = c.reshape(locals[i])
		}
		what := fmt.Sprintf("Exchange with %s on every rank of a %d×%d×%d grid over %d ranks", c.name, nz, ny, nx, ranks)
		r, err := fn.Run(haloCase{NY: c.ny, NX: c.nx, Parts: g.parts, Local: locals, TimeoutMs: int(haloTimeout / time.Millisecond)})
		t.Must(err, what)
		if slices.Contains(r.NotImpl, true) {
			t.NotImplemented(what)
		}
		if len(r.Running) > 0 {
			t.Fatalf("%s: rank %s had not returned after %v", what, joinInts(r.Running), haloTimeout)
		}
		for rank, e := range r.Err {
			if e == "" {
				t.Fatalf("%s: rank %d returned no error; check the buffer's length against the part's planes, (LZ1 − LZ0)·ny·nx, and the sides, before any message", what, rank)
			}
		}
	}
}
