package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// Config configures one grading run.
type Config struct {
	Root       string        // the repository; "" finds it from the working directory
	Seed       uint64        // 0 draws a fresh seed
	Timeout    time.Duration // wall-clock limit of one exercise's process
	MemBytes   int64         // memory limit of one exercise's process (RLIMIT_DATA)
	Hidden     bool          // build with the tag "hidden"
	Submission string        // a copy of the repository whose student files are graded
	// Overlay maps student files, relative to the repository
	// ("exercises/01_sine/sine.go"), to replacement files; it is added to
	// the files of Submission.
	Overlay map[string]string
	Only    []string  // the exercises to grade; empty means all
	Log     io.Writer // progress; nil discards it
	// CacheDir keeps the test binaries; "" uses the user cache folder.
	CacheDir string
}

// catalogue returns the exercises this program knows, with their checks
// (the hidden ones only when it was built with the tag).
func catalogue() []grading.Exercise { return checks.All() }

// selectExercises picks the exercises named by only: a folder name, its
// number or its topic.
func selectExercises(all []grading.Exercise, only []string) ([]grading.Exercise, error) {
	if len(only) == 0 {
		return all, nil
	}
	var out []grading.Exercise
	seen := map[string]bool{}
	for _, name := range only {
		name = strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(name), "exercises/"), "/")
		found := false
		for _, e := range all {
			num, topic, _ := strings.Cut(e.ID, "_")
			if name == e.ID || name == num || name == topic {
				if !seen[e.ID] {
					out = append(out, e)
					seen[e.ID] = true
				}
				found = true
			}
		}
		if !found {
			ids := make([]string, len(all))
			for i, e := range all {
				ids[i] = e.ID
			}
			return nil, fmt.Errorf("no exercise %q (exercises: %s)", name, strings.Join(ids, ", "))
		}
	}
	return out, nil
}

// findRoot returns the folder holding the module stencillab.dev, from dir
// upwards.
func findRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("find the repository: %w", err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if bytes.Contains(b, []byte("module stencillab.dev\n")) {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of module stencillab.dev in %s or above it: run grade inside the repository or pass -C", abs)
		}
	}
}

// Grade grades the selected exercises and returns the report. An exercise
// that cannot be built or run scores 0 with a message; Grade returns an
// error only when it cannot grade at all (no repository, no go command).
func Grade(cfg Config) (grading.Report, error) {
	if cfg.Seed == 0 {
		cfg.Seed = grading.NewSeed()
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.MemBytes <= 0 {
		cfg.MemBytes = 1 << 30
	}
	root := cfg.Root
	if root == "" {
		root = "."
	}
	root, err := findRoot(root)
	if err != nil {
		return grading.Report{}, err
	}
	cfg.Root = root
	goBin, err := exec.LookPath("go")
	if err != nil {
		return grading.Report{}, fmt.Errorf("the go command is needed to build the exercises: %w", err)
	}
	exs, err := selectExercises(catalogue(), cfg.Only)
	if err != nil {
		return grading.Report{}, err
	}
	cache := cfg.CacheDir
	if cache == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			uc = os.TempDir()
		}
		cache = filepath.Join(uc, "stencillab-grade")
	}
	pruneCache(cache, 12, 7*24*time.Hour)
	work, err := os.MkdirTemp("", "grade-")
	if err != nil {
		return grading.Report{}, fmt.Errorf("make a work folder: %w", err)
	}
	defer os.RemoveAll(work)

	jobs := make([]*job, len(exs))
	for i, e := range exs {
		jobs[i] = &job{ex: e, dir: filepath.Join(root, "exercises", e.ID)}
		if _, err := os.Stat(jobs[i].dir); err != nil {
			jobs[i].fail = fmt.Sprintf("this repository has no folder exercises/%s", e.ID)
			jobs[i].status = grading.NotAvailable
			continue
		}
		if err := jobs[i].overlay(cfg, work); err != nil {
			jobs[i].fail = err.Error()
			jobs[i].status = grading.NotAvailable
		}
	}

	// Build two at a time: linking is the slow part and there are few cores.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, j := range jobs {
		if j.fail != "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			j.build(cfg, goBin, cache)
		}()
	}
	wg.Wait()

	results := make([]grading.ExerciseResult, 0, len(jobs))
	for _, j := range jobs {
		fmt.Fprintf(cfg.Log, "grade: %s\n", j.ex.ID)
		var r grading.ExerciseResult
		switch {
		case j.fail != "":
			r = grading.Fail(j.meta(cfg, goBin, cache, work), j.status, j.fail, cfg.Seed)
		default:
			r = j.run(cfg, work, func() grading.Exercise { return j.meta(cfg, goBin, cache, work) })
		}
		results = append(results, r)
	}
	return grading.NewReport(cfg.Seed, results), nil
}

