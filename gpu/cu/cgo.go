//go:build cgo

package cu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

// The few CUDA driver, NVRTC and NCCL types the lab uses, declared here so
// that no CUDA or NCCL header is needed at build time.
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUevent;
typedef void* CUstream;
typedef int nvrtcResult;
typedef void* nvrtcProgram;
typedef int ncclResult_t;
typedef void* ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;

// CUDA_MEMCPY2D, of which the lab sets the device-to-device fields.
typedef struct {
	size_t srcXInBytes, srcY;
	int srcMemoryType;
	const void* srcHost;
	CUdeviceptr srcDevice;
	void* srcArray;
	size_t srcPitch;
	size_t dstXInBytes, dstY;
	int dstMemoryType;
	void* dstHost;
	CUdeviceptr dstDevice;
	void* dstArray;
	size_t dstPitch;
	size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

// The symbol tables. Each library's symbols are listed once, as
//
//	X(required, name, (parameters), (arguments), "symbol", "fallback symbol"...)
//
// and the lists below generate, for each library, the struct of function
// pointers, the binding that fills it from dlsym (the symbols tried in
// order), and a C wrapper w_NAME with the same parameters that calls
// through the pointer, or returns the library's "not found" code when an
// optional symbol is missing. The Go wrappers below are the thin
// conversions of Go values to these; the no-cgo stubs are generated from
// them (go generate, api.go). Every function returns its library's result code.

#define CU_SYMBOLS(X) \
	X(1, cuInit, (unsigned int flags), (flags), "cuInit") \
	X(1, cuDriverGetVersion, (int* v), (v), "cuDriverGetVersion") \
	X(1, cuDeviceGetCount, (int* n), (n), "cuDeviceGetCount") \
	X(1, cuDeviceGet, (CUdevice* d, int ordinal), (d, ordinal), "cuDeviceGet") \
	X(1, cuDeviceGetName, (char* s, int n, CUdevice d), (s, n, d), "cuDeviceGetName") \
	X(1, cuDeviceGetAttribute, (int* v, int attr, CUdevice d), (v, attr, d), "cuDeviceGetAttribute") \
	X(1, cuDeviceTotalMem, (size_t* b, CUdevice d), (b, d), "cuDeviceTotalMem_v2", "cuDeviceTotalMem") \
	X(1, cuDevicePrimaryCtxRetain, (CUcontext* c, CUdevice d), (c, d), "cuDevicePrimaryCtxRetain") \
	X(1, cuDevicePrimaryCtxRelease, (CUdevice d), (d), "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease") \
	X(1, cuCtxSetCurrent, (CUcontext c), (c), "cuCtxSetCurrent") \
	X(1, cuMemGetInfo, (size_t* free, size_t* total), (free, total), "cuMemGetInfo_v2", "cuMemGetInfo") \
	X(1, cuMemAlloc, (CUdeviceptr* p, size_t n), (p, n), "cuMemAlloc_v2", "cuMemAlloc") \
	X(1, cuMemFree, (CUdeviceptr p), (p), "cuMemFree_v2", "cuMemFree") \
	X(1, cuMemcpyHtoD, (CUdeviceptr dst, const void* src, size_t n), (dst, src, n), "cuMemcpyHtoD_v2", "cuMemcpyHtoD") \
	X(1, cuMemcpyDtoH, (void* dst, CUdeviceptr src, size_t n), (dst, src, n), "cuMemcpyDtoH_v2", "cuMemcpyDtoH") \
	X(1, cuMemsetD32, (CUdeviceptr dst, unsigned int v, size_t n), (dst, v, n), "cuMemsetD32_v2", "cuMemsetD32") \
	X(1, cuModuleLoadData, (CUmodule* m, const void* image), (m, image), "cuModuleLoadData") \
	X(1, cuModuleUnload, (CUmodule m), (m), "cuModuleUnload") \
	X(1, cuModuleGetFunction, (CUfunction* f, CUmodule m, const char* name), (f, m, name), "cuModuleGetFunction") \
	X(1, cuFuncGetAttribute, (int* v, int attr, CUfunction f), (v, attr, f), "cuFuncGetAttribute") \
	X(1, cuLaunchKernel, (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, \
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void** params, void** extra), \
		(f, gx, gy, gz, bx, by, bz, shared, s, params, extra), "cuLaunchKernel") \
	X(1, cuEventCreate, (CUevent* e, unsigned int flags), (e, flags), "cuEventCreate") \
	X(1, cuEventRecord, (CUevent e, CUstream s), (e, s), "cuEventRecord") \
	X(1, cuEventSynchronize, (CUevent e), (e), "cuEventSynchronize") \
	X(1, cuEventElapsedTime, (float* ms, CUevent a, CUevent b), (ms, a, b), "cuEventElapsedTime_v2", "cuEventElapsedTime") \
	X(1, cuEventDestroy, (CUevent e), (e), "cuEventDestroy_v2", "cuEventDestroy") \
	X(1, cuStreamSynchronize, (CUstream s), (s), "cuStreamSynchronize") \
	X(1, cuGetErrorName, (CUresult e, const char** s), (e, s), "cuGetErrorName") \
	X(0, cuOccupancyMaxActiveBlocksPerMultiprocessor, (int* n, CUfunction f, int threads, size_t shared), (n, f, threads, shared), \
		"cuOccupancyMaxActiveBlocksPerMultiprocessor") \
	X(0, cuFuncSetAttribute, (CUfunction f, int attr, int v), (f, attr, v), "cuFuncSetAttribute") \
	X(0, cuDevicePrimaryCtxReset, (CUdevice d), (d), "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset") \
	X(0, cuStreamCreateWithPriority, (CUstream* s, unsigned int flags, int priority), (s, flags, priority), "cuStreamCreateWithPriority") \
	X(0, cuCtxGetStreamPriorityRange, (int* least, int* greatest), (least, greatest), "cuCtxGetStreamPriorityRange") \
	X(0, cuStreamDestroy, (CUstream s), (s), "cuStreamDestroy_v2", "cuStreamDestroy") \
	X(0, cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags), (s, e, flags), "cuStreamWaitEvent") \
	X(0, cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s), "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync") \
	X(0, cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n, CUstream s), \
		(dst, dctx, src, sctx, n, s), "cuMemcpyPeerAsync") \
	X(0, cuMemcpy2DAsync, (const CUDA_MEMCPY2D* c, CUstream s), (c, s), "cuMemcpy2DAsync_v2", "cuMemcpy2DAsync") \
	X(0, cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags), (peer, flags), "cuCtxEnablePeerAccess") \
	X(0, cuDeviceCanAccessPeer, (int* can, CUdevice d, CUdevice peer), (can, d, peer), "cuDeviceCanAccessPeer")

