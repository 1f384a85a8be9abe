package gpu

import (
	"errors"
	"fmt"
	"sync"
)

// A kernel that faults (an illegal address, a trap, an illegal
// instruction) leaves the CUDA context in a sticky error state: every later
// call on it fails with the same error, and only destroying the context
// clears it. The lab's devices share the process's primary context of
// their GPU, so a fault on one loses them all. The first call that sees
// such an error resets the primary context (cuDevicePrimaryCtxReset) and
// marks the GPU's context lost: every later call on a device opened before
// returns ErrContextLost with the fault that lost it, instead of odd
// failures, and Close releases what it can. Where the driver lets the
// reset context be retained again, a device opened afterwards works; the
// H100's driver (580) does not: its retain fails with the same fault, and
// Open then returns ErrContextLost saying that only a new process gets
// the GPU back. That is why code that runs untrusted kernels (a grader)
// runs them in a child process: the next process finds the GPU usable.

// ErrContextLost is wrapped by every error of a call on a device whose
// CUDA context a fault has lost.
var ErrContextLost = errors.New("the CUDA context is lost")

// stickyCodes are the CUresults after which the context cannot be used.
var stickyCodes = map[int]bool{
	214: true, // CUDA_ERROR_ECC_UNCORRECTABLE
	700: true, // CUDA_ERROR_ILLEGAL_ADDRESS
	702: true, // CUDA_ERROR_LAUNCH_TIMEOUT
	709: true, // CUDA_ERROR_CONTEXT_IS_DESTROYED
	710: true, // CUDA_ERROR_ASSERT
	714: true, // CUDA_ERROR_HARDWARE_STACK_ERROR
	715: true, // CUDA_ERROR_ILLEGAL_INSTRUCTION
	716: true, // CUDA_ERROR_MISALIGNED_ADDRESS
	717: true, // CUDA_ERROR_INVALID_ADDRESS_SPACE
	718: true, // CUDA_ERROR_INVALID_PC
	719: true, // CUDA_ERROR_LAUNCH_FAILED
}

// stickyError returns the CUDA error in err that loses the context, or nil.
func stickyError(err error) *CUDAError {
	var ce *CUDAError
	if errors.As(err, &ce) && stickyCodes[ce.Code] {
		return ce
	}
	return nil
}

// contexts records, per device ordinal, how many times its primary context
// was lost and reset, and the last fault that lost it.
var contexts struct {
	mu    sync.Mutex
	gen   map[int]uint64
	cause map[int]*CUDAError
}

// contextGen returns the generation of ordinal's primary context and the
// fault that ended the previous one.
func contextGen(ordinal int) (uint64, *CUDAError) {
	contexts.mu.Lock()
	defer contexts.mu.Unlock()
	return contexts.gen[ordinal], contexts.cause[ordinal]
}

// loseContext ends the generation gen of ordinal's primary context with
// cause; it reports false when another call ended it first.
func loseContext(ordinal int, gen uint64, cause *CUDAError) bool {
	contexts.mu.Lock()
	defer contexts.mu.Unlock()
	if contexts.gen == nil {
		contexts.gen, contexts.cause = map[int]uint64{}, map[int]*CUDAError{}
	}
	if contexts.gen[ordinal] != gen {
		return false
	}
	contexts.gen[ordinal]++
	contexts.cause[ordinal] = cause
	return true
}

// lostError is the error of every call on a device whose context is lost.
type lostError struct {
	ordinal int
	name    string
	cause   *CUDAError
}

// Error names the device, the fault and what to do.
func (e *lostError) Error() string {
	return fmt.Sprintf("gpu: device %d (%s): %v after %s: %s; a kernel faulted, and every later call on this Device fails: close it and open a new one (NVIDIA only promises a clean state to a new process)",
		e.ordinal, e.name, ErrContextLost, e.cause.Call, e.cause.Name)
}

// Unwrap gives the fault and ErrContextLost.
func (e *lostError) Unwrap() []error { return []error{e.cause, ErrContextLost} }

// retainError is Open's error when the primary context cannot be retained:
// after a fault in this process, a lost-context error saying that only a
// new process gets the GPU back.
func retainError(ordinal int, err error) error {
	ce := stickyError(err)
	if ce == nil {
		return fmt.Errorf("gpu: device %d: %w", ordinal, err)
	}
	return fmt.Errorf("gpu: device %d: %w after a fault in this process (%s): the driver gives the GPU back only to a new process", ordinal, ErrContextLost, ce)
}
