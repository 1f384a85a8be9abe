package multi

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"stencillab.dev/gpu"
	"stencillab.dev/gpu/cu"
)

// EnvLibNCCL names the NCCL library to open instead of libnccl.so.2, a
// soname or a path.
const EnvLibNCCL = "STENCIL_LIBNCCL"

// ncclSoname is NCCL's library as the system installs it.
const ncclSoname = "libnccl.so.2"

// minNCCLVersion is the oldest NCCL with point-to-point ncclSend and
// ncclRecv (2.7.0), as ncclGetVersion writes it.
const minNCCLVersion = 2700

// ncclMissing is what a wrapper returns for an optional NCCL symbol the
// library lacks (ncclInvalidUsage).
const ncclMissing = 5

// EnvNVLS is NCCL's switch for NVLink multicast (NVLS). The package sets
// it to 0 before NCCL initialises: multicast objects are a shared
// resource the GPU machines and shared clusters forbid, and nothing here
// needs them.
const EnvNVLS = "NCCL_NVLS_ENABLE"

// ErrNoNCCL is returned, wrapped, when NCCL cannot be loaded.
var ErrNoNCCL = errors.New("gpu: no NCCL found (" + ncclSoname + "): install NCCL or name it with " + EnvLibNCCL)

// ncclID is an ncclUniqueId: 128 opaque bytes that every rank of a
// communicator passes to ncclCommInitRank.
type ncclID = cu.UniqueID

// NCCLError is a failed NCCL call: its name, the ncclResult_t and NCCL's
// own words for it.
type NCCLError struct {
	Call string // e.g. ncclCommInitRank
	Code int    // the ncclResult_t
	Msg  string // ncclGetErrorString's text
}

// Error returns "call: message (code)".
func (e *NCCLError) Error() string {
	return fmt.Sprintf("%s: %s (ncclResult_t %d)", e.Call, e.Msg, e.Code)
}

// ncclResultNames are ncclResult_t's names, used when NCCL is not loaded.
var ncclResultNames = map[int]string{
	1: "unhandled CUDA error", 2: "unhandled system error", 3: "internal error",
	4: "invalid argument", 5: "invalid usage", 6: "remote error", 7: "operation in progress",
}

// ncclCheck turns an ncclResult_t into nil or an *NCCLError naming the call.
func ncclCheck(call string, code int) error {
	if code == 0 {
		return nil
	}
	msg := ""
	if ncclState.loaded {
		msg = drv().NCCLGetErrorString(code)
	}
	if msg == "" {
		msg = ncclResultNames[code]
	}
	if msg == "" {
		msg = "unknown error"
	}
	return &NCCLError{Call: call, Code: code, Msg: msg}
}

var ncclState struct {
	mu      sync.Mutex
	loaded  bool
	lib     string
	version int
}

// ncclCandidates returns the libraries tried for NCCL: the override alone
// when it is set, else libnccl.so.2 through the system's library search.
func ncclCandidates(getenv func(string) string) []string {
	if v := getenv(EnvLibNCCL); v != "" {
		return []string{v}
	}
	return []string{ncclSoname}
}

// disableNVLS sets NCCL_NVLS_ENABLE=0 in the Go and the C environment
// (NCCL reads getenv, which os.Setenv reaches only in a cgo build).
func disableNVLS() error {
	if err := os.Setenv(EnvNVLS, "0"); err != nil {
		return fmt.Errorf("gpu: set %s=0: %w", EnvNVLS, err)
	}
	if cu.Cgo && drv().Setenv(EnvNVLS, "0") != 0 {
		return fmt.Errorf("gpu: set %s=0 in the C environment failed", EnvNVLS)
	}
	return nil
}

// checkNCCLVersion refuses an NCCL older than point-to-point send/recv.
func checkNCCLVersion(lib string, v int) error {
	if v < minNCCLVersion {
		return fmt.Errorf("gpu: %s is NCCL %s, older than 2.7.0, the first with ncclSend and ncclRecv: install a newer NCCL or name one with %s",
			lib, ncclVersionString(v), EnvLibNCCL)
	}
	return nil
}

// ncclVersionString writes ncclGetVersion's number as major.minor.patch:
// 22809 is 2.28.9 (codes from 2.9 on are major·10000 + minor·100 + patch,
// before it major·1000 + minor·100 + patch).
func ncclVersionString(v int) string {
	if v >= 10000 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100)
}

// loadNCCL sets NCCL_NVLS_ENABLE=0, then opens and binds NCCL once and
// checks its version. A failure is not remembered, so that a corrected
// STENCIL_LIBNCCL takes effect.
func loadNCCL() error {
	ncclState.mu.Lock()
	defer ncclState.mu.Unlock()
	if ncclState.loaded {
		return nil
	}
	if err := disableNVLS(); err != nil {
		return err
	}
	cands := ncclCandidates(getenv)
	name, err := gpu.LoadLibrary(cu.NCCLTable, cands)
	if err != nil {
		return &noNCCLError{fmt.Sprintf("gpu: no NCCL found (tried %s: %v): install NCCL or name it with %s",
			strings.Join(cands, ", "), err, EnvLibNCCL)}
	}
	v, r := drv().NCCLGetVersion()
	if err := ncclCheck("ncclGetVersion", r); err != nil {
		return fmt.Errorf("gpu: %s: %w", name, err)
	}
	if err := checkNCCLVersion(name, v); err != nil {
		return err
	}
	ncclState.lib, ncclState.version, ncclState.loaded = name, v, true
	return nil
}

// NCCLVersion loads NCCL and returns its library and version, e.g.
// "libnccl.so.2", "2.28.9".
func NCCLVersion() (lib, version string, err error) {
	if err := loadNCCL(); err != nil {
		return "", "", err
	}
	return ncclState.lib, ncclVersionString(ncclState.version), nil
}

// newNCCLID returns a fresh unique id for a communicator.
func newNCCLID() (ncclID, error) {
	if err := loadNCCL(); err != nil {
		return ncclID{}, err
	}
	id, r := drv().NCCLGetUniqueId()
	if err := ncclCheck("ncclGetUniqueId", r); err != nil {
		return ncclID{}, fmt.Errorf("gpu: %w", err)
	}
	return id, nil
}

// noNCCLError is a missing NCCL, with the libraries tried; it matches
// ErrNoNCCL.
type noNCCLError struct{ msg string }

func (e *noNCCLError) Error() string        { return e.msg }
func (e *noNCCLError) Is(target error) bool { return target == ErrNoNCCL }