#define NVRTC_SYMBOLS(X) \
	X(1, nvrtcVersion, (int* major, int* minor), (major, minor), "nvrtcVersion") \
	X(1, nvrtcCreateProgram, (nvrtcProgram* p, const char* src, const char* name, int n, \
		const char* const* headers, const char* const* includes), (p, src, name, n, headers, includes), "nvrtcCreateProgram") \
	X(1, nvrtcCompileProgram, (nvrtcProgram p, int n, const char* const* opts), (p, n, opts), "nvrtcCompileProgram") \
	X(1, nvrtcGetProgramLogSize, (nvrtcProgram p, size_t* n), (p, n), "nvrtcGetProgramLogSize") \
	X(1, nvrtcGetProgramLog, (nvrtcProgram p, char* s), (p, s), "nvrtcGetProgramLog") \
	X(1, nvrtcGetPTXSize, (nvrtcProgram p, size_t* n), (p, n), "nvrtcGetPTXSize") \
	X(1, nvrtcGetPTX, (nvrtcProgram p, char* s), (p, s), "nvrtcGetPTX") \
	X(1, nvrtcDestroyProgram, (nvrtcProgram* p), (p), "nvrtcDestroyProgram") \
	X(0, nvrtcGetCUBINSize, (nvrtcProgram p, size_t* n), (p, n), "nvrtcGetCUBINSize") \
	X(0, nvrtcGetCUBIN, (nvrtcProgram p, char* s), (p, s), "nvrtcGetCUBIN") \
	X(0, nvrtcGetNumSupportedArchs, (int* n), (n), "nvrtcGetNumSupportedArchs") \
	X(0, nvrtcGetSupportedArchs, (int* a), (a), "nvrtcGetSupportedArchs")

