package sim

import (
	"cmp"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// This file counts memory traffic as the hardware moves it: per warp, not
// per thread.
//
// A GPU runs the threads of a block in warps of 32, numbered by the linear
// thread index (x fastest, then y, then z): threads 0–31 are warp 0, and
// so on. One load or store instruction executed by a warp is one request
// to the memory system. For global memory the request moves whole 32-byte
// sectors, as many as the distinct sectors its active threads touch: 4
// for 32 consecutive floats, 32 for 32 floats a row apart. For shared
// memory the request is served by 32 banks of 4-byte words; distinct words
// in the same bank are served one after the other (a bank conflict), while
// one word read by many threads is a broadcast and costs nothing extra.
//
// The simulator runs the threads of a block one after the other between
// barriers, so it rebuilds the warps' instructions afterwards. An access
// site is a call of Thread.Load, Thread.Store or a shared array's Load or
// Store in the kernel's source (file and line, found once from the call
// stack and cached by the caller's return addresses). A thread's n-th
// execution of a site in its block belongs to its warp's n-th execution of
// that site: the accesses of the threads of one warp with the same site
// and the same n are one request. That is what the hardware does for code
// that does not diverge within a warp, and for branches that skip a site
// in some lanes (those lanes are simply inactive in the request). It
// differs where lanes run the same site a different number of times in a
// loop, which the hardware would serialise differently.

// WarpSize is the number of threads in a warp.
const WarpSize = 32

// The memory system's units.
const (
	// SectorBytes is the unit a global-memory request moves: 32 bytes.
	SectorBytes = 32
	// LineBytes is a cache line of the L1 and L2 caches: 4 sectors.
	LineBytes = 128
	// Banks is the number of shared-memory banks, each BankBytes wide.
	Banks = 32
	// BankBytes is the width of one shared-memory bank: one float32.
	BankBytes = 4
)

// The element index shifts of a sector and a line, elements being
// ElemBytes wide.
const (
	sectorShift = 3 // SectorBytes / ElemBytes = 8 elements
	lineShift   = 5 // LineBytes / ElemBytes = 32 elements
)

// AccessKind is the kind of a memory access: a load or a store, of global
// or shared memory.
type AccessKind uint8

// The kinds of access.
const (
	GlobalLoad AccessKind = iota
	GlobalStore
	SharedLoad
	SharedStore
	numKinds
)

var kindNames = [numKinds]string{"global load", "global store", "shared load", "shared store"}

// String returns "global load", "global store", "shared load" or
// "shared store".
func (k AccessKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("AccessKind(%d)", int(k))
}

// MarshalText writes the kind as String does.
func (k AccessKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind written by MarshalText.
func (k *AccessKind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = AccessKind(i)
			return nil
		}
	}
	return fmt.Errorf("sim: unknown access kind %q", b)
}

// Shared reports whether the kind is an access of shared memory.
func (k AccessKind) Shared() bool { return k == SharedLoad || k == SharedStore }

// WarpCounts counts the warp-level requests of one kind of access, of a
// launch or of one site.
type WarpCounts struct {
	// Requests is the number of warp instructions executed: one per warp,
	// site and execution, whatever the number of its active threads.
	Requests int64 `json:"requests"`
	// Threads is the number of thread accesses, the active threads summed
	// over the requests.
	Threads int64 `json:"threads"`
	// UsefulBytes is what the threads asked for: 4 bytes per distinct
	// word of each request (a word read by several threads counts once).
	UsefulBytes int64 `json:"useful_bytes"`
	// Sectors is, for global memory, the distinct 32-byte sectors each
	// request touched, summed: ncu's l1tex__t_sectors_pipe_lsu_mem_global_op_ld
	// (or _st). Zero for shared memory.
	Sectors int64 `json:"sectors"`
	// Lines is, for global memory, the distinct 128-byte lines each
	// request touched, summed.
	Lines int64 `json:"lines"`
	// Wavefronts is, for shared memory, the passes each request needed
	// summed: per request the largest number of distinct words that fall
	// in one bank (1 without a conflict). Zero for global memory.
	Wavefronts int64 `json:"wavefronts"`
	// Conflicts is Wavefronts − Requests for shared memory: the extra
	// passes that bank conflicts cost, ncu's
	// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld (or _st).
	Conflicts int64 `json:"bank_conflicts"`
	// MaxWays is, for shared memory, the worst request's number of
	// passes: 32 for 32 threads reading one column of a 32-wide tile.
	MaxWays int `json:"max_ways"`
}

