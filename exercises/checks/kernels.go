package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// The kernel exercises 05 to 08 apply the chapter's techniques (the basic
// kernel, shared-memory tiling, thread coarsening, register tiling) to the
// thirteen-point star of radius 2 (Fig. 8.3D), which the lab does not
// ship as a kernel. Each exercise is declared once below, with the closed
// forms of its launch and of its traffic, which the checks compare with
// what the simulator counted.

// kernelKind is the technique of a kernel exercise.
type kernelKind int

const (
	basicKind     kernelKind = iota // one thread per point, blocks of B×B×B
	tiledKind                       // a 3D shared tile, a thread per input-tile point
	coarsenedKind                   // a plane of threads marching in z, five shared planes
	registerKind                    // a plane of threads marching in z, one shared plane, four in registers
)

// kernelStep is one kernel exercise.
type kernelStep struct {
	number      int        // the exercise's number
	name        string     // the folder's topic and the file's stem, e.g. "tiled"
	fn          string     // the student's function, e.g. "Tiled"
	title       string     // the exercise's title
	kind        kernelKind // the technique
	defaultTile int        // the tile taken when Args.Tile is 0
	tiles       []int      // the tiles the random cases draw from (0: the default)
}

// kernelSteps returns the kernel exercises in order.
func kernelSteps() []kernelStep {
	return []kernelStep{
		{number: 5, name: "basic", fn: "Basic", kind: basicKind, defaultTile: star.BasicBlockDim,
			title: "The basic thirteen-point kernel on the simulator (Figs. 8.3D, 8.6)", tiles: []int{0, 3, 4, 5, 6, 7}},
		{number: 6, name: "tiled", fn: "Tiled", kind: tiledKind, defaultTile: star.TiledDefaultTile,
			title: "The thirteen-point kernel with a shared tile and a halo of two (Figs. 8.3D, 8.8)", tiles: []int{0, 5, 6, 7, 9}},
		{number: 7, name: "coarsened", fn: "Coarsened", kind: coarsenedKind, defaultTile: star.CoarsenedDefaultTile,
			title: "The thirteen-point kernel coarsened in z, five planes in shared memory (Figs. 8.3D, 8.10)", tiles: []int{5, 6, 7, 8, 10}},
		{number: 8, name: "register_tiled", fn: "RegisterTiled", kind: registerKind, defaultTile: star.CoarsenedDefaultTile,
			title: "The thirteen-point kernel with register tiling in z (Figs. 8.3D, 8.12)", tiles: []int{5, 6, 7, 8, 10}},
	}
}

// lookupKernelStep returns the kernel exercise of a topic ("tiled").
func lookupKernelStep(name string) (kernelStep, error) {
	for _, s := range kernelSteps() {
		if s.name == name {
			return s, nil
		}
	}
	return kernelStep{}, fmt.Errorf("checks: no kernel exercise %q (basic, tiled, coarsened, register_tiled)", name)
}

// id is the exercise's folder, e.g. "06_tiled".
func (s kernelStep) id() string { return fmt.Sprintf("%02d_%s", s.number, s.name) }

// kernelDecls declares the kernel exercises 05 to 08, by topic, one from
// each of kernelSteps.
var kernelDecls = func() map[string]*Decl[kernelFuncs] {
	out := map[string]*Decl[kernelFuncs]{}
	for _, s := range kernelSteps() {
		out[s.name] = declare(&Decl[kernelFuncs]{
			ID: s.id(), Title: s.title, Files: []string{s.name + ".go"}, Allow: kernel,
			Checks: func(fn kernelFuncs) []grading.Check {
				k := submitted{funcs: fn}
				if s.kind == basicKind {
					return basicChecks(s, k)
				}
				return tiledChecks(s, k)
			},
		})
	}
	return out
}()

// exercise returns the exercise with checks on k.
func (s kernelStep) exercise(k submitted) grading.Exercise {
	return kernelDecls[s.name].Exercise(k.kernelFuncs())
}

