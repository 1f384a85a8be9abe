package cudacheck

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// Env is what the checks of one submission share, in the grader: the
// channel to the child that compiles and launches the student's kernel,
// and what the checks found. The checks draw the inputs, compute the
// reference on the CPU and compare: the child only answers raw outputs and
// times.
type Env struct {
	Spec   Spec
	Source string
	// Device is the GPU's name, as the child found it.
	Device string
	// FreeBefore is the GPU memory free before the submission was
	// compiled, in bytes.
	FreeBefore uint64

	call     func(req request, want int) (response, []float32, error)
	compiled map[int]error
	perf     *perfResult
	perfN    int           // the side around which the timed grid is drawn
	fresh    func() uint64 // seeds of the timed run
	// fatal is a fault or a hang, met during check fatalIn: the exercise
	// scores 0.
	fatal   error
	fatalIn string
	current string // the check running
	// Passed records the checks that passed so far: speed counts only for
	// a correct kernel.
	Passed map[string]bool
	// Metrics are added to the exercise's result.
	Metrics map[string]float64
	// Notes are added to the exercise's message.
	Notes []string

	sent []sentRequest // the graded run's requests, for the sanitizer
	ptx  string        // the PTX the method check read
}

type perfResult struct {
	kernelMs, copyMs float64
	err              error
}

// newEnv returns the environment of a submission whose requests call
// answers.
func newEnv(s Spec, source string, call func(request, int) (response, []float32, error), perfN int, fresh func() uint64) *Env {
	return &Env{Spec: s, Source: source, call: call, compiled: map[int]error{}, perfN: perfN, fresh: fresh,
		Metrics: map[string]float64{}, Passed: map[string]bool{}}
}

// challengeDims are the launch macros of the challenge file.
var challengeDims = []string{"BLOCK_X", "BLOCK_Y", "BLOCK_Z", "TILE_X", "TILE_Y", "TILE_Z"}

