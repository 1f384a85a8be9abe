package checks

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// Exercise 09: a thirteen-point kernel coarsened in z, with mistakes of
// the kind students make, to find and fix. Each check looks at one
// symptom and its message describes what is wrong in the output, never
// what to change: which planes hold no output, which points of the other
// planes were never written, along which axis a varying input gives
// wrong values, and the simulator's own report of a hazard. Each pays
// only for outputs it compared with the CPU reference in the same run:
// the checks of where a kernel writes run on inputs that vary along x
// only, on which every point written must be right.

// findTheBugStep is the kernel exercise whose kernel exercise 9 fixes.
func findTheBugStep() kernelStep {
	s, err := lookupKernelStep("coarsened")
	if err != nil {
		panic(err) // kernelSteps lost an exercise this package is built on
	}
	return s
}

// FindTheBug returns exercise 9, checking the kernel k.
func FindTheBug(k star.Kernel) grading.Exercise { return findTheBug(submitted{local: k}) }

func findTheBug(k submitted) grading.Exercise { return findTheBugDecl.Exercise(k.kernelFuncs()) }

// findTheBugDecl declares exercise 9, over the kernel exercises' channel.
var findTheBugDecl = declare(&Decl[kernelFuncs]{
	ID:    "09_find_the_bug",
	Title: "Find the bugs: a thirteen-point kernel coarsened in z, from a student's notes (Figs. 8.3D, 8.10)",
	Files: []string{"fix.go"},
	Allow: kernel,
	Checks: func(fn kernelFuncs) []grading.Check {
		k, s := submitted{funcs: fn}, findTheBugStep()
		return []grading.Check{
			{ID: "values", Title: "the whole sweep on random grids", Points: 2,
				Run: func(t *grading.T) { bugValues(t, s, k, 3, 20) }},
			{ID: "structure", Title: "the given kernel, fixed: " + s.methodTitle() + ", the given launch and five shared planes", Points: 3,
				Run: func(t *grading.T) { bugStructure(t, s, k, 2, 18) }},
			{ID: "every-plane", Title: "inputs that vary along x only: in every column that receives outputs, every interior plane is written, and every point written is right, by the given kernel", Points: 2,
				Run: func(t *grading.T) { bugPlanes(t, s, k, 3, 20) }},
			{ID: "every-column", Title: "inputs that vary along x only: in every plane that receives outputs, every interior point is written, and every point written is right, by the given kernel", Points: 2,
				Run: func(t *grading.T) { bugColumns(t, s, k, 3, 20) }},
			{ID: "one-axis", Title: "inputs that vary along x only, then along y only: the points written are right, by the given kernel", Points: 2,
				Run: func(t *grading.T) { bugAxes(t, s, k, 2, 20) }},
			{ID: "barriers", Title: "no hazards (the simulator's report), on inputs that vary along x only, with every point written right, by the given kernel", Points: 1,
				Run: func(t *grading.T) { bugHazards(t, s, k, 3, 18) }},
		}
	},
})

// bugCase draws a case for the checks of exercise 9, whose step is s: a
// tile of 7 to 10 and sides of 10 to maxN that it does not fit evenly, so
// that every plane and every row of a grid holds points of several output
// tiles.
func bugCase(t *grading.T, s kernelStep, maxN int) *simCase {
	tile := pick(t, 7, 8, 10)
	return newSimCaseShape(t, s.side(t, 10, maxN, tile), s.side(t, 10, maxN, tile), s.side(t, 10, maxN, tile), tile)
}

// bugRun runs k on sc and returns its output and counters. A launch that reports a
// hazard still gives its output, since the hazards have a check of their
// own; any other failure fails t with the simulator's report and gives
// nil.
func bugRun(t *grading.T, sc *simCase, what string, k submitted) (*lab.Grid3[float32], sim.Stats) {
	got, st, err := sc.run(k)
	if err != nil && errors.Is(err, sim.ErrHazard) {
		return got, st
	}
	if launchErrorHint(t, what, err, st, false) {
		return nil, st
	}
	return got, st
}

// unwritten reports whether the interior point idx of got still holds the
// NaN the output started with.
func unwritten(got *lab.Grid3[float32], idx int) bool { return math.IsNaN(float64(got.Data[idx])) }

// writtenPlanes returns, for every plane i, whether one of its interior
// points was written.
func writtenPlanes(sc *simCase, got *lab.Grid3[float32]) []bool {
	interior := sc.interior()
	planes := make([]bool, sc.NZ)
	for idx := range got.Data {
		if interior(idx) && !unwritten(got, idx) {
			planes[idx/(sc.NY*sc.NX)] = true
		}
	}
	return planes
}

