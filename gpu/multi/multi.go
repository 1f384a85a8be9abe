package multi

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"stencillab.dev/gpu"
	"stencillab.dev/gpu/cu"
	"stencillab.dev/lab"
	"stencillab.dev/lab/halo"
)

// Multi is a 3D step split in z-slabs (or pencils) over several GPUs:
// each rank holds its local box on its device, two buffers to ping-pong
// between and the input to restart from, and exchanges halo planes with
// its neighbours through NCCL after every pass. One process may hold all
// the ranks (one worker thread per device) or, under mpirun or Slurm, one.
type Multi struct {
	step    string
	overlap *Overlap
	per     int // time steps a pass advances
	parts   []halo.Part
	ranks   []*mrank // the ranks this process holds
	byRank  []*mrank // every rank by its index, for the peer copies (nil when not held here)
	prog    progress // how far each rank's host thread has enqueued (peer copies)
	size    int      // ranks in the world
	nz      int
	ny, nx  int
	closed  bool
}

// mrank is one rank held by this process.
type mrank struct {
	d       *gpu.Device
	k       *gpu.Stencil3
	p       halo.Part
	a, b    *gpu.Buffer // ping-pong
	init    *gpu.Buffer // the local input, nil when it did not fit (then uploaded again)
	host    []float32
	comm    cu.Handle     // NCCL communicator; nil for a world of one
	lo, hi  cu.Handle     // streams: lo for compute, hi (high priority) for the exchange
	streams []*gpu.Stream // lo's and hi's, to close
	nc      *ncclComm
	ex      *halo.Exchanger[*gpu.Buffer]
	events  []cu.Handle
	evMu    sync.Mutex // guards events' growth, which peers read (waitOn)
	evReady cu.Handle
	m       *Multi
}

// MultiConfig describes a split run.
type MultiConfig struct {
	Step    string      // a 3D step with device code
	Options gpu.Options // its tile and defines, as for Device.Stencil3
	// Devices are the GPU ordinals, one rank each, in rank order.
	Devices []int
	// PY is the ranks along y (0 or 1: z-slabs).
	PY      int
	Overlap *Overlap // nil: the split's default (DefaultOverlap for slabs of one process)
	// NZ, NY, NX are the global grid's sides.
	NZ, NY, NX int
}

// openDevices keeps the devices that split runs open, by ordinal, so
// that kernels are compiled once per process; device 0 is Default's.
var openDevices struct {
	sync.Mutex
	m map[int]*gpu.Device
}

// deviceFor returns the open device of an ordinal, opening it on first
// use.
func deviceFor(ordinal int) (*gpu.Device, error) {
	if ordinal == 0 {
		return gpu.Default()
	}
	openDevices.Lock()
	defer openDevices.Unlock()
	if d := openDevices.m[ordinal]; d != nil && d.Lost() == nil {
		return d, nil
	}
	d, err := gpu.Open(ordinal)
	if err != nil {
		return nil, err
	}
	if openDevices.m == nil {
		openDevices.m = map[int]*gpu.Device{}
	}
	openDevices.m[ordinal] = d
	return d, nil
}

// NewMulti opens the devices, compiles the step on each, decomposes the
// grid and allocates each rank's buffers, then joins the ranks in an NCCL
// communicator (for more than one rank). All ranks live in this process.
func NewMulti(c MultiConfig) (*Multi, error) {
	if len(c.Devices) == 0 {
		return nil, fmt.Errorf("gpu: split %s: no devices: %w", c.Step, lab.ErrSize)
	}
	return newMulti(c, oneProcess(len(c.Devices)), nil)
}

// world is the ranks of a split and those this process holds, with the
// NCCL id they share when this process did not make it.
type world struct {
	size  int
	local []int // global ranks held here
	// devices gives each local rank's device ordinal; nil: c.Devices[rank].
	devices []int
}

// oneProcess returns the world of n ranks that this process holds all of.
func oneProcess(n int) world { return world{size: n, local: seq(n)} }

