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
	"strings"
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

// Method dodges, for the method check's tests: each answers the right
// values, and the counting run and PTX of a kernel without the
// exercise's technique.
const (
	// FakePlain: the plain kernel, thirteen global loads per output, no
	// shared memory.
	FakePlain = "plain"
	// FakeDecoy: the plain kernel with a shared array written and never
	// read.
	FakeDecoy = "decoy"
	// FakeShow: the plain kernel that reads one shared value into its
	// output, for show.
	FakeShow = "for-show"
	// FakeClock: the technique, and a read of the clock.
	FakeClock = "clock"
	// FakeRewritten: a kernel that marches with shared planes of its own,
	// not the given kernel's arrays (exercise 24).
	FakeRewritten = "rewritten"
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
	spec   Spec
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
		h.spec, _ = Lookup(req.ID)
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
	case opInspect:
		c, err := coeffs(req.Coeffs)
		if err != nil {
			return fail(err)
		}
		out, err := h.model(request{Op: opSweep, Dims: req.Dims, Seed: req.Seed, Coeffs: req.Coeffs}, c)
		if err != nil {
			return fail(err)
		}
		r, ptx := h.inspectAnswer(req)
		return r, append(out, packBytes([]byte(ptx))...)
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

// inspectAnswer answers a counting run as the GPU would for the stand-in's
// kernel: the counters and PTX of the exercise's technique (the reference
// kernel's), or of the dodge the mode names.
func (h *cpuHost) inspectAnswer(req request) (response, string) {
	s := h.spec
	d := req.Dims
	outputs := uint64(max(d[0]-2*Radius, 0) * max(d[1]-2*Radius, 0) * max(d[2]-2*Radius, 0))
	tile := s.Tile
	f := fakeKernel{entry: s.Entry(), loop: s.Shape == Columns || s.Shape == FromFile, reads: true, stores: true, feeds: true}
	perOut := func(v float64) uint64 { return uint64(math.Round(v * 4 * float64(outputs))) }
	r := response{Counters: make([]uint64, counters), Registers: 32}
	threads := uint64(1000)
	r.Counters[cntThreads] = threads
	r.Counters[cntGlobalStore] = perOut(1)
	switch s.Shape {
	case Tile3:
		f.arrays = []fakeArray{{"_ZZ5tiledE4tile", tile * tile * tile * 4}}
		r.Counters[cntGlobalLoad] = perOut(techniqueLoads(tile, d))
		r.Counters[cntSharedLoad] = perOut(13)
		r.Counters[cntBarrier] = threads
	case Columns:
		shared := 13.0
		f.arrays = []fakeArray{{"_ZZ9coarsenedE1s", 5 * tile * tile * 4}}
		switch s.Kind {
		case FindBug:
			f.arrays = nil
			for _, a := range []string{"inPrev2_s", "inPrev_s", "inCurr_s", "inNext_s", "inNext2_s"} {
				f.arrays = append(f.arrays, fakeArray{fmt.Sprintf("_ZZ9coarsenedE%d%s", len(a), a), tile * tile * 4})
			}
		default:
			if s.ID == "23_cuda_register_tiled" {
				shared = 8
				f.arrays = []fakeArray{{"_ZZ14register_tiledE5cur_s", tile * tile * 4}}
			}
		}
		r.Counters[cntGlobalLoad] = perOut(techniqueLoads(tile, d))
		r.Counters[cntSharedLoad] = perOut(shared)
		r.Counters[cntBarrier] = threads * uint64(2*(tile-2*Radius))
	default:
		f.reads, f.stores, f.feeds = false, false, false
		r.Counters[cntGlobalLoad] = perOut(9)
	}
	r.Counters[cntSharedStore] = r.Counters[cntGlobalLoad]
	switch h.mode {
	case FakePlain, FakeDecoy, FakeShow:
		r.Counters[cntGlobalLoad] = perOut(plainLoads)
		r.Counters[cntSharedLoad], r.Counters[cntSharedStore], r.Counters[cntBarrier] = 0, 0, 0
		f.reads, f.stores, f.feeds = false, false, false
		if h.mode == FakePlain {
			f.arrays = nil
		} else {
			f.stores = true
			r.Counters[cntSharedStore] = perOut(1)
		}
		if h.mode == FakeShow {
			f.reads, f.feeds = true, true
			r.Counters[cntSharedLoad] = perOut(1)
			r.Counters[cntBarrier] = threads
		}
	case FakeClock:
		f.clock = true
	case FakeRewritten:
		f.arrays = []fakeArray{{"_ZZ9coarsenedE6planes", 5 * tile * tile * 4}}
	}
	for _, a := range f.arrays {
		r.StaticShared += a.bytes
	}
	ptx := f.ptx()
	r.PTXBytes = len(ptx)
	return r, ptx
}

type fakeArray struct {
	name  string
	bytes int
}

// fakeKernel writes a PTX text of the shape NVRTC writes, with the
// features a method check looks for.
type fakeKernel struct {
	entry                      string
	arrays                     []fakeArray
	loop, reads, stores, feeds bool
	clock                      bool
}

func (f fakeKernel) ptx() string {
	var b strings.Builder
	b.WriteString("//\n// Generated by the CPU stand-in\n//\n\n.version 8.5\n.target sm_90\n.address_size 64\n\n")
	for _, a := range f.arrays {
		fmt.Fprintf(&b, ".shared .align 4 .b8 %s[%d];\n", a.name, a.bytes)
	}
	fmt.Fprintf(&b, "\n\t// .globl\t%s\n.visible .entry %s(\n", f.entry, f.entry)
	for i := range 18 {
		typ := ".f32"
		switch {
		case i < 2:
			typ = ".u64"
		case i < 5:
			typ = ".u32"
		}
		sep := ","
		if i == 17 {
			sep = ""
		}
		fmt.Fprintf(&b, "\t.param %s %s_param_%d%s\n", typ, f.entry, i, sep)
	}
	b.WriteString(")\n{\n\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<40>;\n\t.reg .f32 \t%f<60>;\n\t.reg .b64 \t%rd<30>;\n\n")
	fmt.Fprintf(&b, "\tld.param.u64 \t%%rd1, [%s_param_0];\n\tld.param.u64 \t%%rd2, [%s_param_1];\n", f.entry, f.entry)
	b.WriteString("\tcvta.to.global.u64 \t%rd3, %rd1;\n\tcvta.to.global.u64 \t%rd4, %rd2;\n\tmov.u32 \t%r1, %tid.x;\n\tmov.u32 \t%r2, %ctaid.x;\n")
	if f.clock {
		b.WriteString("\tmov.u64 \t%rd20, %clock64;\n")
	}
	for i, a := range f.arrays {
		fmt.Fprintf(&b, "\tmov.u32 \t%%r%d, %s;\n", 10+i, a.name)
	}
	if f.loop {
		b.WriteString("$L__BB0_1:\n")
	}
	// Line information, as NVRTC writes it with --generate-line-info: a
	// directive without ';' before each instruction of a source line.
	b.WriteString("\t.loc\t1 30 5\n\tld.global.f32 \t%f1, [%rd3];\n\t.loc\t1 31 5\n")
	if f.stores {
		for i := range f.arrays {
			fmt.Fprintf(&b, "\tst.shared.f32 \t[%%r%d], %%f1;\n", 10+i)
		}
	}
	if f.reads || f.stores {
		b.WriteString("\tbar.sync \t0;\n")
	}
	acc := "%f1"
	if f.reads {
		for i := range f.arrays {
			fmt.Fprintf(&b, "\tld.shared.f32 \t%%f%d, [%%r%d+4];\n", 20+i, 10+i)
			if f.feeds {
				fmt.Fprintf(&b, "\tfma.rn.f32 \t%%f%d, %%f%d, %%f1, %s;\n", 40+i, 20+i, acc)
				acc = fmt.Sprintf("%%f%d", 40+i)
			}
		}
	}
	fmt.Fprintf(&b, "\tst.global.f32 \t[%%rd4], %s;\n", acc)
	if f.loop {
		if f.reads || f.stores {
			b.WriteString("\tbar.sync \t0;\n")
		}
		b.WriteString("\tadd.s32 \t%r3, %r3, 1;\n\tsetp.lt.s32 \t%p1, %r3, %r2;\n\t@%p1 bra \t$L__BB0_1;\n")
	}
	b.WriteString("\tret;\n\n}\n")
	return b.String()
}
