//go:build !cgo

package gpu

import (
	"errors"
	"unsafe"
)

// Without cgo no library can be opened: openLibrary reports that before it
// calls anything below, so these stand-ins are never reached.

const haveCgo = false

const errNotAvailable = 999

func dlopen(string) (unsafe.Pointer, error)                 { return nil, errors.New("built without cgo") }
func bindDriver(unsafe.Pointer) string                      { return "cuInit" }
func bindNVRTC(unsafe.Pointer) string                       { return "nvrtcVersion" }
func dlclose(unsafe.Pointer)                                {}
func driverErrorName(int) string                            { return "" }
func cuInit() int                                           { return errNotAvailable }
func cuDriverGetVersion() (int, int)                        { return 0, errNotAvailable }
func cuDeviceGetCount() (int, int)                          { return 0, errNotAvailable }
func cuDeviceGet(int) (int, int)                            { return 0, errNotAvailable }
func cuDeviceGetName(int) (string, int)                     { return "", errNotAvailable }
func cuDeviceGetAttribute(int, int) (int, int)              { return 0, errNotAvailable }
func cuDeviceTotalMem(int) (uint64, int)                    { return 0, errNotAvailable }
func cuDevicePrimaryCtxRetain(int) (handle, int)            { return nil, errNotAvailable }
func cuDevicePrimaryCtxRelease(int) int                     { return errNotAvailable }
func cuDevicePrimaryCtxReset(int) int                       { return errNotAvailable }
func cuCtxSetCurrent(handle) int                            { return errNotAvailable }
func cuMemGetInfo() (uint64, uint64, int)                   { return 0, 0, errNotAvailable }
func cuMemAlloc(uint64) (uint64, int)                       { return 0, errNotAvailable }
func cuMemFree(uint64) int                                  { return errNotAvailable }
func cuMemcpyHtoD(uint64, unsafe.Pointer, uint64) int       { return errNotAvailable }
func cuMemcpyDtoH(unsafe.Pointer, uint64, uint64) int       { return errNotAvailable }
func cuMemsetD32(uint64, uint32, uint64) int                { return errNotAvailable }
func cuModuleLoadData([]byte) (handle, int)                 { return nil, errNotAvailable }
func cuModuleUnload(handle) int                             { return errNotAvailable }
func cuModuleGetFunction(handle, string) (handle, int)      { return nil, errNotAvailable }
func cuFuncGetAttribute(int, handle) (int, int)             { return 0, errNotAvailable }
func cuLaunchKernel(handle, [3]int, [3]int, int, *args) int { return errNotAvailable }
func cuEventCreate() (handle, int)                          { return nil, errNotAvailable }
func cuEventRecord(handle) int                              { return errNotAvailable }
func cuEventSynchronize(handle) int                         { return errNotAvailable }
func cuEventElapsedTime(handle, handle) (float32, int)      { return 0, errNotAvailable }
func cuEventDestroy(handle) int                             { return errNotAvailable }
func cuStreamSynchronize() int                              { return errNotAvailable }
func nvrtcHasCUBIN() bool                                   { return false }
func nvrtcSupportedArchs() ([]int, int)                     { return nil, errNotAvailable }
func nvrtcCompile(string, string, []string, bool) ([]byte, string, string, int) {
	return nil, "", "nvrtcCreateProgram", errNotAvailable
}

func cuOccupancyMaxActiveBlocksPerMultiprocessor(handle, int, int) (int, int) {
	return 0, errNotAvailable
}

func cuFuncSetAttribute(handle, int, int) int { return errNotAvailable }