var defineRE = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+([A-Z_]+)[ \t]+\(?[ \t]*(\d+)[ \t]*\)?[ \t]*(?://.*)?$`)

// ChallengeLaunch reads the challenge file's launch: blocks of
// BLOCK_X×BLOCK_Y×BLOCK_Z threads, each covering TILE_X×TILE_Y×TILE_Z
// points of the grid (whole grid, boundary included), so that the grid
// has ⌈nx/TILE_X⌉×⌈ny/TILE_Y⌉×⌈nz/TILE_Z⌉ blocks. Each is a plain
// "#define NAME number" line.
func ChallengeLaunch(src string) (block, tile [3]int, err error) {
	vals := map[string]int{}
	for _, m := range defineRE.FindAllStringSubmatch(src, -1) {
		v, err := strconv.Atoi(m[2])
		if err == nil {
			vals[m[1]] = v
		}
	}
	for i, name := range challengeDims {
		v, ok := vals[name]
		if !ok {
			return block, tile, fmt.Errorf("challenge.cu must give its launch as lines \"#define %s number\" (%v): %s is missing", name, challengeDims, name)
		}
		if v < 1 || v > 1<<20 {
			return block, tile, fmt.Errorf("challenge.cu: %s = %d must be between 1 and %d", name, v, 1<<20)
		}
		if i < 3 {
			block[i] = v
		} else {
			tile[i-3] = v
		}
	}
	return block, tile, nil
}

// geometry returns the launch of the exercise's kernel with tile.
func geometry(s Spec, source string, tile int) (func(nz, ny, nx int) (gpu.Geometry, error), error) {
	if s.Shape != FromFile {
		if tile == 0 {
			tile = s.Tile
		}
		if tile < s.MinTile {
			return nil, fmt.Errorf("%s: tile %d is below the smallest, %d (an input tile of IN_TILE_DIM = %d leaves no output with a halo of %d)", s.File, tile, s.MinTile, tile, Radius)
		}
		shape := s.Shape
		return func(nz, ny, nx int) (gpu.Geometry, error) { return Geometry13(shape, tile, nz, ny, nx), nil }, nil
	}
	block, t, err := ChallengeLaunch(source)
	if err != nil {
		return nil, err
	}
	return func(nz, ny, nx int) (gpu.Geometry, error) {
		return gpu.Geometry{Block: block, Grid: [3]int{ceil(nx, t[0]), ceil(ny, t[1]), ceil(nz, t[2])}}, nil
	}, nil
}

func ceil(a, b int) int { return (a + b - 1) / b }

// Geometry13 returns the launch of a thirteen-point kernel of the shape on
// an nz×ny×nx grid with tile (the block edge, or IN_TILE_DIM).
func Geometry13(shape Shape, tile, nz, ny, nx int) gpu.Geometry {
	out := tile - 2*Radius
	tiles := func(n int) int { return (n-1-Radius)/out + 1 }
	switch shape {
	case PerPoint:
		return gpu.Geometry{Block: [3]int{tile, tile, tile}, Grid: [3]int{ceil(nx, tile), ceil(ny, tile), ceil(nz, tile)}}
	case Tile3:
		return gpu.Geometry{Block: [3]int{tile, tile, tile}, Grid: [3]int{tiles(nx), tiles(ny), tiles(nz)}}
	default:
		return gpu.Geometry{Block: [3]int{tile, tile, 1}, Grid: [3]int{tiles(nx), tiles(ny), tiles(nz)}}
	}
}

// Kernel compiles the student's file with tile (0: the default), once, in
// the child.
func (e *Env) Kernel(tile int) error {
	if err, ok := e.compiled[tile]; ok {
		return err
	}
	_, _, err := e.call(request{Op: opCompile, Tile: tile}, -1)
	e.compiled[tile] = err
	return err
}

// do sends req and returns the answer's floats, exactly want of them.
func (e *Env) do(req request, want int) (response, []float32, error) {
	if e.fatal != nil {
		return response{}, nil, e.fatal
	}
	return e.call(req, want)
}

// must fails the check on err; a fault, a hang or a child that died ends
// the exercise (it scores 0).
func (e *Env) must(t *grading.T, err error, what string) {
	if err == nil {
		return
	}
	var fe *faultError
	var he *hungError
	var de *diedError
	if errors.As(err, &fe) || errors.As(err, &he) || errors.As(err, &de) {
		if e.fatal == nil {
			e.fatal, e.fatalIn = err, e.current
		}
	}
	t.Fatalf("%s: %v", what, err)
}

// randomCoeffs draws thirteen distinct coefficients in [0.05, 0.5).
func randomCoeffs(t *grading.T) Coeffs13 {
	return distinctCoeffs(t.Rand(), 0.01)
}

// distinctCoeffs draws thirteen coefficients in [0.05, 0.5), each at least
// gap from every other.
func distinctCoeffs(r *rand.Rand, gap float64) Coeffs13 {
	for {
		var c Coeffs13
		for i := range c {
			c[i] = 0.05 + 0.45*r.Float64()
		}
		if distinct(c, gap) {
			return c
		}
	}
}

func distinct(c Coeffs13, gap float64) bool {
	for i := range c {
		for j := range i {
			if math.Abs(c[i]-c[j]) < gap {
				return false
			}
		}
	}
	return true
}

// input is a grid drawn from a seed (inputValue), varying along every axis
// or along one only: the child draws it on its side, the grader computes
// the reference from it.
type input struct {
	*lab.Grid3[float32]
	seed  uint64
	along string
}

// seededGrid returns the nz×ny×nx grid drawn from seed.
func seededGrid(nz, ny, nx int, seed uint64) (input, error) {
	return seededAlong(nz, ny, nx, seed, "")
}

// seededAlong returns the nz×ny×nx grid drawn from seed that varies along
// the axis along ("x", "y" or "z"; "": every axis).
func seededAlong(nz, ny, nx int, seed uint64, along string) (input, error) {
	g, err := lab.NewGrid3[float32](nz, ny, nx)
	if err != nil {
		return input{}, err
	}
	if err := fillAlong(g.Data, seed, 0, along, ny, nx); err != nil {
		return input{}, err
	}
	return input{g, seed, along}, nil
}

// randomGrid returns an nz×ny×nx grid of values in [−1, 1), drawn from a
// seed of t's, varying along the axis along ("": every axis).
func randomGrid(t *grading.T, nz, ny, nx int, along ...string) input {
	a := ""
	if len(along) > 0 {
		a = along[0]
	}
	in, err := seededAlong(nz, ny, nx, t.Rand().Uint64(), a)
	if err != nil {
		t.Fatalf("grid %d×%d×%d: %v", nz, ny, nx, err)
	}
	return in
}

// sweep runs the student's kernel with tile on in (drawn by the child from
// its seed), the output poisoned with NaN first, and returns the output.
func (e *Env) sweep(t *grading.T, tile int, in input, c Coeffs13) []float32 {
	e.must(t, e.Kernel(tile), "compile")
	_, out, err := e.do(request{Op: opSweep, Tile: tile, Dims: [3]int{in.NZ, in.NY, in.NX}, Seed: in.seed, Along: in.along, Coeffs: c[:]}, len(in.Data))
	e.must(t, err, fmt.Sprintf("launch on a %d×%d×%d grid", in.NZ, in.NY, in.NX))
	return out
}

// sweep13 writes the thirteen-point sweep of src into dst: lab.Sweep3 with
// lab.ThirteenPoint, on a grid with an interior; nothing on one without.
func sweep13(dst, src *lab.Grid3[float32], c Coeffs13) error {
	if src.NZ < 2*Radius+1 || src.NY < 2*Radius+1 || src.NX < 2*Radius+1 {
		return nil
	}
	return lab.Sweep3(dst, src, lab.ThirteenPoint(c))
}

// reference is the thirteen-point sweep of in with c, the boundary NaN
// (not an output: a kernel must leave it alone).
func reference(t *grading.T, in input, c Coeffs13) []float64 {
	ref, _ := lab.NewGrid3[float32](in.NZ, in.NY, in.NX)
	for i := range ref.Data {
		ref.Data[i] = float32(math.NaN())
	}
	if err := sweep13(ref, in.Grid3, c); err != nil {
		t.Fatalf("reference: %v", err)
	}
	return grading.Float64s(ref.Data)
}

// tol is the float32 tolerance: the order of the thirteen products may
// differ, and NVRTC contracts them into fused multiply-adds.
var tol = grading.Tol{Abs: 2e-5, Rel: 2e-5}

// interiorOf reports whether the flat index idx of an nz×ny×nx grid is an
// interior point of the thirteen-point star.
func interiorOf(nz, ny, nx int) func(idx int) bool {
	return func(idx int) bool {
		i, j, k := idx/(ny*nx), idx/nx%ny, idx%nx
		return i >= Radius && i < nz-Radius && j >= Radius && j < ny-Radius && k >= Radius && k < nx-Radius
	}
}

// mirrors are the coefficients of opposite neighbours, which a kernel may
// exchange by mistake.
var mirrors = [][2]int{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}}

