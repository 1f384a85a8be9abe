//go:build cgo

package gpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

// The few CUDA driver and NVRTC types and prototypes the lab uses, declared
// here so that no CUDA header is needed at build time.
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

typedef struct {
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDriverGetVersion)(int*);
	CUresult (*cuDeviceGetCount)(int*);
	CUresult (*cuDeviceGet)(CUdevice*, int);
	CUresult (*cuDeviceGetName)(char*, int, CUdevice);
	CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
	CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
	CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuMemGetInfo)(size_t*, size_t*);
	CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
	CUresult (*cuMemFree)(CUdeviceptr);
	CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
	CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
	CUresult (*cuMemsetD32)(CUdeviceptr, unsigned int, size_t);
	CUresult (*cuModuleLoadData)(CUmodule*, const void*);
	CUresult (*cuModuleUnload)(CUmodule);
	CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
	CUresult (*cuFuncGetAttribute)(int*, int, CUfunction);
	CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
		unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void**, void**);
	CUresult (*cuEventCreate)(CUevent*, unsigned int);
	CUresult (*cuEventRecord)(CUevent, CUstream);
	CUresult (*cuEventSynchronize)(CUevent);
	CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
	CUresult (*cuEventDestroy)(CUevent);
	CUresult (*cuStreamSynchronize)(CUstream);
	CUresult (*cuGetErrorName)(CUresult, const char**);
	// Optional.
	CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t);
	CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
	CUresult (*cuDevicePrimaryCtxReset)(CUdevice);
} cuAPI;

typedef struct {
	nvrtcResult (*nvrtcVersion)(int*, int*);
	nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int,
		const char* const*, const char* const*);
	nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
	nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*);
	nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*);
	nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t*);
	nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*);
	nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*);
	// Optional: NVRTC before 11.1 has no CUBIN output and no arch list.
	nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*);
	nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*);
	nvrtcResult (*nvrtcGetNumSupportedArchs)(int*);
	nvrtcResult (*nvrtcGetSupportedArchs)(int*);
} rtcAPI;

static cuAPI cu;
static rtcAPI rtc;

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

// Each BIND tries the names in order and stores the first symbol found;
// a required symbol that is missing ends the binding with its name.
#define BIND(api, field, ...) do { \
	const char* names_[] = {__VA_ARGS__, NULL}; \
	void* p_ = NULL; \
	for (int i_ = 0; names_[i_] && !p_; i_++) p_ = dlsym(h, names_[i_]); \
	if (!p_) return names_[0]; \
	*(void**)&(api).field = p_; \
} while (0)

#define BIND_OPTIONAL(api, field, name) do { *(void**)&(api).field = dlsym(h, name); } while (0)

