// The build stage: an exercise's test binary, built with `go test -c`
// within the build limits and kept in the cache (job.build).

package grader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/sandbox"
)

// buildLimits bound the build of one exercise's test binary: the go
// command and the compiler and linker it starts.
type buildLimits struct {
	Wall       time.Duration // the whole build
	CPUSeconds int64         // each process's CPU time (RLIMIT_CPU)
	MemBytes   int64         // each process's data segment (RLIMIT_DATA)
	FileBytes  int64         // each file written (RLIMIT_FSIZE): objects, the test binary
}

// defaultBuildLimits are far above what an exercise's build takes (a
// cold build of exercise 05: 39 s of CPU over all its processes, a test
// binary of 9 MiB), and far below what a build made to exhaust the
// grader takes (a 1 MB file: 15 minutes of compiling; a large
// initialised array: a binary of 743 MB).
var defaultBuildLimits = buildLimits{Wall: 5 * time.Minute, CPUSeconds: 240, MemBytes: 3 << 30, FileBytes: 128 << 20}

// buildLimitsOf is cfg's build limits, defaults filled in.
func buildLimitsOf(cfg Config) buildLimits {
	l, d := cfg.build, defaultBuildLimits
	if l.Wall <= 0 {
		l.Wall = d.Wall
	}
	if l.CPUSeconds <= 0 {
		l.CPUSeconds = d.CPUSeconds
	}
	if l.MemBytes <= 0 {
		l.MemBytes = d.MemBytes
	}
	if l.FileBytes <= 0 {
		l.FileBytes = d.FileBytes
	}
	return l
}

// binPath is where the test binary of this job is kept: one folder per
// repository and overlay, so that `go test -c` finds it up to date and
// relinks nothing when nothing changed.
func (j *job) binPath(cfg Config, cache string) string {
	id := fmt.Sprintf("%s\x00%s", cfg.Root, j.overlayKey)
	if cfg.treeKey != "" {
		id += "\x00" + cfg.treeKey
	}
	key := sha256.Sum256([]byte(id))
	return filepath.Join(cache, hex.EncodeToString(key[:8]), j.ex.ID+".test")
}

// build compiles the exercise's test binary.
func (j *job) build(cfg Config, goBin, cache string) {
	j.bin = j.binPath(cfg, cache)
	// Submissions with the same files (by content) share one build in this
	// process: class grading builds each distinct file once.
	v, _ := builds.LoadOrStore(j.bin, &buildOnce{})
	b := v.(*buildOnce)
	b.once.Do(func() {
		if cfg.treeKey != "" {
			// Built by an earlier run of the same tree: the marker is
			// written only after a build that succeeded.
			if _, err := os.Stat(j.bin + ".ok"); err == nil {
				return
			}
		}
		b.fail, b.status = j.buildNow(cfg, goBin)
		if b.fail == "" && cfg.treeKey != "" {
			_ = os.WriteFile(j.bin+".ok", nil, 0o600)
		}
	})
	if _, err := os.Stat(j.bin); err != nil && b.fail == "" {
		// Removed since (a test's cache folder): build again.
		b.fail, b.status = j.buildNow(cfg, goBin)
	}
	j.fail, j.status = b.fail, b.status
	// The folder's time is its last use: the cache evicts the least
	// recently used first (pruneCache).
	now := time.Now()
	_ = os.Chtimes(filepath.Dir(j.bin), now, now)
}

// builds holds the builds made by this process, by binary.
var builds sync.Map

type buildOnce struct {
	once   sync.Once
	fail   string
	status grading.Status
}