// list writes a set of indices as "2, 3, 5" (at most 12, then "…").
func list(vs []int) string {
	var b []string
	for n, v := range vs {
		if n == 12 {
			b = append(b, "…")
			break
		}
		b = append(b, strconv.Itoa(v))
	}
	return strings.Join(b, ", ")
}

// alongAxis fills the case's input with random values that vary along
// one axis only ("x": with k, "y": with j) and recomputes the reference.
// On such inputs the planes of a column hold the same values, so the
// symptom checks below judge what a kernel writes and where, whatever
// else it does with the planes above and below.
func alongAxis(t *grading.T, sc *simCase, axis string) {
	f := make([]float32, max(sc.NY, sc.NX))
	for i := range f {
		f[i] = float32(2*t.Rand().Float64() - 1)
	}
	if axis == "x" {
		sc.src.Fill(func(_, _, k int) float32 { return f[k] })
	} else {
		sc.src.Fill(func(_, j, _ int) float32 { return f[j] })
	}
	sc.want = sc.reference(t, sc.C)
}

// symptomCase draws a case for a check of a symptom: inputs that vary
// along x only. It returns the case, its description, the kernel's
// counters and its output, or nil when the launch failed for another reason than a hazard
// (t then has the simulator's report).
func symptomCase(t *grading.T, s kernelStep, k submitted, maxN int) (*simCase, string, *lab.Grid3[float32], sim.Stats) {
	sc := bugCase(t, s, maxN)
	alongAxis(t, sc, "x")
	what := sc.describe(s.fn) + ", on inputs that vary along x only"
	got, st := bugRun(t, sc, what, k)
	return sc, what, got, st
}

// compareWritten compares the points got holds with the reference: the
// interior points written (not NaN) and every point of the boundary,
// which no kernel may change. It returns the number of interior points
// written, the number of points wrong among those and the boundary, and
// the first wrong one (−1 if none).
func compareWritten(sc *simCase, got *lab.Grid3[float32]) (written, wrong, first int) {
	interior := sc.interior()
	first = -1
	for idx := range got.Data {
		in := interior(idx)
		if in && unwritten(got, idx) {
			continue
		}
		if in {
			written++
		}
		if !close32(got.Data[idx], sc.want.Data[idx]) {
			wrong++
			if first < 0 {
				first = idx
			}
		}
	}
	return written, wrong, first
}

// writtenRight fails t unless some interior point of got was written and
// every point written holds the reference's value, the boundary
// unchanged: a check of a symptom pays only for outputs the grader
// compared. It reports success.
func writtenRight(t *grading.T, sc *simCase, what string, got *lab.Grid3[float32]) bool {
	written, wrong, first := compareWritten(sc, got)
	switch {
	case written == 0:
		return assert.Fail(t, "nothing written", what+": no interior point was written")
	case wrong > 0:
		return assert.Fail(t, "wrong values", fmt.Sprintf("%s: %d of the points written are wrong, the first at %s: got %.6g, want %.6g",
			what, wrong, sc.label()(first), got.Data[first], sc.want.Data[first]))
	}
	return true
}

// bugPlanes judges the planes: in every column (j, k) that receives
// outputs, every interior plane is written, and every point written is
// right.
func bugPlanes(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc, what, got, st := symptomCase(t, s, k, maxN)
		if got == nil || !writtenRight(t, sc, what, got) || !givenKernel(t, s, sc, what, got, st) {
			return
		}
		var empty, full []int
		for i, w := range writtenPlanes(sc, got) {
			switch {
			case i < star.Radius || i >= sc.NZ-star.Radius:
			case w:
				full = append(full, i)
			default:
				empty = append(empty, i)
			}
		}
		if len(empty) > 0 {
			msg := fmt.Sprintf("%s: no point of the interior planes i = %s was written", what, list(empty))
			switch len(full) {
			case 0:
			case 1:
				msg += fmt.Sprintf("; plane i = %d received outputs", full[0])
			default:
				msg += fmt.Sprintf("; planes i = %s received outputs", list(full))
			}
			assert.Fail(t, "planes not written", msg)
			return
		}
		// The columns that received outputs, and their interior points
		// never written.
		interior := sc.interior()
		plane := sc.NY * sc.NX
		columns := make([]bool, plane)
		for idx := range got.Data {
			if interior(idx) && !unwritten(got, idx) {
				columns[idx%plane] = true
			}
		}
		missing, first := 0, -1
		var planes []int
		for idx := range got.Data {
			if interior(idx) && columns[idx%plane] && unwritten(got, idx) {
				missing++
				if first < 0 {
					first = idx
				}
				if i := idx / plane; !slices.Contains(planes, i) {
					planes = append(planes, i)
				}
			}
		}
		if missing > 0 {
			assert.Fail(t, "planes not written", fmt.Sprintf("%s: %d interior points of the columns (j, k) that received outputs were never written, the first at %s, in the planes i = %s",
				what, missing, sc.label()(first), list(planes)))
			return
		}
	}
}

