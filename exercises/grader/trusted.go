package grader

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"

	"stencillab.dev/exercises/grading"
)

// The hidden checks run in the grader, which must therefore be built with
// the tag "hidden". A grader built without it (`go run ./cmd/grade`, or
// this package's tests) that is asked for the hidden checks builds
// cmd/grade again from the repository with the tag, once, and lets that
// program grade: it is built from the instructor's sources alone, before
// any submission is looked at.

// hasHiddenChecks reports whether the repository holds the hidden checks.
func hasHiddenChecks(root string) bool {
	m, _ := filepath.Glob(filepath.Join(root, "exercises", "checks", "hidden*.go"))
	return len(m) > 0
}

var trusted struct {
	sync.Mutex
	bins map[string]string // folder → the grader built there with the hidden checks
}

// trustedDir is the private folder in cache of the grader with the
// hidden checks built from root with cgo set as cgo ("0" or "1", see
// cgoSetting): a grader built with cgo off never stands in for one with
// it, nor the other way round.
func trustedDir(root, cache, cgo string) string {
	key := sha256.Sum256([]byte(root + "\x00CGO_ENABLED=" + cgo))
	return filepath.Join(cache, "grader-"+hex.EncodeToString(key[:8]))
}

// trustedBinary builds cmd/grade of root with the tag "hidden" into a
// private folder and returns its path. It is built with cgo on when gcc
// is on the PATH (cgoSetting, as for the bundle), so that it can load the
// CUDA driver and grade the CUDA exercises where a GPU is found.
func trustedBinary(root, goBin, cache string) (string, error) {
	trusted.Lock()
	defer trusted.Unlock()
	cgo := cgoSetting(runtime.GOOS, runtime.GOARCH)
	dir := trustedDir(root, cache, cgo)
	if b, ok := trusted.bins[dir]; ok {
		if _, err := os.Stat(b); err == nil {
			return b, nil
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("a folder for the grader: %w", err)
	}
	bin := filepath.Join(dir, "grade")
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "build", "-tags", "hidden", "-o", bin, "./cmd/grade")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the grader with the hidden checks: %v\n%s", err, firstLines(string(out), 12))
	}
	if trusted.bins == nil {
		trusted.bins = map[string]string{}
	}
	trusted.bins[dir] = bin
	return bin, nil
}

// gradeTrusted grades cfg with the grader built with the hidden checks,
// which reads cfg from a file and writes its report as JSON.
func gradeTrusted(cfg Config, goBin, cache string) (grading.Report, error) {
	bin, err := trustedBinary(cfg.Root, goBin, cache)
	if err != nil {
		return grading.Report{}, err
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return grading.Report{}, fmt.Errorf("grader configuration: %w", err)
	}
	f, err := os.CreateTemp("", "grade-config-*.json")
	if err != nil {
		return grading.Report{}, fmt.Errorf("grader configuration: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return grading.Report{}, fmt.Errorf("grader configuration: %w", err)
	}
	f.Close()
	cmd := exec.Command(bin, "-config", f.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, cfg.Log
	if err := cmd.Run(); err != nil {
		return grading.Report{}, fmt.Errorf("the grader with the hidden checks: %w", err)
	}
	var rep grading.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return grading.Report{}, fmt.Errorf("the grader with the hidden checks: its report: %w", err)
	}
	return rep, nil
}

// gradeFromConfig is the other side of gradeTrusted: it grades the
// configuration in path and writes the report as JSON.
func gradeFromConfig(path string, stdout, stderr *os.File) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return 1
	}
	var cfg Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		fmt.Fprintf(stderr, "grade: %s: %v\n", path, err)
		return 1
	}
	cfg.Log = stderr
	rep, err := Grade(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return 1
	}
	if err := rep.WriteJSON(stdout); err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return 1
	}
	return 0
}
