package gpu

import (
	"errors"
	"fmt"
)

// ErrNoGPU is returned, wrapped, when no usable NVIDIA driver or device is
// found. Its message tells the user what to do instead.
var ErrNoGPU = errors.New("gpu: no NVIDIA driver found (libcuda.so.1): run on the CPU simulator")

// noGPUError is an error about a missing driver or device whose message is
// more specific than ErrNoGPU's but which still matches it with errors.Is.
type noGPUError struct{ msg string }

// Error returns the message.
func (e *noGPUError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrNoGPU) true.
func (e *noGPUError) Is(target error) bool { return target == ErrNoGPU }

// CUDAError is a failed CUDA driver call: the call's name and the CUDA
// error code and name, e.g. "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY".
type CUDAError struct {
	Call string // the driver function, without its _v2 suffix
	Code int    // the CUresult
	Name string // e.g. CUDA_ERROR_OUT_OF_MEMORY
}

// Error returns "call: CUDA_ERROR_NAME".
func (e *CUDAError) Error() string { return e.Call + ": " + e.Name }

// NVRTCError is a failed NVRTC call. For a failed compilation, Log holds
// the compiler's messages.
type NVRTCError struct {
	Call string // e.g. nvrtcCompileProgram
	Code int    // the nvrtcResult
	Name string // e.g. NVRTC_ERROR_COMPILATION
	Log  string // the program log, if any
}

// Error returns "call: NVRTC_ERROR_NAME" and the compiler's log, if any.
func (e *NVRTCError) Error() string {
	if e.Log != "" {
		return e.Call + ": " + e.Name + ":\n" + e.Log
	}
	return e.Call + ": " + e.Name
}

// cuErrorNames maps the CUresult codes the lab can meet to their names.
var cuErrorNames = map[int]string{
	0:   "CUDA_SUCCESS",
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	4:   "CUDA_ERROR_DEINITIALIZED",
	34:  "CUDA_ERROR_STUB_LIBRARY",
	35:  "CUDA_ERROR_INSUFFICIENT_DRIVER",
	36:  "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
	46:  "CUDA_ERROR_DEVICE_UNAVAILABLE",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	102: "CUDA_ERROR_DEVICE_NOT_LICENSED",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	202: "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
	209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	214: "CUDA_ERROR_ECC_UNCORRECTABLE",
	218: "CUDA_ERROR_INVALID_PTX",
	221: "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	300: "CUDA_ERROR_INVALID_SOURCE",
	301: "CUDA_ERROR_FILE_NOT_FOUND",
	302: "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
	303: "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
	304: "CUDA_ERROR_OPERATING_SYSTEM",
	400: "CUDA_ERROR_INVALID_HANDLE",
	401: "CUDA_ERROR_ILLEGAL_STATE",
	500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	709: "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	710: "CUDA_ERROR_ASSERT",
	714: "CUDA_ERROR_HARDWARE_STACK_ERROR",
	715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	716: "CUDA_ERROR_MISALIGNED_ADDRESS",
	717: "CUDA_ERROR_INVALID_ADDRESS_SPACE",
	718: "CUDA_ERROR_INVALID_PC",
	719: "CUDA_ERROR_LAUNCH_FAILED",
	800: "CUDA_ERROR_NOT_PERMITTED",
	801: "CUDA_ERROR_NOT_SUPPORTED",
	802: "CUDA_ERROR_SYSTEM_NOT_READY",
	803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	999: "CUDA_ERROR_UNKNOWN",
}

// nvrtcErrorNames maps nvrtcResult codes to their names.
var nvrtcErrorNames = map[int]string{
	0:  "NVRTC_SUCCESS",
	1:  "NVRTC_ERROR_OUT_OF_MEMORY",
	2:  "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	3:  "NVRTC_ERROR_INVALID_INPUT",
	4:  "NVRTC_ERROR_INVALID_PROGRAM",
	5:  "NVRTC_ERROR_INVALID_OPTION",
	6:  "NVRTC_ERROR_COMPILATION",
	7:  "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
	8:  "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
	9:  "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
	10: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
	11: "NVRTC_ERROR_INTERNAL_ERROR",
	12: "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
}

// cuErrorName returns the name of a CUresult; codes this table does not
// know are asked of the driver (when loaded) or written as numbers.
func cuErrorName(code int) string {
	if n, ok := cuErrorNames[code]; ok {
		return n
	}
	if n := drv.ErrorName(code); n != "" {
		return n
	}
	return fmt.Sprintf("CUDA error %d", code)
}

func nvrtcErrorName(code int) string {
	if n, ok := nvrtcErrorNames[code]; ok {
		return n
	}
	return fmt.Sprintf("NVRTC error %d", code)
}

// cuCheck turns a CUresult into nil or a *CUDAError naming the call.
func cuCheck(call string, code int) error {
	if code == 0 {
		return nil
	}
	return &CUDAError{Call: call, Code: code, Name: cuErrorName(code)}
}

// rtcCheck turns an nvrtcResult into nil or an *NVRTCError.
func rtcCheck(call string, code int) error {
	if code == 0 {
		return nil
	}
	return &NVRTCError{Call: call, Code: code, Name: nvrtcErrorName(code)}
}