// neighbour names the input each coefficient multiplies.
var neighbour = [Points]string{"(i, j, k)", "(i, j, k−1)", "(i, j, k+1)", "(i, j−1, k)", "(i, j+1, k)", "(i−1, j, k)", "(i+1, j, k)",
	"(i, j, k−2)", "(i, j, k+2)", "(i, j−2, k)", "(i, j+2, k)", "(i−2, j, k)", "(i+2, j, k)"}

// compare checks one sweep of in with c against the reference, naming
// the known mistakes of the chapter's kernels.
func (e *Env) compare(t *grading.T, tile int, in input, c Coeffs13) bool {
	got := grading.Float64s(e.sweep(t, tile, in, c))
	want := reference(t, in, c)
	what := fmt.Sprintf("%s on %d×%d×%d", e.Spec.File, in.NZ, in.NY, in.NX)
	if tile != 0 {
		what += fmt.Sprintf(", tile %d", tile)
	}
	interior := interiorOf(in.NZ, in.NY, in.NX)
	var variants []grading.Variant
	for _, m := range mirrors {
		sw := c
		sw[m[0]], sw[m[1]] = c[m[1]], c[m[0]]
		variants = append(variants, grading.Variant{Hint: fmt.Sprintf("are c%d and c%d exchanged? c%d multiplies in%s and c%d in%s",
			m[0], m[1], m[0], neighbour[m[0]], m[1], neighbour[m[1]]), Values: reference(t, in, sw)})
	}
	variants = append(variants,
		grading.Variant{Hint: "interior points were never written (still NaN): does every output get a thread, and does the z loop compute each plane?",
			Match: func(g []float64) bool {
				for i, v := range g {
					if interior(i) && math.IsNaN(v) {
						return true
					}
				}
				return false
			}},
		grading.Variant{Hint: "points within two of a face were written: only interior points (2 ≤ i ≤ nz−3, 2 ≤ j ≤ ny−3, 2 ≤ k ≤ nx−3) are outputs",
			Match: func(g []float64) bool {
				for i, v := range g {
					if !interior(i) && !math.IsNaN(v) {
						return true
					}
				}
				return false
			}})
	return grading.Diff{What: what, Label: grading.Label3(in.NY, in.NX), Tol: tol}.Check(t, got, want, variants...)
}

