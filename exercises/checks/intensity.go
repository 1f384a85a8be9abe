package checks

import (
	"fmt"
	"slices"

	"github.com/stretchr/testify/assert"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// IntensityFuncs are the functions of exercises/04_intensity: the cost of
// the 13-point kernels.
type IntensityFuncs struct {
	// Cost returns what one block of a 13-point kernel does at input tile
	// T.
	Cost func(kernel string, T int) (lab.BlockCost, error)
	// Intensity returns the arithmetic intensity of a 13-point kernel at
	// tile T, in operations per byte loaded from global memory.
	Intensity func(kernel string, T int) (float64, error)
	// MaxTile returns the largest T for which a 13-point kernel fits lim,
	// and the limit that stops it: "threads" or "shared memory".
	MaxTile func(kernel string, lim sim.Limits) (int, string, error)
}

// The four kernels of the exercise, in the chapter's order.
const (
	kBasic     = "basic"
	kTiled     = "tiled"
	kCoarsened = "coarsened"
	kRegister  = "register_tiled"
)

// starKernels are the exercise's kernels; marching are those whose block
// is one plane of threads marching in z.
var (
	starKernels = []string{kBasic, kTiled, kCoarsened, kRegister}
	marching    = []string{kCoarsened, kRegister}
)

// intensityDecl declares exercise 4.
var intensityDecl = declare(&Decl[IntensityFuncs]{
	ID:    "04_intensity",
	Title: "Arithmetic intensity of the 13-point basic, tiled, coarsened and register-tiled kernels",
	Files: []string{"intensity.go"},
	Allow: slices.Concat(sym(labPkg, "BlockCost", "BlockCost.Outputs", "BlockCost.Ops", "BlockCost.Loads", "BlockCost.Threads", "BlockCost.SharedBytes"),
		sym(simPkg, "Limits", "Limits.MaxThreads", "Limits.MaxSharedBytes", "DefaultLimits", "ElemBytes")),
	Checks: func(fn IntensityFuncs) []grading.Check {
		return []grading.Check{
			{ID: kBasic, Title: "the basic kernel: 25 OPs per 13 loads of 4 bytes, 0.48 OP/B", Points: 1,
				Run: func(t *grading.T) { intensityBasic(t, fn) }},
			{ID: "by-hand", Title: "the tiled kernel at T = 8 and T = 32: 0.78 and 4.19 OP/B, worked by hand", Points: 2,
				Run: func(t *grading.T) { intensityByHand(t, fn) }},
			{ID: kTiled, Title: "the tiled kernel at random T, with IN_TILE = OUT_TILE + 4", Points: 2,
				Run: func(t *grading.T) { intensityTiled(t, fn, kTiled, 20, 100) }},
			{ID: kCoarsened, Title: "the coarsened and register-tiled kernels at random T", Points: 2,
				Run: func(t *grading.T) {
					for _, k := range marching {
						if intensityTiled(t, fn, k, 10, 100); t.Failed() {
							return
						}
					}
				}},
			{ID: "cost", Title: "outputs, operations, loads, threads and shared memory of one block of each kernel", Points: 2,
				Run: func(t *grading.T) { intensityCost(t, fn, 40) }},
			{ID: "max-tile", Title: "the largest tile under CUDA's limits and under random ones, and the limit that binds", Points: 2,
				Run: func(t *grading.T) { intensityMaxTile(t, fn, 20) }},
			{ID: "bad-input", Title: "unknown kernels, tiles below 5, non-positive limits and limits below T = 5 are errors", Points: 1,
				Run: func(t *grading.T) { intensityBadInput(t, fn) }},
		}
	},
})

// Intensity returns exercise 4, the arithmetic intensity of the 13-point
// kernels, checking fn.
func Intensity(fn IntensityFuncs) grading.Exercise { return intensityDecl.Exercise(fn) }

// The expected costs are counted, not written as formulas: the star's
// offsets are enumerated, an axis of the tile is walked point by point to
// find the outputs, and a block is described by how its threads are laid
// out and what each one loads, as the chapter's kernels do. (The tests
// count the same quantities once more by walking every thread of small
// blocks.)

// star13 returns the offsets (dz, dy, dx) of the 13-point star: every
// offset within 2 on one axis.
func star13() [][3]int {
	var out [][3]int
	for dz := -2; dz <= 2; dz++ {
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				nonzero := 0
				for _, d := range []int{dz, dy, dx} {
					if d != 0 {
						nonzero++
					}
				}
				if nonzero <= 1 {
					out = append(out, [3]int{dz, dy, dx})
				}
			}
		}
	}
	return out
}

