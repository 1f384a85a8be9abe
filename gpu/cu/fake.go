package cu

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"

	"stencillab.dev/internal/cuda2go"
)

// The CUresult codes the fake returns.
const (
	fakeInvalidValue = 1   // CUDA_ERROR_INVALID_VALUE
	fakeOutOfMemory  = 2   // CUDA_ERROR_OUT_OF_MEMORY
	fakeNotFound     = 500 // CUDA_ERROR_NOT_FOUND
	fakeNCCLMissing  = 5   // ncclInvalidUsage
)

// Fake is an API with no GPU behind it, for the tests of the launchers on
// any machine: one device that reports the attributes it is given, memory
// held in Go, modules that are the CUDA C source NVRTC was given, and
// launches recorded instead of run. A launch whose packed arguments do not
// match its entry's parameters (as cuda2go reads them from the module's
// source) in count, kind or offset is refused with
// CUDA_ERROR_INVALID_VALUE, and recorded with the reason. It has no NCCL.
type Fake struct {
	Name      string      // the device's name
	Attrs     map[int]int // device attributes by CUdevice_attribute; a missing one is an error
	FuncAttrs map[int]int // every function's attributes by CUfunction_attribute; missing: 0
	TotalMem  uint64      // bytes of device memory
	Occupancy int         // blocks per multiprocessor the occupancy calculator reports
	Archs     []int       // the architectures NVRTC supports, e.g. 90

	mu       sync.Mutex
	launches []Launch
	objects  map[Handle]any
	mem      map[uint64][]byte
	next     uint64
	used     uint64
}

// Launch is one launch the fake received.
type Launch struct {
	Entry       cuda2go.Entry // the entry as its source declares it
	Grid, Block [3]int
	Shared      int   // dynamic shared memory, bytes
	Args        []any // each argument by its parameter's kind: uint64, int32, int64, float32, float64 or []float32
	Refused     string
}

type fakeModule struct{ src string }

type fakeFunction struct{ entry cuda2go.Entry }

type fakeObject struct{ what string }

var _ API = (*Fake)(nil)

// handle returns a new handle for o and keeps o.
func (f *Fake) handle(o any) Handle {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.objects == nil {
		f.objects = map[Handle]any{}
	}
	h := Handle(new([8]byte))
	f.objects[h] = o
	return h
}

func (f *Fake) object(h Handle) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.objects[h]
}

// Launches returns the launches so far, in order.
func (f *Fake) Launches() []Launch {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.launches)
}

// Reset forgets the launches so far.
func (f *Fake) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.launches = nil
}

// Dlopen opens any name.
func (f *Fake) Dlopen(name string) (Handle, error) { return f.handle(fakeObject{name}), nil }

// Bind binds the driver and NVRTC; NCCL is missing.
func (f *Fake) Bind(t Table, _ Handle) string {
	if t == NCCLTable {
		return "ncclGetVersion"
	}
	return ""
}

// Dlclose does nothing.
func (f *Fake) Dlclose(Handle) {}

// Setenv succeeds and sets nothing.
func (f *Fake) Setenv(string, string) int { return 0 }

// ErrorName names the codes the fake returns.
func (f *Fake) ErrorName(code int) string {
	switch code {
	case fakeInvalidValue:
		return "CUDA_ERROR_INVALID_VALUE"
	case fakeOutOfMemory:
		return "CUDA_ERROR_OUT_OF_MEMORY"
	case fakeNotFound:
		return "CUDA_ERROR_NOT_FOUND"
	}
	return ""
}

// Init succeeds.
func (f *Fake) Init() int { return 0 }

// DriverGetVersion reports CUDA 12.8.
func (f *Fake) DriverGetVersion() (int, int) { return 12080, 0 }

// DeviceGetCount reports one device.
func (f *Fake) DeviceGetCount() (int, int) { return 1, 0 }

// DeviceGet returns the ordinal as the device.
func (f *Fake) DeviceGet(ordinal int) (int, int) { return ordinal, 0 }

