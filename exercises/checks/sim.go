package checks

import (
	"errors"
	"fmt"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The exercises on the simulator (05 to 09) share the code below: a student
// writes a star.Kernel, a kernel of the thirteen-point star of radius 2,
// the checks run it on a fresh sim.Simulator and compare its output with
// the lab's CPU reference, lab.Sweep3 with lab.ThirteenPoint, and its
// launch and traffic with closed forms worked out here.

// simCase is one run of a kernel: a random nz×ny×nx grid, a tile and
// thirteen distinct coefficients.
type simCase struct {
	NZ, NY, NX int
	Tile       int
	C          star.Coeffs
	audit      bool // run with the shared reads rounded (method.go)
	src        *lab.Grid3[float32]
	dst        *lab.Grid3[float32] // the boundary conditions, interior NaN
	want       *lab.Grid3[float32] // dst with the reference sweep's interior
}

// newSimCase returns a case on an N×N×N cube.
func newSimCase(t *grading.T, N, tile int) *simCase { return newSimCaseShape(t, N, N, N, tile) }

// newSimCaseShape returns a case on an nz×ny×nx grid with thirteen
// distinct random coefficients.
func newSimCaseShape(t *grading.T, nz, ny, nx, tile int) *simCase {
	var c star.Coeffs
	copy(c[:], distinct(t, star.Points))
	return newSimCaseC(t, nz, ny, nx, tile, c)
}

// newSimCaseC returns a case with the coefficients c: random inputs,
// random boundary conditions in the output and NaN at its interior points,
// so that a point the kernel never writes shows.
func newSimCaseC(t *grading.T, nz, ny, nx, tile int, c star.Coeffs) *simCase {
	sc := &simCase{NZ: nz, NY: ny, NX: nx, Tile: tile, C: c}
	var err error
	sc.src, err = lab.NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err, "the reference failed")
	sc.src.FillRandom(t.Rand().Uint64())
	sc.dst, err = lab.NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err, "the reference failed")
	sc.dst.FillRandom(t.Rand().Uint64())
	interior := sc.interior()
	for idx := range sc.dst.Data {
		if interior(idx) {
			sc.dst.Data[idx] = nan32()
		}
	}
	sc.want = sc.reference(t, c)
	return sc
}

func nan32() float32 {
	var zero float32
	return zero / zero
}

// reference returns dst with the interior of the CPU reference sweep of
// the thirteen-point star with coefficients c.
func (sc *simCase) reference(t *grading.T, c star.Coeffs) *lab.Grid3[float32] {
	w := sc.dst.Clone()
	require.NoError(t, lab.Sweep3(w, sc.src, lab.ThirteenPoint(c)), "the reference failed")
	return w
}

// interior reports whether a flat index of the case's grid is an output
// point: at least star.Radius from every face.
func (sc *simCase) interior() func(int) bool {
	r := star.Radius
	return func(idx int) bool {
		i, j, k := idx/(sc.NY*sc.NX), idx/sc.NX%sc.NY, idx%sc.NX
		return i >= r && j >= r && k >= r && i < sc.NZ-r && j < sc.NY-r && k < sc.NX-r
	}
}

// outputs is the number of interior points of the case's grid.
func (sc *simCase) outputs() int64 {
	return int64(max(0, sc.NZ-2*star.Radius)) * int64(max(0, sc.NY-2*star.Radius)) * int64(max(0, sc.NX-2*star.Radius))
}

// grid names the case's grid for messages: "N = 15" for a cube,
// "15×13×17" (nz×ny×nx) otherwise.
func (sc *simCase) grid() string {
	if sc.NZ == sc.NY && sc.NY == sc.NX {
		return fmt.Sprintf("N = %d", sc.NX)
	}
	return fmt.Sprintf("a %d×%d×%d grid (nz×ny×nx)", sc.NZ, sc.NY, sc.NX)
}

// label names the flat index of the case's grid as (i, j, k).
func (sc *simCase) label() func(int) string { return grading.Label3(sc.NY, sc.NX) }

// describe names the case for messages.
func (sc *simCase) describe(name string) string {
	tile := fmt.Sprintf("Tile %d", sc.Tile)
	if sc.Tile == 0 {
		tile = "Tile 0 (the default)"
	}
	return fmt.Sprintf("%s on %s, %s", name, sc.grid(), tile)
}