// bugColumns judges the points of a plane: in every plane that receives
// outputs, every interior point is written, and every point written is
// right.
func bugColumns(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc, what, got, st := symptomCase(t, s, k, maxN)
		if got == nil || !writtenRight(t, sc, what, got) || !givenKernel(t, s, sc, what, got, st) {
			return
		}
		planes := writtenPlanes(sc, got)
		interior := sc.interior()
		// The points never written in planes that received outputs, and
		// the columns j and k all of whose points there are unwritten.
		missing, first := 0, -1
		js, ks := map[int]int{}, map[int]int{}
		for idx := range got.Data {
			if !interior(idx) || !planes[idx/(sc.NY*sc.NX)] || !unwritten(got, idx) {
				continue
			}
			missing++
			if first < 0 {
				first = idx
			}
			js[idx/sc.NX%sc.NY]++
			ks[idx%sc.NX]++
		}
		if missing == 0 {
			continue
		}
		nplanes := countIf(len(planes), func(i int) bool { return planes[i] })
		rowJ := func(j int) bool { return js[j] == nplanes*(sc.NX-2*star.Radius) }
		rowK := func(k int) bool { return ks[k] == nplanes*(sc.NY-2*star.Radius) }
		var fullJ, fullK []int
		for j := range js {
			if rowJ(j) {
				fullJ = append(fullJ, j)
			}
		}
		for k := range ks {
			if rowK(k) {
				fullK = append(fullK, k)
			}
		}
		sort.Ints(fullJ)
		sort.Ints(fullK)
		msg := fmt.Sprintf("%s: %d interior points of the planes that received outputs were never written, the first at %s", what, missing, sc.label()(first))
		explained := countIf(len(got.Data), func(idx int) bool {
			return interior(idx) && planes[idx/(sc.NY*sc.NX)] && (rowJ(idx/sc.NX%sc.NY) || rowK(idx%sc.NX))
		})
		if explained == missing && (len(fullJ) > 0 || len(fullK) > 0) {
			var parts []string
			if len(fullK) > 0 {
				parts = append(parts, "k = "+list(fullK))
			}
			if len(fullJ) > 0 {
				parts = append(parts, "j = "+list(fullJ))
			}
			msg += fmt.Sprintf(": exactly the points with %s, while the points beside them were written", strings.Join(parts, " or "))
		}
		assert.Fail(t, "points not written", msg)
		return
	}
}

// bugAxes judges the values along x and along y: on inputs that vary
// along one of them only, some point is written and every point written
// is right.
func bugAxes(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc := bugCase(t, s, maxN)
		var wrongAxes, rightAxes []string
		var firstMsg string
		for _, axis := range []string{"x", "y"} {
			alongAxis(t, sc, axis)
			what := sc.describe(s.fn) + ", on inputs that vary along " + axis + " only"
			got, st := bugRun(t, sc, what, k)
			if got == nil {
				return
			}
			written, wrong, first := compareWritten(sc, got)
			if written == 0 {
				assert.Fail(t, "nothing written", what+": no interior point was written")
				return
			}
			if wrong == 0 && !givenKernel(t, s, sc, what, got, st) {
				return
			}
			if wrong == 0 {
				rightAxes = append(rightAxes, axis)
				continue
			}
			wrongAxes = append(wrongAxes, axis)
			if firstMsg == "" {
				firstMsg = fmt.Sprintf("%s: %d of the points written are wrong, the first at %s: got %.6g, want %.6g",
					what, wrong, sc.label()(first), got.Data[first], sc.want.Data[first])
			}
		}
		if len(wrongAxes) > 0 {
			msg := firstMsg
			if len(rightAxes) > 0 {
				msg += fmt.Sprintf("; on inputs that vary along %s only, every point written is right", strings.Join(rightAxes, " or "))
			}
			assert.Fail(t, "wrong values", msg)
			return
		}
	}
}

// bugHazards judges the barriers: a launch without hazards, on a run in
// which some point is written and every point written is right.
func bugHazards(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc := bugCase(t, s, maxN)
		alongAxis(t, sc, "x")
		what := sc.describe(s.fn) + ", on inputs that vary along x only"
		got, st, err := sc.run(k)
		if launchErrorHint(t, what, err, st, false) || !writtenRight(t, sc, what, got) || !givenKernel(t, s, sc, what, got, st) {
			return
		}
	}
}