// axisOutputs walks the T points of an input tile's axis and counts those
// whose every neighbour along that axis lies inside the tile.
func axisOutputs(T int) int {
	n := 0
	for p := 0; p < T; p++ {
		inside := true
		for _, o := range star13() {
			if q := p + o[2]; q < 0 || q >= T {
				inside = false
			}
		}
		if inside {
			n++
		}
	}
	return n
}

// planesUsed returns the number of distinct z offsets of the star: the
// input planes an output plane needs.
func planesUsed() int {
	seen := map[int]bool{}
	for _, o := range star13() {
		seen[o[0]] = true
	}
	return len(seen)
}

// countCost counts one block of kernel at input tile T.
func countCost(kernel string, T int) lab.BlockCost {
	points := len(star13())
	opsPerOutput := points + (points - 1) // a multiplication per point, the additions between them
	out := axisOutputs(T)
	var c lab.BlockCost
	switch kernel {
	case kBasic: // a thread per point of a T×T×T block, each loading its neighbourhood
		c.Threads = T * T * T
		c.Outputs = c.Threads
		c.Loads = c.Threads * points
	case kTiled: // a thread per input of the tile, one load each, all of the tile shared
		c.Threads = T * T * T
		c.Loads = c.Threads
		c.Outputs = out * out * out
		c.SharedBytes = lab.Float32Bytes * T * T * T
	case kCoarsened, kRegister: // a T×T plane of threads, one load each per input plane
		c.Threads = T * T
		c.Loads = c.Threads * T
		c.Outputs = out * out * out
		shared := planesUsed()
		if kernel == kRegister {
			shared = 1 // the other planes live in registers
		}
		c.SharedBytes = lab.Float32Bytes * shared * T * T
	}
	c.Ops = opsPerOutput * c.Outputs
	return c
}

// countIntensity is Ops over the bytes loaded.
func countIntensity(kernel string, T int) float64 {
	c := countCost(kernel, T)
	return float64(c.Ops) / float64(lab.Float32Bytes*c.Loads)
}

func intensityBasic(t *grading.T, fn IntensityFuncs) {
	for _, T := range []int{5, 6 + t.Rand().IntN(8), 8, 16} {
		what := fmt.Sprintf("Intensity(%q, %d)", kBasic, T)
		got, err := fn.Intensity(kBasic, T)
		t.Must(err, what)
		if !grading.Number(t, what, got, countIntensity(kBasic, T), grading.Float64,
			grading.Scalar{Hint: "that is the seven-point kernel's 13 OPs per 7 loads; the 13-point star does 25 operations per output from 13 loads", Value: 13.0 / 28},
			grading.Scalar{Hint: "that is operations per element; each float is 4 bytes", Value: 25.0 / 13},
			grading.Scalar{Hint: "a float is 4 bytes, not 8", Value: 25.0 / 104},
			grading.Scalar{Hint: "an update is 25 operations: 13 multiplications and 12 additions", Value: 13.0 / 52},
			grading.Scalar{Hint: "an update is 25 operations: 13 multiplications and 12 additions, not 26", Value: 26.0 / 52},
			grading.Scalar{Hint: "this is bytes per operation; intensity is operations per byte", Value: 52.0 / 25}) {
			return
		}
	}
}

