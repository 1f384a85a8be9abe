package checks

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

// LaunchFuncs are the functions of exercises/11_launch: what the host code
// of the chapter's kernels decides before and after a launch, for the
// thirteen-point star (a halo of two, OUT_TILE = IN_TILE − 4).
type LaunchFuncs struct {
	// Configure returns the grid, the block and the shared memory per
	// block of the thirteen-point kernel ("tiled" or "coarsened") at input
	// tile T on an nz×ny×nx grid.
	Configure func(kernel string, T, nz, ny, nx int) (grid, block sim.Dim3, sharedBytes int, err error)
	// Validate refuses a launch that the device would refuse, with an
	// error wrapping sim.ErrLimit that names the limit broken.
	Validate func(grid, block sim.Dim3, sharedBytes int, lim sim.Limits) error
	// Report returns what the host code reports after launching kernel:
	// launchErr is the launch's own error (the launch was refused and
	// nothing ran), syncErr what waiting for the kernel's end returned (a
	// failure while it ran).
	Report func(kernel string, launchErr, syncErr error) error
}

// The device's largest block and grid, CUDA's (and the simulator's).
const (
	launchMaxBlockXY = 1024
	launchMaxBlockZ  = 64
	launchMaxGridX   = 1<<31 - 1
	launchMaxGridYZ  = 65535
)

// launchDecl declares exercise 11.
var launchDecl = declare(&Decl[LaunchFuncs]{
	ID:    "11_launch",
	Title: "Host code: the launch configuration of the 13-point kernels, illegal launches refused, errors after a launch",
	Files: []string{"launch.go"},
	Allow: sym(simPkg, "Dim3", "Dim3.X", "Dim3.Y", "Dim3.Z", "Dim3.Size", "Dim3.Shape", "Dim3.String",
		"Limits", "Limits.MaxThreads", "Limits.MaxSharedBytes", "DefaultLimits", "ElemBytes",
		"MaxThreadsPerBlock", "DefaultSharedPerBlock", "ErrLimit", "ErrFault"),
	Checks: func(fn LaunchFuncs) []grading.Check {
		return []grading.Check{
			{ID: "tiled", Title: "the tiled kernel: a T×T×T block, T³ floats shared, every output point covered once", Points: 2,
				Run: func(t *grading.T) { launchConfigure(t, fn, kTiled, 30, 200) }},
			{ID: "coarsened", Title: "the coarsened kernel: a T×T block marching T−4 planes, five planes shared", Points: 2,
				Run: func(t *grading.T) { launchConfigure(t, fn, kCoarsened, 30, 200) }},
			{ID: "bad-config", Title: "an unknown kernel, T < 5 or a side below 1 is an error", Points: 1,
				Run: func(t *grading.T) { launchBadConfig(t, fn) }},
			{ID: "legal", Title: "a launch within every limit is allowed, the chapter's 8×8×8 tile included", Points: 1,
				Run: func(t *grading.T) { launchLegal(t, fn, 100) }},
			{ID: "threads", Title: "too many threads per block is refused, naming the count and the limit (34×34 = 1156 > 1024)", Points: 1,
				Run: func(t *grading.T) { launchThreads(t, fn, 50) }},
			{ID: "shared", Title: "too much shared memory per block is refused, naming the bytes and the limit", Points: 1,
				Run: func(t *grading.T) { launchShared(t, fn, 50) }},
			{ID: "dimensions", Title: "a dimension below 1 or above the device's largest block or grid is refused", Points: 1,
				Run: func(t *grading.T) { launchDimensions(t, fn, 50) }},
			{ID: "report", Title: "after a launch: nothing to report, a refused launch, a failure while the kernel ran", Points: 2,
				Run: func(t *grading.T) { launchReport(t, fn, 30) }},
		}
	},
})

// Launch returns exercise 11, the host code of a launch, checking fn.
func Launch(fn LaunchFuncs) grading.Exercise { return launchDecl.Exercise(fn) }

// launchCovers checks that g blocks of out outputs each cover n points
// with no block left idle.
func launchCovers(g, out, n int) bool { return g >= 1 && g*out >= n && (g-1)*out < n }

