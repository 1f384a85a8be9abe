package checks

import (
	"fmt"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
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
	MaxTile func(kernel string, lim lab.Limits) (int, string, error)
}

// hiddenIntensity adds the instructor-only checks of exercise 4.
var hiddenIntensity func(IntensityFuncs) []grading.Check

var allKernels = []string{lab.KernelBasic, lab.KernelTiled, lab.KernelCoarsened, lab.KernelRegisterTiled}

// Intensity returns exercise 4, arithmetic intensity, checking fn.
func Intensity(fn IntensityFuncs) grading.Exercise {
	e := grading.Exercise{
		ID:    "04_intensity",
		Title: "Arithmetic intensity of the basic, tiled and coarsened kernels",
		Files: []string{"intensity.go"},
		Checks: []grading.Check{
			{ID: "basic", Title: "the basic kernel: 13 OPs per 7 loads of 4 bytes, 0.46 OP/B", Points: 1,
				Run: func(t *grading.T) { intensityBasic(t, fn) }},
			{ID: "slides", Title: "the tiled kernel at T = 8 and T = 32: 1.37 and 2.68 OP/B, as the slides print", Points: 2,
				Run: func(t *grading.T) { intensitySlides(t, fn) }},
			{ID: "tiled", Title: "the tiled kernel at random T: 13(T−2)³ / 4T³", Points: 2,
				Run: func(t *grading.T) { intensityTiled(t, fn, lab.KernelTiled, 20, 100) }},
			{ID: "coarsened", Title: "the coarsened and register-tiled kernels at random T", Points: 2,
				Run: func(t *grading.T) {
					intensityTiled(t, fn, lab.KernelCoarsened, 10, 100)
					if !t.Failed() {
						intensityTiled(t, fn, lab.KernelRegisterTiled, 10, 100)
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
	return e
}

func intensityBasic(t *grading.T, fn IntensityFuncs) {
	for _, T := range []int{3, 4 + t.Rand().IntN(8), 8, 16} {
		what := fmt.Sprintf("Intensity(%q, %d)", lab.KernelBasic, T)
		got, err := fn.Intensity(lab.KernelBasic, T)
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
		what := fmt.Sprintf("Intensity(%q, %d)", lab.KernelTiled, c.T)
		got, err := fn.Intensity(lab.KernelTiled, c.T)
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
	hints := map[string]map[string]string{
		lab.KernelBasic: {
			"Loads": "each of the T³ threads loads its 7 inputs", "Outputs": "every thread of a T×T×T block computes one output",
			"SharedBytes": "the basic kernel uses no shared memory",
		},
		lab.KernelTiled: {
			"Loads": "the block loads the T³ input tile once", "Outputs": "the output tile is (T−2)³",
			"Threads": "one thread per input element: T³", "SharedBytes": "the T³ input tile, 4 bytes per float",
		},
		lab.KernelCoarsened: {
			"Loads": "T planes of T² inputs: the T−2 output planes and one halo plane on each side", "Outputs": "T−2 output planes of (T−2)²",
			"Threads": "a coarsened block is one T×T plane of threads marching in z", "SharedBytes": "three T×T planes (previous, current, next), 4 bytes per float",
		},
		lab.KernelRegisterTiled: {
			"Loads": "T planes of T² inputs, as the coarsened kernel", "Outputs": "T−2 output planes of (T−2)²",
			"Threads": "one T×T plane of threads", "SharedBytes": "only the current T×T plane is shared; the previous and next live in registers",
		},
	}
	for range trials {
		kernel := pick(t, allKernels...)
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
				hint := hints[kernel][f.name]
				if f.name == "Ops" {
					hint = "13 operations per output"
				}
				assert.Fail(t, "wrong cost", fmt.Sprintf("%s.%s: got %d, want %d — %s", what, f.name, f.got, f.want, hint))
				return
			}
		}
	}
}

func intensityMaxTile(t *grading.T, fn IntensityFuncs, trials int) {
	limits := []lab.Limits{lab.DefaultLimits()}
	for range trials {
		limits = append(limits, lab.Limits{MaxThreads: 64 + t.Rand().IntN(2048), MaxSharedBytes: 4096 + t.Rand().IntN(228*1024)})
	}
	for _, lim := range limits {
		for _, kernel := range allKernels {
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
				case kernel == lab.KernelTiled || kernel == lab.KernelBasic:
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

func intensityBadInput(t *grading.T, fn IntensityFuncs) {
	for _, c := range []struct {
		kernel string
		T      int
	}{{"fast", 8}, {"", 8}, {lab.KernelTiled, 2}, {lab.KernelCoarsened, 0}, {lab.KernelBasic, -4}} {
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
		lim    lab.Limits
	}{{"tiles", lab.DefaultLimits()}, {lab.KernelTiled, lab.Limits{MaxThreads: 0, MaxSharedBytes: 1 << 14}},
		{lab.KernelCoarsened, lab.Limits{MaxThreads: 1024, MaxSharedBytes: -1}}} {
		_, _, err := fn.MaxTile(c.kernel, c.lim)
		if !t.WantError(err, fmt.Sprintf("MaxTile(%q, %+v)", c.kernel, c.lim)) {
			return
		}
	}
}