// shapes returns count grids with sides drawn in lo…hi, not all equal.
func shapes(t *grading.T, count, lo, hi int) [][3]int {
	var out [][3]int
	for len(out) < count {
		s := [3]int{lo + t.Rand().IntN(hi-lo+1), lo + t.Rand().IntN(hi-lo+1), lo + t.Rand().IntN(hi-lo+1)}
		if s[0] == s[1] && s[1] == s[2] {
			continue
		}
		out = append(out, s)
	}
	return out
}

// valuesOn compares the kernel with the reference on count random shapes,
// each twice with fresh inputs and coefficients.
func valuesOn(t *grading.T, e *Env, tile, count, lo, hi int) {
	for _, s := range shapes(t, count, lo, hi) {
		for range 2 {
			if !e.compare(t, tile, randomGrid(t, s[0], s[1], s[2]), randomCoeffs(t)) {
				return
			}
		}
	}
}

func checkValues(t *grading.T, e *Env) { valuesOn(t, e, 0, 3, 6, 70) }

// smallShapes are the smallest grids: with an interior of one point along
// an axis or more, and without an interior (a side of 3 or 4), where a
// kernel must write nothing.
var smallShapes = [][3]int{{5, 5, 5}, {5, 6, 7}, {7, 5, 6}, {6, 7, 5}, {3, 5, 6}, {6, 4, 5}, {5, 6, 3}}

func checkSmall(t *grading.T, e *Env) {
	for _, s := range smallShapes {
		for range 2 {
			if !e.compare(t, 0, randomGrid(t, s[0], s[1], s[2]), randomCoeffs(t)) {
				return
			}
		}
	}
}

func checkTiles(t *grading.T, e *Env) {
	for _, tile := range e.Spec.Tiles {
		for _, s := range shapes(t, 1, 6, 3*tile+7) {
			for range 2 {
				if !e.compare(t, tile, randomGrid(t, s[0], s[1], s[2]), randomCoeffs(t)) {
					return
				}
			}
		}
	}
}

// The timed run: warm-up launches on a grid of their own, the float4
// copy's launches, then a chain of PerfSteps launches, each feeding the
// next, on a grid drawn fresh, of sides drawn around PerfN, with
// coefficients drawn fresh; the chain's final grid is compared with as
// many sweeps of the CPU reference.
const (
	perfWarmup = 3
	// maxShare is the most of the copy's speed a sweep can reach: it reads
	// and writes each point once at best, as the copy does.
	maxShare = 1.5
	// maxBandwidth bounds the copy's bytes per second: no GPU comes near.
	maxBandwidth = 20e12
)

// PerfSteps is the number of launches of the timed chain, each feeding the
// next, and PerfCopyReps the number of timed launches of the copy, whose
// median the chain's time per launch is set against.
const (
	PerfSteps    = 10
	PerfCopyReps = 20
)

// timedTol is the tolerance of the chain's final grid: PerfSteps sweeps in
// float32, whose coefficients add up to one.
var timedTol = grading.Tol{Abs: 1e-4, Rel: 1e-4}

// Perf times the kernel and the float4 copy on a grid of sides around
// PerfN, once, and checks the output of the timed launches: the time of
// the chain, whose every launch feeds the next, per launch, and the median
// of the copy's. A wrong output, or a time no GPU could reach, is an error:
// the kernel loses its speed points and is not ranked.
func (e *Env) Perf() (kernelMs, copyMs float64, err error) {
	if e.perf != nil {
		return e.perf.kernelMs, e.perf.copyMs, e.perf.err
	}
	e.perf = &perfResult{}
	e.perf.kernelMs, e.perf.copyMs, e.perf.err = e.measure()
	if e.perf.err == nil {
		e.Metrics["ms"] = e.perf.kernelMs
		e.Metrics["copy_ms"] = e.perf.copyMs
		e.Metrics["pct_copy"] = 100 * e.perf.copyMs / e.perf.kernelMs
	}
	return e.perf.kernelMs, e.perf.copyMs, e.perf.err
}

// perfCoeffs draws thirteen distinct coefficients that add up to one, so
// that the chain's values stay in [−1, 1].
func perfCoeffs(r *rand.Rand) Coeffs13 {
	for {
		c := distinctCoeffs(r, 0)
		sum := 0.0
		for _, v := range c {
			sum += v
		}
		for i := range c {
			c[i] /= sum
		}
		if distinct(c, 0.001) {
			return c
		}
	}
}

// perfDims draws the timed grid's sides in n−n/16 … n+n/16.
func perfDims(r *rand.Rand, n int) [3]int {
	spread := max(1, n/16)
	var d [3]int
	for i := range d {
		d[i] = max(2*Radius+3, n-spread+r.IntN(2*spread+1))
	}
	return d
}

