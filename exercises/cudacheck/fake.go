package cudacheck

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"

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

// CPUChildMain is a stand-in for ChildMain on a machine without a GPU, for
// the tests of the grader: it answers as a GPU running a correct kernel
// would, whatever the source, its outputs computed by the CPU reference,
// its copy timed at 0.25 ms and its kernel at the share pct (%) of it;
// mode (a Fake constant) makes it misbehave.
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

var standInRE = regexp.MustCompile(`(?m)^// stand-in: ([a-z-]+)$`)

type cpuHost struct {
	id     string
	pct    float64
	mode   string
	sweeps int
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
		in, err := seededGrid(req.Dims[0], req.Dims[1], req.Dims[2], req.Seed)
		if err != nil {
			return fail(err)
		}
		out, _ := lab.NewGrid3[float32](in.NZ, in.NY, in.NX)
		p := float32(math.NaN())
		if req.Poison != 0 {
			p = math.Float32frombits(req.Poison)
		}
		for i := range out.Data {
			out.Data[i] = p
		}
		if err := lab.SevenPoint(out, in.Grid3, c); err != nil {
			return fail(err)
		}
		if len(req.Planes) == 0 {
			return response{}, out.Data
		}
		plane := in.NY * in.NX
		var sel []float32
		for _, k := range req.Planes {
			sel = append(sel, out.Data[k*plane:(k+1)*plane]...)
		}
		return response{}, sel
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
