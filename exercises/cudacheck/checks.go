package cudacheck

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"

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
	if s.Step != "" {
		step := s.Step
		return func(nz, ny, nx int) (gpu.Geometry, error) { return gpu.StepGeometry(step, tile, nz, ny, nx) }, nil
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

// randomCoeffs draws seven distinct coefficients in [0.05, 0.5).
func randomCoeffs(t *grading.T) lab.Coeffs {
	var c lab.Coeffs
	for {
		for i := range c {
			c[i] = 0.05 + 0.45*t.Rand().Float64()
		}
		distinct := true
		for i := range c {
			for j := i + 1; j < len(c); j++ {
				if math.Abs(c[i]-c[j]) < 0.01 {
					distinct = false
				}
			}
		}
		if distinct {
			return c
		}
	}
}

// input is a grid drawn from a seed (inputValue): the child draws it on
// its side, the grader computes the reference from it.
type input struct {
	*lab.Grid3[float32]
	seed uint64
}

// seededGrid returns the nz×ny×nx grid drawn from seed.
func seededGrid(nz, ny, nx int, seed uint64) (input, error) {
	g, err := lab.NewGrid3[float32](nz, ny, nx)
	if err != nil {
		return input{}, err
	}
	fillInput(g.Data, seed, 0)
	return input{g, seed}, nil
}

// randomGrid returns an nz×ny×nx grid of values in [−1, 1), drawn from a
// seed of t's.
func randomGrid(t *grading.T, nz, ny, nx int) input {
	in, err := seededGrid(nz, ny, nx, t.Rand().Uint64())
	if err != nil {
		t.Fatalf("grid %d×%d×%d: %v", nz, ny, nx, err)
	}
	return in
}

// sweep runs the student's kernel with tile on in (drawn by the child from
// its seed), the output poisoned with NaN first, and returns the output.
func (e *Env) sweep(t *grading.T, tile int, in input, c lab.Coeffs) []float32 {
	e.must(t, e.Kernel(tile), "compile")
	_, out, err := e.do(request{Op: opSweep, Tile: tile, Dims: [3]int{in.NZ, in.NY, in.NX}, Seed: in.seed, Coeffs: c[:]}, len(in.Data))
	e.must(t, err, fmt.Sprintf("launch on a %d×%d×%d grid", in.NZ, in.NY, in.NX))
	return out
}

// reference is lab.SevenPoint of in with c, the boundary NaN (not an
// output: a kernel must leave it alone).
func reference(t *grading.T, in input, c lab.Coeffs) []float64 {
	ref, _ := lab.NewGrid3[float32](in.NZ, in.NY, in.NX)
	for i := range ref.Data {
		ref.Data[i] = float32(math.NaN())
	}
	if err := lab.SevenPoint(ref, in.Grid3, c); err != nil {
		t.Fatalf("reference: %v", err)
	}
	return grading.Float64s(ref.Data)
}

// tol is the float32 tolerance: the order of the seven products may
// differ, and NVRTC contracts them into fused multiply-adds.
var tol = grading.Tol{Abs: 2e-5, Rel: 2e-5}

// compare checks one sweep of in with c against the reference, naming
// the known mistakes.
func (e *Env) compare(t *grading.T, tile int, in input, c lab.Coeffs) bool {
	got := grading.Float64s(e.sweep(t, tile, in, c))
	want := reference(t, in, c)
	sw := c
	sw[3], sw[4] = c[4], c[3]
	what := fmt.Sprintf("%s on %d×%d×%d", e.Spec.File, in.NZ, in.NY, in.NX)
	if tile != 0 {
		what += fmt.Sprintf(", tile %d", tile)
	}
	nz, ny, nx := in.NZ, in.NY, in.NX
	interior := func(idx int) bool {
		i, j, k := idx/(ny*nx), idx/nx%ny, idx%nx
		return i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1
	}
	return grading.Diff{What: what, Label: grading.Label3(ny, nx), Tol: tol}.Check(t, got, want,
		grading.Variant{Hint: "are c3 and c4 swapped? c3 multiplies (i, j−1, k) and c4 (i, j+1, k)", Values: reference(t, in, sw)},
		grading.Variant{Hint: "interior points were never written (still NaN): does every output get a thread, and does the z loop compute each plane?",
			Match: func(g []float64) bool {
				for i, v := range g {
					if interior(i) && math.IsNaN(v) {
						return true
					}
				}
				return false
			}},
		grading.Variant{Hint: "the boundary points were written: only interior points (1 ≤ i ≤ nz−2, 1 ≤ j ≤ ny−2, 1 ≤ k ≤ nx−2) are outputs",
			Match: func(g []float64) bool {
				for i, v := range g {
					if !interior(i) && !math.IsNaN(v) {
						return true
					}
				}
				return false
			}},
	)
}

// shapes returns count grids with sides drawn in lo…hi, none a multiple
// of tile's output, not all equal.
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

func checkValues(t *grading.T, e *Env) { valuesOn(t, e, 0, 3, 5, 70) }

func checkSmall(t *grading.T, e *Env) {
	for _, s := range [][3]int{{3, 3, 3}, {3, 4, 5}, {5, 3, 4}, {4, 5, 3}} {
		for range 2 {
			if !e.compare(t, 0, randomGrid(t, s[0], s[1], s[2]), randomCoeffs(t)) {
				return
			}
		}
	}
}

func checkTiles(t *grading.T, e *Env) {
	for _, tile := range e.Spec.Tiles {
		for _, s := range shapes(t, 1, 5, 3*tile+7) {
			for range 2 {
				if !e.compare(t, tile, randomGrid(t, s[0], s[1], s[2]), randomCoeffs(t)) {
					return
				}
			}
		}
	}
}

// The timed run: warm-up launches on a grid of their own, the float4
// copy's launches, then a chain of perfSteps launches, each feeding the
// next, on a grid drawn fresh, of sides drawn around PerfN, with
// coefficients drawn fresh; the chain's final grid is compared with as
// many sweeps of the CPU reference.
const (
	perfSteps  = 10
	perfWarmup = 3
	copyReps   = 20
	// maxShare is the most of the copy's speed a sweep can reach: it reads
	// and writes each point once at best, as the copy does.
	maxShare = 1.5
	// maxBandwidth bounds the copy's bytes per second: no GPU comes near.
	maxBandwidth = 20e12
)

// timedTol is the tolerance of the chain's final grid: perfSteps sweeps in
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

// perfCoeffs draws seven distinct coefficients that add up to one, so
// that the chain's values stay in [−1, 1].
func perfCoeffs(r *rand.Rand) lab.Coeffs {
	for {
		var c lab.Coeffs
		sum := 0.0
		for i := range c {
			c[i] = 0.05 + 0.45*r.Float64()
			sum += c[i]
		}
		distinct := true
		for i := range c {
			c[i] /= sum
			for j := range i {
				if math.Abs(c[i]-c[j]) < 0.002 {
					distinct = false
				}
			}
		}
		if distinct {
			return c
		}
	}
}

// perfDims draws the timed grid's sides in n−n/16 … n+n/16.
func perfDims(r *rand.Rand, n int) [3]int {
	spread := max(1, n/16)
	var d [3]int
	for i := range d {
		d[i] = max(5, n-spread+r.IntN(2*spread+1))
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
		Steps: perfSteps, Warmup: perfWarmup, CopyReps: copyReps}, n)
	if err != nil {
		return 0, 0, err
	}
	e.Metrics["timed_nz"], e.Metrics["timed_ny"], e.Metrics["timed_nx"] = float64(dims[0]), float64(dims[1]), float64(dims[2])
	// The times: finite, positive, bounded; as many as asked.
	if !finitePositive(h.ChainMs) || h.ChainMs > 1e6 {
		return 0, 0, fmt.Errorf("%w: the chain's time %v ms is not a finite positive number below 1000 s", errProtocol, h.ChainMs)
	}
	if len(h.CopyMs) != copyReps {
		return 0, 0, fmt.Errorf("%w: %d copy times where %d were asked", errProtocol, len(h.CopyMs), copyReps)
	}
	for _, v := range h.CopyMs {
		if !finitePositive(v) || v > 1e6 {
			return 0, 0, fmt.Errorf("%w: a copy time %v ms is not a finite positive number below 1000 s", errProtocol, v)
		}
	}
	cp := slices.Clone(h.CopyMs)
	slices.Sort(cp)
	cms := (cp[(len(cp)-1)/2] + cp[len(cp)/2]) / 2
	kms := h.ChainMs / perfSteps
	if bw := 2 * 4 * float64(n) / (cms / 1e3); bw > maxBandwidth {
		return 0, 0, fmt.Errorf("%w: the copy's time, %.4f ms for %d floats, is %.0f GB/s, beyond any GPU (%.0f GB/s)", errProtocol, cms, n, bw/1e9, maxBandwidth/1e9)
	}
	// The output of the timed launches, against perfSteps CPU sweeps.
	want, err := chainReference(dims, seed, c, perfSteps)
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
			perfSteps, dims[0], dims[1], dims[2], wrong, n, perfSteps, grading.Label3(dims[1], dims[2])(first), out[first], want.Data[first])
	}
	if share := cms / kms; share > maxShare {
		return 0, 0, fmt.Errorf("%w: %.4f ms per launch is %.0f %% of the copy's speed, more than a sweep can reach (%.0f %%)", errProtocol, kms, 100*share, 100*maxShare)
	}
	return kms, cms, nil
}