#define NCCL_SYMBOLS(X) \
	X(1, ncclGetVersion, (int* v), (v), "ncclGetVersion") \
	X(1, ncclGetUniqueId, (ncclUniqueId* id), (id), "ncclGetUniqueId") \
	X(1, ncclCommInitRank, (ncclComm_t* c, int n, ncclUniqueId id, int rank), (c, n, id, rank), "ncclCommInitRank") \
	X(1, ncclCommDestroy, (ncclComm_t c), (c), "ncclCommDestroy") \
	X(0, ncclCommFinalize, (ncclComm_t c), (c), "ncclCommFinalize") \
	X(1, ncclGroupStart, (void), (), "ncclGroupStart") \
	X(1, ncclGroupEnd, (void), (), "ncclGroupEnd") \
	X(1, ncclSend, (const void* buf, size_t n, int type, int peer, ncclComm_t c, CUstream s), (buf, n, type, peer, c, s), "ncclSend") \
	X(1, ncclRecv, (void* buf, size_t n, int type, int peer, ncclComm_t c, CUstream s), (buf, n, type, peer, c, s), "ncclRecv") \
	X(1, ncclCommGetAsyncError, (ncclComm_t c, ncclResult_t* e), (c, e), "ncclCommGetAsyncError")

// The codes a wrapper returns when an optional symbol is missing:
// CUDA_ERROR_NOT_FOUND, NVRTC_ERROR_INVALID_OPTION and ncclInvalidUsage.
enum { CU_MISSING = 500, NVRTC_MISSING = 5, NCCL_MISSING = 5 };

#define LAB_FIELD(req, name, params, call, ...) int (*name) params;
typedef struct { CU_SYMBOLS(LAB_FIELD) } cuAPI;
typedef struct { NVRTC_SYMBOLS(LAB_FIELD) } rtcAPI;
typedef struct {
	NCCL_SYMBOLS(LAB_FIELD)
	const char* (*ncclGetErrorString)(ncclResult_t);
} ncclAPI;

static cuAPI cu;
static rtcAPI rtc;
static ncclAPI nccl;

// lab_sym tries names in order and returns the first symbol found.
static void* lab_sym(void* h, const char* const* names) {
	for (int i = 0; names[i]; i++) {
		void* p = dlsym(h, names[i]);
		if (p) return p;
	}
	return NULL;
}

// LAB_BIND stores a symbol; a required one that is missing ends the
// binding with its first name.
#define LAB_BIND(req, name, params, call, ...) do { \
	static const char* const names_[] = {__VA_ARGS__, NULL}; \
	*(void**)&a.name = lab_sym(h, names_); \
	if (req && !a.name) return names_[0]; \
} while (0);

static const char* bind_cuda(void* h) {
	cuAPI a;
	memset(&a, 0, sizeof a);
	CU_SYMBOLS(LAB_BIND)
	cu = a;
	return NULL;
}

static const char* bind_nvrtc(void* h) {
	rtcAPI a;
	memset(&a, 0, sizeof a);
	NVRTC_SYMBOLS(LAB_BIND)
	rtc = a;
	return NULL;
}