// DeviceGetName returns Name.
func (f *Fake) DeviceGetName(int) (string, int) { return f.Name, 0 }

// DeviceGetAttribute returns Attrs[attr].
func (f *Fake) DeviceGetAttribute(attr, _ int) (int, int) {
	v, ok := f.Attrs[attr]
	if !ok {
		return 0, fakeInvalidValue
	}
	return v, 0
}

// DeviceTotalMem returns TotalMem.
func (f *Fake) DeviceTotalMem(int) (uint64, int) { return f.TotalMem, 0 }

// DevicePrimaryCtxRetain returns a new context.
func (f *Fake) DevicePrimaryCtxRetain(int) (Handle, int) { return f.handle(fakeObject{"context"}), 0 }

// DevicePrimaryCtxRelease succeeds.
func (f *Fake) DevicePrimaryCtxRelease(int) int { return 0 }

// DevicePrimaryCtxReset succeeds.
func (f *Fake) DevicePrimaryCtxReset(int) int { return 0 }

// CtxSetCurrent succeeds.
func (f *Fake) CtxSetCurrent(Handle) int { return 0 }

// MemGetInfo reports TotalMem less what is allocated.
func (f *Fake) MemGetInfo() (free, total uint64, code int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.TotalMem - f.used, f.TotalMem, 0
}

// MemAlloc allocates bytes in Go memory, at a device address aligned to
// 256 bytes.
func (f *Fake) MemAlloc(bytes uint64) (uint64, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.used+bytes > f.TotalMem {
		return 0, fakeOutOfMemory
	}
	if f.mem == nil {
		f.mem, f.next = map[uint64][]byte{}, 1<<32
	}
	p := f.next
	f.next += (bytes+255)/256*256 + 256
	f.mem[p] = make([]byte, bytes)
	f.used += bytes
	return p, 0
}

// MemFree frees an allocation.
func (f *Fake) MemFree(p uint64) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.mem[p]
	if !ok {
		return fakeInvalidValue
	}
	f.used -= uint64(len(b))
	delete(f.mem, p)
	return 0
}

// span returns n bytes of device memory at p, which may lie inside an
// allocation.
func (f *Fake) span(p, n uint64) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for base, b := range f.mem {
		if p >= base && p+n <= base+uint64(len(b)) {
			return b[p-base : p-base+n], true
		}
	}
	return nil, false
}

// MemcpyHtoD copies host memory to the device.
func (f *Fake) MemcpyHtoD(dst uint64, src unsafe.Pointer, bytes uint64) int {
	d, ok := f.span(dst, bytes)
	if !ok {
		return fakeInvalidValue
	}
	copy(d, unsafe.Slice((*byte)(src), bytes))
	return 0
}

// MemcpyDtoH copies device memory to the host.
func (f *Fake) MemcpyDtoH(dst unsafe.Pointer, src uint64, bytes uint64) int {
	s, ok := f.span(src, bytes)
	if !ok {
		return fakeInvalidValue
	}
	copy(unsafe.Slice((*byte)(dst), bytes), s)
	return 0
}

// MemsetD32 sets n 32-bit words.
func (f *Fake) MemsetD32(dst uint64, v uint32, n uint64) int {
	d, ok := f.span(dst, 4*n)
	if !ok {
		return fakeInvalidValue
	}
	for i := range n {
		binary.LittleEndian.PutUint32(d[4*i:], v)
	}
	return 0
}

// MemcpyDtoDAsync copies device memory.
func (f *Fake) MemcpyDtoDAsync(dst, src, bytes uint64, _ Handle) int {
	d, ok1 := f.span(dst, bytes)
	s, ok2 := f.span(src, bytes)
	if !ok1 || !ok2 {
		return fakeInvalidValue
	}
	copy(d, s)
	return 0
}

// MemcpyPeerAsync copies device memory; the fake has one memory.
func (f *Fake) MemcpyPeerAsync(dst uint64, _ Handle, src uint64, _ Handle, bytes uint64, s Handle) int {
	return f.MemcpyDtoDAsync(dst, src, bytes, s)
}

