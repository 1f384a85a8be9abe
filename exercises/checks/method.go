package checks

import (
	"fmt"
	"math"
	"strings"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The method checks of the kernel exercises 05 to 09. A correct kernel
// earns the correctness checks; the points for the technique the exercise
// teaches are paid only on evidence the grader measures itself with the
// simulator's counters, against ranges worked out here from the exercise's
// own tile and grid:
//
//   - global loads per output point, between what the outputs' stars need
//     (each block loads at least the points its own outputs read) and the
//     book's count for the tile (every point of every input tile once);
//   - shared memory: declared, stored to, and read back at least once for
//     each neighbour the technique reads from it, per output;
//   - barriers per block, in the range the technique's loop needs;
//   - threads per output: which threads store, and how many outputs each.
//
// And, for the kernels that tile, an audit run: the same case once more,
// with every value a thread reads back from shared memory rounded to a
// multiple of 1/4 (sim.Simulator.SharedReads). The outputs must then be
// the reference sweep with exactly the neighbours the technique reads
// from shared memory rounded: shared memory that is declared and never
// read, written and never read back, or read only for show (the values
// taken from a private copy) leaves the outputs as they were, or changes
// them otherwise, and costs the method points.

// auditStep is the rounding of an audit run: multiples of 1/4, far above
// float32's tolerance for inputs of order 1. Rounding is idempotent, so a
// value copied from one shared array to another (the coarsened kernel's
// planes) is rounded once.
const auditStep = 4

// auditRound is the audit run's sim.Simulator.SharedReads.
func auditRound(v float32) float32 { return float32(math.Round(float64(v)*auditStep) / auditStep) }

// term names the thirteen terms of the star, by coefficient.
var termNames = [star.Points]string{
	"(i, j, k)", "(i, j, k−1)", "(i, j, k+1)", "(i, j−1, k)", "(i, j+1, k)", "(i−1, j, k)", "(i+1, j, k)",
	"(i, j, k−2)", "(i, j, k+2)", "(i, j−2, k)", "(i, j+2, k)", "(i−2, j, k)", "(i+2, j, k)",
}

// sharedTerms returns the terms of an output that the technique reads
// from shared memory (required) and those it may read from shared memory
// or from the thread's own registers (optional): the centre, which the
// thread loaded itself, and, in register tiling, the four neighbours in z.
func (s kernelStep) sharedTerms() (required, optional []int) {
	switch s.kind {
	case tiledKind, coarsenedKind:
		return []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []int{0}
	case registerKind:
		return []int{1, 2, 3, 4, 7, 8, 9, 10}, []int{0, 5, 6, 11, 12}
	}
	return nil, nil
}

// technique names the exercise's technique for messages.
func (s kernelStep) technique() string {
	switch s.kind {
	case basicKind:
		return "the basic kernel (one thread per output point, its thirteen inputs loaded from global memory)"
	case tiledKind:
		return "shared-memory tiling (each input loaded once per block into a shared tile, the outputs computed from the tile)"
	case coarsenedKind:
		return "thread coarsening in z (a plane of threads marching through OUT_TILE_DIM output planes, five input planes in shared memory)"
	}
	return "register tiling (a plane of threads marching in z, the current plane in shared memory, the planes above and below in registers)"
}

// barrierRange is the number of barriers per block the technique needs:
// none for the basic kernel, one (or two) for the tiled kernel, and for
// a kernel marching through OUT_TILE_DIM planes one to two per plane,
// plus at most two around the loop.
func (s kernelStep) barrierRange(T int) (lo, hi int) {
	switch s.kind {
	case basicKind:
		return 0, 0
	case tiledKind:
		return 1, 2
	}
	return s.out(T), 2*s.out(T) + 2
}

// storesPerThread is the most outputs one thread writes: one, or one per
// plane of the output tile when the threads march in z.
func (s kernelStep) storesPerThread(T int) int {
	if s.kind == coarsenedKind || s.kind == registerKind {
		return s.out(T)
	}
	return 1
}

// storingThreads is the number of threads that write an output: one per
// output point, or, for the kernels marching in z, one per interior
// column of each block that holds output planes.
func (s kernelStep) storingThreads(sc *simCase) int64 {
	if s.storesPerThread(s.tileOf(sc.Tile)) == 1 {
		return sc.outputs()
	}
	T, r := s.tileOf(sc.Tile), star.Radius
	var zblocks int64
	for b := range s.blocks(sc.NZ, T) {
		lo, hi := b*s.out(T), b*s.out(T)+s.out(T)-1
		if max(lo, r) <= min(hi, sc.NZ-1-r) {
			zblocks++
		}
	}
	return zblocks * int64(max(0, sc.NY-2*r)) * int64(max(0, sc.NX-2*r))
}

// neededLoads is the fewest global loads of a kernel whose blocks each
// load the points their own outputs read: for every block, the union of
// the stars of its output points, a box of outputs with arms of two
// points along each axis, clipped to the grid. The basic kernel loads
// every input of every output: 13 per output.
func (s kernelStep) neededLoads(sc *simCase) int64 {
	if s.kind == basicKind {
		return star.Points * sc.outputs()
	}
	T, r := s.tileOf(sc.Tile), star.Radius
	// The output and extended ranges of the blocks along an axis of n.
	axis := func(n int) (outs, exts []int64) {
		for b := range s.blocks(n, T) {
			lo, hi := max(b*s.out(T), r), min(b*s.out(T)+s.out(T)-1, n-1-r)
			if lo > hi {
				outs, exts = append(outs, 0), append(exts, 0)
				continue
			}
			outs = append(outs, int64(hi-lo+1))
			exts = append(exts, int64(min(hi+r, n-1)-max(lo-r, 0)+1))
		}
		return outs, exts
	}
	oz, ez := axis(sc.NZ)
	oy, ey := axis(sc.NY)
	ox, ex := axis(sc.NX)
	var sum int64
	for bz := range oz {
		for by := range oy {
			for bx := range ox {
				z, y, x := oz[bz], oy[by], ox[bx]
				sum += ez[bz]*y*x + z*ey[by]*x + z*y*ex[bx] - 2*z*y*x
			}
		}
	}
	return sum
}

// largeGridLoads is the book's global loads per output of the technique
// on a grid much larger than the tile: 13 for the basic kernel,
// (IN_TILE_DIM/OUT_TILE_DIM)³ for the tiled one, and
// (IN_TILE_DIM/OUT_TILE_DIM)²·(OUT_TILE_DIM+4)/OUT_TILE_DIM for the ones
// that march in z.
func (s kernelStep) largeGridLoads(T int) float64 {
	in, out := float64(T), float64(s.out(T))
	switch s.kind {
	case basicKind:
		return star.Points
	case tiledKind:
		return math.Pow(in/out, 3)
	}
	return in * in / (out * out) * (out + 2*star.Radius) / out
}

// perOutput divides a count by the outputs of the case.
func perOutput(n int64, sc *simCase) float64 { return float64(n) / float64(max(1, sc.outputs())) }

// methodEvidence compares the counters of a run whose values were right
// with the ranges of the technique, and returns what is missing, in the
// student's numbers, or "" when everything is in range.
func (s kernelStep) methodEvidence(sc *simCase, st sim.Stats) string {
	T := s.tileOf(sc.Tile)
	out := sc.outputs()
	loads := perOutput(st.GlobalLoads, sc)
	lo, hi := s.neededLoads(sc), s.loads(sc)
	book := fmt.Sprintf("the %s kernel of this exercise makes %.1f on this grid", s.name, perOutput(hi, sc))
	if s.kind != basicKind {
		book += fmt.Sprintf(" and about %.1f on a large one (IN_TILE_DIM = %d, OUT_TILE_DIM = %d)", s.largeGridLoads(T), T, s.out(T))
	}
	switch {
	case st.GlobalLoads > hi:
		return fmt.Sprintf("your kernel makes %.1f global loads per output point; %s: use %s", loads, book, s.technique())
	case st.GlobalLoads < lo:
		return fmt.Sprintf("your kernel makes %.1f global loads per output point, fewer than the %.1f its outputs' inputs need when each block loads them itself (%s): a value may reach a thread only through global or shared memory",
			loads, perOutput(lo, sc), book)
	}
	required, _ := s.sharedTerms()
	switch {
	case s.kind == basicKind && (st.SharedBytesPerBlock > 0 || st.SharedLoads > 0 || st.SharedStores > 0):
		return fmt.Sprintf("your kernel declares %d bytes of shared memory per block: %s uses none", st.SharedBytesPerBlock, s.technique())
	case s.kind != basicKind && st.SharedBytesPerBlock == 0:
		return fmt.Sprintf("your kernel uses no shared memory; %s keeps %s", s.technique(), s.sharedHint())
	case s.kind != basicKind && st.SharedStores == 0:
		return fmt.Sprintf("your kernel declares %d bytes of shared memory per block but never stores to it: %s", st.SharedBytesPerBlock, s.technique())
	case st.SharedLoads < int64(len(required))*out:
		return fmt.Sprintf("your kernel reads %.1f values from shared memory per output point; %s reads at least %d, the neighbours %s",
			perOutput(st.SharedLoads, sc), s.technique(), len(required), termList(required))
	}
	blo, bhi := s.barrierRange(T)
	blocks := max(1, st.BlocksRun)
	barriers := float64(st.Intervals-st.BlocksRun) / float64(blocks)
	if barriers < float64(blo) || barriers > float64(bhi) {
		want := fmt.Sprintf("%d to %d", blo, bhi)
		if blo == bhi {
			want = fmt.Sprint(blo)
		}
		return fmt.Sprintf("your kernel's blocks wait at %.1f barriers (t.Sync) each; %s needs %s per block (IN_TILE_DIM = %d, OUT_TILE_DIM = %d)",
			barriers, s.technique(), want, T, s.out(T))
	}
	if per := int64(s.storesPerThread(T)); st.MaxStoresPerThread > per {
		return fmt.Sprintf("one thread of your kernel writes %d outputs; in %s a thread writes at most %d", st.MaxStoresPerThread, s.technique(), per)
	}
	if want := s.storingThreads(sc); st.StoringThreads != want {
		return fmt.Sprintf("%d threads of your kernel write outputs; %s has %d threads write the %d outputs of this grid", st.StoringThreads, s.technique(), want, out)
	}
	return ""
}

// termList writes the terms q of the star, "(i, j, k−1), (i, j, k+1)".
func termList(qs []int) string {
	names := make([]string, len(qs))
	for n, q := range qs {
		names[n] = termNames[q]
	}
	return strings.Join(names, ", ")
}

// gate fails t unless the counters of a run whose values were right show
// the technique and the audit run of the case reads shared memory as the
// technique does: the method, launch, traffic and barrier checks pay for
// a kernel of the exercise's technique only. It reports success.
func (s kernelStep) gate(t *grading.T, k submitted, sc *simCase, st sim.Stats) bool {
	if msg := s.methodEvidence(sc, st); msg != "" {
		return assert.Fail(t, "not the technique", fmt.Sprintf("%s: this check pays for %s only — %s", sc.describe(s.fn), s.technique(), msg))
	}
	return s.audit(t, k, sc)
}

// auditWant returns the output of a kernel that reads the terms in from
// shared memory, on the case, in an audit run: the reference sweep with
// those terms' inputs rounded as the audit rounds them.
func (sc *simCase) auditWant(t *grading.T, in []int) []float64 {
	var rounded, plain star.Coeffs
	for q := range star.Points {
		plain[q] = sc.C[q]
	}
	for _, q := range in {
		rounded[q], plain[q] = sc.C[q], 0
	}
	r := sc.src.Clone()
	for i, v := range r.Data {
		r.Data[i] = auditRound(v)
	}
	a := sc.dst.Clone()
	b := sc.dst.Clone()
	if err := lab.Sweep3(a, r, lab.ThirteenPoint(rounded)); err != nil {
		t.Fatalf("the reference failed: %v", err)
	}
	if err := lab.Sweep3(b, sc.src, lab.ThirteenPoint(plain)); err != nil {
		t.Fatalf("the reference failed: %v", err)
	}
	interior := sc.interior()
	want := grading.Float64s(sc.dst.Data)
	for idx := range want {
		if interior(idx) {
			want[idx] = float64(a.Data[idx]) + float64(b.Data[idx])
		}
	}
	return want
}

// audit runs k once more on the case with the shared reads rounded, and
// fails t unless its outputs are the reference with the technique's
// shared terms rounded (the optional ones either way). It reports success.
func (s kernelStep) audit(t *grading.T, k submitted, sc *simCase) bool {
	required, optional := s.sharedTerms()
	if len(required) == 0 {
		return true
	}
	what := sc.describe(s.fn)
	a := *sc
	a.audit = true
	got, st, err := a.run(k)
	if launchError(t, what+", the audit run (shared reads rounded to a multiple of 1/4)", err, st) {
		return false
	}
	g := grading.Float64s(got.Data)
	matches := func(want []float64) int {
		n := 0
		for idx := range want {
			if closeTo(g[idx], want[idx]) {
				n++
			}
		}
		return n
	}
	best := 0
	for mask := range 1 << len(optional) {
		in := append([]int(nil), required...)
		for n, q := range optional {
			if mask&(1<<n) != 0 {
				in = append(in, q)
			}
		}
		m := matches(sc.auditWant(t, in))
		if m == len(g) {
			return true
		}
		best = max(best, m)
	}
	unchanged := matches(grading.Float64s(sc.want.Data))
	interior := sc.outputs()
	if unchanged == len(g) {
		return assert.Fail(t, "shared memory read for show", fmt.Sprintf("%s: in a second run in which every value your kernel read back from shared memory was rounded to a multiple of 1/4, none of its %d outputs changed: they do not come from shared memory — %s reads the neighbours %s from shared memory",
			what, interior, s.technique(), termList(required)))
	}
	return assert.Fail(t, "shared memory not used as the technique uses it", fmt.Sprintf("%s: in a second run in which every value your kernel read back from shared memory was rounded to a multiple of 1/4, %d of the %d points of the grid changed as they would if the neighbours %s were read from shared memory, and the others did not — %s reads them from shared memory for every output",
		what, best, len(g), termList(required), s.technique()))
}

// method is the method check: on random cases, a run whose values are
// right, counters in the technique's ranges, and the audit run.
func (s kernelStep) method(t *grading.T, k submitted, trials, maxN int) {
	for range trials {
		sc := s.randomCase(t, maxN)
		_, st, ok := sc.verified(t, s.fn, k, s.variants(sc)...)
		if !ok || !s.gate(t, k, sc, st) {
			return
		}
	}
}

// methodTitle says what the method check looks at.
func (s kernelStep) methodTitle() string {
	switch s.kind {
	case basicKind:
		return "the technique, measured by the simulator: one thread per output point, 13 global loads per output, no shared memory and no barrier, on a run whose values are right"
	case tiledKind:
		return "the technique, measured by the simulator: global loads per output at most the tile's (IN/OUT)³, the 13 inputs read back from the shared tile (an audit run rounds what shared memory returns), one barrier per block, one output per thread"
	case coarsenedKind:
		return "the technique, measured by the simulator: global loads per output at most the tile's, the 13 inputs read back from the five shared planes (an audit run rounds what shared memory returns), one or two barriers per plane, a thread per column writing its planes"
	}
	return "the technique, measured by the simulator: global loads per output at most the tile's, the 8 in-plane neighbours read back from the shared plane (an audit run rounds what shared memory returns) and z from registers, one or two barriers per plane, a thread per column writing its planes"
}

// closeTo reports whether got is within the float32 tolerance of want, NaN
// matching NaN only.
func closeTo(got, want float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	tol := grading.Float32
	return math.Abs(got-want) <= tol.Abs+tol.Rel*math.Abs(want)
}