// KernelExercise returns the kernel exercise of a topic (basic, tiled,
// coarsened, register_tiled), checking the student's kernel k. An unknown
// topic gives an exercise whose one check fails with the reason.
func KernelExercise(name string, k star.Kernel) grading.Exercise {
	s, err := lookupKernelStep(name)
	if err != nil {
		return grading.Exercise{ID: name, Title: "unknown exercise " + name, Checks: []grading.Check{
			{ID: "exercise", Title: "the exercise exists", Points: 1, Run: func(t *grading.T) { t.Errorf("%v", err) }},
		}}
	}
	return s.exercise(submitted{local: k})
}

// tileOf returns the tile a case runs with: its own, or the default.
func (s kernelStep) tileOf(tile int) int {
	if tile == 0 {
		return s.defaultTile
	}
	return tile
}

// out is OUT_TILE_DIM for the input tile T: T − 2·radius (the basic
// kernel's block edge itself).
func (s kernelStep) out(T int) int {
	if s.kind == basicKind {
		return T
	}
	return T - 2*star.Radius
}

// blocks is the number of blocks along an axis of n points: ⌈n/B⌉ for
// the basic kernel; (n−3)/OUT_TILE_DIM + 1 for the tiled ones, whose
// block b computes the points b·OUT_TILE_DIM … b·OUT_TILE_DIM+OUT_TILE_DIM−1
// and must reach the last interior point, n−3.
func (s kernelStep) blocks(n, T int) int {
	if s.kind == basicKind {
		return (n + T - 1) / T
	}
	return (n-1-star.Radius)/s.out(T) + 1
}

// geometry is the launch the exercise asks for on the case.
func (s kernelStep) geometry(sc *simCase) (grid, block sim.Dim3) {
	T := s.tileOf(sc.Tile)
	grid = sim.Dim3{X: s.blocks(sc.NX, T), Y: s.blocks(sc.NY, T), Z: s.blocks(sc.NZ, T)}
	switch s.kind {
	case basicKind, tiledKind:
		block = sim.Dim3{X: T, Y: T, Z: T}
	default:
		block = sim.Dim3{X: T, Y: T, Z: 1}
	}
	return grid, block
}

// sharedBytes is the shared memory of a block: none for the basic
// kernel, the IN_TILE_DIM³ tile, five IN_TILE_DIM² planes (z−2 … z+2), or
// the one plane of register tiling, in float32.
func (s kernelStep) sharedBytes(T int) int {
	switch s.kind {
	case tiledKind:
		return 4 * T * T * T
	case coarsenedKind:
		return 4 * (2*star.Radius + 1) * T * T
	case registerKind:
		return 4 * T * T
	}
	return 0
}

// tileLoads is the number of points of the input tiles along an axis of n
// points that lie in the grid, summed over the blocks: block b's input
// tile is b·OUT_TILE_DIM − 2 … b·OUT_TILE_DIM − 2 + IN_TILE_DIM − 1.
func (s kernelStep) tileLoads(n, T int) int64 {
	var sum int64
	for b := range s.blocks(n, T) {
		lo := b*s.out(T) - star.Radius
		sum += int64(max(0, min(n, lo+T)-max(0, lo)))
	}
	return sum
}

// loads is the number of global loads of the case: 13 per output for the
// basic kernel; for the tiled ones, every point of every block's input
// tile (every plane iStart−2 … iStart+OUT_TILE_DIM+1 of its columns, when
// coarsened) that lies in the grid, once.
func (s kernelStep) loads(sc *simCase) int64 {
	if s.kind == basicKind {
		return star.Points * sc.outputs()
	}
	T := s.tileOf(sc.Tile)
	return s.tileLoads(sc.NZ, T) * s.tileLoads(sc.NY, T) * s.tileLoads(sc.NX, T)
}

// loadHint says how the loads are counted.
func (s kernelStep) loadHint() string {
	switch s.kind {
	case basicKind:
		return "a thread at an interior point loads its 13 inputs once each, and no other thread loads"
	case tiledKind:
		return "every thread loads its own point of the input tile once, when the point is in the grid (0 ≤ i, j, k < N), and the outputs read only shared memory"
	}
	return "every thread loads its own column's point of each plane iStart−2 … iStart+OUT_TILE_DIM+1 once, when the point is in the grid, and the outputs read the other points from shared memory or registers"
}