func launchConfigure(t *grading.T, fn LaunchFuncs, kernel string, trials, maxSide int) {
	for trial := range trials {
		T := 5 + t.Rand().IntN(8)
		if trial == 0 {
			T = 8
		}
		nz, ny, nx := 1+t.Rand().IntN(maxSide), 1+t.Rand().IntN(maxSide), 1+t.Rand().IntN(maxSide)
		what := fmt.Sprintf("Configure(%q, %d, %d, %d, %d)", kernel, T, nz, ny, nx)
		grid, block, shared, err := fn.Configure(kernel, T, nz, ny, nx)
		t.Must(err, what)
		out := T - 4
		wantBlock := sim.Dim3{X: T, Y: T, Z: T}
		planes := T // the tiled kernel's T³ input tile
		if kernel == kCoarsened {
			wantBlock.Z = 1
			planes = 5 // the five planes an output plane needs
		}
		if block != wantBlock {
			hint := ""
			switch {
			case block == (sim.Dim3{X: out, Y: out, Z: wantBlock.Z}) || block == (sim.Dim3{X: out, Y: out, Z: out}):
				hint = ": that is the output tile; every thread loads one point of the input tile, halo included"
			case kernel == kCoarsened && block.Z != 1:
				hint = ": a coarsened block is one plane of threads, which marches through the output planes in z"
			}
			t.Fatalf("%s: block %s, want %s%s", what, block.Shape(), wantBlock.Shape(), hint)
		}
		if want := planes * T * T * sim.ElemBytes; shared != want {
			hint := ""
			switch shared {
			case planes * T * T:
				hint = ": that counts floats; shared memory is counted in bytes, 4 a float"
			case planes * out * out * sim.ElemBytes:
				hint = ": the input tile, halo included, is what the block keeps in shared memory"
			}
			t.Fatalf("%s: %d bytes of shared memory, want %d%s", what, shared, want, hint)
		}
		for _, d := range []struct {
			axis string
			g, n int
		}{{"x", grid.X, nx}, {"y", grid.Y, ny}, {"z", grid.Z, nz}} {
			if !launchCovers(d.g, out, d.n) {
				hint := ""
				switch {
				case d.g*T >= d.n && d.g*out < d.n:
					hint = "; each block writes an output tile of T−4 points, not T"
				case d.g*out < d.n:
					hint = "; the last points are left out: round the division up"
				default:
					hint = "; a block past the end of the grid writes nothing"
				}
				t.Fatalf("%s: %d blocks in %s for %d points with output tiles of %d%s", what, d.g, d.axis, d.n, out, hint)
			}
		}
	}
}

func launchBadConfig(t *grading.T, fn LaunchFuncs) {
	T := 5 + t.Rand().IntN(6)
	n := 5 + t.Rand().IntN(50)
	for _, c := range []struct {
		kernel        string
		T, nz, ny, nx int
	}{
		{"register", T, n, n, n}, {"", T, n, n, n}, {kTiled, 4, n, n, n}, {kCoarsened, -T, n, n, n},
		{kTiled, T, 0, n, n}, {kCoarsened, T, n, -n, n}, {kTiled, T, n, n, 0},
	} {
		what := fmt.Sprintf("Configure(%q, %d, %d, %d, %d)", c.kernel, c.T, c.nz, c.ny, c.nx)
		_, _, _, err := fn.Configure(c.kernel, c.T, c.nz, c.ny, c.nx)
		t.WantError(err, what)
	}
}

// randomLimits draws the limits of a device: 256 to 1024 threads and 16
// to 100 KiB of shared memory per block.
func randomLimits(t *grading.T) sim.Limits {
	return sim.Limits{MaxThreads: 256 << t.Rand().IntN(3), MaxSharedBytes: (16 + t.Rand().IntN(85)) * 1024}
}