static const char* bind_nccl(void* h) {
	ncclAPI a;
	memset(&a, 0, sizeof a);
	NCCL_SYMBOLS(LAB_BIND)
	*(void**)&a.ncclGetErrorString = dlsym(h, "ncclGetErrorString");
	if (!a.ncclGetErrorString) return "ncclGetErrorString";
	nccl = a;
	return NULL;
}

#define CU_WRAP(req, name, params, call, ...) static int w_##name params { return cu.name ? cu.name call : CU_MISSING; }
#define NVRTC_WRAP(req, name, params, call, ...) static int w_##name params { return rtc.name ? rtc.name call : NVRTC_MISSING; }
#define NCCL_WRAP(req, name, params, call, ...) static int w_##name params { return nccl.name ? nccl.name call : NCCL_MISSING; }
CU_SYMBOLS(CU_WRAP)
NVRTC_SYMBOLS(NVRTC_WRAP)
NCCL_SYMBOLS(NCCL_WRAP)

static void* lab_dlopen(const char* name, char* err, size_t errlen) {
	void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char* e = dlerror();
		strncpy(err, e ? e : "dlopen failed", errlen - 1);
		err[errlen - 1] = 0;
	}
	return h;
}

static void lab_dlclose(void* h) { dlclose(h); }

static int has_cubin(void) { return rtc.nvrtcGetCUBIN != NULL && rtc.nvrtcGetCUBINSize != NULL; }

static const char* lab_cu_error_name(CUresult e) {
	const char* s = NULL;
	if (w_cuGetErrorName(e, &s) != 0) return NULL;
	return s;
}

static const char* lab_nccl_error_string(ncclResult_t r) {
	return nccl.ncclGetErrorString ? nccl.ncclGetErrorString(r) : NULL;
}

// lab_launch builds the kernel parameter array from a packed argument
// buffer and its offsets, on the C stack, and launches on stream s (NULL:
// the default stream). Up to 32 arguments.
static CUresult lab_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, CUstream s,
		void* args, const size_t* offsets, int nargs) {
	void* params[32];
	if (nargs > 32) return 1;
	for (int i = 0; i < nargs; i++) params[i] = (char*)args + offsets[i];
	return w_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, NULL);
}

// lab_nccl_init_rank passes the 128 bytes of a unique id by value, as
// ncclCommInitRank takes it.
static ncclResult_t lab_nccl_init_rank(ncclComm_t* c, int n, const void* id, int rank) {
	ncclUniqueId u;
	memcpy(u.internal, id, sizeof u.internal);
	return w_ncclCommInitRank(c, n, u, rank);
}

// lab_copy2d copies height rows of width bytes between device memory
// with pitches, on stream s.
static CUresult lab_copy2d(CUdeviceptr dst, size_t dpitch, CUdeviceptr src, size_t spitch,
		size_t width, size_t height, CUstream s) {
	CUDA_MEMCPY2D c;
	memset(&c, 0, sizeof c);
	c.srcMemoryType = 2; // CU_MEMORYTYPE_DEVICE
	c.srcDevice = src;
	c.srcPitch = spitch;
	c.dstMemoryType = 2;
	c.dstDevice = dst;
	c.dstPitch = dpitch;
	c.WidthInBytes = width;
	c.Height = height;
	return w_cuMemcpy2DAsync(&c, s);
}

// lab_dptr turns a device address into the pointer NCCL takes.
static void* lab_dptr(CUdeviceptr p) { return (void*)(uintptr_t)p; }

// lab_setenv sets a variable in the C environment, which NCCL reads with
// getenv.
static int lab_setenv(const char* k, const char* v) { return setenv(k, v, 1); }
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// Cgo reports whether this build can load the CUDA libraries.
const Cgo = true

// dlopen opens a library, or returns dlopen's message.
func (Lib) Dlopen(name string) (Handle, error) {
	buf := (*C.char)(C.malloc(512))
	defer C.free(unsafe.Pointer(buf))
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	if h := C.lab_dlopen(cn, buf, 512); h != nil {
		return h, nil
	}
	return nil, fmt.Errorf("%s", C.GoString(buf))
}