// buildNow compiles the exercise's test binary and returns why it failed,
// or "".
func (j *job) buildNow(cfg Config, goBin string) (fail string, status grading.Status) {
	if err := os.MkdirAll(filepath.Dir(j.bin), 0o755); err != nil {
		return fmt.Sprintf("cannot make the cache folder: %v", err), grading.NotAvailable
	}
	// The child is built without the tag "hidden": the hidden checks run
	// in the grader, and their code stays out of the child.
	// -trimpath keeps this machine's paths out of the binary, and out of
	// what the submission could send back.
	args := []string{"test", "-c", "-trimpath", "-o", j.bin}
	if j.overlayFile != "" {
		args = append(args, "-overlay", j.overlayFile)
	}
	args = append(args, "./exercises/"+j.ex.ID)
	// A failure that names no file of an exercise is the toolchain's, not
	// the student's (a busy machine, a cache being written): try again
	// before giving up. A build over a limit is the student's: it scores
	// 0, the limit named.
	var text string
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * time.Second)
		}
		out, over, err := j.runBuild(cfg, goBin, args)
		if over != "" {
			_ = os.Remove(j.bin)
			return "the build went over its limit: " + over + ". An exercise's code builds far within it: make the code smaller (no huge constant tables or generated code)", grading.BuildFailed
		}
		if err == nil {
			text = ""
			break
		}
		text = compileErrors(out, cfg.Root, j.replaced)
		if strings.Contains(text, "exercises/") {
			break
		}
	}
	switch {
	case text == "":
	case strings.Contains(text, "exercises/"):
		return "does not compile:\n" + text, grading.BuildFailed
	default:
		return "the Go toolchain could not build the exercise (this is not a mistake in its code):\n" + text, grading.NotAvailable
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Dir(j.bin), now, now)
	return "", ""
}

// goEnvOnce reads the go command's build cache folder once.
var (
	goEnvOnce  sync.Once
	goCacheDir string
)

// runBuild runs the go command with args under cfg's build limits, in the
// sandbox when cfg has one (the machine read only but for the build cache,
// the binary's folder and a temporary folder of its own; no network), in
// a process group killed as a whole at the wall-clock limit. It returns
// the go command's output, the limit it went over ("" for none), and its
// error.
func (j *job) runBuild(cfg Config, goBin string, args []string) (string, string, error) {
	l := buildLimitsOf(cfg)
	goEnvOnce.Do(func() {
		if b, err := exec.Command(goBin, "env", "GOCACHE").Output(); err == nil {
			goCacheDir = strings.TrimSpace(string(b))
		}
	})
	tmp, err := os.MkdirTemp(filepath.Dir(j.bin), "build-")
	if err != nil {
		return "", "", fmt.Errorf("a temporary folder for the build: %w", err)
	}
	defer os.RemoveAll(tmp)
	// Without cgo the runtime makes its own threads: under the memory
	// limit a thread it cannot make is reported as Go's out-of-memory
	// error, not as an abort inside libc's pthread_create. Nothing is
	// fetched: no module, no toolchain.
	env := append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local", "GOPROXY=off", "TMPDIR="+tmp, "GOTMPDIR="+tmp,
		fmt.Sprintf("GOMEMLIMIT=%d", l.MemBytes/4*3))
	writable := []string{filepath.Dir(j.bin), tmp}
	if goCacheDir != "" && goCacheDir != "off" {
		env = append(env, "GOCACHE="+goCacheDir)
		writable = append(writable, goCacheDir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.Wall)
	defer cancel()
	cmd := sandbox.BuildCommand(ctx, cfg.sandbox, sandbox.Build{
		Argv: append([]string{goBin}, args...), Env: env, Dir: cfg.Root, Writable: writable,
		Limits: sandbox.Limits{MemBytes: l.MemBytes, CPUSeconds: l.CPUSeconds, FileBytes: l.FileBytes},
	})
	setProcessGroup(cmd)
	// The output goes to a file, not a pipe: a process left behind that
	// holds a pipe would keep Wait waiting.
	outFile, err := os.CreateTemp(tmp, "out-")
	if err != nil {
		return "", "", fmt.Errorf("a file for the build's output: %w", err)
	}
	defer outFile.Close()
	cmd.Stdout, cmd.Stderr = outFile, outFile
	start := time.Now()
	err = cmd.Run()
	// Whatever it left running goes with its group.
	killGroup(cmd)
	var out limitedBuffer
	if _, serr := outFile.Seek(0, io.SeekStart); serr == nil {
		_, _ = io.Copy(&out, outFile)
	}
	text := out.String()
	switch {
	case ctx.Err() != nil:
		return text, fmt.Sprintf("%v of wall-clock time (it was stopped after %v)", l.Wall, time.Since(start).Round(time.Second)), err
	case err == nil:
		if st, serr := os.Stat(j.bin); serr == nil && st.Size() > l.FileBytes {
			return text, fmt.Sprintf("%s for a file it writes (the test binary has %d bytes)", formatSize(l.FileBytes), st.Size()), nil
		}
		return text, "", nil
	}
	// RLIMIT_CPU kills a process (SIGKILL at the hard limit; the Go
	// toolchain ignores SIGXCPU), which the go command reports as
	// "signal: killed": the CPU time of the build's processes, which
	// wait4 reports with their children's, says whether it was the limit.
	// The kernel's split of that time is sampled, and on a busy machine it
	// reads well under the limit it enforced: a kill after half of the
	// limit is taken as the limit's (no build of an exercise comes near
	// half of it: 240 s by default, for 39 s of a cold build of exercise
	// 05 over all its processes).
	killed := strings.Contains(text, "signal: killed") || strings.Contains(err.Error(), "signal: killed")
	if ps := cmd.ProcessState; ps != nil && killed && ps.UserTime()+ps.SystemTime() >= time.Duration(l.CPUSeconds)*time.Second/2 {
		return text, fmt.Sprintf("%d s of CPU time for a process of the compiler or linker", l.CPUSeconds), err
	}
	// The go command names a compiler or linker stopped by a limit; a
	// limit of the go command itself is its own exit's signal.
	return text, overLimit(text+"\n"+err.Error(), l), err
}