// chainReference returns steps sweeps of the grid drawn from seed, ping-
// ponged as the child does: both grids start as the input, so that the
// boundary, which no sweep writes, stays the input's.
func chainReference(dims [3]int, seed uint64, c lab.Coeffs, steps int) (*lab.Grid3[float32], error) {
	a, err := seededGrid(dims[0], dims[1], dims[2], seed)
	if err != nil {
		return nil, err
	}
	b := &lab.Grid3[float32]{NZ: a.NZ, NY: a.NY, NX: a.NX, Data: slices.Clone(a.Data)}
	src, dst := a.Grid3, b
	for range steps {
		if err := lab.SevenPoint(dst, src, c); err != nil {
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
		return []string{"z-loop", "c3-c4"}
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
	kms, cms, err := e.Perf()
	e.must(t, err, fmt.Sprintf("time at N ≈ %d", e.perfN))
	share := cms / kms
	if share < e.Spec.Threshold {
		t.Errorf("%.3f ms at N ≈ %d: %.0f %% of the float4 copy (%.3f ms), below the %.0f %% asked (the reference reaches %.0f %%)",
			kms, e.perfN, 100*share, cms, 100*e.Spec.Threshold, 100*e.Spec.Recorded)
	}
}

// checkSpeed passes when the challenge kernel is correct (its values and
// small checks passed: Correct) and reaches share of the copy.
func checkSpeed(t *grading.T, e *Env, share float64) {
	if !e.correct() {
		t.Fatalf("speed counts only for a correct kernel: %v must pass first", e.Spec.correctness())
	}
	kms, cms, err := e.Perf()
	e.must(t, err, fmt.Sprintf("time at N ≈ %d", e.perfN))
	if got := cms / kms; got < share {
		t.Errorf("%.3f ms at N ≈ %d: %.1f %% of the float4 copy (%.3f ms), below %.0f %%", kms, e.perfN, 100*got, cms, 100*share)
	}
}

// symmetric returns distinct coefficients except c3 = c4, so that a swap
// of c3 and c4 does not show.
func symmetric(t *grading.T) lab.Coeffs {
	c := randomCoeffs(t)
	c[4] = c[3]
	return c
}

func checkZLoop(t *grading.T, e *Env) {
	for _, s := range append([][3]int{{3, 3, 3}}, shapes(t, 3, 4, 75)...) {
		for range 2 {
			if !e.compare(t, 0, randomGrid(t, s[0], s[1], s[2]), symmetric(t)) {
				return
			}
		}
	}
}

// The numbers of planes of the c3-c4 check's grids.
const c3c4MinZ, c3c4MaxZ = 62, 75

// checkC3C4 launches twice on one input, with c3 and c4 exchanged, and
// compares the difference of the outputs, (c3 − c4)·(in(i,j−1,k) −
// in(i,j+1,k)) at every written point: the other terms cancel, so that
// only the roles of c3 and c4 show, whatever else is wrong.
//
// The grids have c3c4MinZ to c3c4MaxZ planes, so that a kernel whose z
// loop closes early still writes some points (planes 30 and 60 at the
// default tile) and this check judges them.
func checkC3C4(t *grading.T, e *Env) {
	for _, s := range shapes(t, 2, 5, c3c4MaxZ) {
		s[0] = c3c4MinZ + t.Rand().IntN(c3c4MaxZ-c3c4MinZ+1)
		for range 2 {
			in := randomGrid(t, s[0], s[1], s[2])
			c := randomCoeffs(t)
			sw := c
			sw[3], sw[4] = c[4], c[3]
			a := e.sweep(t, 0, in, c)
			b := e.sweep(t, 0, in, sw)
			nz, ny, nx := in.NZ, in.NY, in.NX
			written, right, swapped := 0, 0, 0
			first := -1
			for i := 1; i < nz-1; i++ {
				for j := 1; j < ny-1; j++ {
					for k := 1; k < nx-1; k++ {
						p := (i*ny+j)*nx + k
						if math.IsNaN(float64(a[p])) || math.IsNaN(float64(b[p])) {
							continue
						}
						written++
						d := float64(a[p]) - float64(b[p])
						want := (c[3] - c[4]) * (float64(in.At(i, j-1, k)) - float64(in.At(i, j+1, k)))
						switch {
						case math.Abs(d-want) <= 1e-4:
							right++
						case math.Abs(d+want) <= 1e-4:
							swapped++
						default:
							if first < 0 {
								first = p
							}
						}
					}
				}
			}
			switch {
			case written == 0:
				t.Fatalf("%s on %d×%d×%d wrote no interior point", e.Spec.File, nz, ny, nx)
			case swapped > 0 && swapped >= written/2:
				t.Fatalf("%s on %d×%d×%d: c3 and c4 are swapped: c3 must multiply (i, j−1, k) and c4 (i, j+1, k), as in the basic kernel (Fig. 8.6); Fig. 8.10 swaps them", e.Spec.File, nz, ny, nx)
			case right != written:
				t.Fatalf("%s on %d×%d×%d: exchanging c3 and c4 changes %d of %d written points wrongly (first at %s): each output must use c3·in(i, j−1, k) + c4·in(i, j+1, k)",
					e.Spec.File, nz, ny, nx, written-right, written, grading.Label3(ny, nx)(first))
			}
		}
	}
}
