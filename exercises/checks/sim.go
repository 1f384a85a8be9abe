package checks

import (
	"errors"
	"fmt"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The exercises on the simulator (05 to 09) share the code below: a student
// writes a lab.StencilKernel, the checks run it on lab.Simulator and
// compare with the lab's reference sweep, SevenPoint, and with the counters
// of the lab's own kernel for the same step.

// simCase is one run of a kernel: a random nz×ny×nx grid, a tile and
// seven distinct coefficients.
type simCase struct {
	NZ, NY, NX int
	Tile       int
	C          lab.Coeffs
	src        *lab.Grid3[float32]
	dst        *lab.Grid3[float32] // the boundary conditions, interior NaN
	want       *lab.Grid3[float32] // dst with the reference sweep's interior
}

// newSimCase returns a case on an N×N×N cube.
func newSimCase(t *grading.T, N, tile int) *simCase { return newSimCaseShape(t, N, N, N, tile) }

// newSimCaseShape returns a case on an nz×ny×nx grid.
func newSimCaseShape(t *grading.T, nz, ny, nx, tile int) *simCase {
	var c lab.Coeffs
	copy(c[:], distinct(t, 7))
	return newSimCaseC(t, nz, ny, nx, tile, c)
}

func newSimCaseC(t *grading.T, nz, ny, nx, tile int, c lab.Coeffs) *simCase {
	sc := &simCase{NZ: nz, NY: ny, NX: nx, Tile: tile, C: c}
	var err error
	sc.src, err = lab.NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err, "the reference failed")
	sc.src.FillRandom(t.Rand().Uint64())
	sc.dst, err = lab.NewGrid3[float32](nz, ny, nx)
	require.NoError(t, err, "the reference failed")
	sc.dst.FillRandom(t.Rand().Uint64())
	for i := 1; i < nz-1; i++ {
		for j := 1; j < ny-1; j++ {
			for k := 1; k < nx-1; k++ {
				sc.dst.Set(i, j, k, nan32())
			}
		}
	}
	sc.want = sc.reference(t, c)
	return sc
}

func nan32() float32 {
	var zero float32
	return zero / zero
}

// reference returns dst with the interior of the reference sweep with
// coefficients c.
func (sc *simCase) reference(t *grading.T, c lab.Coeffs) *lab.Grid3[float32] {
	w := sc.dst.Clone()
	require.NoError(t, lab.SevenPointThreads(w, sc.src, c, 1), "the reference failed")
	return w
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
	if k.remote != nil {
		return k.runRemote(sc)
	}
	return sc.runRef(k.local)
}

// runRef runs k on the simulator, through the lab's one way of running a
// step, and returns the output, the launch's counters and its error.
func (sc *simCase) runRef(k lab.StencilKernel) (*lab.Grid3[float32], sim.Stats, error) {
	res, err := lab.Execute(lab.Run{Step: "submitted", Kernel: k, Backend: lab.Sim, Config: lab.Config{Tile: sc.Tile},
		Src: sc.src, Dst: sc.dst.Clone(), C: sc.C})
	if res.Out == nil {
		// Refused before it ran: the output is the untouched start.
		res.Out = sc.dst.Clone()
	}
	return res.Out, res.Stats, err
}

// launchError fails t with a message for a launch that returned err,
// naming the likely mistake, and reports whether it failed.
func launchError(t *grading.T, what string, err error, st sim.Stats) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, grading.ErrNotImplemented) {
		t.NotImplemented(what)
	}
	hint := ""
	switch {
	case errors.Is(err, sim.ErrHazard):
		if len(st.Hazards) > 0 {
			hint = hazardHint(st.Hazards[0].Kind)
		}
	case errors.Is(err, sim.ErrBarrier):
		hint = "a thread returned before a t.Sync() that the others reached: keep every thread to the end and guard the work with if, not with return"
	case errors.Is(err, sim.ErrLimit):
		hint = "check the block dimensions against the tile, and the shared arrays' sizes"
	case errors.Is(err, sim.ErrFault):
		hint = "check the bounds tests: a thread may load only points with 0 ≤ i, j, k < N, and write only interior ones"
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
		return "a thread reads a shared element that no thread loaded: compute only at interior points of the grid and only with the inner threads of the tile, and copy only elements that were loaded"
	}
	return ""
}

// boundaryIndex reports whether the flat index idx of an nz×ny×nx grid is
// on its boundary.
func boundaryIndex(nz, ny, nx int) func(int) bool {
	return func(idx int) bool {
		i, j, k := idx/(ny*nx), idx/nx%ny, idx%nx
		return i == 0 || j == 0 || k == 0 || i == nz-1 || j == ny-1 || k == nx-1
	}
}

