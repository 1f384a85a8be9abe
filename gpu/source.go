package gpu

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"stencillab.dev/lab"
)

// SourceKernel is a seven-point sweep compiled from CUDA C text that is not
// part of package cuda (a student's file, a notebook cell), with the lab's
// kernel signature
//
//	extern "C" __global__ void NAME(const float* in, float* out,
//	                                int nz, int ny, int nx,
//	                                float c0, …, float c6)
//
// (or c0 … c12 for the 13-point star of the exercises: LaunchCoeffs)
//
// and a launch geometry given by the caller.
type SourceKernel struct {
	d    *Device
	file string
	mod  *Module
	fn   *Function
	geom func(nz, ny, nx int) (Geometry, error)
}

// CompileLogError is the error of a source that NVRTC did not compile: Log
// is the compiler's log, which names the file and its lines
// ("basic.cu(12): error: …").
type CompileLogError struct {
	File string // the file name given to NVRTC
	Log  string // NVRTC's log
	err  error
}

// Error returns the file and the log.
func (e *CompileLogError) Error() string {
	return fmt.Sprintf("gpu: %s does not compile:\n%s", e.File, strings.TrimSpace(e.Log))
}

// Unwrap returns the NVRTC error.
func (e *CompileLogError) Unwrap() error { return e.err }

// WithLog returns a copy of e whose log, and its NVRTC error's, is log: a
// caller that shows only part of the log (a student's own lines) keeps the
// error's kind.
func (e *CompileLogError) WithLog(log string) *CompileLogError {
	c := *e
	c.Log = log
	var ne *NVRTCError
	if errors.As(e.err, &ne) {
		own := *ne
		own.Log = log
		c.err = &own
	}
	return &c
}

// MaxSource is the largest source CompileSource compiles: 1 MiB.
const MaxSource = 1 << 20

// CompileSource compiles text, named file (e.g. "basic.cu": NVRTC's log
// names it with its line numbers), with defines, and returns its kernel
// entry, launched with the geometry geom returns for each grid. gpu
// compiles; it does not judge the text: a caller that compiles a student's
// source checks it first (exercises/cudacheck refuses a directive outside
// its allow-list before NVRTC runs, and keeps only the student's lines of
// the log). A source that does not compile returns a *CompileLogError
// with NVRTC's whole log; a missing entry says which function the file
// must define.
func (d *Device) CompileSource(file, text, entry string, defines []Define, geom func(nz, ny, nx int) (Geometry, error)) (*SourceKernel, error) {
	file = path.Base(file)
	if !strings.HasSuffix(file, ".cu") {
		return nil, fmt.Errorf("gpu: source %q: the file name must end in .cu", file)
	}
	if !validIdent(entry) {
		return nil, fmt.Errorf("gpu: %s: entry %q is not a C identifier", file, entry)
	}
	if geom == nil {
		return nil, fmt.Errorf("gpu: %s: no launch geometry", file)
	}
	if len(text) > MaxSource {
		return nil, fmt.Errorf("gpu: %s has %d bytes, over the limit of %d", file, len(text), MaxSource)
	}
	m, err := d.compile(strings.TrimSuffix(file, ".cu"), text, defines)
	if err != nil {
		var ne *NVRTCError
		if errors.As(err, &ne) && ne.Log != "" {
			return nil, &CompileLogError{File: file, Log: ne.Log, err: ne}
		}
		return nil, err
	}
	f, err := m.Function(entry)
	if err != nil {
		var ce *CUDAError
		if errors.As(err, &ce) && ce.Name == "CUDA_ERROR_NOT_FOUND" {
			return nil, fmt.Errorf("gpu: %s has no kernel %s: define it as extern \"C\" __global__ void %s(const float* in, float* out, int nz, int ny, int nx, float c0, …): the lab's steps take c0 … c6, the 13-point exercises c0 … c12", file, entry, entry)
		}
		return nil, err
	}
	return &SourceKernel{d: d, file: file, mod: m, fn: f, geom: geom}, nil
}

// Function returns the compiled kernel, with its registers and shared
// memory.
func (k *SourceKernel) Function() *Function { return k.fn }

// Log returns NVRTC's log of the compilation (its warnings), whole.
func (k *SourceKernel) Log() string { return k.mod.Log }