func finitePositive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func (e *Env) measure() (float64, float64, error) {
	if err := e.Kernel(0); err != nil {
		return 0, 0, err
	}
	r := rand.New(rand.NewPCG(e.fresh(), e.fresh()))
	dims := perfDims(r, e.perfN)
	c := perfCoeffs(r)
	seed, warm := e.fresh(), e.fresh()
	n := dims[0] * dims[1] * dims[2]
	h, out, err := e.do(request{Op: opTime, Dims: dims, Seed: seed, WarmSeed: warm, Coeffs: c[:],
		Steps: PerfSteps, Warmup: perfWarmup, CopyReps: PerfCopyReps}, n)
	if err != nil {
		return 0, 0, err
	}
	e.Metrics["timed_nz"], e.Metrics["timed_ny"], e.Metrics["timed_nx"] = float64(dims[0]), float64(dims[1]), float64(dims[2])
	// The times: finite, positive, bounded; as many as asked.
	if !finitePositive(h.ChainMs) || h.ChainMs > 1e6 {
		return 0, 0, fmt.Errorf("%w: the chain's time %v ms is not a finite positive number below 1000 s", errProtocol, h.ChainMs)
	}
	if len(h.CopyMs) != PerfCopyReps {
		return 0, 0, fmt.Errorf("%w: %d copy times where %d were asked", errProtocol, len(h.CopyMs), PerfCopyReps)
	}
	for _, v := range h.CopyMs {
		if !finitePositive(v) || v > 1e6 {
			return 0, 0, fmt.Errorf("%w: a copy time %v ms is not a finite positive number below 1000 s", errProtocol, v)
		}
	}
	cp := slices.Clone(h.CopyMs)
	slices.Sort(cp)
	cms := (cp[(len(cp)-1)/2] + cp[len(cp)/2]) / 2
	kms := h.ChainMs / PerfSteps
	if bw := 2 * 4 * float64(n) / (cms / 1e3); bw > maxBandwidth {
		return 0, 0, fmt.Errorf("%w: the copy's time, %.4f ms for %d floats, is %.0f GB/s, beyond any GPU (%.0f GB/s)", errProtocol, cms, n, bw/1e9, maxBandwidth/1e9)
	}
	// The output of the timed launches, against PerfSteps CPU sweeps.
	want, err := chainReference(dims, seed, c, PerfSteps)
	if err != nil {
		return 0, 0, err
	}
	wrong, first := 0, -1
	for i, v := range want.Data {
		g, w := float64(out[i]), float64(v)
		if math.IsNaN(g) || math.Abs(g-w) > timedTol.Abs+timedTol.Rel*math.Abs(w) {
			wrong++
			if first < 0 {
				first = i
			}
		}
	}
	if wrong > 0 {
		e.Metrics["timed_wrong"] = float64(wrong)
		return 0, 0, fmt.Errorf("the output of the timed launches is wrong: after %d launches on %d×%d×%d, each feeding the next, %d of %d points differ from %d sweeps of the reference (first %s: got %g, want %g). A kernel whose output is right on the checks' grids but not on the timed ones (one that skips work, remembers an earlier launch or knows the timed grid) loses the speed points and is not ranked",
			PerfSteps, dims[0], dims[1], dims[2], wrong, n, PerfSteps, grading.Label3(dims[1], dims[2])(first), out[first], want.Data[first])
	}
	if share := cms / kms; share > maxShare {
		return 0, 0, fmt.Errorf("%w: %.4f ms per launch is %.0f %% of the copy's speed, more than a sweep can reach (%.0f %%)", errProtocol, kms, 100*share, 100*maxShare)
	}
	return kms, cms, nil
}

// chainReference returns steps sweeps of the grid drawn from seed, ping-
// ponged as the child does: both grids start as the input, so that the
// boundary, which no sweep writes, stays the input's. It runs the fast
// sweep (Sweep13) on every core.
func chainReference(dims [3]int, seed uint64, c Coeffs13, steps int) (*lab.Grid3[float32], error) {
	a, err := seededGrid(dims[0], dims[1], dims[2], seed)
	if err != nil {
		return nil, err
	}
	b := &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: slices.Clone(a.Data)}
	src, dst := a.Grid3, b
	for range steps {
		if err := Sweep13(dst, src, c); err != nil {
			return nil, err
		}
		src, dst = dst, src
	}
	return src, nil
}

// correctness returns the checks whose passing makes the kernel correct
// for the speed checks.
func (s Spec) correctness() []string {
	if s.Kind == FindBug {
		return []string{"every-plane", "every-column", "one-axis", "barriers", "values"}
	}
	return []string{"values", "small"}
}

