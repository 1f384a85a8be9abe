package cudacheck

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"strconv"

	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// maxSource bounds a submitted file.
const maxSource = gpu.MaxSource

// NeedsGPUMessage is the message of an exercise withheld for want of a GPU.
func NeedsGPUMessage(id string, err error) string {
	return fmt.Sprintf("needs an NVIDIA GPU, and this machine has none (%v). The score is withheld, not zero: "+
		"grade it on the course's GPU machine (`grade %s` there), where `grade -class` with the same -out fills in this cell of the gradebook", err, id)
}

// ChildMain is the child's program: it answers the grader's requests,
// read from stdin, on descriptor 3 (see the channel in wire.go), compiling
// and launching the submission's kernel on the default GPU, and returns
// the exit status: 0 when stdin ends, 3 after a kernel lost the CUDA
// context. It runs no check: the grader does, on what it answers. stdout
// is left to the kernel's printf.
func ChildMain(args []string, stdin io.Reader, stdout io.Writer) int {
	fs := flag.NewFlagSet("cuda-child", flag.ContinueOnError)
	id := fs.String("id", "", "the exercise: an init request for another is refused")
	fs.SetOutput(os.Stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	f := os.NewFile(resultFD, "result")
	if f == nil {
		fmt.Fprintf(os.Stderr, "cuda-child: descriptor %d, the channel to the grader, is not open\n", resultFD)
		return 2
	}
	if _, err := f.Stat(); err != nil {
		fmt.Fprintf(os.Stderr, "cuda-child: descriptor %d, the channel to the grader, is not open: %v\n", resultFD, err)
		return 2
	}
	return serve(bufio.NewReaderSize(stdin, 1<<16), bufio.NewWriterSize(f, 1<<16), &host{id: *id})
}

// handler answers one request.
type handler interface {
	handle(req request) (response, []float32)
}

// serve answers requests from in on out until in ends or a kernel faults.
func serve(in io.Reader, out *bufio.Writer, h handler) int {
	dec := json.NewDecoder(io.LimitReader(in, 1<<40))
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintf(os.Stderr, "cuda-child: a request that is not JSON: %v\n", err)
			return 2
		}
		resp, data := h.handle(req)
		resp.Op = req.Op
		if err := writeAnswer(out, resp, data); err != nil {
			fmt.Fprintf(os.Stderr, "cuda-child: answer: %v\n", err)
			return 2
		}
		if resp.ErrKind == errKindFault {
			return 3
		}
	}
}

// host is the child's side: the device, the source and the kernels
// compiled from it.
type host struct {
	id      string // the exercise the child was started for; "" any
	spec    Spec
	source  string
	dev     *gpu.Device
	kernels map[int]*gpu.SourceKernel
}

// fail turns err into an error answer of its kind.
func fail(err error) (response, []float32) {
	kind := errKindOther
	var de *DirectiveError
	var ce *gpu.CompileLogError
	switch {
	case errors.Is(err, gpu.ErrContextLost):
		kind = errKindFault
	case errors.Is(err, gpu.ErrNoGPU):
		kind = errKindNoGPU
	case errors.As(err, &de), errors.As(err, &ce), errors.Is(err, errBuild):
		kind = errKindCompile
	case errors.Is(err, lab.ErrMemory):
		kind = errKindMemory
	case errors.Is(err, errLaunch):
		kind = errKindLaunch
	}
	return response{Err: err.Error(), ErrKind: kind}, nil
}

// kindError marks an error with its kind for the answer, its text
// unchanged.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string                      { return e.err.Error() }
func (e *kindError) Unwrap() []error                    { return []error{e.kind, e.err} }
func marked(kind, err error) *kindError                 { return &kindError{kind: kind, err: err} }
func markedf(kind error, f string, a ...any) *kindError { return marked(kind, fmt.Errorf(f, a...)) }

var (
	errBuild  = errors.New("build")
	errLaunch = errors.New("launch")
)

