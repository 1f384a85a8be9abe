// Package cu is the lab's binding of the CUDA driver, NVRTC and NCCL.
//
// The libraries are opened with dlopen at run time, as NVIDIA/go-nvml's
// pkg/dl opens NVML: nothing of CUDA is needed to build. Each library's
// symbols are listed once, in the X-macro tables at the top of cgo.go, from
// which the C preprocessor makes the function pointers, their binding and
// a C wrapper per symbol; the Go methods of Lib are the thin conversions of
// Go values to those wrappers, and nocgo.go, the stand-ins of a build
// without cgo, is generated from them (go generate ./gpu/cu).
//
// Package gpu calls the libraries only through API, of which Lib is the
// real implementation and Fake a recording one that runs every launcher
// on a machine without a GPU. Every call returns its library's result
// code as an int (0: success) and, except the NVRTC ones, must run on the
// thread where the device's context is current.
//
//go:generate go test -run TestNoCgoStubs -update
package cu

import "unsafe"

// Handle is an opaque pointer owned by a library: a library handle, a
// context, module, function, event, stream or communicator.
type Handle = unsafe.Pointer

// Table names one library's symbol table.
type Table int

// The symbol tables, one per library.
const (
	DriverTable Table = iota + 1 // libcuda
	NVRTCTable                   // libnvrtc
	NCCLTable                    // libnccl
)

// String names the table's library.
func (t Table) String() string {
	names := [...]string{DriverTable: "CUDA driver", NVRTCTable: "NVRTC", NCCLTable: "NCCL"}
	if t < DriverTable || t > NCCLTable {
		return "unknown table"
	}
	return names[t]
}

// UniqueID is an ncclUniqueId: 128 opaque bytes that every rank of a
// communicator passes to ncclCommInitRank.
type UniqueID [128]byte

// NCCLFloat32 is ncclDataType_t's ncclFloat32.
const NCCLFloat32 = 7

// API is every call the lab makes into the three libraries.
type API interface {
	Loader
	Driver
	Compiler
	Collectives
}

// Loader opens libraries and binds their symbol tables.
type Loader interface {
	// Dlopen opens a library by soname or path, or returns dlopen's message.
	Dlopen(name string) (Handle, error)
	// Bind installs table t from library h, or returns the first required
	// symbol it lacks and installs nothing.
	Bind(t Table, h Handle) string
	// Dlclose closes a library that Dlopen opened.
	Dlclose(h Handle)
	// Setenv sets a variable of the C environment, which the libraries
	// read with getenv; 0 on success.
	Setenv(key, value string) int
}

// Driver is the CUDA driver API, as far as the lab uses it. A stream of
// nil is the default stream.
type Driver interface {
	ErrorName(code int) string
	Init() int
	DriverGetVersion() (int, int)
	DeviceGetCount() (int, int)
	DeviceGet(ordinal int) (int, int)
	DeviceGetName(dev int) (string, int)
	DeviceGetAttribute(attr, dev int) (int, int)
	DeviceTotalMem(dev int) (uint64, int)
	DevicePrimaryCtxRetain(dev int) (Handle, int)
	DevicePrimaryCtxRelease(dev int) int
	DevicePrimaryCtxReset(dev int) int
	CtxSetCurrent(ctx Handle) int
	MemGetInfo() (free, total uint64, code int)
	MemAlloc(bytes uint64) (uint64, int)
	MemFree(p uint64) int
	MemcpyHtoD(dst uint64, src unsafe.Pointer, bytes uint64) int
	MemcpyDtoH(dst unsafe.Pointer, src uint64, bytes uint64) int
	MemsetD32(dst uint64, v uint32, n uint64) int
	MemcpyDtoDAsync(dst, src, bytes uint64, s Handle) int
	MemcpyPeerAsync(dst uint64, dctx Handle, src uint64, sctx Handle, bytes uint64, s Handle) int
	Memcpy2DAsync(dst, dpitch, src, spitch, width, height uint64, s Handle) int
	CtxEnablePeerAccess(peer Handle) int
	DeviceCanAccessPeer(dev, peer int) (bool, int)
	ModuleLoadData(image []byte) (Handle, int)
	ModuleUnload(m Handle) int
	ModuleGetFunction(m Handle, name string) (Handle, int)
	FuncGetAttribute(attr int, f Handle) (int, int)
	FuncSetAttribute(f Handle, attr, v int) int
	OccupancyMaxActiveBlocksPerMultiprocessor(f Handle, threads, dynShared int) (int, int)
	// LaunchKernel launches f; buf holds the packed arguments, each at its
	// offset in offsets (cuLaunchKernel receives a pointer to each).
	LaunchKernel(f Handle, grid, block [3]int, shared int, s Handle, buf []byte, offsets []int) int
	EventCreate(flags uint) (Handle, int)
	EventRecord(e, s Handle) int
	EventSynchronize(e Handle) int
	EventElapsedTime(a, b Handle) (float32, int)
	EventDestroy(e Handle) int
	StreamSynchronize(s Handle) int
	StreamCreateWithPriority(flags uint, priority int) (Handle, int)
	CtxGetStreamPriorityRange() (least, greatest, code int)
	StreamDestroy(s Handle) int
	StreamWaitEvent(s, e Handle) int
}

// Compiler is NVRTC: CUDA C to PTX or CUBIN at run time.
type Compiler interface {
	NVRTCHasCUBIN() bool
	NVRTCSupportedArchs() ([]int, int)
	// NVRTCCompile compiles src with opts and returns the CUBIN (cubin
	// true) or the PTX, the program log, and the failing call's name and
	// result.
	NVRTCCompile(src, name string, opts []string, cubin bool) (image []byte, log string, call string, code int)
}

// Collectives is NCCL's point-to-point subset.
type Collectives interface {
	NCCLGetErrorString(code int) string
	NCCLGetVersion() (int, int)
	NCCLGetUniqueId() (UniqueID, int)
	NCCLCommInitRank(n int, id UniqueID, rank int) (Handle, int)
	NCCLCommFinalize(c Handle) int
	NCCLCommDestroy(c Handle) int
	NCCLGroupStart() int
	NCCLGroupEnd() int
	NCCLSend(buf, count uint64, peer int, c, s Handle) int
	NCCLRecv(buf, count uint64, peer int, c, s Handle) int
	NCCLCommGetAsyncError(c Handle) (int, int)
}

// Lib is the real binding: the dlopen'd libraries.
type Lib struct{}

var _ API = Lib{}