func intensityByHand(t *grading.T, fn IntensityFuncs) {
	// At T = 8 the output tile is 4³ = 64 points: 25·64 / (4·512) =
	// 0.78125. At T = 32 it is 28³ = 21952: 25·21952 / (4·32768) ≈ 4.187.
	for _, c := range []struct {
		T      int
		byHand float64
	}{{8, 0.78125}, {32, 548800.0 / 131072}} {
		what := fmt.Sprintf("Intensity(%q, %d)", kTiled, c.T)
		got, err := fn.Intensity(kTiled, c.T)
		t.Must(err, what)
		if !grading.Number(t, what, got, c.byHand, grading.Float64, tiledVariants(c.T)...) {
			return
		}
	}
}

// tiledVariants are the usual wrong intensities of a 13-point tiled
// kernel at input tile T.
func tiledVariants(T int) []grading.Scalar {
	t := float64(T)
	o := t - 4
	cube := func(x float64) float64 { return x * x * x }
	return []grading.Scalar{
		{Hint: "a block loads its whole T³ input tile, halo included, but computes only the (T−4)³ output tile", Value: 25.0 / 4},
		{Hint: "the halo of a radius-2 star is two points on each side: the output tile is T−4 wide, not T−2", Value: 25 * cube(t-2) / (4 * cube(t))},
		{Hint: "that is the seven-point tiled kernel (13 OPs, a T−2 output tile); the 13-point star does 25 OPs per output on a T−4 tile", Value: 13 * cube(t-2) / (4 * cube(t))},
		{Hint: "an update is 25 operations: 13 multiplications and 12 additions", Value: 13 * cube(o) / (4 * cube(t))},
		{Hint: "upside down: operations over bytes is 25(T−4)³ over 4T³", Value: 4 * cube(t) / (25 * cube(o))},
		{Hint: "that is operations per element; each float is 4 bytes", Value: 25 * cube(o) / cube(t)},
		{Hint: "the block loads each input once, not 13 times: the neighbours come from shared memory", Value: 25 * cube(o) / (52 * cube(t))},
	}
}

func intensityTiled(t *grading.T, fn IntensityFuncs, kernel string, trials, maxT int) {
	for range trials {
		T := 5 + t.Rand().IntN(maxT-4)
		what := fmt.Sprintf("Intensity(%q, %d)", kernel, T)
		got, err := fn.Intensity(kernel, T)
		t.Must(err, what)
		if !grading.Number(t, what, got, countIntensity(kernel, T), grading.Float64, tiledVariants(T)...) {
			return
		}
	}
}

// costHint says in words what a quantity of the cost of a kernel is.
func costHint(kernel, field string) string {
	switch field {
	case "Outputs":
		if kernel == kBasic {
			return "every thread of the basic kernel computes one output"
		}
		return "the output tile is T−4 on a side (two halo points at each end) and T−4 planes deep: (T−4)³"
	case "Loads":
		if kernel == kBasic {
			return "each thread loads its 13 inputs from global memory"
		}
		return "every input of the T³ tile, halo included, is loaded once"
	case "Threads":
		if kernel == kBasic || kernel == kTiled {
			return "a T×T×T block: T³ threads"
		}
		return "a T×T plane of threads marches in z: T² threads"
	case "SharedBytes":
		switch kernel {
		case kBasic:
			return "the basic kernel uses no shared memory"
		case kTiled:
			return "the whole T³ input tile of 4-byte floats"
		case kCoarsened:
			return "five T×T planes of 4-byte floats: an output plane needs two below and two above (the seven-point kernel keeps three)"
		}
		return "only the current T×T plane is shared; the two below and the two above are in registers"
	}
	return "25 operations per output: 13 multiplications and 12 additions"
}

