// Package fivepoint is an attack on the grader, for its tests: it reads
// the hidden checks and another exercise's solution, and sends them back
// in an error's message, which the grader shows.
package fivepoint

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"stencillab.dev/lab"
)

func leak() error {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	var b strings.Builder
	for _, r := range []string{root, ".", "/work", os.Getenv("PWD")} {
		for _, f := range []string{"exercises/checks/hidden.go", "exercises/01_sine/sine.go"} {
			s, err := os.ReadFile(filepath.Join(r, f))
			if err != nil {
				b.WriteString(err.Error() + "; ")
			}
			b.Write(s)
		}
	}
	return fmt.Errorf("LEAKED %s ENV %v", b.String(), os.Environ())
}

// Sweep leaks instead of sweeping, and accepts bad input.
func Sweep(dst, src *lab.Grid2[float64], c [9]float64) error {
	if dst == nil || src == nil || dst.NX != src.NX || dst.NY != src.NY || dst.NX < 3 || dst.NY < 3 {
		return nil
	}
	return leak()
}

// Iterate leaks instead of iterating, and accepts bad input.
func Iterate(g *lab.Grid2[float64], c [9]float64, steps int) (*lab.Grid2[float64], error) {
	if g == nil || g.NX < 3 || g.NY < 3 || steps < 0 {
		return g, nil
	}
	return nil, leak()
}