// newMulti builds a Multi for the ranks w.local of a world; getID returns
// the communicator's unique id (nil: this process makes one, as it holds
// every rank).
func newMulti(c MultiConfig, w world, getID func() (ncclID, error)) (m *Multi, err error) {
	d0, err := deviceFor(deviceOf(c, w, 0))
	if err != nil {
		return nil, err
	}
	k0, err := d0.Stencil3(c.Step, c.Options)
	if err != nil {
		return nil, err
	}
	per := k0.StepsPerPass()
	overlap, err := checkOverlap(c.Overlap, per, c.PY, len(w.local) == w.size)
	if err != nil {
		return nil, err
	}
	parts, err := halo.Decompose(c.NZ, c.NY, c.NX, w.size, c.PY, per)
	if err != nil {
		return nil, fmt.Errorf("gpu: split %s: %w", c.Step, err)
	}
	m = &Multi{step: k0.Step(), overlap: overlap, per: per, parts: parts, size: w.size, nz: c.NZ, ny: c.NY, nx: c.NX}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	for i, r := range w.local {
		d, err := deviceFor(deviceOf(c, w, i))
		if err != nil {
			return m, err
		}
		for _, o := range m.ranks {
			if o.d == d {
				return m, fmt.Errorf("gpu: split %s: ranks %d and %d on the same device %d: each rank needs a GPU of its own",
					c.Step, o.p.Rank, r, d.Props().Ordinal)
			}
		}
		k := k0
		if d != d0 {
			if k, err = d.Stencil3(c.Step, c.Options); err != nil {
				return m, err
			}
		}
		mr := &mrank{d: d, k: k, p: parts[r], m: m}
		m.ranks = append(m.ranks, mr)
		if err := mr.alloc(c.Step); err != nil {
			return m, err
		}
	}
	if overlap.copies {
		if len(w.local) != w.size {
			return m, fmt.Errorf("gpu: split %s: overlap %s copies between the GPUs of one process; a launch of %d processes uses NCCL (-overlap none, split or early)",
				c.Step, overlap, w.size)
		}
		if err := m.enablePeers(); err != nil {
			return m, err
		}
	}
	// NCCL moves the halos of a split of several ranks, unless peer
	// copies do.
	nccl := w.size > 1 && !overlap.copies
	if nccl {
		var id ncclID
		if getID == nil {
			id, err = newNCCLID()
		} else {
			id, err = getID()
		}
		if err != nil {
			return m, err
		}
		if err := m.joinNCCL(id); err != nil {
			return m, err
		}
	}
	for _, mr := range m.ranks {
		mr.nc = &ncclComm{r: mr}
		if mr.ex, err = halo.NewExchanger[*gpu.Buffer](mr.nc, mr.p, c.NX); err != nil {
			return m, fmt.Errorf("gpu: split %s: %w", c.Step, err)
		}
	}
	if nccl {
		// NCCL connects peers at their first exchange, which takes
		// hundreds of milliseconds: not in the first timed run.
		err := m.each(func(mr *mrank) error {
			return mr.d.Do(func() error {
				if err := mr.exchange(mr.a, mr.lo); err != nil {
					return err
				}
				return gpu.CheckCall("cuStreamSynchronize", drv().StreamSynchronize(mr.lo))
			})
		})
		if err != nil {
			return m, fmt.Errorf("gpu: split %s: the first exchange: %w", c.Step, err)
		}
	}
	return m, nil
}

// deviceOf returns the ordinal of the i-th local rank.
func deviceOf(c MultiConfig, w world, i int) int {
	if w.devices != nil {
		return w.devices[i]
	}
	return c.Devices[w.local[i]]
}

// alloc makes the rank's streams, events and buffers: two local grids
// and, when it fits, a third holding the input.
func (mr *mrank) alloc(step string) error {
	p := mr.p
	n := p.LocalLen()
	what := fmt.Sprintf("%s, rank %d: local grid %d×%d×%d (two buffers)", step, p.Rank, p.LocalNZ(), p.LocalNY(), p.NX)
	if err := mr.d.CheckFree(what, 2*uint64(n)*4); err != nil {
		return err
	}
	var err error
	if mr.a, err = mr.d.Alloc(n); err != nil {
		return err
	}
	if mr.b, err = mr.d.Alloc(n); err != nil {
		return err
	}
	if free, _, err := mr.d.MemInfo(); err == nil && free > uint64(n)*4+(1<<30) {
		if mr.init, err = mr.d.Alloc(n); err != nil {
			mr.init = nil
		}
	}
	for _, high := range []bool{false, true} {
		s, err := mr.d.NewStream(high)
		if err != nil {
			return fmt.Errorf("gpu: rank %d: %w", p.Rank, err)
		}
		mr.streams = append(mr.streams, s)
	}
	mr.lo, mr.hi = mr.streams[0].Handle(), mr.streams[1].Handle()
	return mr.d.Do(func() error {
		var r int
		if mr.evReady, r = drv().EventCreate(0); r != 0 {
			return fmt.Errorf("gpu: rank %d: %w", p.Rank, gpu.CheckCall("cuEventCreate", r))
		}
		return nil
	})
}