// Geometry returns the launch on an nz×ny×nx grid with the shared memory
// the compiled kernel declares, checked against the device's limits: an
// error names the limit in the chapter's terms ("block 34×34×1 = 1156
// threads exceeds 1024").
func (k *SourceKernel) Geometry(nz, ny, nx int) (Geometry, error) {
	if nz < 3 || ny < 3 || nx < 3 {
		return Geometry{}, fmt.Errorf("gpu: %s: grid %d×%d×%d has a side below 3 and no interior point: %w", k.file, nz, ny, nx, lab.ErrSize)
	}
	g, err := k.geom(nz, ny, nx)
	if err != nil {
		return Geometry{}, fmt.Errorf("gpu: %s: %w", k.file, err)
	}
	g.SharedBytes = k.fn.StaticShared + g.DynamicShared
	if err := checkGeometry(g, k.d.props, k.fn.MaxThreads, k.fn.Registers); err != nil {
		return Geometry{}, fmt.Errorf("gpu: %s on a %d×%d×%d grid: %w", k.file, nz, ny, nx, err)
	}
	return g, nil
}

func (k *SourceKernel) prepare(dst, src *Buffer, nz, ny, nx int, c []float64) (Geometry, *Args, error) {
	g, err := k.Geometry(nz, ny, nx)
	if err != nil {
		return Geometry{}, nil, err
	}
	if err := k.d.checkGridBuffers(k.file, dst, src, nz, ny, nx); err != nil {
		return Geometry{}, nil, err
	}
	a := new(Args).Ptr(src.ptr).Ptr(dst.ptr).I32(int32(nz)).I32(int32(ny)).I32(int32(nx))
	for _, v := range c {
		a.F32(float32(v))
	}
	return g, a, nil
}

// Launch runs one sweep of the nz×ny×nx grid in src into dst, timed with
// CUDA events.
func (k *SourceKernel) Launch(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs) (Launch, error) {
	return k.LaunchCoeffs(dst, src, nz, ny, nx, c[:])
}

// LaunchCoeffs is Launch for a kernel of any number of coefficients (the
// thirteen-point star's c0…c12), passed as floats after nx in order.
func (k *SourceKernel) LaunchCoeffs(dst, src *Buffer, nz, ny, nx int, c []float64) (Launch, error) {
	g, a, err := k.prepare(dst, src, nz, ny, nx, c)
	if err != nil {
		return Launch{}, err
	}
	ms, err := k.d.launch(k.fn, g, a, true)
	if err != nil {
		return Launch{}, err
	}
	return Launch{Geometry: g, Millis: ms}, nil
}

// Measure runs warmup untimed sweeps, then reps sweeps each timed with
// CUDA events.
func (k *SourceKernel) Measure(dst, src *Buffer, nz, ny, nx int, c lab.Coeffs, warmup, reps int) (Measurement, error) {
	g, a, err := k.prepare(dst, src, nz, ny, nx, c[:])
	if err != nil {
		return Measurement{}, err
	}
	return k.d.measure(k.fn, g, a, warmup, reps)
}

// StepGeometry returns the launch of the lab's 3D step on an nz×ny×nx grid
// with tile (0: the step's default), as the lab describes it
// (lab.Step3.Geometry), without a device: what a source written for the
// step is launched with.
func StepGeometry(step string, tile int, nz, ny, nx int) (Geometry, error) {
	p, err := PlanLaunch(step, Options{Tile: tile}, nz, ny, nx)
	if err != nil {
		return Geometry{}, err
	}
	g := p.Geometry
	g.SharedBytes = 0 // the compiled kernel's own, added at launch
	return g, nil
}

// ChainCoeffs runs steps sweeps back to back, a into b, then b into a, and
// so on (the last output is in b when steps is odd, in a when even), with
// the coefficients c passed as floats after nx in order, and returns the
// time of the whole chain between two CUDA events. Every launch of the
// chain feeds the next, so that the final grid shows whether each did its
// work.
func (k *SourceKernel) ChainCoeffs(a, b *Buffer, nz, ny, nx int, c []float64, steps int) (float64, error) {
	if steps < 1 {
		return 0, fmt.Errorf("gpu: %s: a chain of %d steps: need at least 1", k.file, steps)
	}
	g, ab, err := k.prepare(b, a, nz, ny, nx, c)
	if err != nil {
		return 0, err
	}
	_, ba, err := k.prepare(a, b, nz, ny, nx, c)
	if err != nil {
		return 0, err
	}
	seq := make([]*Args, steps)
	for i := range seq {
		seq[i] = ab
		if i%2 == 1 {
			seq[i] = ba
		}
	}
	ms, err := k.d.launchSeq(k.fn, g, seq, true)
	if err != nil {
		return 0, fmt.Errorf("gpu: %s: chain of %d steps on %d×%d×%d: %w", k.file, steps, nz, ny, nx, err)
	}
	return ms, nil
}