// run runs the student's kernel k on the simulator, here or in the
// grader's child, and returns the output, the launch's counters and its
// error.
func (sc *simCase) run(k submitted) (*lab.Grid3[float32], sim.Stats, error) {
	return sc.runFuncs(k.kernelFuncs())
}

// runLocal prepares k for the case, as the host code around a kernel
// does, and launches it on a fresh simulator with CUDA's default limits.
// The kernel gets a copy of the inputs, so that a kernel that writes its
// input cannot change what the checks compare with. A launch that was
// refused leaves the output as it was.
func (sc *simCase) runLocal(k star.Kernel) (*lab.Grid3[float32], sim.Stats, error) {
	out := sc.dst.Clone()
	if k == nil {
		return out, sim.Stats{}, fmt.Errorf("no kernel to run: %w", sim.ErrLimit)
	}
	kern, err := k(star.Args{
		In:  &sim.Global{Name: "in", Data: sc.src.Clone().Data},
		Out: &sim.Global{Name: "out", Data: out.Data},
		NZ:  sc.NZ, NY: sc.NY, NX: sc.NX,
		C:    sc.C,
		Tile: sc.Tile,
	})
	if err != nil {
		return out, sim.Stats{}, refusedLaunch(err)
	}
	var m sim.Simulator
	if sc.audit {
		m.SharedReads = auditRound
	}
	st, err := m.Launch(kern)
	return out, st, err
}

// refusedLaunch makes a kernel's refusal of its arguments (a tile that
// leaves no output tile) match sim.ErrLimit, as a launch over the limits
// does, unless it is the stub's error or already matches a sentinel of the
// simulator.
func refusedLaunch(err error) error {
	for _, s := range []error{grading.ErrNotImplemented, sim.ErrLimit, sim.ErrHazard, sim.ErrBarrier, sim.ErrFault} {
		if errors.Is(err, s) {
			return err
		}
	}
	return fmt.Errorf("the kernel refused the launch: %w: %w", err, sim.ErrLimit)
}

// launchError fails t with a message for a launch that returned err,
// naming the likely mistake, and reports whether it failed.
func launchError(t *grading.T, what string, err error, st sim.Stats) bool {
	return launchErrorHint(t, what, err, st, true)
}

// launchErrorHint is launchError with the hint left out when hints is
// false: the simulator's own report, and nothing about a fix.
func launchErrorHint(t *grading.T, what string, err error, st sim.Stats, hints bool) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, grading.ErrNotImplemented) {
		t.NotImplemented(what)
	}
	hint := ""
	switch {
	case !hints:
	case errors.Is(err, sim.ErrHazard):
		if len(st.Hazards) > 0 {
			hint = hazardHint(st.Hazards[0].Kind)
		}
	case errors.Is(err, sim.ErrBarrier):
		hint = "a thread returned before a t.Sync() that the others reached: keep every thread to the end and guard the work with if, not with return"
	case errors.Is(err, sim.ErrLimit):
		hint = "check the block dimensions against the tile, and the shared arrays' sizes"
	case errors.Is(err, sim.ErrFault):
		hint = "check the bounds tests: a thread may load only points with 0 ≤ i, j, k < N, read only the shared elements of its tile, and write only interior points (2 ≤ i, j, k ≤ N−3)"
	}
	msg := fmt.Sprintf("%s: %v", what, err)
	if hint != "" {
		msg += " — " + hint
	}
	assert.Fail(t, "launch failed", msg)
	return true
}

// hazardHint explains a hazard the simulator reported.
func hazardHint(k sim.HazardKind) string {
	switch k {
	case sim.ReadAfterWrite:
		return "a thread reads shared memory that another thread writes in the same barrier interval: is a t.Sync() missing between loading the tile and computing?"
	case sim.WriteAfterRead:
		return "a thread overwrites shared memory that other threads may still be reading: a t.Sync() must come between the computation and the next load"
	case sim.WriteAfterWrite:
		return "two threads write different values to one element: check the shared-memory indices"
	case sim.DivergentBarrier:
		return "the threads of a block waited at different t.Sync() calls: in CUDA every thread of a block must reach the same __syncthreads(), so call t.Sync() once, outside the if, where every thread passes"
	case sim.Uninitialised:
		return "a thread reads a shared element that no thread loaded: compute only at interior points of the grid and only with the inner threads of the tile (a halo of two on each side), and copy only elements that were loaded"
	}
	return ""
}