// joinNCCL initialises every local rank's communicator, concurrently (each
// ncclCommInitRank waits for all the ranks of the world), each on its
// device's thread.
func (m *Multi) joinNCCL(id ncclID) error {
	errs := make([]error, len(m.ranks))
	var wg sync.WaitGroup
	for i, mr := range m.ranks {
		wg.Go(func() {
			errs[i] = mr.d.Do(func() error {
				c, r := drv().NCCLCommInitRank(m.size, id, mr.p.Rank)
				if err := ncclCheck("ncclCommInitRank", r); err != nil {
					return fmt.Errorf("gpu: rank %d of %d on device %d: %w", mr.p.Rank, m.size, mr.d.Props().Ordinal, err)
				}
				mr.comm = c
				return nil
			})
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Parts returns the decomposition.
func (m *Multi) Parts() []halo.Part { return slices.Clone(m.parts) }

// StepsPerPass returns the time steps one pass advances, the halo depth.
func (m *Multi) StepsPerPass() int { return m.per }

// Overlap returns the overlap strategy in use.
func (m *Multi) Overlap() *Overlap { return m.overlap }

// Device returns the name of the first local rank's device.
func (m *Multi) Device() string {
	if len(m.ranks) == 0 {
		return "GPU"
	}
	return m.ranks[0].d.Props().Name
}

// Geometry returns the launch of the first local rank's whole local grid.
func (m *Multi) Geometry() (gpu.Geometry, error) {
	mr := m.ranks[0]
	return mr.k.Geometry(mr.p.LocalNZ(), mr.p.LocalNY(), m.nx)
}

// Load copies each local rank's box of src to its device: into the input
// buffer, or (when it did not fit) kept on the host for each run.
func (m *Multi) Load(src *lab.Grid3[float32]) error {
	if src.NZ != m.nz || src.NY != m.ny || src.NX != m.nx {
		return fmt.Errorf("gpu: split %s: input %d×%d×%d differs from the %d×%d×%d grid decomposed: %w",
			m.step, src.NZ, src.NY, src.NX, m.nz, m.ny, m.nx, lab.ErrMismatch)
	}
	return m.each(func(mr *mrank) error {
		box := localBox(src, mr.p)
		if mr.init == nil {
			mr.host = box
			return nil
		}
		return mr.init.Upload(0, box)
	})
}

// localBox returns the part's local grid cut from g: planes [LZ0, LZ1),
// rows [LY0, LY1), every column.
func localBox(g *lab.Grid3[float32], p halo.Part) []float32 {
	plane := g.NY * g.NX
	if p.LY0 == 0 && p.LY1 == g.NY {
		return g.Data[p.LZ0*plane : p.LZ1*plane]
	}
	out := make([]float32, 0, p.LocalLen())
	for z := p.LZ0; z < p.LZ1; z++ {
		o := z*plane + p.LY0*g.NX
		out = append(out, g.Data[o:o+p.LocalNY()*g.NX]...)
	}
	return out
}

// each runs f for every local rank concurrently and joins their errors.
func (m *Multi) each(f func(mr *mrank) error) error {
	errs := make([]error, len(m.ranks))
	var wg sync.WaitGroup
	for i, mr := range m.ranks {
		wg.Go(func() {
			if err := f(mr); err != nil {
				errs[i] = fmt.Errorf("rank %d: %w", mr.p.Rank, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// RankTimes are one rank's times of one run, in milliseconds of its CUDA
// events.
type RankTimes struct {
	Rank     int
	Device   int        // the device's ordinal
	Total    float64    // from the first pass's start to the last's end
	Compute  float64    // its launches, summed over the passes
	Exchange float64    // its exchanges (waiting for peers included), summed
	Passes   []PassTime // each pass
}

// PassTime is the time line of one pass on one rank, in milliseconds from
// the run's first event.
type PassTime struct {
	ComputeStart, ComputeEnd   float64
	ExchangeStart, ExchangeEnd float64
}

// reset restores the rank's two buffers to the input.
func (mr *mrank) reset() error {
	if mr.init == nil {
		if err := mr.a.Upload(0, mr.host); err != nil {
			return err
		}
		return mr.b.Upload(0, mr.host)
	}
	return mr.d.Do(func() error {
		bytes := mr.init.Bytes()
		if err := gpu.CheckCall("cuMemcpyDtoDAsync", drv().MemcpyDtoDAsync(mr.a.Ptr(), mr.init.Ptr(), bytes, mr.lo)); err != nil {
			return err
		}
		if err := gpu.CheckCall("cuMemcpyDtoDAsync", drv().MemcpyDtoDAsync(mr.b.Ptr(), mr.init.Ptr(), bytes, mr.lo)); err != nil {
			return err
		}
		return gpu.CheckCall("cuStreamSynchronize", drv().StreamSynchronize(mr.lo))
	})
}

// Run restores the input and advances it steps time steps on every local
// rank, passes ping-ponging between the two buffers, an exchange after
// each; the ranks start together. It returns each local rank's times.
func (m *Multi) Run(c lab.Coeffs, steps int) ([]RankTimes, error) {
	if m.closed {
		return nil, fmt.Errorf("gpu: split %s: closed", m.step)
	}
	if steps < 1 || steps%m.per != 0 {
		return nil, fmt.Errorf("gpu: split %s: %d time steps: need a positive multiple of the %d one pass advances", m.step, steps, m.per)
	}
	passes := steps / m.per
	m.prog.reset(m.size)
	if err := m.each(func(mr *mrank) error { return mr.reset() }); err != nil {
		return nil, fmt.Errorf("gpu: split %s: restore the input: %w", m.step, err)
	}
	out := make([]RankTimes, len(m.ranks))
	var start sync.WaitGroup
	start.Add(1)
	errs := make([]error, len(m.ranks))
	var wg sync.WaitGroup
	for i, mr := range m.ranks {
		wg.Go(func() {
			plans, err := mr.plans(c, m.overlap)
			if err != nil {
				errs[i] = err
				start.Wait()
				return
			}
			start.Wait()
			errs[i] = mr.d.Do(func() error {
				t, err := mr.run(plans, passes, m.overlap)
				out[i] = t
				return err
			})
		})
	}
	start.Done()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("gpu: split %s: %w", m.step, err)
	}
	return out, nil
}

// passPlans are the launches of one pass, for each direction of the
// ping-pong (0: a → b, 1: b → a).
type passPlans struct {
	boundary [2][]*gpu.Prepared // the planes the neighbours need (split, early)
	interior [2][]*gpu.Prepared // the rest, or everything (none)
	out      [2]*gpu.Buffer     // the buffer each direction writes
}

// plan prepares the sweep of the owned planes [z0, z1) (global) of the
// rank's local grid from src to dst: the same kernel on the view of
// planes z0−1 … z1, nz' = z1 − z0 + 2.
func (mr *mrank) plan(dst, src *gpu.Buffer, z0, z1 int, c lab.Coeffs) (*gpu.Prepared, error) {
	p := mr.p
	plane := p.LocalNY() * p.NX
	lo, hi := z0-1-p.LZ0, z1+1-p.LZ0
	n := (hi - lo) * plane
	dv, err := dst.View(lo*plane, n)
	if err != nil {
		return nil, err
	}
	sv, err := src.View(lo*plane, n)
	if err != nil {
		return nil, err
	}
	return mr.k.Prepare(dv, sv, hi-lo, p.LocalNY(), p.NX, c)
}

// pingPong returns the buffers a pass in direction dir writes and reads:
// b from a for 0, a from b for 1.
func (mr *mrank) pingPong(dir int) (dst, src *gpu.Buffer) {
	if dir == 0 {
		return mr.b, mr.a
	}
	return mr.a, mr.b
}

// plans prepares the launches of a pass in both directions.
func (mr *mrank) plans(c lab.Coeffs, overlap *Overlap) (passPlans, error) {
	var pp passPlans
	p := mr.p
	for dir := range 2 {
		dst, src := mr.pingPong(dir)
		pp.out[dir] = dst
		if overlap.whole {
			// The whole local grid: its planes inside the halos too,
			// which a pass of k steps needs.
			lp, err := mr.plan(dst, src, p.LZ0+1, p.LZ1-1, c)
			if err != nil {
				return pp, err
			}
			pp.interior[dir] = []*gpu.Prepared{lp}
			continue
		}
		z0, z1 := p.Z0, p.Z1
		var ranges [][2]int
		if p.Down >= 0 {
			ranges = append(ranges, [2]int{z0, z0 + 1})
			z0++
		}
		if p.Up >= 0 && z1 > z0 {
			ranges = append(ranges, [2]int{z1 - 1, z1})
			z1--
		}
		for _, r := range ranges {
			lp, err := mr.plan(dst, src, r[0], r[1], c)
			if err != nil {
				return pp, err
			}
			pp.boundary[dir] = append(pp.boundary[dir], lp)
		}
		if z1 > z0 {
			lp, err := mr.plan(dst, src, z0, z1, c)
			if err != nil {
				return pp, err
			}
			pp.interior[dir] = append(pp.interior[dir], lp)
		}
	}
	return pp, nil
}

// launchOn runs prepared launches on stream s. It runs on the worker.
func launchOn(s cu.Handle, plans []*gpu.Prepared) error {
	for _, lp := range plans {
		if err := lp.Enqueue(s); err != nil {
			return err
		}
	}
	return nil
}

// event returns the i-th event of the rank's pool, creating it if needed.
// It runs on the worker.
func (mr *mrank) event(i int) (cu.Handle, error) {
	mr.evMu.Lock()
	defer mr.evMu.Unlock()
	for len(mr.events) <= i {
		e, r := drv().EventCreate(0)
		if err := gpu.CheckCall("cuEventCreate", r); err != nil {
			return nil, err
		}
		mr.events = append(mr.events, e)
	}
	return mr.events[i], nil
}

// record records event i of the pool on stream s.
func (mr *mrank) record(i int, s cu.Handle) error {
	e, err := mr.event(i)
	if err != nil {
		return err
	}
	return gpu.CheckCall("cuEventRecord", drv().EventRecord(e, s))
}

// wait makes stream s wait for event i of the pool.
func (mr *mrank) wait(s cu.Handle, i int) error {
	e, err := mr.event(i)
	if err != nil {
		return err
	}
	return gpu.CheckCall("cuStreamWaitEvent", drv().StreamWaitEvent(s, e))
}

// Events of one pass, as offsets into the pool: the pool holds evPerPass
// events for every pass after the run's first (index 0).
const (
	evComputeStart = iota
	evComputeEnd
	evExchangeStart
	evExchangeEnd
	evInteriorEnd // split: the interior's end on the low stream
	evBoundaryEnd // copy-early: the boundary's end on the compute stream
	evPerPass
)

// evIndex returns the pool index of event which of a pass; index 0 is the
// run's start.
func evIndex(pass, which int) int { return 1 + pass*evPerPass + which }

// run enqueues the passes and waits for them; it runs on the worker.
func (mr *mrank) run(pp passPlans, passes int, overlap *Overlap) (RankTimes, error) {
	if err := mr.record(0, mr.lo); err != nil {
		return RankTimes{}, err
	}
	if err := mr.wait(mr.hi, 0); err != nil {
		return RankTimes{}, err
	}
	for pass := range passes {
		dir := pass % 2
		err := overlap.pass(mr, pp, dir, pass)
		if err != nil {
			if overlap.copies {
				mr.m.prog.fail()
			}
			return RankTimes{}, fmt.Errorf("pass %d: %w", pass, err)
		}
	}
	// The end: both streams done.
	if err := mr.wait(mr.lo, evIndex(passes-1, evExchangeEnd)); err != nil {
		return RankTimes{}, err
	}
	last := evIndex(passes, 0)
	if err := mr.record(last, mr.lo); err != nil {
		return RankTimes{}, err
	}
	if err := gpu.CheckCall("cuEventSynchronize", drv().EventSynchronize(mr.events[last])); err != nil {
		return RankTimes{}, err
	}
	if mr.comm != nil {
		if e, r := drv().NCCLCommGetAsyncError(mr.comm); r == 0 && e != 0 {
			return RankTimes{}, ncclCheck("ncclCommGetAsyncError", e)
		}
	}
	t := RankTimes{Rank: mr.p.Rank, Device: mr.d.Props().Ordinal}
	since := func(i int) (float64, error) {
		ms, r := drv().EventElapsedTime(mr.events[0], mr.events[i])
		return float64(ms), gpu.CheckCall("cuEventElapsedTime", r)
	}
	var err error
	if t.Total, err = since(last); err != nil {
		return t, err
	}
	for pass := range passes {
		var pt PassTime
		for _, f := range []struct {
			dst *float64
			ev  int
		}{{&pt.ComputeStart, evComputeStart}, {&pt.ComputeEnd, evComputeEnd},
			{&pt.ExchangeStart, evExchangeStart}, {&pt.ExchangeEnd, evExchangeEnd}} {
			if *f.dst, err = since(evIndex(pass, f.ev)); err != nil {
				return t, err
			}
		}
		t.Compute += pt.ComputeEnd - pt.ComputeStart
		t.Exchange += pt.ExchangeEnd - pt.ExchangeStart
		t.Passes = append(t.Passes, pt)
	}
	return t, nil
}

// op is one enqueue of a pass on a stream: a launch, an event recorded or
// waited for, an exchange. It runs on the worker.
type op func() error

// enqueue runs ops in order and stops at the first error.
func enqueue(ops ...op) error {
	for _, o := range ops {
		if err := o(); err != nil {
			return err
		}
	}
	return nil
}

// recordOp records event i of the pool on stream s.
func (mr *mrank) recordOp(i int, s cu.Handle) op { return func() error { return mr.record(i, s) } }

// waitOp makes stream s wait for event i of the pool.
func (mr *mrank) waitOp(s cu.Handle, i int) op { return func() error { return mr.wait(s, i) } }

// exchangeOp swaps the halos of buf with the neighbours on stream s.
func (mr *mrank) exchangeOp(buf *gpu.Buffer, s cu.Handle) op {
	return func() error { return mr.exchange(buf, s) }
}

// launchOp runs prepared launches on stream s.
func launchOp(s cu.Handle, plans []*gpu.Prepared) op {
	return func() error { return launchOn(s, plans) }
}

// passNone computes the whole local grid, then exchanges, on the low
// stream.
func (mr *mrank) passNone(pp passPlans, dir int, out *gpu.Buffer, e0 int) error {
	s := mr.lo
	return enqueue(
		mr.recordOp(e0+evComputeStart, s),
		launchOp(s, pp.interior[dir]),
		mr.recordOp(e0+evComputeEnd, s),
		mr.recordOp(e0+evExchangeStart, s),
		mr.exchangeOp(out, s),
		mr.recordOp(e0+evExchangeEnd, s),
		mr.recordOp(e0+evInteriorEnd, s),
	)
}

// passSplit computes the boundary planes on the high-priority stream and
// exchanges them there, the interior on the low stream beside it. Each
// stream first waits for the other's previous pass: the boundary reads
// planes the interior wrote, and the interior reads the halos.
func (mr *mrank) passSplit(pp passPlans, dir int, out *gpu.Buffer, e0, pass int) error {
	prevHi, prevLo := 0, 0
	if pass > 0 {
		prevHi, prevLo = evIndex(pass-1, evExchangeEnd), evIndex(pass-1, evInteriorEnd)
	}
	return enqueue(
		mr.waitOp(mr.hi, prevLo),
		mr.waitOp(mr.lo, prevHi),
		mr.recordOp(e0+evComputeStart, mr.hi),
		launchOp(mr.hi, pp.boundary[dir]),
		mr.recordOp(e0+evExchangeStart, mr.hi),
		mr.exchangeOp(out, mr.hi),
		mr.recordOp(e0+evExchangeEnd, mr.hi),
		launchOp(mr.lo, pp.interior[dir]),
		mr.recordOp(e0+evInteriorEnd, mr.lo),
		// Compute ends when both the boundary and the interior are done.
		mr.waitOp(mr.lo, e0+evExchangeStart),
		mr.recordOp(e0+evComputeEnd, mr.lo),
	)
}

// passEarly computes the boundary planes, then the interior, on the low
// stream; the exchange runs on the high stream once the boundary is done.
func (mr *mrank) passEarly(pp passPlans, dir int, out *gpu.Buffer, e0, pass int) error {
	if pass > 0 {
		// The next boundary reads the halos this exchange writes.
		if err := mr.wait(mr.lo, evIndex(pass-1, evExchangeEnd)); err != nil {
			return err
		}
	}
	return enqueue(
		mr.recordOp(e0+evComputeStart, mr.lo),
		launchOp(mr.lo, pp.boundary[dir]),
		mr.recordOp(e0+evExchangeStart, mr.lo),
		mr.waitOp(mr.hi, e0+evExchangeStart),
		mr.exchangeOp(out, mr.hi),
		mr.recordOp(e0+evExchangeEnd, mr.hi),
		launchOp(mr.lo, pp.interior[dir]),
		mr.recordOp(e0+evComputeEnd, mr.lo),
		mr.recordOp(e0+evInteriorEnd, mr.lo),
	)
}

// exchange swaps halos of buf with the neighbours on stream s, through
// the lab's exchange; it runs on the worker.
func (mr *mrank) exchange(buf *gpu.Buffer, s cu.Handle) error {
	if mr.comm == nil {
		return nil
	}
	mr.nc.stream = s
	return mr.ex.Exchange(buf)
}

// Gather copies each local rank's owned interior points of the last run's
// result into dst, the global grid; boundary points and other ranks'
// points of dst are left as they are.
func (m *Multi) Gather(dst *lab.Grid3[float32], steps int) error {
	if dst.NZ != m.nz || dst.NY != m.ny || dst.NX != m.nx {
		return fmt.Errorf("gpu: split %s: output %d×%d×%d differs from the %d×%d×%d grid decomposed: %w",
			m.step, dst.NZ, dst.NY, dst.NX, m.nz, m.ny, m.nx, lab.ErrMismatch)
	}
	passes := steps / m.per
	return m.each(func(mr *mrank) error {
		res := mr.a
		if passes%2 == 1 {
			res = mr.b
		}
		return mr.gather(dst, res)
	})
}

// gather copies the owned interior of the rank's result buffer into dst,
// plane by plane.
func (mr *mrank) gather(dst *lab.Grid3[float32], res *gpu.Buffer) error {
	p := mr.p
	rows := p.Y1 - p.Y0
	buf := make([]float32, rows*p.NX)
	for z := p.Z0; z < p.Z1; z++ {
		if err := res.Download(p.Local(z, p.Y0, 0), buf); err != nil {
			return err
		}
		for j := range rows {
			o := dst.Index(z, p.Y0+j, 1)
			copy(dst.Data[o:o+p.NX-2], buf[j*p.NX+1:j*p.NX+p.NX-1])
		}
	}
	return nil
}

// Close frees the buffers, streams, events and communicators; the devices
// stay open for later runs.
func (m *Multi) Close() error {
	if m == nil || m.closed {
		return nil
	}
	m.closed = true
	// The communicators go first, all at once: a rank's teardown may wait
	// for its peers'.
	errs := []error{m.each(func(mr *mrank) error {
		if mr.comm == nil {
			return nil
		}
		return mr.d.Do(func() error {
			var es []error
			if r := drv().NCCLCommFinalize(mr.comm); r != 0 && r != ncclMissing {
				es = append(es, ncclCheck("ncclCommFinalize", r))
			}
			es = append(es, ncclCheck("ncclCommDestroy", drv().NCCLCommDestroy(mr.comm)))
			mr.comm = nil
			return errors.Join(es...)
		})
	})}
	for _, mr := range m.ranks {
		if mr.ex != nil {
			errs = append(errs, mr.ex.Close())
		}
		errs = append(errs, mr.d.Do(func() error {
			var es []error
			for _, e := range append(mr.events, mr.evReady) {
				if e != nil {
					es = append(es, gpu.CheckCall("cuEventDestroy", drv().EventDestroy(e)))
				}
			}
			mr.events, mr.evReady = nil, nil
			return errors.Join(es...)
		}))
		for _, s := range mr.streams {
			errs = append(errs, s.Close())
		}
		mr.streams, mr.lo, mr.hi = nil, nil, nil
		for _, b := range []*gpu.Buffer{mr.a, mr.b, mr.init} {
			if b != nil {
				errs = append(errs, b.Free())
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gpu: split %s: close: %w", m.step, err)
	}
	return nil
}

// elapsedMs returns the milliseconds since t.
func elapsedMs(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }
