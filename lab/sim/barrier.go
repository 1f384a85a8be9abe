package sim

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Barrier sites. CUDA requires every thread of a block to reach the same
// __syncthreads: a block whose threads wait at different barriers, as in
//
//	if tx < 16 { t.Sync() } else { t.Sync() }
//
// has undefined behaviour, and hangs or corrupts shared memory on real
// hardware. Each Sync records where it was called (its caller's program
// counter, one word, callerPC); when every thread of a block waits, the simulator
// checks that they all wait at the same site, and reports a
// DivergentBarrier hazard naming the sites otherwise. Sites are resolved
// to file:line only for a report, once per program counter.

// DivergentBarrier: the threads of a block waited at different barrier
// sites (calls of Sync) in one barrier interval.
const DivergentBarrier HazardKind = Uninitialised + 1

// siteNames caches the file:line of each program counter reported.
var siteNames sync.Map // uintptr → string

// siteName writes a barrier site as file:line, e.g. "tiled.go:112".
func siteName(pc uintptr) string {
	if pc == 0 {
		return "an unknown site"
	}
	if s, ok := siteNames.Load(pc); ok {
		return s.(string)
	}
	frames := runtime.CallersFrames([]uintptr{pc})
	f, _ := frames.Next()
	s := "an unknown site"
	if f.File != "" {
		s = fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
	}
	siteNames.Store(pc, s)
	return s
}

// barrierRecord is a divergent barrier as a worker records it: the site
// of the block's first thread, how many threads waited there, and the
// other sites with their counts.
type barrierRecord struct {
	site    uintptr
	reached int
	others  []siteCount
}

type siteCount struct {
	site uintptr
	n    int
}

// checkBarrierSites records a DivergentBarrier hazard when the threads of
// the block, all waiting at a barrier, called Sync from different sites.
func (w *worker) checkBarrierSites() {
	first := w.threads[0].site
	same := true
	for _, t := range w.threads[1:] {
		if t.site != first {
			same = false
			break
		}
	}
	if same {
		return
	}
	counts := map[uintptr]int{}
	other := int32(-1)
	for _, t := range w.threads {
		counts[t.site]++
		if other < 0 && t.site != first {
			other = t.id
		}
	}
	rec := &barrierRecord{site: first, reached: counts[first]}
	for pc, n := range counts {
		if pc != first {
			rec.others = append(rec.others, siteCount{pc, n})
		}
	}
	sort.Slice(rec.others, func(a, b int) bool { return rec.others[a].site < rec.others[b].site })
	w.hazardCount.count(DivergentBarrier)
	if len(w.hazards) < maxReports {
		w.hazards = append(w.hazards, hazardRecord{kind: DivergentBarrier, block: w.blockID, thread: 0, other: other,
			interval: w.barriers, barrier: rec})
	}
}

// describe fills h's barrier fields from r.
func (r *barrierRecord) describe(h *Hazard) {
	h.Site = siteName(r.site)
	h.Reached = r.reached
	var parts []string
	for _, o := range r.others {
		s := siteName(o.site)
		if s == h.Site {
			s += " (another call on the same line)"
		}
		if len(r.others) > 1 {
			s += fmt.Sprintf(" (%d threads)", o.n)
		}
		parts = append(parts, s)
	}
	h.OtherSites = strings.Join(parts, ", ")
}

// barrierString describes a DivergentBarrier hazard, e.g.
//
//	barrier at tiled.go:31 reached by 16 threads of block (0,0,0), the others waited at tiled.go:33
func (h Hazard) barrierString() string {
	verb := "threads"
	if h.Reached == 1 {
		verb = "thread"
	}
	return fmt.Sprintf("divergent barriers: barrier at %s reached by %d %s of block %v, the others waited at %s",
		h.Site, h.Reached, verb, h.Block, h.OtherSites)
}