// correct reports whether every correctness check passed.
func (e *Env) correct() bool {
	for _, id := range e.Spec.correctness() {
		if !e.Passed[id] {
			return false
		}
	}
	return true
}

func checkPerformance(t *grading.T, e *Env) {
	if !e.correct() {
		t.Fatalf("speed counts only for a correct kernel: %v must pass first", e.Spec.correctness())
	}
	if !e.methodPassed() {
		t.Fatalf("speed counts only for a kernel that passed its method check (%s): a fast kernel without the technique earns no speed points", e.Spec.method().Technique)
	}
	kms, cms, err := e.Perf()
	e.must(t, err, fmt.Sprintf("time at N ≈ %d", e.perfN))
	share := cms / kms
	if share < e.Spec.Threshold {
		t.Errorf("%.3f ms at N ≈ %d: %.0f %% of the float4 copy (%.3f ms), below the %.0f %% asked (the reference reaches %.0f %%)",
			kms, e.perfN, 100*share, cms, 100*e.Spec.Threshold, 100*e.Spec.Recorded)
	}
}

// checkSpeed passes when the challenge kernel is correct (its values and
// small checks passed) and reaches share of the copy.
func checkSpeed(t *grading.T, e *Env, share float64) {
	if !e.correct() {
		t.Fatalf("speed counts only for a correct kernel: %v must pass first", e.Spec.correctness())
	}
	if !e.methodPassed() {
		t.Fatalf("speed counts only for a kernel that passed its method check (%s)", e.Spec.method().Technique)
	}
	kms, cms, err := e.Perf()
	e.must(t, err, fmt.Sprintf("time at N ≈ %d", e.perfN))
	if got := cms / kms; got < share {
		t.Errorf("%.3f ms at N ≈ %d: %.1f %% of the float4 copy (%.3f ms), below %.0f %%", kms, e.perfN, 100*got, cms, 100*share)
	}
}

// The checks of the find-the-bug exercise look at one symptom each, on
// inputs chosen so that the other mistakes do not show, and say what they
// see, never what to change.

// outcome sorts the interior points of one sweep: written or not, and
// right or wrong among those written.
type outcome struct {
	nz, ny, nx int
	got, want  []float64
}

func (o outcome) at(i, j, k int) (written, right bool) {
	p := (i*o.ny+j)*o.nx + k
	g, w := o.got[p], o.want[p]
	if math.IsNaN(g) {
		return false, false
	}
	return true, math.Abs(g-w) <= tol.Abs+tol.Rel*math.Abs(w)
}

func (e *Env) outcome(t *grading.T, in input, c Coeffs13) outcome {
	return outcome{nz: in.NZ, ny: in.NY, nx: in.NX, got: grading.Float64s(e.sweep(t, 0, in, c)), want: reference(t, in, c)}
}