// Bind resolves the symbols of table t in an opened library and, when all
// the required ones are there, installs them. It returns the name of the
// first missing symbol, or "".
func (Lib) Bind(t Table, h Handle) string {
	switch t {
	case DriverTable:
		return goName(C.bind_cuda(h))
	case NVRTCTable:
		return goName(C.bind_nvrtc(h))
	case NCCLTable:
		return goName(C.bind_nccl(h))
	}
	return "table " + t.String()
}

func goName(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

func (Lib) Dlclose(h Handle) { C.lab_dlclose(h) }

// setenvC sets a variable in the C library's environment, which the
// libraries read with getenv; 0 on success.
func (Lib) Setenv(key, value string) int {
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	return int(C.lab_setenv(k, v))
}

// driverErrorName asks the loaded driver for the name of a CUresult.
func (Lib) ErrorName(code int) string {
	return goName(C.lab_cu_error_name(C.CUresult(code)))
}

// The methods below are thin calls through the bound pointers. They
// return the CUresult, nvrtcResult or ncclResult_t as an int and must run
// on a device's worker thread (the NVRTC ones may run anywhere). A stream
// of nil is the default stream.

func (Lib) Init() int { return int(C.w_cuInit(0)) }

func (Lib) DriverGetVersion() (int, int) {
	var v C.int
	r := C.w_cuDriverGetVersion(&v)
	return int(v), int(r)
}

func (Lib) DeviceGetCount() (int, int) {
	var n C.int
	r := C.w_cuDeviceGetCount(&n)
	return int(n), int(r)
}

func (Lib) DeviceGet(ordinal int) (int, int) {
	var d C.CUdevice
	r := C.w_cuDeviceGet(&d, C.int(ordinal))
	return int(d), int(r)
}

func (Lib) DeviceGetName(dev int) (string, int) {
	buf := make([]byte, 256)
	r := C.w_cuDeviceGetName((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)), C.CUdevice(dev))
	return C.GoString((*C.char)(unsafe.Pointer(&buf[0]))), int(r)
}

func (Lib) DeviceGetAttribute(attr, dev int) (int, int) {
	var v C.int
	r := C.w_cuDeviceGetAttribute(&v, C.int(attr), C.CUdevice(dev))
	return int(v), int(r)
}

func (Lib) DeviceTotalMem(dev int) (uint64, int) {
	var b C.size_t
	r := C.w_cuDeviceTotalMem(&b, C.CUdevice(dev))
	return uint64(b), int(r)
}

func (Lib) DevicePrimaryCtxRetain(dev int) (Handle, int) {
	var c C.CUcontext
	r := C.w_cuDevicePrimaryCtxRetain(&c, C.CUdevice(dev))
	return Handle(c), int(r)
}

func (Lib) DevicePrimaryCtxRelease(dev int) int {
	return int(C.w_cuDevicePrimaryCtxRelease(C.CUdevice(dev)))
}

// cuDevicePrimaryCtxReset destroys the device's primary context and all it
// holds, so that the next retain makes a fresh one; CUDA_ERROR_NOT_FOUND
// when the driver lacks it.
func (Lib) DevicePrimaryCtxReset(dev int) int {
	return int(C.w_cuDevicePrimaryCtxReset(C.CUdevice(dev)))
}

func (Lib) CtxSetCurrent(ctx Handle) int {
	return int(C.w_cuCtxSetCurrent(C.CUcontext(ctx)))
}

func (Lib) MemGetInfo() (free, total uint64, code int) {
	var f, t C.size_t
	r := C.w_cuMemGetInfo(&f, &t)
	return uint64(f), uint64(t), int(r)
}

func (Lib) MemAlloc(bytes uint64) (uint64, int) {
	var p C.CUdeviceptr
	r := C.w_cuMemAlloc(&p, C.size_t(bytes))
	return uint64(p), int(r)
}