// coefficientVariants are the wrong sweeps of a kernel that mixes up the
// coefficients or writes the boundary.
func (sc *simCase) coefficientVariants(t *grading.T) []grading.Variant {
	onBoundary := boundaryIndex(sc.NZ, sc.NY, sc.NX)
	orig := grading.Float64s(sc.dst.Data)
	return []grading.Variant{
		{Hint: "are c3 and c4 swapped? c3 multiplies (i, j−1, k), the element [ty−1][tx] of the tile; Figs. 8.10 and 8.12 print them the other way round",
			Values: grading.Float64s(sc.reference(t, swapped(sc.C, 3, 4)).Data)},
		{Hint: "are c1 and c2 swapped? c1 multiplies (i, j, k−1), c2 (i, j, k+1)",
			Values: grading.Float64s(sc.reference(t, swapped(sc.C, 1, 2)).Data)},
		{Hint: "are c5 and c6 swapped? c5 multiplies (i−1, j, k), c6 (i+1, j, k)",
			Values: grading.Float64s(sc.reference(t, swapped(sc.C, 5, 6)).Data)},
		{Hint: "x and z are mixed up: k is the x index (threadIdx.x, fastest in memory), i the z index",
			Values: grading.Float64s(sc.reference(t, swapped(sc.C, 1, 5, 2, 6)).Data)},
		{Hint: "x and y are mixed up: k is the x index (threadIdx.x), j the y index (threadIdx.y)",
			Values: grading.Float64s(sc.reference(t, swapped(sc.C, 1, 3, 2, 4)).Data)},
		{Hint: "boundary cells were written: they hold boundary conditions, and only 1 ≤ i, j, k ≤ N−2 are outputs (Fig. 8.5)",
			Match: func(got []float64) bool {
				for idx, v := range got {
					if onBoundary(idx) && v != orig[idx] {
						return true
					}
				}
				return false
			}},
	}
}

// checkValues runs k and compares its output with the reference; extra
// variants name mistakes particular to one kernel. It reports success.
func (sc *simCase) checkValues(t *grading.T, name string, k submitted, extra ...grading.Variant) bool {
	what := sc.describe(name)
	got, st, err := sc.run(k)
	if launchError(t, what, err, st) {
		return false
	}
	variants := append(sc.coefficientVariants(t), extra...)
	return grading.Diff{What: what, Label: sc.label(), Tol: grading.Float32}.Check(
		t, grading.Float64s(got.Data), grading.Float64s(sc.want.Data), variants...)
}

// checkNoHazards runs k and fails on any error of the launch, hazards
// first (the simulator reports every hazard as an error wrapping
// sim.ErrHazard); values are not compared.
func (sc *simCase) checkNoHazards(t *grading.T, name string, k submitted) bool {
	_, st, err := sc.run(k)
	return !launchError(t, sc.describe(name), err, st)
}

// launchOf prepares the student's kernel k for the case without running
// it, here or in the grader's child, and returns its launch dimensions.
func (sc *simCase) launchOf(k submitted) (sim.Kernel, error) {
	if k.remote != nil {
		return k.launchRemote(sc)
	}
	return sc.launchRef(k.local)
}

// launchRef prepares k for the case without running it.
func (sc *simCase) launchRef(k lab.StencilKernel) (sim.Kernel, error) {
	return lab.Prepare(k, lab.Config{Tile: sc.Tile}, sc.dst.Clone(), sc.src, sc.C)
}

// checkLaunch compares the grid and block dimensions k chooses with those
// of the lab's kernel ref.
func (sc *simCase) checkLaunch(t *grading.T, name string, k submitted, ref lab.StencilKernel, gridHint, blockHint string) bool {
	what := sc.describe(name)
	got, err := sc.launchOf(k)
	t.Must(err, what)
	want, err := sc.launchRef(ref)
	require.NoError(t, err, "the reference failed")
	if got.Block != want.Block {
		return assert.Fail(t, "wrong block", fmt.Sprintf("%s: blockDim is %s, want %s — %s", what, dims(got.Block), dims(want.Block), blockHint))
	}
	if got.Grid != want.Grid {
		return assert.Fail(t, "wrong grid", fmt.Sprintf("%s: gridDim is %s, want %s — %s", what, dims(got.Grid), dims(want.Grid), gridHint))
	}
	return true
}

// dims writes extents as x×y×z.
func dims(d sim.Dim3) string { return fmt.Sprintf("%d×%d×%d", d.X, d.Y, d.Z) }

// checkTraffic runs k and the lab's kernel ref and compares what the
// simulator counted; hints name the likely mistake per counter.
func (sc *simCase) checkTraffic(t *grading.T, name string, k submitted, ref lab.StencilKernel, hints map[string]string) bool {
	what := sc.describe(name)
	_, got, err := sc.run(k)
	if launchError(t, what, err, got) {
		return false
	}
	_, want, err := sc.runRef(ref)
	require.NoError(t, err, "the reference failed")
	for _, f := range []struct {
		name      string
		got, want int64
	}{
		{"global loads", got.GlobalLoads, want.GlobalLoads},
		{"global stores", got.GlobalStores, want.GlobalStores},
		{"shared memory per block (bytes)", int64(got.SharedBytesPerBlock), int64(want.SharedBytesPerBlock)},
		{"operations reported with t.Flops", got.Flops, want.Flops},
	} {
		if f.got != f.want {
			hint := hints[f.name]
			if hint == "" {
				switch f.name {
				case "global stores":
					hint = "each interior point is written once, by one thread"
				case "operations reported with t.Flops":
					hint = "call t.Flops(lab.Flops7) once for each output a thread computes"
				}
			}
			return assert.Fail(t, "wrong traffic", fmt.Sprintf("%s: %s: got %d, want %d — %s", what, f.name, f.got, f.want, hint))
		}
	}
	return true
}
