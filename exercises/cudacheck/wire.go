package cudacheck

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
)

// The channel between the grader and the child that runs the student's
// kernel on the GPU.
//
// The grader writes requests on the child's standard input, one JSON
// object each. The child answers each on descriptor 3, which nothing the
// student controls can write to (the kernel's printf goes to standard
// output): a header, one JSON line, then the floats the header announces,
// little-endian. The child only compiles and launches: the inputs are drawn
// from seeds the grader chooses (inputValue, which both sides compute), the
// outputs and the CUDA-event times come back raw, and the grader checks
// them, computes every point and the share of the copy itself. The child's
// standard output and error are logs, cut and shown, never parsed.

// resultFD is the child's descriptor of the channel.
const resultFD = 3

// Operations of a request.
const (
	opInit    = "init"    // the exercise and the source; answers the free GPU memory before compiling
	opCompile = "compile" // compile with a tile
	opSweep   = "sweep"   // one launch on a grid drawn from a seed; answers the output
	opTime    = "time"    // warm-up, the float4 copy's times, a timed ping-pong chain; answers its final grid
	opMemInfo = "meminfo" // the free GPU memory now
	// opInspect compiles the source to PTX, answers it with the graded
	// build's attributes, and runs a copy of the PTX that counts its
	// loads, stores and barriers once on a grid drawn from a seed
	// (instrumentPTX); answers the output, then the PTX.
	opInspect = "inspect"
)

// request is one request of the grader.
type request struct {
	Op     string    `json:"op"`
	ID     string    `json:"id,omitempty"`     // init
	Source string    `json:"source,omitempty"` // init
	Tile   int       `json:"tile,omitempty"`   // compile, sweep, time: 0 is the default
	Dims   [3]int    `json:"dims,omitempty"`   // nz, ny, nx
	Seed   uint64    `json:"seed,omitempty"`   // the input's
	Coeffs []float64 `json:"coeffs,omitempty"` //
	// Planes are the output planes a sweep answers; none: every plane.
	Planes []int `json:"planes,omitempty"`
	// time: the warm-up launches on a grid drawn from WarmSeed, the
	// float4 copy's timed launches (after 3 untimed), the chain's steps.
	WarmSeed uint64 `json:"warm_seed,omitempty"`
	Warmup   int    `json:"warmup,omitempty"`
	CopyReps int    `json:"copy_reps,omitempty"`
	Steps    int    `json:"steps,omitempty"`
	// Poison is the bits of the float a sweep's output is filled with
	// before the launch; 0: NaN.
	Poison uint32 `json:"poison,omitempty"`
	// Along is the axis the input varies along ("x", "y" or "z"; "":
	// every axis): see fillAlong.
	Along string `json:"along,omitempty"`
}

// Kinds of error a child answers.
const (
	errKindCompile = "compile" // the source was refused or did not compile
	errKindFault   = "fault"   // the kernel lost the CUDA context; the child exits
	errKindMemory  = "memory"  // not enough GPU memory
	errKindLaunch  = "launch"  // the launch was refused (geometry, limits)
	errKindNoGPU   = "no_gpu"  // the machine has no usable GPU
	errKindOther   = "other"
)

// response is the header of one answer.
type response struct {
	Op      string    `json:"op"`
	Err     string    `json:"err,omitempty"`
	ErrKind string    `json:"err_kind,omitempty"`
	Floats  int       `json:"floats,omitempty"`   // floats after the header
	Free    uint64    `json:"free,omitempty"`     // init, meminfo: bytes
	Total   uint64    `json:"total,omitempty"`    //
	Device  string    `json:"device,omitempty"`   // init
	Log     string    `json:"log,omitempty"`      // compile: NVRTC's warnings
	ChainMs float64   `json:"chain_ms,omitempty"` // time: the whole chain between two events
	CopyMs  []float64 `json:"copy_ms,omitempty"`  // time: each copy launch
	// inspect: the counting run's counters (cntGlobalLoad …), the graded
	// build's registers per thread, static shared and local bytes, and the
	// PTX's length in bytes (packed four to a float after the output).
	Counters     []uint64 `json:"counters,omitempty"`
	Registers    int      `json:"registers,omitempty"`
	StaticShared int      `json:"static_shared,omitempty"`
	LocalBytes   int      `json:"local_bytes,omitempty"`
	PTXBytes     int      `json:"ptx_bytes,omitempty"`
}

// Bounds of what the grader reads.
const (
	maxHeader    = 64 << 10
	maxRequest   = maxSource + 64<<10
	maxChildText = 4 << 10 // of a message of the child shown in a result
	// maxPTX bounds the PTX an inspect request answers.
	maxPTX = 4 << 20
)

// atMost is the want of an answer of at most n floats (readAnswer).
func atMost(n int) int { return -2 - n }