// pruneCache keeps the keep most recently used folders of test binaries in
// cache, and none unused for longer than maxAge: each repository and each
// submission graded has a folder of its own.
func pruneCache(cache string, keep int, maxAge time.Duration) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	type dir struct {
		path string
		mod  time.Time
	}
	var dirs []dir
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() {
			dirs = append(dirs, dir{filepath.Join(cache, e.Name()), info.ModTime()})
		}
	}
	sort.Slice(dirs, func(a, b int) bool { return dirs[a].mod.After(dirs[b].mod) })
	for i, d := range dirs {
		if i >= keep || time.Since(d.mod) > maxAge {
			_ = os.RemoveAll(d.path)
		}
	}
}

// job is one exercise being graded.
type job struct {
	ex          grading.Exercise
	dir         string
	overlayFile string            // the -overlay JSON, or ""
	replaced    map[string]string // submitted file → the student file it replaces, relative to the repository
	overlayKey  string            // a digest of the overlay's contents
	bin         string            // the test binary
	fail        string            // why it cannot run, or ""
	status      grading.Status
}

// overlay writes the -overlay file that replaces the student files by the
// submission's.
func (j *job) overlay(cfg Config, work string) error {
	repl := map[string]string{}
	for _, f := range j.ex.Files {
		rel := filepath.ToSlash(filepath.Join("exercises", j.ex.ID, f))
		if cfg.Submission != "" {
			src, err := submissionFile(cfg.Submission, j.ex.ID, f)
			if err != nil {
				return err
			}
			repl[rel] = src
		}
		if p, ok := cfg.Overlay[rel]; ok {
			abs, err := filepath.Abs(p)
			if err != nil {
				return fmt.Errorf("overlay %s: %w", rel, err)
			}
			repl[rel] = abs
		}
	}
	if len(repl) == 0 {
		return nil
	}
	type overlayJSON struct {
		Replace map[string]string
	}
	ov := overlayJSON{Replace: map[string]string{}}
	h := sha256.New()
	keys := make([]string, 0, len(repl))
	for k := range repl {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, rel := range keys {
		src := repl[rel]
		b, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("read the submitted %s: %w", rel, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		ov.Replace[filepath.Join(cfg.Root, filepath.FromSlash(rel))] = src
		if j.replaced == nil {
			j.replaced = map[string]string{}
		}
		j.replaced[src] = rel
	}
	b, err := json.Marshal(ov)
	if err != nil {
		return fmt.Errorf("overlay for %s: %w", j.ex.ID, err)
	}
	j.overlayFile = filepath.Join(work, j.ex.ID+".overlay.json")
	j.overlayKey = hex.EncodeToString(h.Sum(nil))
	if err := os.WriteFile(j.overlayFile, b, 0o644); err != nil {
		return fmt.Errorf("overlay for %s: %w", j.ex.ID, err)
	}
	return nil
}

// submissionFile finds a student file in a submission: DIR/exercises/ID/F,
// or DIR/ID/F when DIR is an exercises folder.
func submissionFile(dir, id, f string) (string, error) {
	for _, p := range []string{filepath.Join(dir, "exercises", id, f), filepath.Join(dir, id, f)} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("the submission %s has no exercises/%s/%s", dir, id, f)
}

// binPath is where the test binary of this job is kept: one folder per
// repository, tags and overlay, so that `go test -c` finds it up to date
// and relinks nothing when nothing changed.
func (j *job) binPath(cfg Config, cache string) string {
	key := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%v\x00%s", cfg.Root, cfg.Hidden, j.overlayKey)))
	return filepath.Join(cache, hex.EncodeToString(key[:8]), j.ex.ID+".test")
}

// build compiles the exercise's test binary.
func (j *job) build(cfg Config, goBin, cache string) {
	j.bin = j.binPath(cfg, cache)
	if err := os.MkdirAll(filepath.Dir(j.bin), 0o755); err != nil {
		j.fail, j.status = fmt.Sprintf("cannot make the cache folder: %v", err), grading.NotAvailable
		return
	}
	args := []string{"test", "-c", "-o", j.bin}
	if cfg.Hidden {
		args = append(args, "-tags", "hidden")
	}
	if j.overlayFile != "" {
		args = append(args, "-overlay", j.overlayFile)
	}
	args = append(args, "./exercises/"+j.ex.ID)
	// A failure that names no file of an exercise is the toolchain's, not
	// the student's (a busy machine, a cache being written): try again
	// before giving up.
	var text string
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * time.Second)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, goBin, args...)
		cmd.Dir = cfg.Root
		// Without cgo the runtime makes its own threads: under the memory
		// limit a thread it cannot make is reported as Go's out-of-memory
		// error, not as an abort inside libc's pthread_create.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		if err == nil {
			text = ""
			break
		}
		text = compileErrors(out.String(), cfg.Root, j.replaced)
		if strings.Contains(text, "exercises/") {
			break
		}
	}
	switch {
	case text == "":
	case strings.Contains(text, "exercises/"):
		j.fail, j.status = "does not compile:\n"+text, grading.BuildFailed
		return
	default:
		j.fail, j.status = "the Go toolchain could not build the exercise (this is not a mistake in its code):\n"+text, grading.NotAvailable
		return
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Dir(j.bin), now, now)
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

