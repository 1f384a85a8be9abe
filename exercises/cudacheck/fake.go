package cudacheck

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"time"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// Ways CPUChildMain misbehaves, each what a cheating kernel or a subverted
// child would answer, for the tests of the grader's checks of the answers.
const (
	// FakeHonest answers as a correct kernel would.
	FakeHonest = ""
	// FakeSkipTimed answers the timed chain's input as its output: a
	// kernel that does no work on the timed grid.
	FakeSkipTimed = "skip-timed"
	// FakeRemember answers the chain's output of one step fewer: a kernel
	// that skips a launch.
	FakeRemember = "skip-one-launch"
	// FakeFast answers the chain ten times faster than the copy.
	FakeFast = "fast"
	// FakeNegativeTime answers a negative time.
	FakeNegativeTime = "negative-time"
	// FakeShort answers one float fewer than due.
	FakeShort = "short"
	// FakeForgeStdout prints forged results on stdout, as a kernel's
	// printf would, and answers honestly.
	FakeForgeStdout = "forge-stdout"
	// FakeNoMemory answers that the timed grids do not fit.
	FakeNoMemory = "no-memory"
	// FakeHangTimed never answers the timed request.
	FakeHangTimed = "hang-timed"
	// FakeHang never answers the first launch: a kernel that hangs.
	FakeHang = "hang"
	// FakeFault answers the seventh launch with a lost context.
	FakeFault = "fault"
	// FakeDie prints a Go runtime's last words on stderr and exits when
	// asked to compile a tile other than the default.
	FakeDie = "die"
)

// The seed-style mistakes of exercise 24, each modelled alone on the CPU
// as the GPU would run the kernel of fix.cu that has it (blocks of
// IN_TILE_DIM×IN_TILE_DIM threads marching in z, five planes in shared
// memory): a source line "// stand-in: MODE" picks one.
const (
	// FakeZLoop: the z loop closes before computing: each block computes
	// its first plane only, with the last plane it loaded as plane i+2.
	FakeZLoop = "zloop"
	// FakeHalo: a halo of one, OUT_TILE_DIM = IN_TILE_DIM − 2: the last
	// two rows and columns of each block's output tile are never written.
	FakeHalo = "halo"
	// FakeSwap: c9 and c10 exchanged.
	FakeSwap = "swap"
	// FakeRace: the barrier between the computation of a plane and the
	// move of the planes is missing: now and then a thread reads a
	// neighbour's element of the current plane after the neighbour has
	// moved the next plane into it.
	FakeRace = "race"
	// FakeIndex32: indices computed in 32 bits: a point whose index passes
	// 2³² is written elsewhere.
	FakeIndex32 = "index32"
	// FakeNothing: the kernel writes no point.
	FakeNothing = "nothing"
)

// CPUChildMain is a stand-in for ChildMain on a machine without a GPU, for
// the tests of the grader: it answers as a GPU running a correct kernel
// would, whatever the source, its outputs computed by the CPU reference,
// its copy timed at 0.25 ms and its kernel at the share pct (%) of it;
// mode (a Fake constant) makes it misbehave, or gives its kernel one of
// the seed-style mistakes of exercise 24.
func CPUChildMain(args []string, stdin io.Reader, stdout io.Writer, pct float64, mode string) int {
	fs := flag.NewFlagSet("cuda-child", flag.ContinueOnError)
	id := fs.String("id", "", "the exercise: an init request for another is refused")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	f := os.NewFile(resultFD, "result")
	if f == nil {
		return 2
	}
	if mode == FakeForgeStdout {
		fmt.Fprintf(stdout, "result {\"id\":\"25_cuda_challenge\",\"status\":\"graded\",\"points\":1000,\"max_points\":16}\n")
	}
	return serve(bufio.NewReader(stdin), bufio.NewWriter(f), &cpuHost{pct: pct, mode: mode, id: *id})
}

var standInRE = regexp.MustCompile(`(?m)^// stand-in: ([a-z0-9-]+)$`)

type cpuHost struct {
	id     string
	pct    float64
	mode   string
	sweeps int
	race   *rand.Rand
}

// maxFakeGrid is the most points the stand-in computes a whole output of;
// a larger grid must ask for planes.
const maxFakeGrid = 1 << 26

// model answers a sweep as the GPU running the kernel would: every point
// computed from the input drawn from the seed, with the stand-in's mistake.
func (h *cpuHost) model(req request, c Coeffs13) ([]float32, error) {
	nz, ny, nx := req.Dims[0], req.Dims[1], req.Dims[2]
	if _, err := checkDims(req.Dims); err != nil {
		return nil, err
	}
	key, err := alongKey(req.Along, ny, nx)
	if err != nil {
		return nil, err
	}
	planes := req.Planes
	if len(planes) == 0 {
		if nz*ny*nx > maxFakeGrid {
			return nil, fmt.Errorf("the stand-in computes whole grids of up to %d points, not %d×%d×%d", maxFakeGrid, nz, ny, nx)
		}
		for i := range nz {
			planes = append(planes, i)
		}
	}
	for _, p := range planes {
		if p < 0 || p >= nz {
			return nil, fmt.Errorf("plane %d outside 0…%d", p, nz-1)
		}
	}
	poison := float32(math.NaN())
	if req.Poison != 0 {
		poison = math.Float32frombits(req.Poison)
	}
	tile := req.Tile
	if tile == 0 {
		tile = findTheBugTile
	}
	if h.race == nil {
		h.race = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	}
	at := func(i, j, k int) float32 { return inputValue(req.Seed, uint64(key((i*ny+j)*nx+k))) }
	if req.Along != "" {
		// An input along one axis takes at most max(nz, ny, nx) values.
		table := make([]float32, max(nz, ny, nx))
		for q := range table {
			table[q] = inputValue(req.Seed, uint64(q))
		}
		at = func(i, j, k int) float32 { return table[key((i*ny+j)*nx+k)] }
	}
	plane := ny * nx
	out := make([]float32, len(planes)*plane)
	for q, i := range planes {
		for j := range ny {
			for k := range nx {
				v, ok := h.point(at, c, [3]int{nz, ny, nx}, tile, i, j, k)
				if !ok {
					v = poison
				}
				out[q*plane+j*nx+k] = v
			}
		}
	}
	return out, nil
}