// randomBlock draws a block of at most maxThreads threads within the
// largest block dimensions.
func randomBlock(t *grading.T, maxThreads int) sim.Dim3 {
	for {
		b := sim.Dim3{X: 1 + t.Rand().IntN(maxThreads), Y: 1 + t.Rand().IntN(32), Z: 1 + t.Rand().IntN(8)}
		if b.Size() <= maxThreads && b.Z <= launchMaxBlockZ {
			return b
		}
	}
}

// randomGrid draws a grid within the largest grid dimensions.
func randomGrid(t *grading.T) sim.Dim3 {
	return sim.Dim3{X: 1 + t.Rand().IntN(100000), Y: 1 + t.Rand().IntN(launchMaxGridYZ), Z: 1 + t.Rand().IntN(1000)}
}

func validateWhat(grid, block sim.Dim3, shared int, lim sim.Limits) string {
	return fmt.Sprintf("Validate(grid %s, block %s, %d bytes shared, limits %d threads and %d bytes)",
		grid.Shape(), block.Shape(), shared, lim.MaxThreads, lim.MaxSharedBytes)
}

func launchLegal(t *grading.T, fn LaunchFuncs, trials int) {
	for trial := range trials {
		lim := randomLimits(t)
		grid, block := randomGrid(t), randomBlock(t, lim.MaxThreads)
		shared := t.Rand().IntN(lim.MaxSharedBytes + 1)
		switch trial {
		case 0: // the chapter's tiled launch at IN_TILE = 8 on a 512³ grid
			lim, grid, block, shared = sim.DefaultLimits(), sim.Dim3{X: 128, Y: 128, Z: 128}, sim.Dim3{X: 8, Y: 8, Z: 8}, 8*8*8*4
		case 1: // everything at its limit
			grid, block, shared = sim.Dim3{X: launchMaxGridX, Y: launchMaxGridYZ, Z: launchMaxGridYZ}, sim.Dim3{X: lim.MaxThreads, Y: 1, Z: 1}, lim.MaxSharedBytes
		case 2:
			block = sim.Dim3{X: 1, Y: lim.MaxThreads / launchMaxBlockZ, Z: launchMaxBlockZ}
		}
		// The same launch with one limit broken: a Validate that allows
		// everything verifies nothing, so it must refuse this one.
		badGrid, badBlock, badShared := grid, block, shared
		switch t.Rand().IntN(3) {
		case 0:
			badBlock = sim.Dim3{X: lim.MaxThreads/block.Y/block.Z + 1, Y: block.Y, Z: block.Z}
			if badBlock.X > launchMaxBlockXY {
				badBlock.X = launchMaxBlockXY + 1
			}
		case 1:
			badShared = lim.MaxSharedBytes + 1 + t.Rand().IntN(lim.MaxSharedBytes)
		case 2:
			badGrid.Y = launchMaxGridYZ + 1 + t.Rand().IntN(1000)
		}
		legal := func() bool { return wantAllowed(t, fn, grid, block, shared, lim) }
		illegal := func() bool {
			what := validateWhat(badGrid, badBlock, badShared, lim)
			return t.WantError(fn.Validate(badGrid, badBlock, badShared, lim), what)
		}
		if !inRandomOrder(t, legal, illegal) {
			return
		}
	}
}

// wantAllowed checks that fn allows a launch within every limit. Each
// check of a refusal asks for one next to each launch it refuses, so that
// a Validate that refuses everything, and names every number it was
// given, scores nothing: a refusal counts only where the same Validate
// tells a legal launch from an illegal one.
func wantAllowed(t *grading.T, fn LaunchFuncs, grid, block sim.Dim3, shared int, lim sim.Limits) bool {
	what := validateWhat(grid, block, shared, lim)
	err := fn.Validate(grid, block, shared, lim)
	switch {
	case err == nil:
		return true
	case errors.Is(err, grading.ErrNotImplemented):
		t.NotImplemented(what)
	}
	t.Errorf("%s = %q: this launch is within every limit and the device runs it; refuse only a launch that breaks a limit", what, err)
	return false
}

// inRandomOrder runs the calls in an order drawn for each trial, so that
// an answer cannot tell a legal launch from an illegal one by when it is
// asked; it stops at the first that fails.
func inRandomOrder(t *grading.T, calls ...func() bool) bool {
	for _, i := range t.Rand().Perm(len(calls)) {
		if !calls[i]() {
			return false
		}
	}
	return true
}