func bugValues(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc := bugCase(t, s, maxN)
		what := sc.describe(s.fn)
		got, st, err := sc.run(k)
		if launchErrorHint(t, what, err, st, false) {
			return
		}
		if !(grading.Diff{What: what, Label: sc.label(), Tol: grading.Float32}.Check(
			t, grading.Float64s(got.Data), grading.Float64s(sc.want.Data))) {
			return
		}
	}
}

// countIf counts the indices below n for which f holds.
func countIf(n int, f func(int) bool) int {
	c := 0
	for i := range n {
		if f(i) {
			c++
		}
	}
	return c
}

// close32 reports whether got is within the float32 tolerance of want.
func close32(got, want float32) bool {
	tol := grading.Float32
	d := math.Abs(float64(got) - float64(want))
	return d <= tol.Abs+tol.Rel*math.Abs(float64(want))
}

// minCoverage is the least share of the interior points that a check of
// one symptom must see written and right: the given kernel with one of
// its mistakes left writes at least one output plane of each block (a
// tenth of the interior on the checks' grids, sides 10 to 20 and tiles 7
// to 10) and 36 % of the columns, while a kernel that writes one column
// (at most 1/36 of them) stays far below.
const minCoverage = 12

// givenKernel fails t unless the run's counters show the given kernel,
// whatever mistakes it still has (the launch of a plane of threads, its
// five shared planes read back for every output written, barriers), and
// unless at least 1/minCoverage of the interior was written right: the
// points for a fix are for the given kernel fixed, and a check of one
// property pays only where the values it looks at are right and cover a
// real part of the grid. It reports success.
func givenKernel(t *grading.T, s kernelStep, sc *simCase, what string, got *lab.Grid3[float32], st sim.Stats) bool {
	if msg := s.givenKernelEvidence(sc, st, got); msg != "" {
		return assert.Fail(t, "not the given kernel", fmt.Sprintf("%s: %s — the points for a fix are for the given kernel fixed, its five shared planes, its plane loop and its barriers kept; a kernel of another design earns the values check only", what, msg))
	}
	written, wrong, _ := compareWritten(sc, got)
	if need := sc.outputs() / minCoverage; int64(written-wrong) < need {
		return assert.Fail(t, "too few outputs", fmt.Sprintf("%s: %d of the %d interior points were written right; a check of one property pays from one in %d (%d points)",
			what, max(0, written-wrong), sc.outputs(), minCoverage, need))
	}
	return true
}

// givenKernelEvidence returns what the counters of a run show that the
// given kernel, with any of its mistakes, would not, or "".
func (s kernelStep) givenKernelEvidence(sc *simCase, st sim.Stats, got *lab.Grid3[float32]) string {
	T := s.tileOf(sc.Tile)
	written, _, _ := compareWritten(sc, got)
	switch {
	case st.Block != (sim.Dim3{X: T, Y: T, Z: 1}):
		return fmt.Sprintf("your kernel's blocks are %s threads; the given kernel's are a plane of IN_TILE_DIM×IN_TILE_DIM = %d×%d threads that marches in z", dims(st.Block), T, T)
	case st.SharedBytesPerBlock != s.sharedBytes(T):
		return fmt.Sprintf("your kernel declares %d bytes of shared memory per block; the given kernel's five planes of %d×%d floats are %d bytes", st.SharedBytesPerBlock, T, T, s.sharedBytes(T))
	case st.SharedStores == 0 || st.SharedLoads < int64(star.Points)*int64(written):
		return fmt.Sprintf("your kernel read %d values from shared memory for %d outputs; the given kernel reads all 13 inputs of every output from its shared planes", st.SharedLoads, written)
	case st.Intervals-st.BlocksRun < st.BlocksRun:
		return "your kernel's blocks never wait at a barrier; the given kernel's do"
	}
	return ""
}

// bugStructure is the structure check of exercise 9: the given kernel,
// fixed, measured as exercise 7's coarsened kernel is (method), on the
// cases of exercise 9.
func bugStructure(t *grading.T, s kernelStep, k submitted, trials, maxN int) {
	for range trials {
		sc := bugCase(t, s, maxN)
		what := sc.describe(s.fn)
		got, st, err := sc.run(k)
		if launchErrorHint(t, what, err, st, false) || !(grading.Diff{What: what, Label: sc.label(), Tol: grading.Float32}.Check(
			t, grading.Float64s(got.Data), grading.Float64s(sc.want.Data))) {
			return
		}
		if !givenKernel(t, s, sc, what, got, st) || !s.gate(t, k, sc, st) {
			return
		}
	}
}