func (r *WarpCounts) add(o WarpCounts) {
	r.Requests += o.Requests
	r.Threads += o.Threads
	r.UsefulBytes += o.UsefulBytes
	r.Sectors += o.Sectors
	r.Lines += o.Lines
	r.Wavefronts += o.Wavefronts
	r.Conflicts += o.Conflicts
	r.MaxWays = max(r.MaxWays, o.MaxWays)
}

// SectorsPerRequest is the average number of sectors a request moved: 4
// for a warp reading 32 consecutive floats, the ideal; 0 without requests.
func (r WarpCounts) SectorsPerRequest() float64 { return ratio(r.Sectors, r.Requests) }

// MovedBytes is what the requests moved: 32 bytes per sector for global
// memory, 128 bytes (32 banks of 4) per wavefront for shared memory.
func (r WarpCounts) MovedBytes() int64 {
	if r.Wavefronts > 0 {
		return r.Wavefronts * Banks * BankBytes
	}
	return r.Sectors * SectorBytes
}

// Efficiency is useful bytes over moved bytes, between 0 and 1: 1 when
// every sector moved holds only words the threads asked for.
func (r WarpCounts) Efficiency() float64 { return ratio(r.UsefulBytes, r.MovedBytes()) }

// ReplayFactor is the average passes per shared-memory request: 1
// without conflicts, 32 when every request is a 32-way conflict.
func (r WarpCounts) ReplayFactor() float64 { return ratio(r.Wavefronts, r.Requests) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Site is one access site of a kernel: a load or store call in its source,
// with the requests the warps made there.
type Site struct {
	File  string     `json:"file"`  // the source file, its last two path elements ("lab/tiled.go")
	Line  int        `json:"line"`  // the line of the call
	Func  string     `json:"func"`  // the function it is in
	Kind  AccessKind `json:"kind"`  // what it does
	Array string     `json:"array"` // the array it accessed (the first, if several)
	WarpCounts
}

// Place writes the site as file:line, e.g. "lab/tiled.go:108".
func (s Site) Place() string { return fmt.Sprintf("%s:%d", s.File, s.Line) }

// Memory is the traffic of a launch as its warps moved it: requests,
// sectors and bank conflicts per kind of access, and per site.
type Memory struct {
	GlobalLoads  WarpCounts `json:"global_loads"`
	GlobalStores WarpCounts `json:"global_stores"`
	SharedLoads  WarpCounts `json:"shared_loads"`
	SharedStores WarpCounts `json:"shared_stores"`
	// Sites are the launch's access sites in source order (file, line,
	// kind).
	Sites []Site `json:"sites,omitempty"`
}

// Kind returns the counts of one kind of access.
func (m Memory) Kind(k AccessKind) WarpCounts {
	switch k {
	case GlobalLoad:
		return m.GlobalLoads
	case GlobalStore:
		return m.GlobalStores
	case SharedLoad:
		return m.SharedLoads
	case SharedStore:
		return m.SharedStores
	}
	return WarpCounts{}
}

// Global returns the global loads and stores together.
func (m Memory) Global() WarpCounts {
	r := m.GlobalLoads
	r.add(m.GlobalStores)
	return r
}

// Worst returns the site of kind k that does worst: for global memory the
// most sectors per request, for shared memory the most passes per request
// (ties: the most requests, then source order); false if the launch has
// no site of that kind.
func (m Memory) Worst(k AccessKind) (Site, bool) {
	var best Site
	found := false
	score := func(s Site) float64 {
		if k.Shared() {
			return s.ReplayFactor()
		}
		return s.SectorsPerRequest()
	}
	for _, s := range m.Sites {
		if s.Kind != k || s.Requests == 0 {
			continue
		}
		if !found || score(s) > score(best) || score(s) == score(best) && s.Requests > best.Requests {
			best, found = s, true
		}
	}
	return best, found
}

// String summarises the warps' traffic in a few lines.
func (m Memory) String() string {
	var b strings.Builder
	for k := range numKinds {
		r := m.Kind(k)
		if r.Requests == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s: %d requests, ", k, r.Requests)
		if k.Shared() {
			fmt.Fprintf(&b, "%.2f passes per request (%d bank conflicts)", r.ReplayFactor(), r.Conflicts)
		} else {
			fmt.Fprintf(&b, "%.2f sectors per request, %.1f %% of the moved bytes used", r.SectorsPerRequest(), 100*r.Efficiency())
		}
		if w, ok := m.Worst(k); ok {
			fmt.Fprintf(&b, "; worst site %s", w.Place())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// pcKey identifies the call path of an access by the return addresses of
// the frames above the simulator's accessor: the accessor's own frames
// (Shared3.Load, sharedArray.load), the kernel's line and one more, so
// that a kernel calling the accessors through a helper of its own still
// tells its call sites apart.
type pcKey [4]uintptr

// siteID is a site's index in the process-wide table of sites.
type siteID int32

// place is where an access site is and what it does.
type place struct {
	file string
	line int
	fn   string
	kind AccessKind
}

// sites is the process-wide table of access sites: found once from the
// call stack, then looked up by call path.
var sites struct {
	mu      sync.Mutex
	byKey   map[siteKey]siteID
	byPlace map[place]siteID
	list    []place
}

type siteKey struct {
	pcs  pcKey
	kind AccessKind
}

// simDir is the directory of the simulator's own source files, whose
// frames are not sites.
var simDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return path.Dir(file)
}()

// lookupSite returns the site of an access with call path k, called from
// warpCounter.site in warpCounter.access. On the first sight of k it walks
// the call stack from access to the first frame outside the simulator's
// own source files (its tests' files count as outside): the kernel's line.
func lookupSite(k pcKey, kind AccessKind) siteID {
	sites.mu.Lock()
	defer sites.mu.Unlock()
	key := siteKey{k, kind}
	if id, ok := sites.byKey[key]; ok {
		return id
	}
	pl := place{file: "?", kind: kind}
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.File != "" && !(path.Dir(f.File) == simDir && !strings.HasSuffix(f.File, "_test.go")) {
			pl.file, pl.line, pl.fn = shortFile(f.File), f.Line, shortFunc(f.Function)
			break
		}
		if !more {
			break
		}
	}
	if sites.byKey == nil {
		sites.byKey, sites.byPlace = map[siteKey]siteID{}, map[place]siteID{}
	}
	id, ok := sites.byPlace[pl]
	if !ok {
		id = siteID(len(sites.list))
		sites.list = append(sites.list, pl)
		sites.byPlace[pl] = id
	}
	sites.byKey[key] = id
	return id
}

func sitePlace(id siteID) place {
	sites.mu.Lock()
	defer sites.mu.Unlock()
	return sites.list[id]
}

// shortFile keeps the last two elements of a source path: "lab/tiled.go".
func shortFile(f string) string {
	dir, file := path.Split(f)
	return path.Join(path.Base(dir), file)
}

// shortFunc drops the package path of a function name:
// "lab.TiledKernel.func1".
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}

// warpCounter is a worker's part of the warp counting. It keeps the open
// requests of one warp at a time: the threads of a block run in order, so
// a warp's threads run one after the other and its requests are complete
// when a thread of another warp runs, or the block ends.
type warpCounter struct {
	cache [256]cacheEntry // call path → local site
	local []siteID        // local site → process-wide site
	count []WarpCounts    // per local site
	names []string        // per local site: the first array accessed

	occ      [][]int32 // per thread: executions of each local site in the block
	occBlock []int64   // per thread: the block (its blockStart) occ counts

	warp    int       // the warp whose requests are open; −1 for none
	recs    []request // its open requests
	indexed int       // recs[:indexed] are in byKey
	byKey   map[requestKey]int
	thread  int32 // the thread that made the last access
	pos     int   // where its next access is expected in recs
}

type cacheEntry struct {
	key  siteKey
	loc  int32
	full bool
}

// requestKey identifies one request of the open warp.
type requestKey struct {
	loc int32 // local site
	occ int32 // execution of the site
	g   *Global
	a   *sharedArray
}

// request is one warp instruction being gathered: the elements its
// threads accessed.
type request struct {
	requestKey
	n   int
	idx [WarpSize]int
}

func (c *warpCounter) init(threads int) {
	c.occ = make([][]int32, threads)
	c.occBlock = make([]int64, threads)
	for i := range c.occBlock {
		c.occBlock[i] = -1
	}
	c.warp = -1
	c.thread = -1
}

// access counts one access by t of element idx of g (global) or a
// (shared). It is called from the accessors, after the index is checked.
func (c *warpCounter) access(t *Thread, kind AccessKind, g *Global, a *sharedArray, idx int) {
	var key siteKey
	callerKey(&key.pcs)
	key.kind = kind
	loc := c.site(&key)
	w := t.w
	tid := t.id
	if c.occBlock[tid] != w.blockStart {
		clear(c.occ[tid])
		c.occBlock[tid] = w.blockStart
	}
	occ := c.occ[tid]
	if int(loc) >= len(occ) {
		occ = append(occ, make([]int32, int(loc)+1-len(occ))...)
		c.occ[tid] = occ
	}
	n := occ[loc]
	occ[loc]++
	if warp := int(tid) / WarpSize; warp != c.warp {
		c.flush()
		c.warp = warp
	}
	if tid != c.thread {
		c.thread, c.pos = tid, 0
	}
	rk := requestKey{loc: loc, occ: n, g: g, a: a}
	i := c.pos
	if i >= len(c.recs) || c.recs[i].requestKey != rk {
		i = c.find(rk)
	}
	r := &c.recs[i]
	r.idx[r.n] = idx
	r.n++
	c.pos = i + 1
}

// site returns the local site of a call path. The cache is an open
// addressing table that never evicts: a kernel has a few dozen sites.
func (c *warpCounter) site(key *siteKey) int32 {
	p := &key.pcs
	h := uint64(key.kind)
	for i := range p {
		h = (h ^ uint64(p[i])) * 0x9E3779B97F4A7C15
	}
	var e *cacheEntry
	for probe := range len(c.cache) {
		e = &c.cache[(h>>56+uint64(probe))%uint64(len(c.cache))]
		if !e.full {
			break
		}
		// Compared field by field: the generated comparison of the
		// whole key is a call, on every access.
		q := &e.key.pcs
		if q[0] == p[0] && q[1] == p[1] && q[2] == p[2] && q[3] == p[3] && e.key.kind == key.kind {
			return e.loc
		}
		e = nil // the table is full: look the site up every time
	}
	id := lookupSite(key.pcs, key.kind)
	loc := int32(slices.Index(c.local, id))
	if loc < 0 {
		loc = int32(len(c.local))
		c.local = append(c.local, id)
		c.count = append(c.count, WarpCounts{})
		c.names = append(c.names, "")
	}
	if e != nil {
		*e = cacheEntry{key: *key, loc: loc, full: true}
	}
	return loc
}

// find returns the index of the open request rk, adding it if it is new.
func (c *warpCounter) find(rk requestKey) int {
	if len(c.recs) <= 16 {
		for i := range c.recs {
			if c.recs[i].requestKey == rk {
				return i
			}
		}
		c.recs = append(c.recs, request{requestKey: rk})
		return len(c.recs) - 1
	}
	if c.byKey == nil {
		c.byKey = map[requestKey]int{}
	}
	for ; c.indexed < len(c.recs); c.indexed++ {
		c.byKey[c.recs[c.indexed].requestKey] = c.indexed
	}
	if i, ok := c.byKey[rk]; ok {
		return i
	}
	c.recs = append(c.recs, request{requestKey: rk})
	return len(c.recs) - 1
}

// endBlock closes the requests of the block that just ended.
func (c *warpCounter) endBlock() {
	c.flush()
	c.warp, c.thread = -1, -1
}

// flush counts the open requests of the current warp and forgets them.
func (c *warpCounter) flush() {
	for i := range c.recs {
		r := &c.recs[i]
		cnt := &c.count[r.loc]
		if c.names[r.loc] == "" {
			if r.g != nil {
				c.names[r.loc] = r.g.Name
			} else if r.a != nil {
				c.names[r.loc] = r.a.name
			}
		}
		if r.a != nil {
			cnt.add(sharedRequest(r.idx[:r.n]))
		} else {
			cnt.add(globalRequest(r.idx[:r.n]))
		}
	}
	c.recs = c.recs[:0]
	if c.indexed > 0 {
		clear(c.byKey)
		c.indexed = 0
	}
	c.pos = 0
}

// globalRequest counts one warp request to global memory of the elements
// idx (in any order, repeats allowed), the array starting on a sector
// boundary as cudaMalloc's do. It sorts idx.
func globalRequest(idx []int) WarpCounts {
	slices.Sort(idx)
	r := WarpCounts{Requests: 1, Threads: int64(len(idx))}
	prevWord, prevSector, prevLine := -1, -1, -1
	for _, i := range idx {
		if i != prevWord {
			r.UsefulBytes += ElemBytes
			prevWord = i
		}
		if s := i >> sectorShift; s != prevSector {
			r.Sectors++
			prevSector = s
		}
		if l := i >> lineShift; l != prevLine {
			r.Lines++
			prevLine = l
		}
	}
	return r
}

// sharedRequest counts one warp request to shared memory of the elements
// idx of one array: the distinct words in each of the 32 banks, the
// largest of which is the passes the request takes (repeated words are
// broadcast). It sorts idx.
func sharedRequest(idx []int) WarpCounts {
	slices.Sort(idx)
	r := WarpCounts{Requests: 1, Threads: int64(len(idx))}
	var perBank [Banks]int
	ways, prev := 0, -1
	for _, i := range idx {
		if i == prev {
			continue
		}
		prev = i
		r.UsefulBytes += ElemBytes
		b := i % Banks
		perBank[b]++
		ways = max(ways, perBank[b])
	}
	r.Wavefronts = int64(ways)
	r.Conflicts = int64(ways - 1)
	r.MaxWays = ways
	return r
}

// collectMemory merges the workers' per-site counts into a launch's Memory.
func collectMemory(ws []*worker) Memory {
	type acc struct {
		WarpCounts
		array string
	}
	bySite := map[siteID]*acc{}
	for _, w := range ws {
		c := &w.warps
		for loc, id := range c.local {
			a := bySite[id]
			if a == nil {
				a = &acc{}
				bySite[id] = a
			}
			a.add(c.count[loc])
			if a.array == "" {
				a.array = c.names[loc]
			}
		}
	}
	var m Memory
	for id, a := range bySite {
		if a.Requests == 0 {
			continue
		}
		pl := sitePlace(id)
		m.Sites = append(m.Sites, Site{File: pl.file, Line: pl.line, Func: pl.fn, Kind: pl.kind, Array: a.array, WarpCounts: a.WarpCounts})
		switch pl.kind {
		case GlobalLoad:
			m.GlobalLoads.add(a.WarpCounts)
		case GlobalStore:
			m.GlobalStores.add(a.WarpCounts)
		case SharedLoad:
			m.SharedLoads.add(a.WarpCounts)
		case SharedStore:
			m.SharedStores.add(a.WarpCounts)
		}
	}
	slices.SortFunc(m.Sites, func(a, b Site) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Kind, b.Kind))
	})
	return m
}