// wantLimitError checks that err refuses a launch, wraps sim.ErrLimit and
// names every number of want.
func wantLimitError(t *grading.T, err error, what string, want ...int) bool {
	if !t.WantError(err, what) {
		return false
	}
	if !errors.Is(err, sim.ErrLimit) {
		t.Errorf("%s: the error %q does not wrap sim.ErrLimit (fmt.Errorf with %%w)", what, err)
		return false
	}
	for _, n := range want {
		if !strings.Contains(err.Error(), strconv.Itoa(n)) {
			t.Errorf("%s: the error %q does not name %d: say what the launch asks for and the limit", what, err, n)
			return false
		}
	}
	return true
}

func launchThreads(t *grading.T, fn LaunchFuncs, trials int) {
	for trial := range trials {
		lim := randomLimits(t)
		block := randomBlock(t, 2*lim.MaxThreads)
		for block.Size() <= lim.MaxThreads || block.X > launchMaxBlockXY {
			block = randomBlock(t, 2*lim.MaxThreads)
		}
		// The legal launch beside it: exactly the limit, or fewer threads.
		fits := sim.Dim3{X: lim.MaxThreads, Y: 1, Z: 1}
		if trial%2 == 1 {
			fits = randomBlock(t, lim.MaxThreads)
		}
		if trial == 0 { // the chapter's warning: a 34×34 tile of threads, and the 32×32 that fits
			lim.MaxThreads, block, fits = 1024, sim.Dim3{X: 34, Y: 34, Z: 1}, sim.Dim3{X: 32, Y: 32, Z: 1}
		}
		grid := randomGrid(t)
		what := validateWhat(grid, block, 0, lim)
		if !inRandomOrder(t,
			func() bool {
				return wantLimitError(t, fn.Validate(grid, block, 0, lim), what, block.Size(), lim.MaxThreads)
			},
			func() bool { return wantAllowed(t, fn, grid, fits, 0, lim) }) {
			return
		}
	}
}

func launchShared(t *grading.T, fn LaunchFuncs, trials int) {
	for trial := range trials {
		lim := randomLimits(t)
		grid, block := randomGrid(t), randomBlock(t, lim.MaxThreads)
		shared := lim.MaxSharedBytes + 1 + t.Rand().IntN(lim.MaxSharedBytes)
		fits := lim.MaxSharedBytes // the legal launch beside it: exactly the limit, or less
		if trial%2 == 1 {
			fits = t.Rand().IntN(lim.MaxSharedBytes)
		}
		what := validateWhat(grid, block, shared, lim)
		if !inRandomOrder(t,
			func() bool {
				return wantLimitError(t, fn.Validate(grid, block, shared, lim), what, shared, lim.MaxSharedBytes)
			},
			func() bool { return wantAllowed(t, fn, grid, block, fits, lim) }) {
			return
		}
	}
	lim, grid, block := sim.DefaultLimits(), sim.Dim3{X: 1, Y: 1, Z: 1}, sim.Dim3{X: 8, Y: 8, Z: 8}
	what := validateWhat(grid, block, -4, lim)
	inRandomOrder(t,
		func() bool { return wantLimitError(t, fn.Validate(grid, block, -4, lim), what) },
		func() bool { return wantAllowed(t, fn, grid, block, 0, lim) })
}

