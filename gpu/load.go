package gpu

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"stencillab.dev/gpu/cu"
)

var (
	driverMu     sync.Mutex
	driverLoaded atomic.Bool
	driverLib    string

	nvrtcMu     sync.Mutex
	nvrtcLoaded bool
	nvrtcLib    string
)

// openLibrary opens the first of cands that loads and binds. bind
// installs the library's symbols, or returns the first missing one and
// installs nothing. The error says which libraries were tried and why each
// failed.
func openLibrary(cands []string, bind func(cu.Handle) string) (string, error) {
	if !cu.Cgo {
		return "", fmt.Errorf("this program was built without cgo (CGO_ENABLED=0)")
	}
	var why []string
	for _, name := range cands {
		h, err := drv.Dlopen(name)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if missing := bind(h); missing != "" {
			drv.Dlclose(h)
			why = append(why, fmt.Sprintf("%s has no symbol %s", name, missing))
			continue
		}
		return name, nil
	}
	return "", fmt.Errorf("%s", strings.Join(why, "; "))
}

// bindTable binds table t from an opened library through the binding.
func bindTable(t cu.Table) func(cu.Handle) string {
	return func(h cu.Handle) string { return drv.Bind(t, h) }
}

// loadDriver opens and binds the CUDA driver once. Failures are not
// remembered, so that a corrected STENCIL_LIBCUDA takes effect.
func loadDriver() error {
	driverMu.Lock()
	defer driverMu.Unlock()
	if driverLoaded.Load() {
		return nil
	}
	override := getenv(EnvLibCUDA)
	name, err := openLibrary(driverCandidates(getenv), bindTable(cu.DriverTable))
	if err != nil {
		if override == "" && cu.Cgo {
			return ErrNoGPU
		}
		what := driverSoname
		if override != "" {
			what = EnvLibCUDA + "=" + override
		}
		return &noGPUError{msg: fmt.Sprintf("gpu: no NVIDIA driver found (%s: %v): run on the CPU simulator", what, err)}
	}
	driverLib = name
	driverLoaded.Store(true)
	return nil
}

// loadNVRTC opens and binds NVRTC once.
func loadNVRTC() error {
	nvrtcMu.Lock()
	defer nvrtcMu.Unlock()
	if nvrtcLoaded {
		return nil
	}
	cands := nvrtcCandidates(getenv)
	name, err := openLibrary(cands, bindTable(cu.NVRTCTable))
	if err != nil {
		return fmt.Errorf("gpu: no NVRTC found (tried %s: %v): install CUDA's NVRTC or name it with %s",
			strings.Join(cands, ", "), err, EnvLibNVRTC)
	}
	nvrtcLib = name
	nvrtcLoaded = true
	return nil
}