func (Lib) MemFree(p uint64) int { return int(C.w_cuMemFree(C.CUdeviceptr(p))) }

func (Lib) MemcpyHtoD(dst uint64, src unsafe.Pointer, bytes uint64) int {
	return int(C.w_cuMemcpyHtoD(C.CUdeviceptr(dst), src, C.size_t(bytes)))
}

func (Lib) MemcpyDtoH(dst unsafe.Pointer, src uint64, bytes uint64) int {
	return int(C.w_cuMemcpyDtoH(dst, C.CUdeviceptr(src), C.size_t(bytes)))
}

func (Lib) MemsetD32(dst uint64, v uint32, n uint64) int {
	return int(C.w_cuMemsetD32(C.CUdeviceptr(dst), C.uint(v), C.size_t(n)))
}

func (Lib) MemcpyDtoDAsync(dst, src, bytes uint64, s Handle) int {
	return int(C.w_cuMemcpyDtoDAsync(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes), C.CUstream(s)))
}

func (Lib) MemcpyPeerAsync(dst uint64, dctx Handle, src uint64, sctx Handle, bytes uint64, s Handle) int {
	return int(C.w_cuMemcpyPeerAsync(C.CUdeviceptr(dst), C.CUcontext(dctx), C.CUdeviceptr(src), C.CUcontext(sctx),
		C.size_t(bytes), C.CUstream(s)))
}

// cuMemcpy2DAsync copies height rows of width bytes from src, rows
// spitch bytes apart, to dst, rows dpitch bytes apart, on stream s.
func (Lib) Memcpy2DAsync(dst, dpitch, src, spitch, width, height uint64, s Handle) int {
	return int(C.lab_copy2d(C.CUdeviceptr(dst), C.size_t(dpitch), C.CUdeviceptr(src), C.size_t(spitch),
		C.size_t(width), C.size_t(height), C.CUstream(s)))
}

func (Lib) CtxEnablePeerAccess(peer Handle) int {
	return int(C.w_cuCtxEnablePeerAccess(C.CUcontext(peer), 0))
}

func (Lib) DeviceCanAccessPeer(dev, peer int) (bool, int) {
	var can C.int
	r := C.w_cuDeviceCanAccessPeer(&can, C.CUdevice(dev), C.CUdevice(peer))
	return can != 0, int(r)
}

func (Lib) ModuleLoadData(image []byte) (Handle, int) {
	var m C.CUmodule
	// The image is copied to C memory: the driver may read it after the Go
	// slice moves, and a PTX image must end with a NUL.
	cimg := C.malloc(C.size_t(len(image) + 1))
	defer C.free(cimg)
	C.memcpy(cimg, unsafe.Pointer(&image[0]), C.size_t(len(image)))
	*(*byte)(unsafe.Add(cimg, len(image))) = 0
	r := C.w_cuModuleLoadData(&m, cimg)
	return Handle(m), int(r)
}

func (Lib) ModuleUnload(m Handle) int { return int(C.w_cuModuleUnload(C.CUmodule(m))) }

func (Lib) ModuleGetFunction(m Handle, name string) (Handle, int) {
	var f C.CUfunction
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	r := C.w_cuModuleGetFunction(&f, C.CUmodule(m), cn)
	return Handle(f), int(r)
}

func (Lib) FuncGetAttribute(attr int, f Handle) (int, int) {
	var v C.int
	r := C.w_cuFuncGetAttribute(&v, C.int(attr), C.CUfunction(f))
	return int(v), int(r)
}

func (Lib) LaunchKernel(f Handle, grid, block [3]int, shared int, s Handle, buf []byte, offsets []int) int {
	if len(offsets) == 0 {
		return int(C.lab_launch(C.CUfunction(f), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
			C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shared), C.CUstream(s), nil, nil, 0))
	}
	offs := make([]C.size_t, len(offsets))
	for i, o := range offsets {
		offs[i] = C.size_t(o)
	}
	return int(C.lab_launch(C.CUfunction(f), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shared), C.CUstream(s),
		unsafe.Pointer(&buf[0]), &offs[0], C.int(len(offs))))
}

func (Lib) EventCreate(flags uint) (Handle, int) {
	var e C.CUevent
	r := C.w_cuEventCreate(&e, C.uint(flags))
	return Handle(e), int(r)
}

func (Lib) EventRecord(e, s Handle) int { return int(C.w_cuEventRecord(C.CUevent(e), C.CUstream(s))) }

func (Lib) EventSynchronize(e Handle) int {
	return int(C.w_cuEventSynchronize(C.CUevent(e)))
}

func (Lib) EventElapsedTime(a, b Handle) (float32, int) {
	var ms C.float
	r := C.w_cuEventElapsedTime(&ms, C.CUevent(a), C.CUevent(b))
	return float32(ms), int(r)
}

func (Lib) EventDestroy(e Handle) int { return int(C.w_cuEventDestroy(C.CUevent(e))) }

func (Lib) StreamSynchronize(s Handle) int { return int(C.w_cuStreamSynchronize(C.CUstream(s))) }

func (Lib) StreamCreateWithPriority(flags uint, priority int) (Handle, int) {
	var s C.CUstream
	r := C.w_cuStreamCreateWithPriority(&s, C.uint(flags), C.int(priority))
	return Handle(s), int(r)
}

func (Lib) CtxGetStreamPriorityRange() (least, greatest, code int) {
	var l, g C.int
	r := C.w_cuCtxGetStreamPriorityRange(&l, &g)
	return int(l), int(g), int(r)
}

func (Lib) StreamDestroy(s Handle) int { return int(C.w_cuStreamDestroy(C.CUstream(s))) }

func (Lib) StreamWaitEvent(s, e Handle) int {
	return int(C.w_cuStreamWaitEvent(C.CUstream(s), C.CUevent(e), 0))
}

func (Lib) FuncSetAttribute(f Handle, attr, v int) int {
	return int(C.w_cuFuncSetAttribute(C.CUfunction(f), C.int(attr), C.int(v)))
}

func (Lib) OccupancyMaxActiveBlocksPerMultiprocessor(f Handle, threads, dynShared int) (int, int) {
	var n C.int
	r := C.w_cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, C.CUfunction(f), C.int(threads), C.size_t(dynShared))
	return int(n), int(r)
}

func (Lib) NCCLGetVersion() (int, int) {
	var v C.int
	r := C.w_ncclGetVersion(&v)
	return int(v), int(r)
}

func (Lib) NCCLGetUniqueId() (UniqueID, int) {
	var u C.ncclUniqueId
	r := C.w_ncclGetUniqueId(&u)
	var id UniqueID
	copy(id[:], C.GoBytes(unsafe.Pointer(&u.internal[0]), C.int(len(id))))
	return id, int(r)
}

func (Lib) NCCLCommInitRank(n int, id UniqueID, rank int) (Handle, int) {
	var c C.ncclComm_t
	cid := C.CBytes(id[:])
	defer C.free(cid)
	r := C.lab_nccl_init_rank(&c, C.int(n), cid, C.int(rank))
	return Handle(c), int(r)
}

func (Lib) NCCLCommFinalize(c Handle) int { return int(C.w_ncclCommFinalize(C.ncclComm_t(c))) }

func (Lib) NCCLCommDestroy(c Handle) int { return int(C.w_ncclCommDestroy(C.ncclComm_t(c))) }

func (Lib) NCCLGroupStart() int { return int(C.w_ncclGroupStart()) }

func (Lib) NCCLGroupEnd() int { return int(C.w_ncclGroupEnd()) }

func (Lib) NCCLSend(buf, count uint64, peer int, c, s Handle) int {
	return int(C.w_ncclSend(C.lab_dptr(C.CUdeviceptr(buf)), C.size_t(count), C.int(NCCLFloat32), C.int(peer), C.ncclComm_t(c), C.CUstream(s)))
}

