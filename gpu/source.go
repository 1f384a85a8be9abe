package gpu

import (
	"errors"
	"fmt"
	"path"
	"regexp"
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

// MaxSource is the largest source CompileSource compiles: 1 MiB.
const MaxSource = 1 << 20

// CompileSource compiles text, named file (e.g. "basic.cu": NVRTC's log
// names it with its line numbers), with defines, and returns its kernel
// entry, launched with the geometry geom returns for each grid. A source
// that does not compile returns a *CompileLogError; one that uses a
// preprocessor directive outside the allow-list (see CheckDirectives), a
// *DirectiveError, before NVRTC runs; a missing entry says which function
// the file must define.
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
	// Only the text reaches NVRTC: a directive that would read a file is
	// refused here, naming its line, before the compiler runs.
	if err := CheckDirectives(file, text); err != nil {
		return nil, err
	}
	m, err := d.compile(strings.TrimSuffix(file, ".cu"), text, defines)
	if err != nil {
		var ne *NVRTCError
		if errors.As(err, &ne) && ne.Log != "" {
			// Only the student's lines: the log of a file the compiler
			// read besides (a header, a /proc file) stays here.
			own := *ne
			own.Log = StudentLog(file, ne.Log)
			return nil, &CompileLogError{File: file, Log: own.Log, err: &own}
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

// Log returns NVRTC's warnings about the file, if any (StudentLog).
func (k *SourceKernel) Log() string { return StudentLog(k.file, k.mod.Log) }

// Bounds of the log StudentLog keeps.
const (
	maxLogLines = 200
	maxLogLine  = 400 // bytes of one line
)

// logHeading matches the first line of one of NVRTC's diagnostics:
// "FILE(LINE): error: …" (or warning, remark, catastrophic error, …).
var logHeading = regexp.MustCompile(`^(.*)\(([0-9]+)\): ([a-z][a-z ]*)(?: #[0-9A-Za-z-]+)?: `)

// logSummary matches the last line of NVRTC's log.
var logSummary = regexp.MustCompile(`^([0-9]+) (errors?|catastrophic errors?) detected in the compilation of "(.*)"\.$`)

// StudentLog returns the lines of NVRTC's log that are about file, the
// student's source: each diagnostic whose heading names file, with the
// lines under it (the source line quoted and the caret, the notes), and
// the count of errors. A diagnostic about any other file (a header, a
// /proc file, the command line) is left out with its quoted lines, and so
// is every other line: what the student sees of the compiler's log names
// nothing of the machine but their own text. The lines are bounded.
func StudentLog(file, log string) string {
	var out []string
	keep, dropped := false, 0 // dropped: diagnostics about other files
	for _, line := range strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n") {
		if m := logSummary.FindStringSubmatch(line); m != nil {
			if m[3] == file {
				out = append(out, line)
			}
			keep = false
			continue
		}
		if m := logHeading.FindStringSubmatch(line); m != nil {
			keep = m[1] == file
			if !keep {
				dropped++
			}
		}
		if strings.TrimSpace(line) == "" {
			if keep {
				out = append(out, "")
			}
			keep = false
			continue
		}
		if !keep {
			continue // under another file's diagnostic, or text the lab does not know
		}
		if len(line) > maxLogLine {
			line = strings.ToValidUTF8(line[:maxLogLine], "") + " …"
		}
		out = append(out, line)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) > maxLogLines {
		out = append(out[:maxLogLines], fmt.Sprintf("… %d more lines", len(out)-maxLogLines))
	}
	if dropped > 0 {
		out = append(out, fmt.Sprintf("(%d diagnostics about other files than %s left out)", dropped, file))
	}
	return strings.Join(out, "\n")
}

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

func (k *SourceKernel) prepare(dst, src *Buffer, nz, ny, nx int, c []float64) (Geometry, *args, error) {
	g, err := k.Geometry(nz, ny, nx)
	if err != nil {
		return Geometry{}, nil, err
	}
	if err := k.d.checkGridBuffers(k.file, dst, src, nz, ny, nx); err != nil {
		return Geometry{}, nil, err
	}
	a := new(args).ptr(src.ptr).ptr(dst.ptr).i32(int32(nz)).i32(int32(ny)).i32(int32(nx))
	for _, v := range c {
		a.f32(float32(v))
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
	seq := make([]*args, steps)
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