func intensityCost(t *grading.T, fn IntensityFuncs, trials int) {
	for range trials {
		kernel := pick(t, starKernels...)
		T := 5 + t.Rand().IntN(40)
		what := fmt.Sprintf("Cost(%q, %d)", kernel, T)
		got, err := fn.Cost(kernel, T)
		t.Must(err, what)
		want := countCost(kernel, T)
		for _, f := range []struct {
			name      string
			got, want int
		}{
			{"Outputs", got.Outputs, want.Outputs}, {"Ops", got.Ops, want.Ops}, {"Loads", got.Loads, want.Loads},
			{"Threads", got.Threads, want.Threads}, {"SharedBytes", got.SharedBytes, want.SharedBytes},
		} {
			if f.got != f.want {
				assert.Fail(t, "wrong cost", fmt.Sprintf("%s.%s: got %d, want %d — %s", what, f.name, f.got, f.want, costHint(kernel, f.name)))
				return
			}
		}
	}
}

// fits returns which limit a block of kernel at tile T breaks ("threads"
// first), or "".
func fits(kernel string, T int, lim sim.Limits) string {
	c := countCost(kernel, T)
	switch {
	case c.Threads > lim.MaxThreads:
		return "threads"
	case c.SharedBytes > lim.MaxSharedBytes:
		return "shared memory"
	}
	return ""
}

// largestTile finds the largest T ≥ 5 that fits lim by trying every tile
// from 5 up, and the limit that T+1 breaks.
func largestTile(kernel string, lim sim.Limits) (int, string) {
	T := 5
	for fits(kernel, T+1, lim) == "" {
		T++
	}
	return T, fits(kernel, T+1, lim)
}

func intensityMaxTile(t *grading.T, fn IntensityFuncs, trials int) {
	limits := []sim.Limits{sim.DefaultLimits()}
	for range trials {
		// at least what T = 5 needs: 125 threads, 500 bytes
		limits = append(limits, sim.Limits{MaxThreads: 125 + t.Rand().IntN(2048), MaxSharedBytes: 500 + t.Rand().IntN(228*1024)})
	}
	for _, lim := range limits {
		for _, kernel := range starKernels {
			what := fmt.Sprintf("MaxTile(%q, {MaxThreads: %d, MaxSharedBytes: %d})", kernel, lim.MaxThreads, lim.MaxSharedBytes)
			gotT, gotBound, err := fn.MaxTile(kernel, lim)
			t.Must(err, what)
			wantT, wantBound := largestTile(kernel, lim)
			if gotT != wantT {
				hint := ""
				switch {
				case gotT == wantT+1:
					hint = " — that tile no longer fits; return the largest T that does"
				case kernel == kBasic || kernel == kTiled:
					hint = fmt.Sprintf(" — a T×T×T block has T³ threads; %d³ = %d", wantT+1, (wantT+1)*(wantT+1)*(wantT+1))
				case kernel == kCoarsened && 12*gotT*gotT <= lim.MaxSharedBytes && 12*(gotT+1)*(gotT+1) > lim.MaxSharedBytes:
					hint = " — three shared planes are the seven-point kernel's; the 13-point coarsened kernel keeps five"
				default:
					hint = " — a marching block has T² threads; check the shared memory too"
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
	}{{"fast", 8}, {"", 8}, {"Basic", 8}, {kTiled, 4}, {kCoarsened, 0}, {kBasic, -4}, {kRegister, 3}} {
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
		why    string
	}{
		{"tiles", sim.DefaultLimits(), "an unknown kernel"},
		{kTiled, sim.Limits{MaxThreads: 0, MaxSharedBytes: 1 << 14}, "no threads"},
		{kCoarsened, sim.Limits{MaxThreads: 1024, MaxSharedBytes: -1}, "negative shared memory"},
		{kBasic, sim.Limits{MaxThreads: 124, MaxSharedBytes: 1 << 14}, "T = 5 needs 125 threads"},
		{kTiled, sim.Limits{MaxThreads: 1024, MaxSharedBytes: 499}, "T = 5 needs 500 shared bytes"},
		{kCoarsened, sim.Limits{MaxThreads: 24, MaxSharedBytes: 1 << 14}, "T = 5 needs 25 threads"},
	} {
		_, _, err := fn.MaxTile(c.kernel, c.lim)
		if !t.WantError(err, fmt.Sprintf("MaxTile(%q, %+v) (%s)", c.kernel, c.lim, c.why)) {
			return
		}
	}
}