func (h *host) handle(req request) (response, []float32) {
	if req.Op != opInit && h.dev == nil {
		return fail(errors.New("no init request came first"))
	}
	switch req.Op {
	case opInit:
		spec, ok := Lookup(req.ID)
		if !ok || (h.id != "" && h.id != req.ID) {
			return fail(fmt.Errorf("no CUDA exercise %q", req.ID))
		}
		if len(req.Source) > maxSource {
			return fail(markedf(errBuild, "%s has %d bytes, over the limit of %d", spec.File, len(req.Source), maxSource))
		}
		d, err := gpu.Default()
		if err != nil {
			return fail(err)
		}
		free, total, err := d.MemInfo()
		if err != nil {
			return fail(err)
		}
		h.spec, h.source, h.dev, h.kernels = spec, req.Source, d, map[int]*gpu.SourceKernel{}
		return response{Free: free, Total: total, Device: d.Props().Name}, nil
	case opMemInfo:
		free, total, err := h.dev.MemInfo()
		if err != nil {
			return fail(err)
		}
		return response{Free: free, Total: total}, nil
	case opCompile:
		k, err := h.kernel(req.Tile)
		if err != nil {
			return fail(err)
		}
		return response{Log: StudentLog(path.Base(h.spec.File), k.Log())}, nil
	case opSweep:
		out, err := h.sweep(req)
		if err != nil {
			return fail(err)
		}
		return response{}, out
	case opInspect:
		r, out, err := h.inspect(req)
		if err != nil {
			return fail(err)
		}
		return r, out
	case opTime:
		r, out, err := h.time(req)
		if err != nil {
			return fail(err)
		}
		return r, out
	}
	return fail(fmt.Errorf("unknown request %q", req.Op))
}

// defines returns the defines of the build with tile (0: the default).
func (h *host) defines(tile int) (int, []gpu.Define) {
	if tile == 0 {
		tile = h.spec.DefaultTile()
	}
	var defs []gpu.Define
	if d := h.spec.TileDefine(); d != "" {
		defs = append(defs, gpu.Define{Name: d, Value: strconv.Itoa(tile)})
	}
	return tile, defs
}

// kernel compiles the source with tile (0: the default), once.
func (h *host) kernel(tile int) (*gpu.SourceKernel, error) {
	tile, defs := h.defines(tile)
	if k, ok := h.kernels[tile]; ok {
		return k, nil
	}
	geom, err := geometry(h.spec, h.source, tile)
	if err != nil {
		return nil, marked(errBuild, err)
	}
	k, err := compileStudent(h.dev, h.spec.File, h.source, h.spec.Entry(), defs, geom)
	if err != nil {
		if errors.Is(err, gpu.ErrContextLost) {
			return nil, err
		}
		return nil, marked(errBuild, err)
	}
	h.kernels[tile] = k
	return k, nil
}

// coeffs returns the request's coefficients, c0…c12.
func coeffs(c []float64) (Coeffs13, error) {
	var out Coeffs13
	if len(c) != len(out) {
		return out, fmt.Errorf("%d coefficients where %d are needed", len(c), len(out))
	}
	copy(out[:], c)
	return out, nil
}

// checkDims refuses a grid the device should not be asked for.
func checkDims(d [3]int) (int, error) {
	n := 1
	for _, s := range d {
		if s < 3 || s > 1<<14 {
			return 0, markedf(errLaunch, "grid %d×%d×%d: each side must be between 3 and %d", d[0], d[1], d[2], 1<<14)
		}
		n *= s
	}
	return n, nil
}

// upload fills b with the grid drawn from seed, varying along the axis
// along ("": every axis), of planes of ny×nx points, a chunk at a time.
func upload(b *gpu.Buffer, seed uint64, along string, ny, nx int) error {
	const chunk = 1 << 24
	buf := make([]float32, min(chunk, b.Len()))
	for off := 0; off < b.Len(); off += chunk {
		part := buf[:min(chunk, b.Len()-off)]
		if err := fillAlong(part, seed, off, along, ny, nx); err != nil {
			return err
		}
		if err := b.Upload(off, part); err != nil {
			return err
		}
	}
	return nil
}

// alloc allocates n floats, an error of lab.ErrMemory when they do not fit.
func (h *host) alloc(n int, what string) (*gpu.Buffer, error) {
	b, err := h.dev.Alloc(n)
	if err != nil {
		return nil, fmt.Errorf("allocate %s: %w", what, err)
	}
	return b, nil
}