// overLimit names the limit a build's output says it went over, or "".
func overLimit(text string, l buildLimits) string {
	t := strings.ToLower(text)
	switch {
	case strings.Contains(t, "cpu time limit exceeded") || strings.Contains(t, "signal: cputime") || strings.Contains(t, "sigxcpu"):
		return fmt.Sprintf("%d s of CPU time for a process of the compiler or linker", l.CPUSeconds)
	case strings.Contains(t, "file size limit exceeded") || strings.Contains(t, "file too large") || strings.Contains(t, "sigxfsz"):
		return fmt.Sprintf("%s for a file it writes (an object file or the test binary)", formatSize(l.FileBytes))
	case strings.Contains(t, "out of memory") || strings.Contains(t, "cannot allocate memory"):
		return fmt.Sprintf("%s of memory for a process of the compiler or linker", formatSize(l.MemBytes))
	}
	return ""
}

// exercisePathRE matches a path that ends in an exercise's folder, so that
// a submission's folder is left out of messages.
var exercisePathRE = regexp.MustCompile(`[^\s:]*/(exercises/\d\d_\w+/)`)

// compileErrors keeps the first lines of the compiler's output, with each
// submitted file named as the student file it replaces and the
// repository's folder removed from the paths.
func compileErrors(out, root string, replaced map[string]string) string {
	for src, rel := range replaced {
		out = strings.ReplaceAll(out, src, rel)
		if r, err := filepath.Rel(root, src); err == nil {
			out = strings.ReplaceAll(out, r, rel)
		}
	}
	out = strings.ReplaceAll(out, root+string(filepath.Separator), "")
	out = exercisePathRE.ReplaceAllString(out, "$1")
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "# ") || strings.TrimSpace(l) == "" {
			continue
		}
		keep = append(keep, strings.TrimPrefix(l, "./"))
		if len(keep) == 12 {
			keep = append(keep, "…")
			break
		}
	}
	if len(keep) == 0 {
		return "(no compiler output)"
	}
	return strings.Join(keep, "\n")
}