// sharedHint says what the shared memory of a block is.
func (s kernelStep) sharedHint() string {
	switch s.kind {
	case basicKind:
		return "the basic kernel uses no shared memory"
	case tiledKind:
		return "one IN_TILE_DIM×IN_TILE_DIM×IN_TILE_DIM array of float32, 4·IN_TILE_DIM³ bytes"
	case coarsenedKind:
		return "five IN_TILE_DIM×IN_TILE_DIM planes of float32 (z−2 … z+2), 20·IN_TILE_DIM² bytes"
	}
	return "one IN_TILE_DIM×IN_TILE_DIM plane of float32, the current plane, 4·IN_TILE_DIM² bytes: the planes at distance 1 and 2 in z are a thread's own variables (registers)"
}

// blockHint says how a block is made.
func (s kernelStep) blockHint() string {
	switch s.kind {
	case basicKind:
		return fmt.Sprintf("blocks of B×B×B threads, B = a.Tile, or star.BasicBlockDim (%d) when a.Tile is 0", s.defaultTile)
	case tiledKind:
		return fmt.Sprintf("one thread per point of the input tile: IN_TILE_DIM×IN_TILE_DIM×IN_TILE_DIM threads, IN_TILE_DIM = a.Tile, or %d when a.Tile is 0", s.defaultTile)
	}
	return fmt.Sprintf("one thread per column of the input tile: IN_TILE_DIM×IN_TILE_DIM×1 threads, IN_TILE_DIM = a.Tile, or %d when a.Tile is 0", s.defaultTile)
}

// gridHint says how the grid is made.
func (s kernelStep) gridHint() string {
	if s.kind == basicKind {
		return "one thread per grid point: ⌈n/B⌉ = (n+B−1)/B blocks along each axis of n points"
	}
	return "(n−3)/OUT_TILE_DIM + 1 blocks along each axis of n points, OUT_TILE_DIM = IN_TILE_DIM − 4, so that the output tiles cover the interior 2 … n−3"
}

// checkLaunch runs k on the case, verifies its output and the technique's
// counters (gate) and then compares its grid and block with the closed
// form.
func (s kernelStep) checkLaunch(t *grading.T, k submitted, sc *simCase, extra ...grading.Variant) bool {
	_, st, ok := sc.verified(t, s.fn, k, extra...)
	if !ok {
		return false
	}
	what := sc.describe(s.fn)
	grid, block := s.geometry(sc)
	if st.Block != block {
		t.Errorf("%s: blockDim is %s, want %s — %s", what, dims(st.Block), dims(block), s.blockHint())
		return false
	}
	if st.Grid != grid {
		t.Errorf("%s: gridDim is %s, want %s — %s", what, dims(st.Grid), dims(grid), s.gridHint())
		return false
	}
	return s.gate(t, k, sc, st)
}

// checkTraffic runs k on the case, verifies its output and the
// technique's counters (gate) and then compares what the simulator
// counted with the closed forms.
func (s kernelStep) checkTraffic(t *grading.T, k submitted, sc *simCase, extra ...grading.Variant) bool {
	_, st, ok := sc.verified(t, s.fn, k, extra...)
	if !ok || !s.gate(t, k, sc, st) {
		return false
	}
	out := sc.outputs()
	return compareCounters(t, sc.describe(s.fn), []counter{
		{"global loads", st.GlobalLoads, s.loads(sc), s.loadHint()},
		{"global stores", st.GlobalStores, out, "each interior point is written once, by one thread, and nothing else is"},
		{"shared memory per block (bytes)", int64(st.SharedBytesPerBlock), int64(s.sharedBytes(s.tileOf(sc.Tile))), s.sharedHint()},
		{"operations reported with t.Flops", st.Flops, star.Flops * out,
			"did you count 25 operations per output, 13 multiplies and 12 adds? Call t.Flops(star.Flops) once for each output a thread writes"},
	})
}