func (Lib) NCCLRecv(buf, count uint64, peer int, c, s Handle) int {
	return int(C.w_ncclRecv(C.lab_dptr(C.CUdeviceptr(buf)), C.size_t(count), C.int(NCCLFloat32), C.int(peer), C.ncclComm_t(c), C.CUstream(s)))
}

func (Lib) NCCLCommGetAsyncError(c Handle) (int, int) {
	var e C.ncclResult_t
	r := C.w_ncclCommGetAsyncError(C.ncclComm_t(c), &e)
	return int(e), int(r)
}

func (Lib) NCCLGetErrorString(code int) string {
	return goName(C.lab_nccl_error_string(C.ncclResult_t(code)))
}

func (Lib) NVRTCHasCUBIN() bool { return C.has_cubin() != 0 }

func (Lib) NVRTCSupportedArchs() ([]int, int) {
	var n C.int
	if r := C.w_nvrtcGetNumSupportedArchs(&n); r != 0 {
		return nil, int(r)
	}
	if n <= 0 {
		return nil, 0
	}
	a := make([]C.int, int(n))
	if r := C.w_nvrtcGetSupportedArchs(&a[0]); r != 0 {
		return nil, int(r)
	}
	out := make([]int, len(a))
	for i, v := range a {
		out[i] = int(v)
	}
	return out, 0
}

// nvrtcCompile compiles src with opts and returns the CUBIN (cubin true)
// or the PTX, the program log, and the failing call's name and result.
func (Lib) NVRTCCompile(src, name string, opts []string, cubin bool) (image []byte, log string, call string, code int) {
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var prog C.nvrtcProgram
	if r := C.w_nvrtcCreateProgram(&prog, csrc, cname, 0, nil, nil); r != 0 {
		return nil, "", "nvrtcCreateProgram", int(r)
	}
	defer C.w_nvrtcDestroyProgram(&prog)

	copts := C.malloc(C.size_t(len(opts)+1) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(copts)
	arr := unsafe.Slice((**C.char)(copts), len(opts)+1)
	for i, o := range opts {
		arr[i] = C.CString(o)
	}
	defer func() {
		for i := range opts {
			C.free(unsafe.Pointer(arr[i]))
		}
	}()
	rc := C.w_nvrtcCompileProgram(prog, C.int(len(opts)), (**C.char)(copts))

	var logSize C.size_t
	if C.w_nvrtcGetProgramLogSize(prog, &logSize) == 0 && logSize > 1 {
		buf := make([]byte, int(logSize))
		if C.w_nvrtcGetProgramLog(prog, (*C.char)(unsafe.Pointer(&buf[0]))) == 0 {
			log = strings.TrimRight(string(buf[:len(buf)-1]), "\x00\n ")
		}
	}
	if rc != 0 {
		return nil, log, "nvrtcCompileProgram", int(rc)
	}

	var size C.size_t
	if cubin {
		if r := C.w_nvrtcGetCUBINSize(prog, &size); r != 0 {
			return nil, log, "nvrtcGetCUBINSize", int(r)
		}
		image = make([]byte, int(size))
		if r := C.w_nvrtcGetCUBIN(prog, (*C.char)(unsafe.Pointer(&image[0]))); r != 0 {
			return nil, log, "nvrtcGetCUBIN", int(r)
		}
		return image, log, "", 0
	}
	if r := C.w_nvrtcGetPTXSize(prog, &size); r != 0 {
		return nil, log, "nvrtcGetPTXSize", int(r)
	}
	image = make([]byte, int(size))
	if r := C.w_nvrtcGetPTX(prog, (*C.char)(unsafe.Pointer(&image[0]))); r != 0 {
		return nil, log, "nvrtcGetPTX", int(r)
	}
	return image, log, "", 0
}
