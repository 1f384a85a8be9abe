package cudacheck

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// Env is what the checks of one submission share in the child: the
// device, the student's source and the kernels compiled from it.
type Env struct {
	Spec   Spec
	Dev    *gpu.Device
	Source string
	// Fault is called when a launch loses the CUDA context (the kernel
	// faulted): the child reports it and exits.
	Fault func(err error)

	kernels map[int]*gpu.SourceKernel
	perf    *perfResult
	// Passed records the checks that passed so far: speed counts only for
	// a correct kernel.
	Passed map[string]bool
	// Metrics are added to the exercise's result.
	Metrics map[string]float64
	// Notes are added to the exercise's message (a check skipped for want
	// of GPU memory).
	Notes []string
}

type perfResult struct {
	kernelMs, copyMs float64
	err              error
}

// NewEnv returns the environment of a submission on d.
func NewEnv(s Spec, d *gpu.Device, source string) *Env {
	return &Env{Spec: s, Dev: d, Source: source, kernels: map[int]*gpu.SourceKernel{}, Metrics: map[string]float64{}, Passed: map[string]bool{}}
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
func (e *Env) geometry(tile int) (func(nz, ny, nx int) (gpu.Geometry, error), error) {
	if e.Spec.Step != "" {
		step := e.Spec.Step
		return func(nz, ny, nx int) (gpu.Geometry, error) { return gpu.StepGeometry(step, tile, nz, ny, nx) }, nil
	}
	block, t, err := ChallengeLaunch(e.Source)
	if err != nil {
		return nil, err
	}
	return func(nz, ny, nx int) (gpu.Geometry, error) {
		return gpu.Geometry{Block: block, Grid: [3]int{ceil(nx, t[0]), ceil(ny, t[1]), ceil(nz, t[2])}}, nil
	}, nil
}

func ceil(a, b int) int { return (a + b - 1) / b }

// Kernel compiles the student's file with tile (0: the default), once.
func (e *Env) Kernel(tile int) (*gpu.SourceKernel, error) {
	if tile == 0 {
		tile = e.Spec.DefaultTile()
	}
	if k, ok := e.kernels[tile]; ok {
		return k, nil
	}
	var defs []gpu.Define
	if d := e.Spec.TileDefine(); d != "" {
		defs = append(defs, gpu.Define{Name: d, Value: strconv.Itoa(tile)})
	}
	geom, err := e.geometry(tile)
	if err != nil {
		return nil, err
	}
	k, err := e.Dev.CompileSource(e.Spec.File, e.Source, e.Spec.Entry(), defs, geom)
	if err != nil {
		return nil, err
	}
	e.kernels[tile] = k
	return k, nil
}

// must fails the check on err; a lost context ends the child.
func (e *Env) must(t *grading.T, err error, what string) {
	if err == nil {
		return
	}
	if errors.Is(err, gpu.ErrContextLost) && e.Fault != nil {
		e.Fault(err)
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

// randomGrid returns an nz×ny×nx grid of values in [−1, 1).
func randomGrid(t *grading.T, nz, ny, nx int) *lab.Grid3[float32] {
	g, err := lab.NewGrid3[float32](nz, ny, nx)
	if err != nil {
		t.Fatalf("grid %d×%d×%d: %v", nz, ny, nx, err)
	}
	for i := range g.Data {
		g.Data[i] = float32(2*t.Rand().Float64() - 1)
	}
	return g
}

// sweep runs the student's kernel with tile on in, the output poisoned
// with NaN first, and returns the output.
func (e *Env) sweep(t *grading.T, tile int, in *lab.Grid3[float32], c lab.Coeffs) []float32 {
	k, err := e.Kernel(tile)
	e.must(t, err, "compile")
	n := len(in.Data)
	src, err := e.Dev.Alloc(n)
	e.must(t, err, "allocate the input")
	defer src.Free()
	dst, err := e.Dev.Alloc(n)
	e.must(t, err, "allocate the output")
	defer dst.Free()
	e.must(t, src.Upload(0, in.Data), "upload the input")
	e.must(t, dst.Poison(), "poison the output with NaN")
	_, err = k.Launch(dst, src, in.NZ, in.NY, in.NX, c)
	e.must(t, err, fmt.Sprintf("launch on a %d×%d×%d grid", in.NZ, in.NY, in.NX))
	out := make([]float32, n)
	e.must(t, dst.Download(0, out), "download the output")
	return out
}

// reference is lab.SevenPoint of in with c, the boundary NaN (not an
// output: a kernel must leave it alone).
func reference(t *grading.T, in *lab.Grid3[float32], c lab.Coeffs) []float64 {
	ref, _ := lab.NewGrid3[float32](in.NZ, in.NY, in.NX)
	for i := range ref.Data {
		ref.Data[i] = float32(math.NaN())
	}
	if err := lab.SevenPoint(ref, in, c); err != nil {
		t.Fatalf("reference: %v", err)
	}
	return grading.Float64s(ref.Data)
}

// tol is the float32 tolerance: the order of the seven products may
// differ, and NVRTC contracts them into fused multiply-adds.
var tol = grading.Tol{Abs: 2e-5, Rel: 2e-5}

// compare checks one sweep of in with c against the reference, naming
// the known mistakes.
func (e *Env) compare(t *grading.T, tile int, in *lab.Grid3[float32], c lab.Coeffs) bool {
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

// Perf measures the kernel and the float4 copy at N = PerfN in this
// process, once: medians of 20 launches timed with CUDA events, after 3
// untimed ones.
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

func (e *Env) measure() (float64, float64, error) {
	k, err := e.Kernel(0)
	if err != nil {
		return 0, 0, err
	}
	n := PerfN * PerfN * PerfN
	src, err := e.Dev.Alloc(n)
	if err != nil {
		return 0, 0, err
	}
	defer src.Free()
	dst, err := e.Dev.Alloc(n)
	if err != nil {
		return 0, 0, err
	}
	defer dst.Free()
	if err := src.FillRandom(1); err != nil {
		return 0, 0, err
	}
	cp, err := e.Dev.MeasureCopy(dst, src, 3, 20)
	if err != nil {
		return 0, 0, err
	}
	m, err := k.Measure(dst, src, PerfN, PerfN, PerfN, lab.DistinctCoeffs(), 3, 20)
	if err != nil {
		return 0, 0, err
	}
	return m.Median, cp.Median, nil
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
	e.must(t, err, fmt.Sprintf("time at N = %d", PerfN))
	share := cms / kms
	if share < e.Spec.Threshold {
		t.Errorf("%.3f ms at N = %d: %.0f %% of the float4 copy (%.3f ms), below the %.0f %% asked (the reference reaches %.0f %%)",
			kms, PerfN, 100*share, cms, 100*e.Spec.Threshold, 100*e.Spec.Recorded)
	}
}

// checkSpeed passes when the challenge kernel is correct (its values and
// small checks passed: Correct) and reaches share of the copy.
func checkSpeed(t *grading.T, e *Env, share float64) {
	if !e.correct() {
		t.Fatalf("speed counts only for a correct kernel: %v must pass first", e.Spec.correctness())
	}
	kms, cms, err := e.Perf()
	e.must(t, err, fmt.Sprintf("time at N = %d", PerfN))
	if got := cms / kms; got < share {
		t.Errorf("%.3f ms at N = %d: %.1f %% of the float4 copy (%.3f ms), below %.0f %%", kms, PerfN, 100*got, cms, 100*share)
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