// list shows at most six numbers of v, and how many more.
func list(v []int) string {
	var s []string
	for i, x := range v {
		if i == 6 {
			s = append(s, fmt.Sprintf("… (%d in all)", len(v)))
			break
		}
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

func orNone(v []int) string {
	if len(v) == 0 {
		return "(none)"
	}
	return list(v)
}

// wrongPoint says what a wrong written point got and should have.
func (o outcome) wrongPoint(i, j, k int) string {
	p := (i*o.ny+j)*o.nx + k
	return fmt.Sprintf("(i=%d, j=%d, k=%d): got %g, want %g", i, j, k, o.got[p], o.want[p])
}

// findBugShapes are the grids of the find-the-bug checks: sides from 31
// to 75, so that one to three tiles of 28 or 30 points fit along each
// axis.
func findBugShapes(t *grading.T) [][3]int {
	return shapes(t, 3, 31, 75)
}

// checkEveryPlane: on inputs that vary along x only, in each column (j, k)
// with at least one output, every interior plane must be written, and
// every point written right.
func checkEveryPlane(t *grading.T, e *Env) {
	for _, s := range findBugShapes(t) {
		o := e.outcome(t, randomGrid(t, s[0], s[1], s[2], "x"), randomCoeffs(t))
		columns := 0
		for j := Radius; j < o.ny-Radius; j++ {
			for k := Radius; k < o.nx-Radius; k++ {
				var planes, hole []int
				for i := Radius; i < o.nz-Radius; i++ {
					w, r := o.at(i, j, k)
					if w && !r {
						t.Fatalf("%s on %d×%d×%d, inputs that vary along x only: point %s is wrong", e.Spec.File, o.nz, o.ny, o.nx, o.wrongPoint(i, j, k))
					}
					if w {
						planes = append(planes, i)
					} else {
						hole = append(hole, i)
					}
				}
				if len(planes) == 0 {
					continue
				}
				columns++
				if len(hole) > 0 {
					t.Fatalf("%s on %d×%d×%d, inputs that vary along x only: in column (j=%d, k=%d) the interior planes i = %s are written and right, and planes i = %s are never written (interior planes run from %d to %d)",
						e.Spec.File, o.nz, o.ny, o.nx, j, k, list(planes), list(hole), Radius, o.nz-1-Radius)
				}
			}
		}
		if columns == 0 && o.nz > 2*Radius && o.ny > 2*Radius && o.nx > 2*Radius {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along x only: no interior point is written", e.Spec.File, o.nz, o.ny, o.nx)
		}
		if all := (o.ny - 2*Radius) * (o.nx - 2*Radius); 2*columns < all {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along x only: %d of the %d interior columns (j, k) receive outputs; the check judges the planes of each column where at least half of them do", e.Spec.File, o.nz, o.ny, o.nx, columns, all)
		}
	}
}

// checkEveryColumn: on inputs that vary along x only, in each plane i with
// at least one output, every interior point must be written, and every
// point written right.
func checkEveryColumn(t *grading.T, e *Env) {
	for _, s := range findBugShapes(t) {
		o := e.outcome(t, randomGrid(t, s[0], s[1], s[2], "x"), randomCoeffs(t))
		planes := 0
		for i := Radius; i < o.nz-Radius; i++ {
			written, unwritten := 0, 0
			rowHas, colHas := map[int]bool{}, map[int]bool{}
			for j := Radius; j < o.ny-Radius; j++ {
				for k := Radius; k < o.nx-Radius; k++ {
					w, r := o.at(i, j, k)
					switch {
					case w && !r:
						t.Fatalf("%s on %d×%d×%d, inputs that vary along x only: point %s is wrong", e.Spec.File, o.nz, o.ny, o.nx, o.wrongPoint(i, j, k))
					case w:
						written++
						rowHas[j], colHas[k] = true, true
					default:
						unwritten++
					}
				}
			}
			if written == 0 {
				continue
			}
			planes++
			if unwritten > 0 {
				var js, ks []int
				for j := Radius; j < o.ny-Radius; j++ {
					if !rowHas[j] {
						js = append(js, j)
					}
				}
				for k := Radius; k < o.nx-Radius; k++ {
					if !colHas[k] {
						ks = append(ks, k)
					}
				}
				where := "scattered, in no whole row or column"
				if len(js)+len(ks) > 0 {
					where = fmt.Sprintf("they include every point of rows j = %s and of columns k = %s", orNone(js), orNone(ks))
				}
				all := (o.ny - 2*Radius) * (o.nx - 2*Radius)
				t.Fatalf("%s on %d×%d×%d, inputs that vary along x only: plane i=%d has %d of its %d interior points written and right, and %d never written: %s (interior j and k run from %d to %d and to %d)",
					e.Spec.File, o.nz, o.ny, o.nx, i, written, all, unwritten, where, Radius, o.ny-1-Radius, o.nx-1-Radius)
			}
		}
		if planes == 0 && o.nz > 2*Radius && o.ny > 2*Radius && o.nx > 2*Radius {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along x only: no interior point is written", e.Spec.File, o.nz, o.ny, o.nx)
		}
	}
}

// writtenRight checks that every point written is right and that some
// point is written.
func (e *Env) writtenRight(t *grading.T, o outcome, along string) {
	written, wrong := 0, 0
	first := ""
	for i := Radius; i < o.nz-Radius; i++ {
		for j := Radius; j < o.ny-Radius; j++ {
			for k := Radius; k < o.nx-Radius; k++ {
				w, r := o.at(i, j, k)
				if w {
					written++
				}
				if w && !r {
					wrong++
					if first == "" {
						first = o.wrongPoint(i, j, k)
					}
				}
			}
		}
	}
	if written == 0 {
		t.Fatalf("%s on %d×%d×%d, inputs that vary along %s only: no interior point is written", e.Spec.File, o.nz, o.ny, o.nx, along)
	}
	if wrong == 0 {
		best, all := 0, (o.ny-2*Radius)*(o.nx-2*Radius)
		for i := Radius; i < o.nz-Radius; i++ {
			n := 0
			for j := Radius; j < o.ny-Radius; j++ {
				for k := Radius; k < o.nx-Radius; k++ {
					if w, _ := o.at(i, j, k); w {
						n++
					}
				}
			}
			best = max(best, n)
		}
		if 2*best < all {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along %s only: the points written are right, and no plane has half of its %d interior points written (at most %d): the check judges the rows and columns of planes at least half written", e.Spec.File, o.nz, o.ny, o.nx, along, all, best)
		}
	}
	if wrong > 0 {
		t.Fatalf("%s on %d×%d×%d, inputs that vary along %s only: %d of the %d points written are wrong (first %s)", e.Spec.File, o.nz, o.ny, o.nx, along, wrong, written, first)
	}
}

// checkOneAxis: on inputs that vary along x only, then along y only, every
// point written is right.
func checkOneAxis(t *grading.T, e *Env) {
	for _, s := range findBugShapes(t) {
		for _, along := range []string{"x", "y"} {
			e.writtenRight(t, e.outcome(t, randomGrid(t, s[0], s[1], s[2], along), randomCoeffs(t)), along)
		}
	}
}

// barrierShape is the grid of the barriers check: about 10⁶ points, many
// blocks of the default tile.
var barrierShape = [3]int{75, 110, 130}

// barrierLaunches is how many times the barriers check launches.
const barrierLaunches = 3

// checkBarriers: on inputs that vary along z only, launched several times
// on one input, some interior point is written, the points written whose
// z neighbours (i±1) are written too are right, and every launch writes
// the same values.
func checkBarriers(t *grading.T, e *Env) {
	in := randomGrid(t, barrierShape[0], barrierShape[1], barrierShape[2], "z")
	c := randomCoeffs(t)
	want := reference(t, in, c)
	var first []float64
	nz, ny, nx := in.NZ, in.NY, in.NX
	for l := range barrierLaunches {
		o := outcome{nz: nz, ny: ny, nx: nx, got: grading.Float64s(e.sweep(t, 0, in, c)), want: want}
		written, judged, wrong := 0, 0, 0
		planes := map[int]bool{}
		where := ""
		for i := Radius + 1; i < nz-Radius-1; i++ {
			for j := Radius; j < ny-Radius; j++ {
				for k := Radius; k < nx-Radius; k++ {
					w, r := o.at(i, j, k)
					if w {
						written++
					}
					wb, _ := o.at(i-1, j, k)
					wa, _ := o.at(i+1, j, k)
					if !w || !wb || !wa {
						continue
					}
					judged++
					if !r {
						wrong++
						planes[i] = true
						if where == "" {
							where = o.wrongPoint(i, j, k)
						}
					}
				}
			}
		}
		if written == 0 {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along z only, launch %d of %d: no interior point is written", e.Spec.File, nz, ny, nx, l+1, barrierLaunches)
		}
		if all := (nz - 2*Radius - 2) * (ny - 2*Radius) * (nx - 2*Radius); 4*judged < all {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along z only, launch %d of %d: %d of the %d interior points are written with their neighbours i−1 and i+1, fewer than a quarter: the check judges those points only", e.Spec.File, nz, ny, nx, l+1, barrierLaunches, judged, all)
		}
		if wrong > 0 {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along z only, launch %d of %d: %d of the %d points judged (written, with their neighbours i−1 and i+1) are wrong, in %d planes (first %s)",
				e.Spec.File, nz, ny, nx, l+1, barrierLaunches, wrong, judged, len(planes), where)
		}
		if first == nil {
			first = o.got
			continue
		}
		differ := 0
		for p := range first {
			a, b := first[p], o.got[p]
			if a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
				differ++
			}
		}
		if differ > 0 {
			t.Fatalf("%s on %d×%d×%d, inputs that vary along z only: launch %d, on the same input with the same coefficients, wrote %d points differently from launch 1", e.Spec.File, nz, ny, nx, l+1, differ)
		}
	}
}

// checkFindBugValues: the whole sweep on random grids, every interior
// point written and right, the rest untouched.
func checkFindBugValues(t *grading.T, e *Env) {
	for _, s := range findBugShapes(t) {
		in := randomGrid(t, s[0], s[1], s[2])
		c := randomCoeffs(t)
		got := grading.Float64s(e.sweep(t, 0, in, c))
		if !(grading.Diff{What: fmt.Sprintf("%s on %d×%d×%d", e.Spec.File, in.NZ, in.NY, in.NX), Label: grading.Label3(in.NY, in.NX), Tol: tol}.Check(t, got, reference(t, in, c))) {
			return
		}
	}
}