// Memcpy2DAsync copies height rows of width bytes.
func (f *Fake) Memcpy2DAsync(dst, dpitch, src, spitch, width, height uint64, s Handle) int {
	for r := range height {
		if c := f.MemcpyDtoDAsync(dst+r*dpitch, src+r*spitch, width, s); c != 0 {
			return c
		}
	}
	return 0
}

// CtxEnablePeerAccess succeeds.
func (f *Fake) CtxEnablePeerAccess(Handle) int { return 0 }

// DeviceCanAccessPeer reports no peer.
func (f *Fake) DeviceCanAccessPeer(int, int) (bool, int) { return false, 0 }

// ModuleLoadData loads an image that NVRTCCompile made: the source.
func (f *Fake) ModuleLoadData(image []byte) (Handle, int) {
	return f.handle(fakeModule{src: string(image)}), 0
}

// ModuleUnload succeeds.
func (f *Fake) ModuleUnload(Handle) int { return 0 }

// ModuleGetFunction finds an extern "C" entry of the module's source.
func (f *Fake) ModuleGetFunction(m Handle, name string) (Handle, int) {
	mod, ok := f.object(m).(fakeModule)
	if !ok {
		return nil, fakeInvalidValue
	}
	es, err := cuda2go.Parse("module.cu", mod.src)
	if err != nil {
		return nil, fakeInvalidValue
	}
	for _, e := range es {
		if e.Name == name {
			return f.handle(fakeFunction{entry: e}), 0
		}
	}
	return nil, fakeNotFound
}

// FuncGetAttribute returns FuncAttrs[attr].
func (f *Fake) FuncGetAttribute(attr int, _ Handle) (int, int) { return f.FuncAttrs[attr], 0 }

// FuncSetAttribute succeeds.
func (f *Fake) FuncSetAttribute(Handle, int, int) int { return 0 }

// OccupancyMaxActiveBlocksPerMultiprocessor returns Occupancy.
func (f *Fake) OccupancyMaxActiveBlocksPerMultiprocessor(Handle, int, int) (int, int) {
	return f.Occupancy, 0
}

// LaunchKernel records the launch, its arguments decoded by the entry's
// parameters, or refuses arguments that are not the entry's.
func (f *Fake) LaunchKernel(fn Handle, grid, block [3]int, shared int, _ Handle, buf []byte, offsets []int) int {
	ff, ok := f.object(fn).(fakeFunction)
	if !ok {
		return fakeInvalidValue
	}
	l := Launch{Entry: ff.entry, Grid: grid, Block: block, Shared: shared}
	l.Args, l.Refused = decode(ff.entry, buf, offsets)
	f.mu.Lock()
	f.launches = append(f.launches, l)
	f.mu.Unlock()
	if l.Refused != "" {
		return fakeInvalidValue
	}
	return 0
}

// decode reads the arguments of e from buf as the driver would: each at
// the next offset its kind's alignment allows.
func decode(e cuda2go.Entry, buf []byte, offsets []int) ([]any, string) {
	if len(offsets) != len(e.Params) {
		return nil, fmt.Sprintf("%s takes %d parameters, the launch passes %d", e.Name, len(e.Params), len(offsets))
	}
	var out []any
	off := 0
	for i, p := range e.Params {
		size, align := p.Kind.Size(p.N), p.Kind.Align()
		off = (off + align - 1) / align * align
		if offsets[i] != off || off+size > len(buf) {
			return nil, fmt.Sprintf("%s: parameter %s (%s) is at byte %d of %d, the launch packs it at %d", e.Name, p.Name, p, off, len(buf), offsets[i])
		}
		b := buf[off : off+size]
		switch p.Kind {
		case cuda2go.Pointer, cuda2go.Uint64:
			out = append(out, binary.LittleEndian.Uint64(b))
		case cuda2go.Int32:
			out = append(out, int32(binary.LittleEndian.Uint32(b)))
		case cuda2go.Int64:
			out = append(out, int64(binary.LittleEndian.Uint64(b)))
		case cuda2go.Float32:
			out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case cuda2go.Float64:
			out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		case cuda2go.Floats:
			v := make([]float32, p.N)
			for j := range v {
				v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
			}
			out = append(out, v)
		}
		off += size
	}
	if off != len(buf) {
		return nil, fmt.Sprintf("%s: the launch packs %d bytes, the parameters take %d", e.Name, len(buf), off)
	}
	return out, ""
}

