package checks

import (
	"fmt"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// IntensityFuncs are the functions of exercises/04_intensity.
type IntensityFuncs struct {
	// Cost returns what one block of a kernel does at input tile T.
	Cost func(kernel string, T int) (lab.BlockCost, error)
	// Intensity returns the arithmetic intensity of a kernel at tile T,
	// in operations per byte loaded from global memory.
	Intensity func(kernel string, T int) (float64, error)
	// MaxTile returns the largest T for which a kernel fits lim, and the
	// limit that stops it: "threads" or "shared memory".
	MaxTile func(kernel string, lim sim.Limits) (int, string, error)
}

// hiddenIntensity adds the instructor-only checks of exercise 4.
var hiddenIntensity func(IntensityFuncs) []grading.Check

// modelKernels returns the steps of the chapter's cost model, whose costs
// the exercise asks for.
func modelKernels() []string { return lab.Names3(lab.InModel) }

// figureStep returns the name of the step of a chapter figure: the slides
// give intensities for the kernels of Figs. 8.6 and 8.8.
func figureStep(fig string) string {
	s, err := lab.StepOfFigure(fig)
	if err != nil {
		panic(err) // the lab lost a step of the chapter
	}
	return s.Name
}

// Intensity returns exercise 4, arithmetic intensity, checking fn.
func Intensity(fn IntensityFuncs) grading.Exercise {
	e := grading.Exercise{
		ID:    "04_intensity",
		Title: "Arithmetic intensity of the basic, tiled and coarsened kernels",
		Files: []string{"intensity.go"},
		Checks: []grading.Check{
			{ID: figureStep("8.6"), Title: "the basic kernel: 13 OPs per 7 loads of 4 bytes, 0.46 OP/B", Points: 1,
				Run: func(t *grading.T) { intensityBasic(t, fn) }},
			{ID: "slides", Title: "the tiled kernel at T = 8 and T = 32: 1.37 and 2.68 OP/B, as the slides print", Points: 2,
				Run: func(t *grading.T) { intensitySlides(t, fn) }},
			{ID: figureStep("8.8"), Title: "the tiled kernel at random T: 13(T−2)³ / 4T³", Points: 2,
				Run: func(t *grading.T) { intensityTiled(t, fn, figureStep("8.8"), 20, 100) }},
			{ID: figureStep("8.10"), Title: "the coarsened and register-tiled kernels at random T", Points: 2,
				Run: func(t *grading.T) {
					for _, k := range marchingKernels() {
						if intensityTiled(t, fn, k, 10, 100); t.Failed() {
							return
						}
					}
				}},
			{ID: "cost", Title: "outputs, operations, loads, threads and shared memory of one block of each kernel", Points: 2,
				Run: func(t *grading.T) { intensityCost(t, fn, 40) }},
			{ID: "max-tile", Title: "the largest tile under CUDA's limits and under random ones, and the limit that binds", Points: 2,
				Run: func(t *grading.T) { intensityMaxTile(t, fn, 20) }},
			{ID: "bad-input", Title: "unknown kernels, tiles below 3 and non-positive limits are errors", Points: 1,
				Run: func(t *grading.T) { intensityBadInput(t, fn) }},
		},
	}
	if hiddenIntensity != nil {
		e.Checks = append(e.Checks, hiddenIntensity(fn)...)
	}
	e.Serve = serveIntensity(fn)
	return withPolicy(e)
}

// marchingKernels returns the steps of the model whose blocks march in z:
// one plane of threads.
func marchingKernels() []string {
	var ks []string
	for _, k := range modelKernels() {
		if st, _ := lab.LookupStep3(k); blockDepth(st) == 1 {
			ks = append(ks, k)
		}
	}
	return ks
}

// blockDepth returns the z extent of the step's block at tile 8.
func blockDepth(s lab.Step3) int {
	g, err := s.Launch(9, 9, 9, lab.Config{Tile: 8})
	if err != nil {
		return 0
	}
	return g.Block.Z
}

func intensityBasic(t *grading.T, fn IntensityFuncs) {
	basic := figureStep("8.6")
	for _, T := range []int{3, 4 + t.Rand().IntN(8), 8, 16} {
		what := fmt.Sprintf("Intensity(%q, %d)", basic, T)
		got, err := fn.Intensity(basic, T)
		t.Must(err, what)
		if !grading.Number(t, what, got, lab.IntensityBasic(), grading.Float64,
			grading.Scalar{Hint: "that is operations per element; each float is 4 bytes", Value: 13.0 / 7},
			grading.Scalar{Hint: "a float is 4 bytes, not 8", Value: 13.0 / 56},
			grading.Scalar{Hint: "an update is 13 operations: 7 multiplications and 6 additions", Value: 7.0 / 28},
			grading.Scalar{Hint: "this is bytes per operation; intensity is operations per byte", Value: 28.0 / 13}) {
			return
		}
	}
}

func intensitySlides(t *grading.T, fn IntensityFuncs) {
	for _, c := range []struct {
		T         int
		published float64
	}{{8, 1.37}, {32, 2.68}} {
		what := fmt.Sprintf("Intensity(%q, %d)", figureStep("8.8"), c.T)
		got, err := fn.Intensity(figureStep("8.8"), c.T)
		t.Must(err, what)
		if !grading.Number(t, what, got, lab.IntensityTiled(float64(c.T)), grading.Float64, tiledVariants(c.T)...) {
			return
		}
		if !assert.InDelta(t, c.published, got, 0.005, "%s: got %.4f, but the slides give %.2f OP/B", what, got, c.published) {
			return
		}
	}
}

// tiledVariants are the usual wrong intensities of a tiled kernel at T.
func tiledVariants(T int) []grading.Scalar {
	t := float64(T)
	o := t - 2
	return []grading.Scalar{
		{Hint: "a block loads its whole T³ input tile, halo included, but computes only the (T−2)³ output tile", Value: 13.0 / 4},
		{Hint: "upside down: operations over bytes is 13(T−2)³ over 4T³", Value: 13 * t * t * t / (4 * o * o * o)},
		{Hint: "that is operations per element; each float is 4 bytes", Value: 13 * o * o * o / (t * t * t)},
		{Hint: "the output tile is T−2 wide, not T−1 (one halo point on each side)", Value: 13 * (t - 1) * (t - 1) * (t - 1) / (4 * t * t * t)},
		{Hint: "the block also loads the halo planes in z: T planes of T² inputs for T−2 output planes", Value: 13 * o / (4 * t)},
		{Hint: "the block loads each input once, not 7 times: the neighbours come from shared memory", Value: 13 * o * o * o / (28 * t * t * t)},
	}
}

func intensityTiled(t *grading.T, fn IntensityFuncs, kernel string, trials, maxT int) {
	for range trials {
		T := 3 + t.Rand().IntN(maxT-2)
		what := fmt.Sprintf("Intensity(%q, %d)", kernel, T)
		got, err := fn.Intensity(kernel, T)
		t.Must(err, what)
		c, err := lab.Cost(kernel, T)
		require.NoError(t, err, "the reference failed")
		if !grading.Number(t, what, got, c.OpPerByte(), grading.Float64, tiledVariants(T)...) {
			return
		}
	}
}

func intensityCost(t *grading.T, fn IntensityFuncs, trials int) {
	for range trials {
		kernel := pick(t, modelKernels()...)
		T := 3 + t.Rand().IntN(40)
		what := fmt.Sprintf("Cost(%q, %d)", kernel, T)
		got, err := fn.Cost(kernel, T)
		t.Must(err, what)
		want, err := lab.Cost(kernel, T)
		require.NoError(t, err, "the reference failed")
		for _, f := range []struct {
			name      string
			got, want int
		}{
			{"Outputs", got.Outputs, want.Outputs}, {"Ops", got.Ops, want.Ops}, {"Loads", got.Loads, want.Loads},
			{"Threads", got.Threads, want.Threads}, {"SharedBytes", got.SharedBytes, want.SharedBytes},
		} {
			if f.got != f.want {
				hint := costHint(kernel, f.name)
				assert.Fail(t, "wrong cost", fmt.Sprintf("%s.%s: got %d, want %d — %s", what, f.name, f.got, f.want, hint))
				return
			}
		}
	}
}

// costHint says in words what a quantity of the cost of a kernel is, from
// the lab's description of the step.
func costHint(kernel, field string) string {
	st, err := lab.LookupStep3(kernel)
	if err != nil {
		return ""
	}
	switch field {
	case "Loads":
		return st.Explain.Loads
	case "Outputs":
		return st.Explain.Outputs
	case "Threads":
		return st.Explain.Threads
	case "SharedBytes":
		return st.Explain.Shared
	}
	return "13 operations per output"
}

func intensityMaxTile(t *grading.T, fn IntensityFuncs, trials int) {
	limits := []sim.Limits{sim.DefaultLimits()}
	for range trials {
		limits = append(limits, sim.Limits{MaxThreads: 64 + t.Rand().IntN(2048), MaxSharedBytes: 4096 + t.Rand().IntN(228*1024)})
	}
	for _, lim := range limits {
		for _, kernel := range modelKernels() {
			what := fmt.Sprintf("MaxTile(%q, {MaxThreads: %d, MaxSharedBytes: %d})", kernel, lim.MaxThreads, lim.MaxSharedBytes)
			gotT, gotBound, err := fn.MaxTile(kernel, lim)
			t.Must(err, what)
			wantT, wantBound, err := lab.MaxTile(kernel, lim)
			require.NoError(t, err, "the reference failed")
			if gotT != wantT {
				hint := ""
				switch {
				case gotT == wantT+1:
					hint = " — that tile no longer fits; return the largest T that does"
				case blockDepth(mustStep(kernel)) > 1:
					hint = fmt.Sprintf(" — a T×T×T block has T³ threads; %d³ = %d", wantT+1, (wantT+1)*(wantT+1)*(wantT+1))
				default:
					hint = " — a coarsened block has T² threads; check the shared memory too"
				}
				assert.Fail(t, "wrong tile", fmt.Sprintf("%s: got T = %d, want %d%s", what, gotT, wantT, hint))
				return
			}
			if !assert.Equal(t, wantBound, gotBound, "%s: T = %d is right, but the limit that stops T+1 is %q, not %q", what, gotT, wantBound, gotBound) {
				return
			}
		}
	}
}

// mustStep returns a registered step the checks know exists.
func mustStep(name string) lab.Step3 {
	s, err := lab.LookupStep3(name)
	if err != nil {
		panic(err)
	}
	return s
}

// outsideModel returns a step of the lab that the cost model leaves out.
func outsideModel() string {
	ns := lab.Names3(func(s lab.Step3) bool { return !lab.InModel(s) })
	return ns[len(ns)-1]
}

func intensityBadInput(t *grading.T, fn IntensityFuncs) {
	marching := marchingKernels()[0]
	for _, c := range []struct {
		kernel string
		T      int
	}{{outsideModel(), 8}, {"", 8}, {figureStep("8.8"), 2}, {marching, 0}, {figureStep("8.6"), -4}} {
		_, err := fn.Intensity(c.kernel, c.T)
		if !t.WantError(err, fmt.Sprintf("Intensity(%q, %d)", c.kernel, c.T)) {
			return
		}
		_, err = fn.Cost(c.kernel, c.T)
		if !t.WantError(err, fmt.Sprintf("Cost(%q, %d)", c.kernel, c.T)) {
			return
		}
	}
	for _, c := range []struct {
		kernel string
		lim    sim.Limits
	}{{"tiles", sim.DefaultLimits()}, {figureStep("8.8"), sim.Limits{MaxThreads: 0, MaxSharedBytes: 1 << 14}},
		{marching, sim.Limits{MaxThreads: 1024, MaxSharedBytes: -1}}} {
		_, _, err := fn.MaxTile(c.kernel, c.lim)
		if !t.WantError(err, fmt.Sprintf("MaxTile(%q, %+v)", c.kernel, c.lim)) {
			return
		}
	}
}
