package grader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/sandbox"
	"stencillab.dev/gpu"
)

// The CUDA exercises (exercises/2N_cuda_*) are graded on the GPU by
// package cudacheck. The checks run in this process; a child compiles and
// launches the student's kernel on inputs this process draws and answers
// raw outputs and times on a private descriptor. The child is this
// program itself, started with -cuda-child, so that a prebuilt grade binary
// grades them on a GPU machine without Go, and it runs in the same
// bubblewrap sandbox as the Go exercises' children (package sandbox), with
// the GPU's device nodes and the system's libraries read only besides.
// Where bubblewrap can run, the child is always in it; where it cannot,
// self-grading says so in one line, and a run that requires the sandbox
// refuses the CUDA exercises.

// cudaChildFlag, as the first argument, makes this program the child that
// compiles and launches the kernel of one submission (cudacheck.ChildMain).
const cudaChildFlag = "-cuda-child"

// cudaMemBytes is the CUDA child's memory limit (RLIMIT_DATA): the driver,
// NVRTC and one timed grid on the host.
const cudaMemBytes = 16 << 30

// cudaCPUSeconds is the CUDA child's CPU time limit: the driver spins
// while it waits for the GPU, so CPU time follows wall time.
const cudaCPUSeconds = 3600

// cudaTestEnv is added to the CUDA child's environment (tests).
var cudaTestEnv []string

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
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
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

var cudaNoticeOnce sync.Once

// cudaSandbox returns the bubblewrap program for the CUDA child: cfg's,
// or the one found here. Where there is none, a run that requires the
// sandbox gets an error; another goes on without it, saying so once on
// cfg.Notice (unless -unsafe-no-sandbox asked for that).
func cudaSandbox(cfg Config) (string, error) {
	if cfg.sandbox != "" {
		return cfg.sandbox, nil
	}
	probe := cfg.sandboxProbe
	if probe == nil {
		probe = findSandbox
	}
	p, err := probe()
	switch {
	case err == nil:
		return p, nil
	case cfg.RequireSandbox && !cfg.NoSandbox:
		return "", fmt.Errorf("no sandbox: %w; -unsafe-no-sandbox grades without it", err)
	case !cfg.NoSandbox && cfg.Notice != nil:
		cudaNoticeOnce.Do(func() { fmt.Fprintf(cfg.Notice, "grade: grading without a sandbox: %v\n", err) })
	}
	return "", nil
}

// cudaEnv is the whole environment of the CUDA child: where the driver's
// libraries are, the library overrides of the gpu package when they name
// files the child can see, and the child's device (dev, this process's
// ordinal; "" for the default device) as CUDA_VISIBLE_DEVICES.
func cudaEnv(sandboxed bool, dev string) []string {
	env := []string{"HOME=/tmp", "TMPDIR=/tmp"}
	if v := childDevice(dev); v != "" {
		env = append(env, "CUDA_VISIBLE_DEVICES="+v)
	}
	var ld []string
	for _, d := range []string{"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			ld = append(ld, d)
		}
	}
	if !sandboxed {
		if v := os.Getenv("LD_LIBRARY_PATH"); v != "" {
			ld = append(ld, v)
		}
	}
	if len(ld) > 0 {
		env = append(env, "LD_LIBRARY_PATH="+strings.Join(ld, ":"))
	}
	for _, k := range []string{gpu.EnvLibCUDA, gpu.EnvLibNVRTC, "CUDA_HOME", "CUDA_PATH"} {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		if sandboxed && !inView(v) {
			continue
		}
		env = append(env, k+"="+v)
	}
	return append(env, cudaTestEnv...)
}

// inView reports whether the path v is one a GPU child sees (under /usr,
// /lib, /lib64, /usr/local/nvidia) or a bare library name.
func inView(v string) bool {
	if !strings.Contains(v, "/") {
		return true
	}
	v = filepath.Clean(v)
	for _, r := range []string{"/usr/", "/lib/", "/lib64/"} {
		if strings.HasPrefix(v, r) {
			return true
		}
	}
	return false
}

// cudaLauncher returns the launcher of the CUDA child on the device dev
// ("" for the default device): child (a program and its first arguments)
// in the sandbox bwrap makes, or without one when bwrap is "".
func cudaLauncher(child []string, bwrap, dev string) cudacheck.Launcher {
	return func(args, wrapper []string) (*exec.Cmd, error) {
		s := sandbox.Spec{Bin: child[0], Args: append(append([]string(nil), child[1:]...), args...),
			Env: cudaEnv(bwrap != "", dev), GPU: true, Wrapper: wrapper,
			Limits: sandbox.Limits{MemBytes: cudaMemBytes, CPUSeconds: cudaCPUSeconds}}
		if bwrap == "" {
			return sandbox.Unsandboxed(context.Background(), s), nil
		}
		return sandbox.Command(context.Background(), bwrap, s), nil
	}
}

// gradeCUDA grades the CUDA exercises of cfg's submission (or of the
// repository): each on a device of cfg's pool, as many at once as the
// pool has devices (one at a time without -gpus).
func gradeCUDA(cfg Config, exs []grading.Exercise) []grading.ExerciseResult {
	if len(exs) == 0 {
		return nil
	}
	pool := poolOf(cfg)
	child, childErr := cudaChild(cfg)
	bwrap, sandboxErr := cudaSandbox(cfg)
	out := make([]grading.ExerciseResult, len(exs))
	var wg sync.WaitGroup
	for i, e := range exs {
		spec, _ := cudacheck.Lookup(e.ID)
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
			out[i] = grading.Fail(e, grading.Rejected, fmt.Sprintf("%s: %v", rel, err), cfg.Seed)
			continue
		case errors.Is(err, errMissing):
			out[i] = grading.Fail(e, grading.Missing, err.Error(), cfg.Seed)
			continue
		case err != nil:
			out[i] = grading.Fail(e, grading.Missing, fmt.Sprintf("%s: %v", rel, err), cfg.Seed)
			continue
		case childErr != nil:
			out[i] = grading.Fail(e, grading.NotAvailable, childErr.Error(), cfg.Seed)
			continue
		case sandboxErr != nil:
			out[i] = grading.Fail(e, grading.NotAvailable, sandboxErr.Error(), cfg.Seed)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool.use(func(dev string, lock sync.Locker) {
				on := ""
				if dev != "" {
					on = " on device " + dev
				}
				fmt.Fprintf(cfg.Log, "grade: %s (GPU%s)\n", e.ID, on)
				out[i] = cudacheck.Grade(cudacheck.Config{Launch: cudaLauncher(child, bwrap, dev), Lock: lock, Seed: cfg.Seed,
					Timeout: cfg.Timeout, Sanitizer: cfg.Sanitizer, PerfN: cudaPerfN}, spec, src)
			})
		}()
	}
	wg.Wait()
	return out
}

// cudaPerfN is the side around which the timed grid is drawn: 0 is
// cudacheck.PerfN (tests make it small).
var cudaPerfN int