// writeAnswer writes h and data on w.
func writeAnswer(w *bufio.Writer, h response, data []float32) error {
	h.Floats = len(data)
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if len(b) >= maxHeader {
		h.Log, h.Err = cut(h.Log, maxChildText), cut(h.Err, maxChildText)
		if b, err = json.Marshal(h); err != nil {
			return err
		}
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	buf := make([]byte, 4<<10)
	for len(data) > 0 {
		n := min(len(data), len(buf)/4)
		for i, v := range data[:n] {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		if _, err := w.Write(buf[:4*n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return w.Flush()
}

// errProtocol marks an answer that breaks the channel's rules: the child
// is not trusted with it.
var errProtocol = errors.New("the GPU checks' child broke the protocol")

// readAnswer reads one answer to op from r: the header, checked, then
// exactly want floats when the answer is not an error (want −1: none;
// want ≤ −2: at most −2 − want, atMost).
func readAnswer(r *bufio.Reader, op string, want int) (response, []float32, error) {
	var h response
	line, err := readLine(r, maxHeader)
	if err != nil {
		return h, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, nil, fmt.Errorf("%w: a header that is not JSON (%v)", errProtocol, err)
	}
	if h.Op != op {
		return h, nil, fmt.Errorf("%w: answer to %q where %q was asked", errProtocol, h.Op, op)
	}
	h.Err, h.Log = cut(h.Err, maxChildText), cut(h.Log, maxChildText)
	if h.Err != "" {
		if h.Floats != 0 {
			return h, nil, fmt.Errorf("%w: an error with %d floats", errProtocol, h.Floats)
		}
		switch h.ErrKind {
		case errKindCompile, errKindFault, errKindMemory, errKindLaunch, errKindNoGPU, errKindOther:
		default:
			return h, nil, fmt.Errorf("%w: unknown error kind %q", errProtocol, h.ErrKind)
		}
		return h, nil, nil
	}
	switch {
	case want <= -2:
		if h.Floats < 0 || h.Floats > -2-want {
			return h, nil, fmt.Errorf("%w: %d floats where at most %d are due", errProtocol, h.Floats, -2-want)
		}
	case max(want, 0) != h.Floats:
		return h, nil, fmt.Errorf("%w: %d floats where %d are due", errProtocol, h.Floats, max(want, 0))
	}
	data := make([]float32, h.Floats)
	buf := make([]byte, 64<<10)
	for i := 0; i < len(data); {
		n := min(len(data)-i, len(buf)/4)
		if _, err := io.ReadFull(r, buf[:4*n]); err != nil {
			return h, nil, fmt.Errorf("%w: the answer ends after %d of %d floats (%v)", errProtocol, i, len(data), err)
		}
		for k := range n {
			data[i+k] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*k:]))
		}
		i += n
	}
	return h, data, nil
}

// readLine reads one line of at most limit bytes.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit {
			return nil, fmt.Errorf("%w: a header over %d bytes", errProtocol, limit)
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) == 0:
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("%w: the channel ends inside a header (%v)", errProtocol, err)
		}
	}
}

// cut returns s, at most n bytes of it, saying what was left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && (s[i]&0xc0) == 0x80 {
		i--
	}
	return s[:i] + fmt.Sprintf(" … (%d more bytes)", len(s)-i)
}

// inputValue is the value at flat index idx of the grid drawn from seed,
// in [−1, 1): splitmix64 of the seed and the index, its top 24 bits. The
// child fills the device's grid with it and the grader computes the
// reference from it.
func inputValue(seed, idx uint64) float32 {
	z := seed + (idx+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float32(int64(z>>40)-(1<<23)) / (1 << 23)
}

// fillInput fills dst with the values of the grid drawn from seed at flat
// indices off, off+1, …, on every core.
func fillInput(dst []float32, seed uint64, off int) {
	_ = fillAlong(dst, seed, off, "", 1, 1)
}

// alongKey returns the function that maps a flat index of a grid of rows
// of nx points, ny rows a plane, to the index whose value it takes: the
// index itself (along ""), its k (along "x"), its j ("y") or its i ("z").
func alongKey(along string, ny, nx int) (func(idx int) int, error) {
	switch along {
	case "":
		return func(idx int) int { return idx }, nil
	case "x":
		return func(idx int) int { return idx % nx }, nil
	case "y":
		return func(idx int) int { return idx / nx % ny }, nil
	case "z":
		return func(idx int) int { return idx / (nx * ny) }, nil
	}
	return nil, fmt.Errorf("an input that varies along %q: the axes are x, y and z", along)
}

// fillAlong fills dst with the values at flat indices off, off+1, … of the
// grid drawn from seed that varies along the axis along only ("": every
// axis), of rows of nx points and planes of ny rows, on every core.
func fillAlong(dst []float32, seed uint64, off int, along string, ny, nx int) error {
	if ny < 1 || nx < 1 {
		return fmt.Errorf("an input of planes of %d×%d points", ny, nx)
	}
	key, err := alongKey(along, ny, nx)
	if err != nil {
		return err
	}
	const chunk = 1 << 16
	workers := min(runtime.GOMAXPROCS(0), (len(dst)+chunk-1)/chunk)
	if workers <= 1 {
		for i := range dst {
			dst[i] = inputValue(seed, uint64(key(off+i)))
		}
		return nil
	}
	var wg sync.WaitGroup
	per := (len(dst) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min(len(dst), (w+1)*per)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				dst[i] = inputValue(seed, uint64(key(off+i)))
			}
		}()
	}
	wg.Wait()
	return nil
}

// packBytes packs b four bytes to a float (little-endian, zero-padded),
// for an answer's payload.
func packBytes(b []byte) []float32 {
	out := make([]float32, (len(b)+3)/4)
	var w [4]byte
	for i := range out {
		w = [4]byte{}
		copy(w[:], b[4*i:min(len(b), 4*i+4)])
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(w[:]))
	}
	return out
}

// unpackBytes returns the n bytes packBytes packed into f.
func unpackBytes(f []float32, n int) ([]byte, error) {
	if n < 0 || (n+3)/4 != len(f) {
		return nil, fmt.Errorf("%w: %d bytes in %d floats", errProtocol, n, len(f))
	}
	b := make([]byte, 4*len(f))
	for i, v := range f {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b[:n], nil
}