// meta returns the exercise's checks for the report of a submitted
// exercise that did not run: from the repository's own version of the
// exercise (which includes the hidden checks) when it builds, else from
// this program. Without a submission the job's own build was the
// repository's version, so there is nothing more to learn from building it.
func (j *job) meta(cfg Config, goBin, cache, work string) grading.Exercise {
	if j.overlayFile == "" {
		return j.ex
	}
	plain := &job{ex: j.ex, dir: j.dir}
	plain.build(cfg, goBin, cache)
	if plain.fail != "" {
		return j.ex
	}
	out := filepath.Join(work, j.ex.ID+".list.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), min(cfg.Timeout, 30*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, plain.bin, "-test.run=^TestGrade$")
	cmd.Dir = j.dir
	cmd.Env = append(os.Environ(), grading.EnvOut+"="+out, grading.EnvList+"=1")
	setProcessGroup(cmd)
	if err := cmd.Run(); err != nil {
		return j.ex
	}
	f, err := os.Open(out)
	if err != nil {
		return j.ex
	}
	defer f.Close()
	evs, _ := grading.ReadEvents(f)
	for _, ev := range evs {
		if ev.Event == "exercise" && ev.Exercise != nil {
			return ev.Exercise.Exercise()
		}
	}
	return j.ex
}

// run runs the test binary in its own process group under the limits and
// turns what it reported, or how it died, into the exercise's result. meta
// lists the exercise's checks when the process died before it did.
func (j *job) run(cfg Config, work string, meta func() grading.Exercise) grading.ExerciseResult {
	out := filepath.Join(work, j.ex.ID+".jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	// RLIMIT_DATA counts the heap and every private writable mapping, but
	// not the address space a Go program reserves without using it, so
	// the limit is close to the memory the program may really use.
	kb := cfg.MemBytes / 1024
	script := fmt.Sprintf(`ulimit -d %d 2>/dev/null || echo "grade: no memory limit on this system" >&2; exec "$0" "$@"`, kb)
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script, j.bin, "-test.run=^TestGrade$", "-test.v=false")
	cmd.Dir = j.dir
	checkTimeout := min(grading.DefaultCheckTimeout, cfg.Timeout*3/4)
	cmd.Env = append(os.Environ(),
		grading.EnvOut+"="+out,
		grading.EnvSeed+"="+strconv.FormatUint(cfg.Seed, 10),
		grading.EnvCheckTimeout+"="+checkTimeout.String(),
		fmt.Sprintf("GOMEMLIMIT=%d", cfg.MemBytes/4*3),
	)
	var stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	setProcessGroup(cmd)
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	timedOut := ctx.Err() != nil

	var evs []grading.Event
	if f, ferr := os.Open(out); ferr == nil {
		evs, _ = grading.ReadEvents(f)
		f.Close()
	}
	ex, running, listed := j.ex, "", false
	seed := cfg.Seed
	for _, ev := range evs {
		switch ev.Event {
		case "exercise":
			if ev.Exercise != nil {
				ex, listed = ev.Exercise.Exercise(), true
			}
			if ev.Seed != 0 {
				seed = ev.Seed
			}
		case "start":
			running = ev.Check
		case "result":
			running = ""
		case "end":
			if ev.End != nil && !timedOut {
				return *ev.End
			}
		}
	}
	fmt.Fprintf(cfg.Log, "grade: %s: the test process ended without a result (status %v, timed out %v); its last output:\n%s\n",
		j.ex.ID, err, timedOut, firstLines(stderr.String(), 30))
	if !listed {
		ex = meta() // the process died before listing its checks; the repository's version lists them
	}
	during := ""
	if running != "" {
		during = fmt.Sprintf(" while running check %q", running)
	}
	text := stderr.String()
	switch {
	case timedOut:
		return grading.Fail(ex, grading.TimedOut, fmt.Sprintf(
			"did not finish within %v%s and was stopped: is there a loop that never ends, or a barrier that not every thread reaches?",
			cfg.Timeout, during), seed)
	case outOfMemory(text):
		return grading.Fail(ex, grading.OutOfMemory, fmt.Sprintf(
			"ran out of memory%s (the limit is %s): does it allocate in a loop without end, or far more than the grid needs?",
			during, formatSize(cfg.MemBytes)), seed)
	case strings.Contains(text, "all goroutines are asleep - deadlock"):
		return grading.Fail(ex, grading.Crashed, fmt.Sprintf(
			"deadlock%s: every goroutine was blocked — does every thread of a block reach each barrier?", during), seed)
	case strings.Contains(text, "panic: "):
		return grading.Fail(ex, grading.Panicked, fmt.Sprintf("panicked%s: %s", during, panicSummary(text)), seed)
	}
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	detail := lastLines(text, cfg.Root, 6)
	if err == nil && len(evs) == 0 {
		detail = "it reported nothing; does its test file still call grading.Test?"
	}
	return grading.Fail(ex, grading.Crashed, fmt.Sprintf("the test process ended after %v with status %d%s: %s",
		elapsed.Round(time.Millisecond), code, during, detail), seed)
}

// outOfMemory reports whether a process's output shows that it ran out of
// memory. Under RLIMIT_DATA a thread's stack is one more private mapping,
// so a thread that cannot be made is the same exhaustion.
func outOfMemory(s string) bool {
	return strings.Contains(s, "fatal error: out of memory") ||
		strings.Contains(s, "runtime: out of memory") ||
		strings.Contains(s, "cannot allocate memory") ||
		strings.Contains(s, "fatal error: runtime: cannot allocate") ||
		strings.Contains(s, "failed to create new OS thread") ||
		strings.Contains(s, "pthread_create failed")
}

var frameRE = regexp.MustCompile(`(?m)^\t(\S+\.go):(\d+)`)

// panicSummary returns the panic's first line and the first frame in an
// exercise's own files, e.g. "runtime error: index out of range [7] with
// length 7 at basic.go:33".
func panicSummary(text string) string {
	i := strings.Index(text, "panic: ")
	msg := strings.TrimSpace(strings.SplitN(text[i+len("panic: "):], "\n", 2)[0])
	msg = strings.TrimSuffix(msg, " [recovered]")
	for _, m := range frameRE.FindAllStringSubmatch(text[i:], -1) {
		f := filepath.ToSlash(m[1])
		if strings.Contains(f, "/exercises/") && !strings.Contains(f, "/exercises/grading/") &&
			!strings.Contains(f, "/exercises/checks/") && !strings.HasSuffix(f, "_test.go") {
			return fmt.Sprintf("%s at %s:%s", msg, filepath.Base(f), m[2])
		}
	}
	return msg
}

// lastLines returns the last n non-empty lines of s, paths shortened.
func lastLines(s, root string, n int) string {
	s = strings.ReplaceAll(s, root+string(filepath.Separator), "")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "no output"
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// limitedBuffer keeps the first 64 KiB and the last 192 KiB written to it,
// so that a program that prints without end cannot exhaust the grader's
// memory, and a panic at the end of a long output is still seen.
type limitedBuffer struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte
	dropped bool
}

const (
	headBytes = 64 << 10
	tailBytes = 192 << 10
)

// Write keeps what fits of p and never fails.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := headBytes - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.tail = append(b.tail, p...)
	if extra := len(b.tail) - tailBytes; extra > 0 {
		b.tail = append(b.tail[:0], b.tail[extra:]...)
		b.dropped = true
	}
	return n, nil
}

// String returns the head and the tail kept, with "…" where output was
// dropped between them.
func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	mid := ""
	if b.dropped {
		mid = "\n…\n"
	}
	return string(b.head) + mid + string(b.tail)
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