// coefficientVariants are the wrong sweeps of a kernel that mixes up the
// coefficients, leaves out the neighbours at distance 2 or writes the
// boundary, each computed by the CPU reference.
func (sc *simCase) coefficientVariants(t *grading.T) []grading.Variant {
	interior := sc.interior()
	orig := grading.Float64s(sc.dst.Data)
	ref := func(c star.Coeffs) []float64 { return grading.Float64s(sc.reference(t, c).Data) }
	near := sc.C
	for q := 7; q < star.Points; q++ {
		near[q] = 0
	}
	vs := []grading.Variant{
		{Hint: "the neighbours at distance 2 are missing: did you count all 13 points, c7…c12 multiplying (i, j, k∓2), (i, j∓2, k), (i∓2, j, k)?",
			Values: ref(near)},
		{Hint: "are the coefficients of distance 1 and distance 2 exchanged? c1…c6 multiply the neighbours at distance 1, c7…c12 those at distance 2",
			Values: ref(swapped(sc.C, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12))},
	}
	for _, p := range []struct {
		a, b       int
		axis, dist string
		minus      string
	}{
		{1, 2, "x", "1", "(i, j, k−1)"}, {3, 4, "y", "1", "(i, j−1, k)"}, {5, 6, "z", "1", "(i−1, j, k)"},
		{7, 8, "x", "2", "(i, j, k−2)"}, {9, 10, "y", "2", "(i, j−2, k)"}, {11, 12, "z", "2", "(i−2, j, k)"},
	} {
		vs = append(vs, grading.Variant{
			Hint:   fmt.Sprintf("are c%d and c%d swapped? c%d multiplies %s, the neighbour at distance %s on the minus side along %s", p.a, p.b, p.a, p.minus, p.dist, p.axis),
			Values: ref(swapped(sc.C, p.a, p.b))})
	}
	return append(vs,
		grading.Variant{Hint: "x and z are mixed up: k is the x index (threadIdx.x, fastest in memory), i the z index",
			Values: ref(swapped(sc.C, 1, 5, 2, 6, 7, 11, 8, 12))},
		grading.Variant{Hint: "x and y are mixed up: k is the x index (threadIdx.x), j the y index (threadIdx.y)",
			Values: ref(swapped(sc.C, 1, 3, 2, 4, 7, 9, 8, 10))},
		grading.Variant{Hint: "points within 2 of a face were written: they hold boundary conditions, and only 2 ≤ i, j, k ≤ N−3 are outputs",
			Match: func(got []float64) bool {
				for idx, v := range got {
					if !interior(idx) && v != orig[idx] {
						return true
					}
				}
				return false
			}},
	)
}

// checkValues runs k and compares its output with the reference; extra
// variants name mistakes particular to one kernel. It reports success.
func (sc *simCase) checkValues(t *grading.T, name string, k submitted, extra ...grading.Variant) bool {
	_, _, ok := sc.verified(t, name, k, extra...)
	return ok
}

// verified runs k, fails t unless the launch ran and every value of its
// output is right, and returns the launch's counters with the output. The
// launch and traffic checks judge only counters of such a run: a kernel
// is paid for its launch and its traffic only together with outputs that
// were checked in the same run.
func (sc *simCase) verified(t *grading.T, name string, k submitted, extra ...grading.Variant) (*lab.Grid3[float32], sim.Stats, bool) {
	what := sc.describe(name)
	got, st, err := sc.run(k)
	if launchError(t, what, err, st) {
		return got, st, false
	}
	variants := append(sc.coefficientVariants(t), extra...)
	ok := grading.Diff{What: what, Label: sc.label(), Tol: grading.Float32}.Check(
		t, grading.Float64s(got.Data), grading.Float64s(sc.want.Data), variants...)
	return got, st, ok
}

// dims writes extents as x×y×z.
func dims(d sim.Dim3) string { return fmt.Sprintf("%d×%d×%d", d.X, d.Y, d.Z) }

// counter is one quantity of a launch with the value the closed form
// gives and the hint of a mismatch.
type counter struct {
	name      string
	got, want int64
	hint      string
}

// compareCounters fails t with the first counter that differs from its
// closed form and reports whether all agree.
func compareCounters(t *grading.T, what string, cs []counter) bool {
	for _, c := range cs {
		if c.got != c.want {
			return assert.Fail(t, "wrong counts", fmt.Sprintf("%s: %s: got %d, want %d — %s", what, c.name, c.got, c.want, c.hint))
		}
	}
	return true
}
