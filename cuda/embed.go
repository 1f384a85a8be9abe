// Package cuda holds the lab's device code: one CUDA C file per step, named
// by the step's description in package lab (lab.Step3's CUDA.File), the
// 1D and 2D stencils (derivative.cu, five_point.cu), and the memory
// kernels the measurements need (copy.cu, copy_interior.cu, fill.cu). The files are device-only: no host code and no
// #include, so that NVRTC compiles them at run time with nothing but the
// driver installed. Tile sizes are preprocessor defines with #ifndef
// defaults, so a notebook can recompile a step with another tile.
//
// This package is plain Go: it embeds the sources and hands them out. The
// gpu package compiles and launches them.
package cuda

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.cu
var files embed.FS

// Source returns the CUDA C source of a step or memory kernel by name,
// with or without the .cu suffix: Source("copy") or Source("copy.cu").
func Source(name string) (string, error) {
	file := name
	if !strings.HasSuffix(file, ".cu") {
		file += ".cu"
	}
	if strings.ContainsAny(file, "/\\") {
		return "", fmt.Errorf("cuda: source %q: a name, not a path, is expected", name)
	}
	b, err := files.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("cuda: no source %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return string(b), nil
}

// Names returns the names of the embedded sources without the .cu suffix,
// sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".cu") {
			names = append(names, strings.TrimSuffix(n, ".cu"))
		}
	}
	sort.Strings(names)
	return names
}