// WarpThreads returns the threads of warp w of a block of extents block,
// in lane order: linear thread indices 32w … 32w+31 (fewer in the last
// warp), x fastest, then y, then z.
func WarpThreads(block Dim3, w int) []Dim3 {
	n := block.Size()
	var ts []Dim3
	for r := w * WarpSize; r < min((w+1)*WarpSize, n); r++ {
		if r >= 0 {
			ts = append(ts, block.at(r))
		}
	}
	return ts
}

// CountGlobal counts one warp request to global memory of the elements
// idx (the lanes' indices into one float32 array that starts on a sector
// boundary), as Stats.Memory counts it: distinct sectors and lines, and
// the useful bytes. idx is left as it is.
func CountGlobal(idx []int) WarpCounts { return globalRequest(slices.Clone(idx)) }

// CountShared counts one warp request to shared memory of the elements
// idx of one float32 array, as Stats.Memory counts it: the passes the
// request takes through the 32 banks, and the conflicts. idx is left as it
// is.
func CountShared(idx []int) WarpCounts { return sharedRequest(slices.Clone(idx)) }

// SectorOf returns the 32-byte sector of element i of a float32 array
// that starts on a sector boundary.
func SectorOf(i int) int { return i >> sectorShift }

// BankOf returns the shared-memory bank of element i of a float32 array.
func BankOf(i int) int { return i % Banks }