// EventCreate returns a new event.
func (f *Fake) EventCreate(uint) (Handle, int) { return f.handle(fakeObject{"event"}), 0 }

// EventRecord succeeds.
func (f *Fake) EventRecord(Handle, Handle) int { return 0 }

// EventSynchronize succeeds.
func (f *Fake) EventSynchronize(Handle) int { return 0 }

// EventElapsedTime reports one millisecond between any two events.
func (f *Fake) EventElapsedTime(Handle, Handle) (float32, int) { return 1, 0 }

// EventDestroy succeeds.
func (f *Fake) EventDestroy(Handle) int { return 0 }

// StreamSynchronize succeeds.
func (f *Fake) StreamSynchronize(Handle) int { return 0 }

// StreamCreateWithPriority returns a new stream.
func (f *Fake) StreamCreateWithPriority(uint, int) (Handle, int) {
	return f.handle(fakeObject{"stream"}), 0
}

// CtxGetStreamPriorityRange reports priorities 0 (least) to −5.
func (f *Fake) CtxGetStreamPriorityRange() (least, greatest, code int) { return 0, -5, 0 }

// StreamDestroy succeeds.
func (f *Fake) StreamDestroy(Handle) int { return 0 }

// StreamWaitEvent succeeds.
func (f *Fake) StreamWaitEvent(Handle, Handle) int { return 0 }

// NVRTCHasCUBIN reports that CUBIN is available.
func (f *Fake) NVRTCHasCUBIN() bool { return true }

// NVRTCSupportedArchs returns Archs.
func (f *Fake) NVRTCSupportedArchs() ([]int, int) { return slices.Clone(f.Archs), 0 }

// NVRTCCompile returns the source as the image, so that the module knows
// its entries.
func (f *Fake) NVRTCCompile(src, _ string, _ []string, _ bool) (image []byte, log string, call string, code int) {
	return []byte(src), "", "", 0
}

// NCCLGetErrorString has no NCCL to ask.
func (f *Fake) NCCLGetErrorString(int) string { return "" }

// NCCLGetVersion: no NCCL.
func (f *Fake) NCCLGetVersion() (int, int) { return 0, fakeNCCLMissing }

// NCCLGetUniqueId: no NCCL.
func (f *Fake) NCCLGetUniqueId() (UniqueID, int) { return UniqueID{}, fakeNCCLMissing }

// NCCLCommInitRank: no NCCL.
func (f *Fake) NCCLCommInitRank(int, UniqueID, int) (Handle, int) { return nil, fakeNCCLMissing }

// NCCLCommFinalize: no NCCL.
func (f *Fake) NCCLCommFinalize(Handle) int { return fakeNCCLMissing }

// NCCLCommDestroy: no NCCL.
func (f *Fake) NCCLCommDestroy(Handle) int { return fakeNCCLMissing }

// NCCLGroupStart: no NCCL.
func (f *Fake) NCCLGroupStart() int { return fakeNCCLMissing }

// NCCLGroupEnd: no NCCL.
func (f *Fake) NCCLGroupEnd() int { return fakeNCCLMissing }

// NCCLSend: no NCCL.
func (f *Fake) NCCLSend(uint64, uint64, int, Handle, Handle) int { return fakeNCCLMissing }

// NCCLRecv: no NCCL.
func (f *Fake) NCCLRecv(uint64, uint64, int, Handle, Handle) int { return fakeNCCLMissing }

// NCCLCommGetAsyncError: no NCCL.
func (f *Fake) NCCLCommGetAsyncError(Handle) (int, int) { return 0, fakeNCCLMissing }