static const char* bind_cuda(void* h) {
	cuAPI a;
	memset(&a, 0, sizeof a);
	BIND(a, cuInit, "cuInit");
	BIND(a, cuDriverGetVersion, "cuDriverGetVersion");
	BIND(a, cuDeviceGetCount, "cuDeviceGetCount");
	BIND(a, cuDeviceGet, "cuDeviceGet");
	BIND(a, cuDeviceGetName, "cuDeviceGetName");
	BIND(a, cuDeviceGetAttribute, "cuDeviceGetAttribute");
	BIND(a, cuDeviceTotalMem, "cuDeviceTotalMem_v2", "cuDeviceTotalMem");
	BIND(a, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	BIND(a, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
	BIND(a, cuCtxSetCurrent, "cuCtxSetCurrent");
	BIND(a, cuMemGetInfo, "cuMemGetInfo_v2", "cuMemGetInfo");
	BIND(a, cuMemAlloc, "cuMemAlloc_v2", "cuMemAlloc");
	BIND(a, cuMemFree, "cuMemFree_v2", "cuMemFree");
	BIND(a, cuMemcpyHtoD, "cuMemcpyHtoD_v2", "cuMemcpyHtoD");
	BIND(a, cuMemcpyDtoH, "cuMemcpyDtoH_v2", "cuMemcpyDtoH");
	BIND(a, cuMemsetD32, "cuMemsetD32_v2", "cuMemsetD32");
	BIND(a, cuModuleLoadData, "cuModuleLoadData");
	BIND(a, cuModuleUnload, "cuModuleUnload");
	BIND(a, cuModuleGetFunction, "cuModuleGetFunction");
	BIND(a, cuFuncGetAttribute, "cuFuncGetAttribute");
	BIND(a, cuLaunchKernel, "cuLaunchKernel");
	BIND(a, cuEventCreate, "cuEventCreate");
	BIND(a, cuEventRecord, "cuEventRecord");
	BIND(a, cuEventSynchronize, "cuEventSynchronize");
	BIND(a, cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
	BIND(a, cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy");
	BIND(a, cuStreamSynchronize, "cuStreamSynchronize");
	BIND(a, cuGetErrorName, "cuGetErrorName");
	BIND_OPTIONAL(a, cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	BIND_OPTIONAL(a, cuFuncSetAttribute, "cuFuncSetAttribute");
	BIND_OPTIONAL(a, cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2");
	if (!a.cuDevicePrimaryCtxReset) BIND_OPTIONAL(a, cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset");
	cu = a;
	return NULL;
}

static const char* bind_nvrtc(void* h) {
	rtcAPI a;
	memset(&a, 0, sizeof a);
	BIND(a, nvrtcVersion, "nvrtcVersion");
	BIND(a, nvrtcCreateProgram, "nvrtcCreateProgram");
	BIND(a, nvrtcCompileProgram, "nvrtcCompileProgram");
	BIND(a, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
	BIND(a, nvrtcGetProgramLog, "nvrtcGetProgramLog");
	BIND(a, nvrtcGetPTXSize, "nvrtcGetPTXSize");
	BIND(a, nvrtcGetPTX, "nvrtcGetPTX");
	BIND(a, nvrtcDestroyProgram, "nvrtcDestroyProgram");
	BIND_OPTIONAL(a, nvrtcGetCUBINSize, "nvrtcGetCUBINSize");
	BIND_OPTIONAL(a, nvrtcGetCUBIN, "nvrtcGetCUBIN");
	BIND_OPTIONAL(a, nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
	BIND_OPTIONAL(a, nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs");
	rtc = a;
	return NULL;
}

static int has_cubin(void) { return rtc.nvrtcGetCUBIN != NULL && rtc.nvrtcGetCUBINSize != NULL; }

static const char* w_cuGetErrorName(CUresult e) {
	const char* s = NULL;
	if (!cu.cuGetErrorName || cu.cuGetErrorName(e, &s) != 0) return NULL;
	return s;
}
static CUresult w_cuInit(void) { return cu.cuInit(0); }
static CUresult w_cuDriverGetVersion(int* v) { return cu.cuDriverGetVersion(v); }
static CUresult w_cuDeviceGetCount(int* n) { return cu.cuDeviceGetCount(n); }
static CUresult w_cuDeviceGet(CUdevice* d, int ord) { return cu.cuDeviceGet(d, ord); }
static CUresult w_cuDeviceGetName(char* s, int n, CUdevice d) { return cu.cuDeviceGetName(s, n, d); }
static CUresult w_cuDeviceGetAttribute(int* v, int a, CUdevice d) { return cu.cuDeviceGetAttribute(v, a, d); }
static CUresult w_cuDeviceTotalMem(size_t* b, CUdevice d) { return cu.cuDeviceTotalMem(b, d); }
static CUresult w_cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) { return cu.cuDevicePrimaryCtxRetain(c, d); }
static CUresult w_cuDevicePrimaryCtxRelease(CUdevice d) { return cu.cuDevicePrimaryCtxRelease(d); }
static CUresult w_cuCtxSetCurrent(CUcontext c) { return cu.cuCtxSetCurrent(c); }
static CUresult w_cuMemGetInfo(size_t* f, size_t* t) { return cu.cuMemGetInfo(f, t); }
static CUresult w_cuMemAlloc(CUdeviceptr* p, size_t n) { return cu.cuMemAlloc(p, n); }
static CUresult w_cuMemFree(CUdeviceptr p) { return cu.cuMemFree(p); }
static CUresult w_cuMemcpyHtoD(CUdeviceptr d, const void* s, size_t n) { return cu.cuMemcpyHtoD(d, s, n); }
static CUresult w_cuMemcpyDtoH(void* d, CUdeviceptr s, size_t n) { return cu.cuMemcpyDtoH(d, s, n); }
static CUresult w_cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n) { return cu.cuMemsetD32(d, v, n); }
static CUresult w_cuModuleLoadData(CUmodule* m, const void* img) { return cu.cuModuleLoadData(m, img); }
static CUresult w_cuModuleUnload(CUmodule m) { return cu.cuModuleUnload(m); }
static CUresult w_cuModuleGetFunction(CUfunction* f, CUmodule m, const char* n) { return cu.cuModuleGetFunction(f, m, n); }
static CUresult w_cuFuncGetAttribute(int* v, int a, CUfunction f) { return cu.cuFuncGetAttribute(v, a, f); }
static CUresult w_cuEventCreate(CUevent* e) { return cu.cuEventCreate(e, 0); }
static CUresult w_cuEventRecord(CUevent e) { return cu.cuEventRecord(e, NULL); }
static CUresult w_cuEventSynchronize(CUevent e) { return cu.cuEventSynchronize(e); }
static CUresult w_cuEventElapsedTime(float* ms, CUevent a, CUevent b) { return cu.cuEventElapsedTime(ms, a, b); }
static CUresult w_cuEventDestroy(CUevent e) { return cu.cuEventDestroy(e); }
static CUresult w_cuStreamSynchronize(void) { return cu.cuStreamSynchronize(NULL); }
static CUresult w_cuDevicePrimaryCtxReset(CUdevice d) {
	if (!cu.cuDevicePrimaryCtxReset) return 500; // CUDA_ERROR_NOT_FOUND
	return cu.cuDevicePrimaryCtxReset(d);
}
static CUresult w_cuFuncSetAttribute(CUfunction f, int attr, int v) {
	if (!cu.cuFuncSetAttribute) return 500; // CUDA_ERROR_NOT_FOUND
	return cu.cuFuncSetAttribute(f, attr, v);
}
static CUresult w_cuOccupancy(int* n, CUfunction f, int threads, size_t shared) {
	if (!cu.cuOccupancyMaxActiveBlocksPerMultiprocessor) return 500; // CUDA_ERROR_NOT_FOUND
	return cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, threads, shared);
}

// w_launch builds the kernel parameter array from a packed argument
// buffer and its offsets, on the C stack, and launches on the default
// stream. Up to 32 arguments.
static CUresult w_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
		void* args, const size_t* offsets, int nargs) {
	void* params[32];
	if (nargs > 32) return 1;
	for (int i = 0; i < nargs; i++) params[i] = (char*)args + offsets[i];
	return cu.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, NULL, params, NULL);
}

static nvrtcResult w_nvrtcCreateProgram(nvrtcProgram* p, const char* src, const char* name) {
	return rtc.nvrtcCreateProgram(p, src, name, 0, NULL, NULL);
}
static nvrtcResult w_nvrtcCompileProgram(nvrtcProgram p, int n, char** opts) {
	return rtc.nvrtcCompileProgram(p, n, (const char* const*)opts);
}
static nvrtcResult w_nvrtcGetProgramLogSize(nvrtcProgram p, size_t* n) { return rtc.nvrtcGetProgramLogSize(p, n); }
static nvrtcResult w_nvrtcGetProgramLog(nvrtcProgram p, char* s) { return rtc.nvrtcGetProgramLog(p, s); }
static nvrtcResult w_nvrtcGetPTXSize(nvrtcProgram p, size_t* n) { return rtc.nvrtcGetPTXSize(p, n); }
static nvrtcResult w_nvrtcGetPTX(nvrtcProgram p, char* s) { return rtc.nvrtcGetPTX(p, s); }
static nvrtcResult w_nvrtcGetCUBINSize(nvrtcProgram p, size_t* n) { return rtc.nvrtcGetCUBINSize(p, n); }
static nvrtcResult w_nvrtcGetCUBIN(nvrtcProgram p, char* s) { return rtc.nvrtcGetCUBIN(p, s); }
static nvrtcResult w_nvrtcDestroyProgram(nvrtcProgram* p) { return rtc.nvrtcDestroyProgram(p); }
static nvrtcResult w_nvrtcGetNumSupportedArchs(int* n) {
	if (!rtc.nvrtcGetNumSupportedArchs) return 5;
	return rtc.nvrtcGetNumSupportedArchs(n);
}
static nvrtcResult w_nvrtcGetSupportedArchs(int* a) {
	if (!rtc.nvrtcGetSupportedArchs) return 5;
	return rtc.nvrtcGetSupportedArchs(a);
}
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// haveCgo reports whether this build can load the CUDA libraries.
const haveCgo = true

// dlopen opens a library, or returns dlopen's message.
func dlopen(name string) (unsafe.Pointer, error) {
	buf := (*C.char)(C.malloc(512))
	defer C.free(unsafe.Pointer(buf))
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	if h := C.lab_dlopen(cn, buf, 512); h != nil {
		return h, nil
	}
	return nil, fmt.Errorf("%s", C.GoString(buf))
}

// bindDriver resolves the driver's symbols in an opened library and, when
// all are there, installs them. It returns the name of the first missing
// symbol, or "".
func bindDriver(h unsafe.Pointer) string {
	if s := C.bind_cuda(h); s != nil {
		return C.GoString(s)
	}
	return ""
}

// bindNVRTC resolves NVRTC's symbols, as bindDriver.
func bindNVRTC(h unsafe.Pointer) string {
	if s := C.bind_nvrtc(h); s != nil {
		return C.GoString(s)
	}
	return ""
}

func dlclose(h unsafe.Pointer) { C.lab_dlclose(h) }

// driverErrorName asks the loaded driver for the name of a CUresult.
func driverErrorName(code int) string {
	if !driverLoaded.Load() {
		return ""
	}
	s := C.w_cuGetErrorName(C.CUresult(code))
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// The functions below are thin calls through the bound pointers. They
// return the CUresult or nvrtcResult as an int and must run on a device's
// worker thread (the NVRTC ones may run anywhere).

func cuInit() int { return int(C.w_cuInit()) }

func cuDriverGetVersion() (int, int) {
	var v C.int
	r := C.w_cuDriverGetVersion(&v)
	return int(v), int(r)
}

func cuDeviceGetCount() (int, int) {
	var n C.int
	r := C.w_cuDeviceGetCount(&n)
	return int(n), int(r)
}

func cuDeviceGet(ordinal int) (int, int) {
	var d C.CUdevice
	r := C.w_cuDeviceGet(&d, C.int(ordinal))
	return int(d), int(r)
}

func cuDeviceGetName(dev int) (string, int) {
	buf := make([]byte, 256)
	r := C.w_cuDeviceGetName((*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)), C.CUdevice(dev))
	return C.GoString((*C.char)(unsafe.Pointer(&buf[0]))), int(r)
}

func cuDeviceGetAttribute(attr, dev int) (int, int) {
	var v C.int
	r := C.w_cuDeviceGetAttribute(&v, C.int(attr), C.CUdevice(dev))
	return int(v), int(r)
}

func cuDeviceTotalMem(dev int) (uint64, int) {
	var b C.size_t
	r := C.w_cuDeviceTotalMem(&b, C.CUdevice(dev))
	return uint64(b), int(r)
}

func cuDevicePrimaryCtxRetain(dev int) (handle, int) {
	var c C.CUcontext
	r := C.w_cuDevicePrimaryCtxRetain(&c, C.CUdevice(dev))
	return handle(c), int(r)
}

func cuDevicePrimaryCtxRelease(dev int) int {
	return int(C.w_cuDevicePrimaryCtxRelease(C.CUdevice(dev)))
}

// cuDevicePrimaryCtxReset destroys the device's primary context and all it
// holds, so that the next retain makes a fresh one; CUDA_ERROR_NOT_FOUND
// when the driver lacks it.
func cuDevicePrimaryCtxReset(dev int) int {
	return int(C.w_cuDevicePrimaryCtxReset(C.CUdevice(dev)))
}

func cuCtxSetCurrent(ctx handle) int {
	return int(C.w_cuCtxSetCurrent(C.CUcontext(ctx)))
}

func cuMemGetInfo() (free, total uint64, code int) {
	var f, t C.size_t
	r := C.w_cuMemGetInfo(&f, &t)
	return uint64(f), uint64(t), int(r)
}

func cuMemAlloc(bytes uint64) (uint64, int) {
	var p C.CUdeviceptr
	r := C.w_cuMemAlloc(&p, C.size_t(bytes))
	return uint64(p), int(r)
}

func cuMemFree(p uint64) int { return int(C.w_cuMemFree(C.CUdeviceptr(p))) }

func cuMemcpyHtoD(dst uint64, src unsafe.Pointer, bytes uint64) int {
	return int(C.w_cuMemcpyHtoD(C.CUdeviceptr(dst), src, C.size_t(bytes)))
}

func cuMemcpyDtoH(dst unsafe.Pointer, src uint64, bytes uint64) int {
	return int(C.w_cuMemcpyDtoH(dst, C.CUdeviceptr(src), C.size_t(bytes)))
}

func cuMemsetD32(dst uint64, v uint32, n uint64) int {
	return int(C.w_cuMemsetD32(C.CUdeviceptr(dst), C.uint(v), C.size_t(n)))
}

func cuModuleLoadData(image []byte) (handle, int) {
	var m C.CUmodule
	// The image is copied to C memory: the driver may read it after the Go
	// slice moves, and a PTX image must end with a NUL.
	cimg := C.malloc(C.size_t(len(image) + 1))
	defer C.free(cimg)
	C.memcpy(cimg, unsafe.Pointer(&image[0]), C.size_t(len(image)))
	*(*byte)(unsafe.Add(cimg, len(image))) = 0
	r := C.w_cuModuleLoadData(&m, cimg)
	return handle(m), int(r)
}

func cuModuleUnload(m handle) int { return int(C.w_cuModuleUnload(C.CUmodule(m))) }

func cuModuleGetFunction(m handle, name string) (handle, int) {
	var f C.CUfunction
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	r := C.w_cuModuleGetFunction(&f, C.CUmodule(m), cn)
	return handle(f), int(r)
}

func cuFuncGetAttribute(attr int, f handle) (int, int) {
	var v C.int
	r := C.w_cuFuncGetAttribute(&v, C.int(attr), C.CUfunction(f))
	return int(v), int(r)
}

func cuLaunchKernel(f handle, grid, block [3]int, shared int, a *args) int {
	if len(a.offsets) == 0 {
		return int(C.w_launch(C.CUfunction(f), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
			C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shared), nil, nil, 0))
	}
	offs := make([]C.size_t, len(a.offsets))
	for i, o := range a.offsets {
		offs[i] = C.size_t(o)
	}
	return int(C.w_launch(C.CUfunction(f), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shared),
		unsafe.Pointer(&a.buf[0]), &offs[0], C.int(len(offs))))
}

func cuEventCreate() (handle, int) {
	var e C.CUevent
	r := C.w_cuEventCreate(&e)
	return handle(e), int(r)
}

func cuEventRecord(e handle) int { return int(C.w_cuEventRecord(C.CUevent(e))) }

func cuEventSynchronize(e handle) int {
	return int(C.w_cuEventSynchronize(C.CUevent(e)))
}

func cuEventElapsedTime(a, b handle) (float32, int) {
	var ms C.float
	r := C.w_cuEventElapsedTime(&ms, C.CUevent(a), C.CUevent(b))
	return float32(ms), int(r)
}

func cuEventDestroy(e handle) int { return int(C.w_cuEventDestroy(C.CUevent(e))) }

func cuStreamSynchronize() int { return int(C.w_cuStreamSynchronize()) }

func cuFuncSetAttribute(f handle, attr, v int) int {
	return int(C.w_cuFuncSetAttribute(C.CUfunction(f), C.int(attr), C.int(v)))
}

func cuOccupancyMaxActiveBlocksPerMultiprocessor(f handle, threads, dynShared int) (int, int) {
	var n C.int
	r := C.w_cuOccupancy(&n, C.CUfunction(f), C.int(threads), C.size_t(dynShared))
	return int(n), int(r)
}

func nvrtcHasCUBIN() bool { return C.has_cubin() != 0 }

func nvrtcSupportedArchs() ([]int, int) {
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
func nvrtcCompile(src, name string, opts []string, cubin bool) (image []byte, log string, call string, code int) {
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var prog C.nvrtcProgram
	if r := C.w_nvrtcCreateProgram(&prog, csrc, cname); r != 0 {
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