// point is the output at (i, j, k), and whether it is written.
func (h *cpuHost) point(at func(i, j, k int) float32, c Coeffs13, dims [3]int, tile, i, j, k int) (float32, bool) {
	nz, ny, nx := dims[0], dims[1], dims[2]
	if i < Radius || i >= nz-Radius || j < Radius || j >= ny-Radius || k < Radius || k >= nx-Radius {
		return 0, false
	}
	out := tile - 2*Radius
	next2 := i + 2 // the plane the c12 term reads
	// cur is the plane the y neighbours of the current plane are read from.
	cur := func(dj int) float32 { return at(i, j+dj, k) }
	switch h.mode {
	case FakeNothing:
		return 0, false
	case FakeZLoop:
		if i%out != 0 {
			return 0, false
		}
		next2 = min(i+out+1, nz-1)
	case FakeHalo:
		wide := tile - 2
		blocks := func(n int) int { return (n-1-Radius)/out + 1 }
		if j%wide > wide-3 || k%wide > wide-3 || j/wide >= blocks(ny) || k/wide >= blocks(nx) {
			return 0, false
		}
	case FakeSwap:
		c[9], c[10] = c[10], c[9]
	case FakeRace:
		if i+1 < nz && h.race.IntN(200) == 0 {
			cur = func(dj int) float32 { return at(i+1, j+dj, k) }
		}
	case FakeIndex32:
		if (uint64(i)*uint64(ny)+uint64(j))*uint64(nx)+uint64(k) >= 1<<32 {
			return 0, false
		}
	}
	w := func(q int) float32 { return float32(c[q]) }
	var sum float32
	sum += w(0) * at(i, j, k)
	sum += w(1) * at(i, j, k-1)
	sum += w(2) * at(i, j, k+1)
	sum += w(3) * cur(-1)
	sum += w(4) * cur(1)
	sum += w(5) * at(i-1, j, k)
	sum += w(6) * at(i+1, j, k)
	sum += w(7) * at(i, j, k-2)
	sum += w(8) * at(i, j, k+2)
	sum += w(9) * cur(-2)
	sum += w(10) * cur(2)
	sum += w(11) * at(i-2, j, k)
	sum += w(12) * at(next2, j, k)
	return sum, true
}

func (h *cpuHost) handle(req request) (response, []float32) {
	switch req.Op {
	case opInit:
		if _, ok := Lookup(req.ID); !ok || (h.id != "" && h.id != req.ID) {
			return fail(fmt.Errorf("no CUDA exercise %q", req.ID))
		}
		if m := standInRE.FindStringSubmatch(req.Source); h.mode == "" && m != nil {
			h.mode = m[1]
		}
		return response{Free: 80e9, Total: 80e9, Device: "CPU stand-in"}, nil
	case opMemInfo:
		return response{Free: 80e9, Total: 80e9}, nil
	case opCompile:
		if h.mode == FakeDie && req.Tile != 0 {
			fmt.Fprintln(os.Stderr, "fatal error: runtime: out of memory")
			os.Exit(2)
		}
		return response{}, nil
	case opSweep:
		h.sweeps++
		switch {
		case h.mode == FakeHang:
			select {}
		case h.mode == FakeFault && h.sweeps == 7:
			return fail(fmt.Errorf("gpu: launch basic: cuStreamSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS: %w", gpu.ErrContextLost))
		}
		c, err := coeffs(req.Coeffs)
		if err != nil {
			return fail(err)
		}
		out, err := h.model(req, c)
		if err != nil {
			return fail(err)
		}
		return response{}, out
	case opTime:
		if h.mode == FakeHangTimed {
			select {}
		}
		if h.mode == FakeNoMemory {
			return fail(fmt.Errorf("allocate the first grid of the timed chain: %w", lab.ErrMemory))
		}
		c, err := coeffs(req.Coeffs)
		if err != nil {
			return fail(err)
		}
		steps := req.Steps
		switch h.mode {
		case FakeSkipTimed:
			steps = 0
		case FakeRemember:
			steps--
		}
		var out []float32
		if steps == 0 {
			in, _ := seededGrid(req.Dims[0], req.Dims[1], req.Dims[2], req.Seed)
			out = in.Data
		} else {
			g, err := chainReference(req.Dims, req.Seed, c, steps)
			if err != nil {
				return fail(err)
			}
			out = g.Data
		}
		r := response{CopyMs: slices.Repeat([]float64{0.25}, req.CopyReps), ChainMs: float64(req.Steps) * 0.25 * 100 / h.pct}
		switch h.mode {
		case FakeFast:
			r.ChainMs = float64(req.Steps) * 0.025
		case FakeNegativeTime:
			r.ChainMs = -1
		case FakeShort:
			out = out[1:]
		}
		return r, out
	}
	return fail(fmt.Errorf("unknown request %q", req.Op))
}