func launchDimensions(t *grading.T, fn LaunchFuncs, trials int) {
	for trial := range trials {
		lim := sim.Limits{MaxThreads: 1 << 30, MaxSharedBytes: 1 << 20} // only the dimensions can break
		grid, block := randomGrid(t), randomBlock(t, 1024)
		// bad breaks one dimension; fits sets the same dimension to the
		// nearest legal value, for the legal launch beside it.
		fitGrid, fitBlock := grid, block
		var bad int
		switch trial % 6 {
		case 0:
			block.Z = launchMaxBlockZ + 1 + t.Rand().IntN(100)
			bad, fitBlock.Z = block.Z, launchMaxBlockZ
		case 1:
			block.X = launchMaxBlockXY + 1 + t.Rand().IntN(1000)
			bad, fitBlock.X = block.X, launchMaxBlockXY
		case 2:
			grid.Y = launchMaxGridYZ + 1 + t.Rand().IntN(1000)
			bad, fitGrid.Y = grid.Y, launchMaxGridYZ
		case 3:
			grid.X = launchMaxGridX + 1
			bad, fitGrid.X = grid.X, launchMaxGridX
		case 4:
			grid.Z = -t.Rand().IntN(3)
			bad, fitGrid.Z = grid.Z, 1
		case 5:
			block.Y = -t.Rand().IntN(3)
			bad, fitBlock.Y = block.Y, 1
		}
		what := validateWhat(grid, block, 0, lim)
		if !inRandomOrder(t,
			func() bool { return wantLimitError(t, fn.Validate(grid, block, 0, lim), what, bad) },
			func() bool { return wantAllowed(t, fn, fitGrid, fitBlock, 0, lim) }) {
			return
		}
	}
}

// launchErrors draws what a launch and the wait for its end return: a
// refused launch wraps sim.ErrLimit, a failure while running sim.ErrFault,
// each with text of its own.
func launchErrors(t *grading.T) (refused, failed error) {
	n := 10 + t.Rand().IntN(90)
	refused = fmt.Errorf("sim: launch star: block %d×%d = %d threads exceeds 1024 threads per block: %w", n, n, n*n, sim.ErrLimit)
	failed = fmt.Errorf("sim: star: thread (%d,0,0) of block (%d,0,0): load of element %d outside an array of %d: %w",
		t.Rand().IntN(32), t.Rand().IntN(100), 1000+t.Rand().IntN(1000), 1000, sim.ErrFault)
	return refused, failed
}

func launchReport(t *grading.T, fn LaunchFuncs, trials int) {
	for range trials {
		kernel := []string{kTiled, kCoarsened, "star_" + strconv.Itoa(t.Rand().IntN(1000))}[t.Rand().IntN(3)]
		refused, failed := launchErrors(t)

		what := fmt.Sprintf("Report(%q, nil, nil)", kernel)
		err := fn.Report(kernel, nil, nil)
		if err != nil {
			t.Must(err, what)
		}

		what = fmt.Sprintf("Report(%q, %q, nil)", kernel, refused)
		err = fn.Report(kernel, refused, nil)
		if !t.WantError(err, what) {
			return
		}
		switch {
		case !errors.Is(err, sim.ErrLimit):
			t.Fatalf("%s = %q: the launch's error is lost; wrap it with %%w", what, err)
		case !strings.Contains(err.Error(), refused.Error()):
			t.Fatalf("%s = %q: the launch's message is lost", what, err)
		case !strings.Contains(err.Error(), kernel):
			t.Fatalf("%s = %q: say which kernel's launch", what, err)
		}

		what = fmt.Sprintf("Report(%q, nil, %q)", kernel, failed)
		err = fn.Report(kernel, nil, failed)
		if !t.WantError(err, what) {
			return
		}
		switch {
		case !errors.Is(err, sim.ErrFault):
			t.Fatalf("%s = %q: the kernel failed while it ran, and the error says nothing of it; check what the wait returns", what, err)
		case !strings.Contains(err.Error(), failed.Error()):
			t.Fatalf("%s = %q: the failure's message is lost", what, err)
		case !strings.Contains(err.Error(), kernel):
			t.Fatalf("%s = %q: say which kernel failed", what, err)
		}

		// A refused launch never ran: what the wait says is not about it.
		what = fmt.Sprintf("Report(%q, %q, %q)", kernel, refused, failed)
		err = fn.Report(kernel, refused, failed)
		if !t.WantError(err, what) {
			return
		}
		if !errors.Is(err, sim.ErrLimit) || errors.Is(err, sim.ErrFault) {
			t.Fatalf("%s = %q: a refused launch ran nothing; report the launch's error, checked first, alone", what, err)
		}
	}
}
