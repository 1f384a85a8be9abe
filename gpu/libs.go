package gpu

import (
	"os"
	"path/filepath"
)

// Environment variables that name the libraries to open instead of the
// default search.
const (
	// EnvLibCUDA names the CUDA driver library, a soname or a path.
	EnvLibCUDA = "STENCIL_LIBCUDA"
	// EnvLibNVRTC names the NVRTC library, a soname or a path.
	EnvLibNVRTC = "STENCIL_LIBNVRTC"
)

// driverSoname is the CUDA driver's library, installed with the driver.
const driverSoname = "libcuda.so.1"

// nvrtcSonames are the NVRTC versions tried, newest first.
var nvrtcSonames = []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}

// driverCandidates returns the libraries tried for the CUDA driver: the
// override alone when it is set, else libcuda.so.1 through the system's
// library search.
func driverCandidates(getenv func(string) string) []string {
	if v := getenv(EnvLibCUDA); v != "" {
		return []string{v}
	}
	return []string{driverSoname}
}

// nvrtcCandidates returns the libraries tried for NVRTC: the override
// alone when it is set, else each soname through the system's library
// search, then in the lib64 folder of CUDA_HOME, CUDA_PATH and
// /usr/local/cuda.
func nvrtcCandidates(getenv func(string) string) []string {
	if v := getenv(EnvLibNVRTC); v != "" {
		return []string{v}
	}
	c := append([]string(nil), nvrtcSonames...)
	seen := map[string]bool{}
	for _, root := range []string{getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"} {
		if root == "" || seen[root] {
			continue
		}
		seen[root] = true
		for _, n := range nvrtcSonames {
			c = append(c, filepath.Join(root, "lib64", n))
		}
	}
	return c
}

var getenv = os.Getenv