// allocPair allocates two grids of n floats, named first and second in an
// error; free releases both.
func (h *host) allocPair(n int, first, second string) (a, b *gpu.Buffer, free func(), err error) {
	if a, err = h.alloc(n, first); err != nil {
		return nil, nil, nil, err
	}
	if b, err = h.alloc(n, second); err != nil {
		a.Free()
		return nil, nil, nil, err
	}
	return a, b, func() { b.Free(); a.Free() }, nil
}

func (h *host) sweep(req request) ([]float32, error) {
	k, err := h.kernel(req.Tile)
	if err != nil {
		return nil, err
	}
	c, err := coeffs(req.Coeffs)
	if err != nil {
		return nil, err
	}
	n, err := checkDims(req.Dims)
	if err != nil {
		return nil, err
	}
	nz, ny, nx := req.Dims[0], req.Dims[1], req.Dims[2]
	if _, err := alongKey(req.Along, ny, nx); err != nil {
		return nil, err
	}
	for _, p := range req.Planes {
		if p < 0 || p >= nz {
			return nil, fmt.Errorf("plane %d outside 0…%d", p, nz-1)
		}
	}
	src, dst, free, err := h.allocPair(n, "the input", "the output")
	if err != nil {
		return nil, err
	}
	defer free()
	if err := upload(src, req.Seed, req.Along, ny, nx); err != nil {
		return nil, err
	}
	if req.Poison != 0 {
		err = dst.Fill(math.Float32frombits(req.Poison))
	} else {
		err = dst.Poison()
	}
	if err != nil {
		return nil, err
	}
	if _, err := k.LaunchCoeffs(dst, src, nz, ny, nx, c[:]); err != nil {
		if errors.Is(err, gpu.ErrContextLost) {
			return nil, err
		}
		return nil, marked(errLaunch, err)
	}
	if len(req.Planes) == 0 {
		out := make([]float32, n)
		return out, dst.Download(0, out)
	}
	plane := ny * nx
	out := make([]float32, len(req.Planes)*plane)
	for i, p := range req.Planes {
		if err := dst.Download(p*plane, out[i*plane:(i+1)*plane]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// time warms the kernel up on one grid, times the float4 copy, then runs
// the timed chain on a fresh grid and answers its final grid.
func (h *host) time(req request) (response, []float32, error) {
	var r response
	k, err := h.kernel(req.Tile)
	if err != nil {
		return r, nil, err
	}
	c, err := coeffs(req.Coeffs)
	if err != nil {
		return r, nil, err
	}
	n, err := checkDims(req.Dims)
	if err != nil {
		return r, nil, err
	}
	if req.Steps < 1 || req.Steps > 100 || req.Warmup < 0 || req.Warmup > 100 || req.CopyReps < 1 || req.CopyReps > 100 {
		return r, nil, fmt.Errorf("steps %d, warm-up %d, copy repetitions %d: out of range", req.Steps, req.Warmup, req.CopyReps)
	}
	nz, ny, nx := req.Dims[0], req.Dims[1], req.Dims[2]
	a, b, free, err := h.allocPair(n, "the first grid of the timed chain", "the second grid of the timed chain")
	if err != nil {
		return r, nil, err
	}
	defer free()
	launchErr := func(err error) error {
		if errors.Is(err, gpu.ErrContextLost) {
			return err
		}
		return marked(errLaunch, err)
	}
	if req.Warmup > 0 {
		if err := upload(a, req.WarmSeed, "", ny, nx); err != nil {
			return r, nil, err
		}
		if _, err := k.ChainCoeffs(a, b, nz, ny, nx, c[:], req.Warmup); err != nil {
			return r, nil, launchErr(err)
		}
	}
	cp, err := h.dev.MeasureCopy(b, a, 3, req.CopyReps)
	if err != nil {
		return r, nil, launchErr(err)
	}
	r.CopyMs = cp.Millis
	// The chain: a holds the grid drawn from Seed, b the same (the
	// boundary, which no launch writes, is the input's in both).
	if err := upload(a, req.Seed, "", ny, nx); err != nil {
		return r, nil, err
	}
	if err := upload(b, req.Seed, "", ny, nx); err != nil {
		return r, nil, err
	}
	r.ChainMs, err = k.ChainCoeffs(a, b, nz, ny, nx, c[:], req.Steps)
	if err != nil {
		return r, nil, launchErr(err)
	}
	last := b
	if req.Steps%2 == 0 {
		last = a
	}
	out := make([]float32, n)
	if err := last.Download(0, out); err != nil {
		return r, nil, err
	}
	if math.IsNaN(r.ChainMs) {
		return r, nil, errors.New("the chain's time is not a number")
	}
	return r, out, nil
}

// inspect compiles the source with the request's tile to PTX, and runs a
// copy of it that counts the loads, stores and barriers of each thread
// (instrumentPTX) once on the grid drawn from the request's seed, the
// output poisoned first; it answers the counters, the graded build's
// attributes, the output and the PTX. The PTX is compiled, and the
// counters' buffer allocated, before any launch of the student's kernel.
func (h *host) inspect(req request) (response, []float32, error) {
	var r response
	k, err := h.kernel(req.Tile)
	if err != nil {
		return r, nil, err
	}
	tile, defs := h.defines(req.Tile)
	ptx, err := studentPTX(h.dev, h.spec.File, h.source, defs)
	if err != nil {
		return r, nil, marked(errBuild, err)
	}
	if len(ptx) > maxPTX {
		return r, nil, fmt.Errorf("the PTX of %s has %d bytes, over the limit of %d", h.spec.File, len(ptx), maxPTX)
	}
	c, err := coeffs(req.Coeffs)
	if err != nil {
		return r, nil, err
	}
	n, err := checkDims(req.Dims)
	if err != nil {
		return r, nil, err
	}
	nz, ny, nx := req.Dims[0], req.Dims[1], req.Dims[2]
	cnt, err := h.alloc(2*slotWords*counterSlots, "the counters")
	if err != nil {
		return r, nil, err
	}
	defer cnt.Free()
	if err := cnt.Fill(0); err != nil {
		return r, nil, err
	}
	inst, err := instrumentPTX(ptx, h.spec.Entry(), cnt.Address())
	if err != nil {
		return r, nil, err
	}
	geom, err := geometry(h.spec, h.source, tile)
	if err != nil {
		return r, nil, marked(errBuild, err)
	}
	ik, err := h.dev.LoadPTX(h.spec.File, inst, h.spec.Entry(), geom)
	if err != nil {
		if errors.Is(err, gpu.ErrContextLost) {
			return r, nil, err
		}
		return r, nil, marked(errLaunch, fmt.Errorf("the counting build: %w", err))
	}
	src, dst, free, err := h.allocPair(n, "the input", "the output")
	if err != nil {
		return r, nil, err
	}
	defer free()
	if err := upload(src, req.Seed, req.Along, ny, nx); err != nil {
		return r, nil, err
	}
	if err := dst.Poison(); err != nil {
		return r, nil, err
	}
	if _, err := ik.LaunchCoeffs(dst, src, nz, ny, nx, c[:]); err != nil {
		if errors.Is(err, gpu.ErrContextLost) {
			return r, nil, err
		}
		return r, nil, marked(errLaunch, err)
	}
	out := make([]float32, n)
	if err := dst.Download(0, out); err != nil {
		return r, nil, err
	}
	raw := make([]float32, 2*slotWords*counterSlots)
	if err := cnt.Download(0, raw); err != nil {
		return r, nil, err
	}
	r.Counters = make([]uint64, counters)
	for slot := range counterSlots {
		for i := range r.Counters {
			w := 2 * (slot*slotWords + i)
			r.Counters[i] += uint64(math.Float32bits(raw[w])) | uint64(math.Float32bits(raw[w+1]))<<32
		}
	}
	f := k.Function()
	r.Registers, r.StaticShared, r.LocalBytes, r.PTXBytes = f.Registers, f.StaticShared, f.LocalBytes, len(ptx)
	return r, append(out, packBytes([]byte(ptx))...), nil
}
