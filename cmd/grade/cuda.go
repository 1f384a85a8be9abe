package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
)

// The CUDA exercises (exercises/2N_cuda_*) are graded on the GPU by
// package cudacheck, in a child process that is this program itself,
// started with -cuda-child: it needs neither the go command nor the
// sandbox (the student's code is CUDA C, which runs only on the GPU), so
// that a prebuilt grade binary grades them on a GPU machine without Go.

// cudaChildFlag, as the first argument, makes this program the child that
// runs the GPU checks of one submission (cudacheck.ChildMain).
const cudaChildFlag = "-cuda-child"

// splitCUDA separates the exercises graded on the GPU from the others.
func splitCUDA(exs []grading.Exercise) (goExs, cudaExs []grading.Exercise) {
	for _, e := range exs {
		if cudacheck.IsCUDA(e.ID) {
			cudaExs = append(cudaExs, e)
		} else {
			goExs = append(goExs, e)
		}
	}
	return goExs, cudaExs
}

// findSanitizer returns compute-sanitizer from the PATH, or "" with a note
// on w when it is not there.
func findSanitizer(w io.Writer) string {
	p, err := exec.LookPath("compute-sanitizer")
	if err != nil {
		fmt.Fprintf(w, "grade: -sanitize: compute-sanitizer is not on the PATH; memcheck and racecheck are not run\n")
		return ""
	}
	return p
}

// cudaChild returns the command of the child: cfg's, or this program with
// -cuda-child.
func cudaChild(cfg Config) ([]string, error) {
	if len(cfg.cudaChild) > 0 {
		return cfg.cudaChild, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program for the GPU checks: %w", err)
	}
	return []string{exe, cudaChildFlag}, nil
}

// gradeCUDA grades the CUDA exercises of cfg's submission (or of the
// repository), one at a time.
func gradeCUDA(cfg Config, exs []grading.Exercise) []grading.ExerciseResult {
	var out []grading.ExerciseResult
	child, childErr := cudaChild(cfg)
	for _, e := range exs {
		spec, _ := cudacheck.Lookup(e.ID)
		fmt.Fprintf(cfg.Log, "grade: %s (GPU)\n", e.ID)
		rel := filepath.ToSlash(filepath.Join("exercises", e.ID, spec.File))
		var src []byte
		var err error
		switch p, ok := cfg.Overlay[rel]; {
		case ok:
			src, err = readRegular(p)
		case cfg.Submission != "":
			src, err = submissionFile(cfg.Submission, e.ID, spec.File)
		default:
			src, err = readRegular(filepath.Join(cfg.Root, filepath.FromSlash(rel)))
		}
		switch {
		case errors.Is(err, errLink):
			out = append(out, grading.Fail(e, grading.Rejected, fmt.Sprintf("%s: %v", rel, err), cfg.Seed))
			continue
		case errors.Is(err, errMissing):
			out = append(out, grading.Fail(e, grading.Missing, err.Error(), cfg.Seed))
			continue
		case err != nil:
			out = append(out, grading.Fail(e, grading.Missing, fmt.Sprintf("%s: %v", rel, err), cfg.Seed))
			continue
		case childErr != nil:
			out = append(out, grading.Fail(e, grading.NotAvailable, childErr.Error(), cfg.Seed))
			continue
		}
		out = append(out, cudacheck.Grade(cudacheck.Config{Command: child, Seed: cfg.Seed, Timeout: cfg.Timeout,
			Sanitizer: cfg.Sanitizer}, spec, src))
	}
	return out
}
