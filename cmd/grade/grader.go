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
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/cudacheck"
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
	Log     io.Writer `json:"-"` // progress; nil discards it
	// CacheDir keeps the test binaries; "" uses the user cache folder.
	CacheDir string
	// NoSandbox runs the children without bubblewrap even where it works
	// (-unsafe-no-sandbox).
	NoSandbox bool
	// RequireSandbox makes Grade fail where bubblewrap cannot run, instead
	// of going on without it (class grading).
	RequireSandbox bool
	// Notice receives the one line that says grading goes on without the
	// sandbox; nil discards it.
	Notice io.Writer `json:"-"`
	// Sanitizer is compute-sanitizer, when -sanitize found it: the CUDA
	// exercises then get the memcheck and racecheck checks.
	Sanitizer string
	// GPUs are the devices that grade the CUDA submissions, one child
	// each at a time (-gpus): a list such as "0,1,2,3", "all" (every
	// device the driver reports), or "" for the default device alone.
	GPUs string

	sandbox string // the bwrap program, or "" for none
	// skipStaticCheck builds submissions without the static check, for
	// the tests that show the sandbox and the trust boundary hold alone.
	skipStaticCheck bool
	// runTag, when set, is given to every child in its environment, so
	// that a test can find any process left of a run.
	runTag string
	// sandboxProbe, when set, replaces findSandbox (tests).
	sandboxProbe func() (string, error)
	// noPrune keeps every folder of the cache (class grading, where
	// several submissions are graded at once).
	noPrune bool
	// treeKey, when set, is a digest of the repository's files (class
	// grading): a test binary already in the cache under the same
	// repository, tree and submitted files is used without running the go
	// command.
	treeKey string
	// cudaChild, when set, replaces this program with -cuda-child as the
	// child of the GPU checks (tests).
	cudaChild []string
	// pool, when set, hands out the GPUs (class grading, where every
	// student's CUDA submissions share it); nil makes one from GPUs.
	pool *devicePool
}

// catalogue returns the exercises this program knows, with their checks
// (the hidden ones only when it was built with the tag).
func catalogue() []grading.Exercise { return catalogueWith(false) }

// catalogueWith is the catalogue, the CUDA exercises with the sanitizer's
// checks when sanitize.
func catalogueWith(sanitize bool) []grading.Exercise {
	return append(checks.All(), cudacheck.Exercises(sanitize)...)
}

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
	if cfg.Notice == nil {
		cfg.Notice = io.Discard
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
	all, err := selectExercises(catalogueWith(cfg.Sanitizer != ""), cfg.Only)
	if err != nil {
		return grading.Report{}, err
	}
	exs, cudaExs := splitCUDA(all)
	if len(cudaExs) > 0 && cfg.pool == nil {
		devs, err := resolveGPUs(cfg.GPUs)
		if err != nil {
			return grading.Report{}, err
		}
		cfg.pool = newDevicePool(devs)
	}
	goBin, err := exec.LookPath("go")
	if err != nil && len(exs) > 0 {
		return grading.Report{}, fmt.Errorf("the go command is needed to build the exercises: %w", err)
	}
	if len(exs) == 0 && (!cfg.Hidden || cudacheck.HiddenIncluded() || goBin == "") {
		// Only GPU exercises: neither go nor the sandbox is needed.
		results := gradeCUDA(cfg, cudaExs)
		for _, r := range results {
			if err := r.Validate(); err != nil {
				return grading.Report{}, fmt.Errorf("the grader's own result is inconsistent: %w", err)
			}
		}
		return grading.NewReport(cfg.Seed, results), nil
	}
	cache := cfg.CacheDir
	if cache == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			uc = os.TempDir()
		}
		cache = filepath.Join(uc, "stencillab-grade")
	}
	if !cfg.noPrune {
		pruneCache(cache, 12, 7*24*time.Hour)
	}
	if cfg.sandboxProbe == nil {
		cfg.sandboxProbe = findSandbox
	}
	if !cfg.NoSandbox {
		p, err := cfg.sandboxProbe()
		switch {
		case err == nil:
			cfg.sandbox = p
		case cfg.RequireSandbox:
			return grading.Report{}, fmt.Errorf("no sandbox: %w; -unsafe-no-sandbox grades without it", err)
		default:
			fmt.Fprintf(cfg.Notice, "grade: grading without a sandbox: %v\n", err)
			cfg.NoSandbox = true
		}
	}
	if cfg.Hidden && !checks.HiddenIncluded() && hasHiddenChecks(root) {
		// The checks run in this process: one built with the hidden
		// checks, from this repository alone, grades instead.
		cfg.CacheDir = cache
		return gradeTrusted(cfg, goBin, cache)
	}

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
		if st, err := jobs[i].overlay(cfg, work); err != nil {
			jobs[i].fail = err.Error()
			jobs[i].status = st
		}
		// The result an earlier run kept for the same files, repository,
		// seed and limits (class grading): neither built nor run again.
		if jobs[i].fail == "" && jobs[i].sources != nil {
			jobs[i].key = resultKey(cfg, e, jobs[i].sources)
			jobs[i].kept = loadResult(cfg, e, jobs[i].key)
		}
	}

	// Build two at a time: linking is the slow part and there are few cores.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, j := range jobs {
		if j.fail != "" || j.kept != nil {
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
		case j.kept != nil:
			r = *j.kept
		case j.fail != "":
			r = grading.Fail(j.ex, j.status, j.fail, cfg.Seed)
		default:
			r = j.run(cfg)
		}
		if err := r.Validate(); err != nil {
			return grading.Report{}, fmt.Errorf("the grader's own result is inconsistent: %w", err)
		}
		if j.kept == nil && j.key != "" && keptResult(r) {
			storeVerdict(cfg, j.key, r)
		}
		results = append(results, r)
	}
	results = append(results, gradeCUDA(cfg, cudaExs)...)
	for _, r := range results {
		if err := r.Validate(); err != nil {
			return grading.Report{}, fmt.Errorf("the grader's own result is inconsistent: %w", err)
		}
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
	sources     map[string][]byte       // every student file of the exercise, submitted or the repository's
	key         string                  // the key of its result among the verdicts kept (verdicts.go), or ""
	kept        *grading.ExerciseResult // the result an earlier run kept, or nil
}

// overlay reads the student files (the submission's, or the repository's
// own), refuses links, checks each file statically, copies the submitted
// ones into the private work folder and writes the -overlay file that
// builds the exercise with those copies. A refusal returns the status and
// the message the exercise scores 0 with.
func (j *job) overlay(cfg Config, work string) (grading.Status, error) {
	repl := map[string][]byte{}
	sources := map[string][]byte{} // every student file, submitted or the repository's, for the static check
	for _, f := range j.ex.Files {
		rel := filepath.ToSlash(filepath.Join("exercises", j.ex.ID, f))
		var b []byte
		var err error
		submitted := false
		switch p, ok := cfg.Overlay[rel]; {
		case ok:
			b, err = readRegular(p)
			submitted = true
		case cfg.Submission != "":
			b, err = submissionFile(cfg.Submission, j.ex.ID, f)
			submitted = true
		default:
			b, err = readRegular(filepath.Join(cfg.Root, filepath.FromSlash(rel)))
		}
		if err != nil {
			switch {
			case errors.Is(err, errLink):
				return grading.Rejected, fmt.Errorf("%s: %w", rel, err)
			case errors.Is(err, errMissing):
				return grading.Missing, err
			case refused(err):
				return grading.Rejected, fmt.Errorf("%s: %w", rel, err)
			}
			return grading.NotAvailable, err
		}
		sources[f] = b
		if submitted {
			repl[rel] = b
		}
	}
	j.sources = sources
	if !cfg.skipStaticCheck {
		if st, err := cachedStaticCheck(cfg, j.ex, sources); err != nil {
			return st, err
		}
	}
	if len(repl) == 0 {
		return "", nil
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
	dir := filepath.Join(work, j.ex.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return grading.NotAvailable, fmt.Errorf("a private copy of %s: %w", j.ex.ID, err)
	}
	for _, rel := range keys {
		b := repl[rel]
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
		cp := filepath.Join(dir, filepath.Base(rel))
		if err := os.WriteFile(cp, b, 0o600); err != nil {
			return grading.NotAvailable, fmt.Errorf("a private copy of %s: %w", rel, err)
		}
		ov.Replace[filepath.Join(cfg.Root, filepath.FromSlash(rel))] = cp
		if j.replaced == nil {
			j.replaced = map[string]string{}
		}
		j.replaced[cp] = rel
	}
	b, err := json.Marshal(ov)
	if err != nil {
		return grading.NotAvailable, fmt.Errorf("overlay for %s: %w", j.ex.ID, err)
	}
	j.overlayFile = filepath.Join(work, j.ex.ID+".overlay.json")
	j.overlayKey = hex.EncodeToString(h.Sum(nil))
	if err := os.WriteFile(j.overlayFile, b, 0o600); err != nil {
		return grading.NotAvailable, fmt.Errorf("overlay for %s: %w", j.ex.ID, err)
	}
	return "", nil
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
		return "does not compile:\n" + text, grading.BuildFailed
	default:
		return "the Go toolchain could not build the exercise (this is not a mistake in its code):\n" + text, grading.NotAvailable
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Dir(j.bin), now, now)
	return "", ""
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

// run starts the test binary as the child that serves calls to the
// student's functions (sandboxed when cfg.Sandbox), runs the exercise's
// checks here against it, and turns how the child ended into the
// exercise's status when it could not answer.
func (j *job) run(cfg Config) grading.ExerciseResult {
	callsR, callsW, err := os.Pipe()
	if err != nil {
		return grading.Fail(j.ex, grading.NotAvailable, fmt.Sprintf("cannot make a pipe: %v", err), cfg.Seed)
	}
	repliesR, repliesW, err := os.Pipe()
	if err != nil {
		callsR.Close()
		callsW.Close()
		return grading.Fail(j.ex, grading.NotAvailable, fmt.Sprintf("cannot make a pipe: %v", err), cfg.Seed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	cmd := childCommand(ctx, cfg, j.bin)
	cmd.ExtraFiles = []*os.File{callsR, repliesW} // descriptors 3 and 4
	var stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	setProcessGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		callsR.Close()
		callsW.Close()
		repliesR.Close()
		repliesW.Close()
		return grading.Fail(j.ex, grading.NotAvailable, fmt.Sprintf("cannot start the exercise's process: %v", err), cfg.Seed)
	}
	callsR.Close()
	repliesW.Close()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	// end stops the child: it closes the channel, waits a moment for the
	// child to leave by itself, then kills its process group.
	var endOnce sync.Once
	end := func(grace time.Duration) {
		endOnce.Do(func() {
			callsW.Close()
			select {
			case <-exited:
			case <-time.After(grace):
				killGroup(cmd)
				<-exited
			}
			repliesR.Close()
		})
	}
	defer end(0)

	client := grading.NewClient(callsW, repliesR)
	client.Diagnose = func(chanErr error) *grading.ChildFailure {
		end(2 * time.Second)
		if errors.Is(chanErr, grading.ErrMalformed) && ctx.Err() == nil {
			// What it sent was not a reply.
			return &grading.ChildFailure{Status: grading.Crashed, Message: fmt.Sprintf(
				"the submission wrote on the grader's channel something that is not a reply (%v) and was stopped: the channel carries only the outputs of the functions the grader calls, and the grader alone gives points", chanErr)}
		}
		return diagnose(cfg, ctx.Err() != nil, waitErr, stderr.String(), time.Since(start))
	}
	ex, err := checks.Remote(j.ex.ID, client)
	if err != nil {
		return grading.Fail(j.ex, grading.NotAvailable, err.Error(), cfg.Seed)
	}
	res := grading.Run(ex, grading.Options{Seed: cfg.Seed, CheckTimeout: min(grading.DefaultCheckTimeout, cfg.Timeout*3/4)})
	end(2 * time.Second)
	if res.Status != grading.Graded {
		fmt.Fprintf(cfg.Log, "grade: %s: %s; the process's last output:\n%s\n", j.ex.ID, res.Status, firstLines(stderr.String(), 30))
	}
	return res
}

// diagnose says why a child stopped answering, from how it ended and
// what it printed.
func diagnose(cfg Config, timedOut bool, err error, text string, elapsed time.Duration) *grading.ChildFailure {
	fail := func(s grading.Status, format string, args ...any) *grading.ChildFailure {
		return &grading.ChildFailure{Status: s, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case timedOut:
		return fail(grading.TimedOut, "did not finish within %v and was stopped: is there a loop that never ends, or a barrier that not every thread reaches?", cfg.Timeout)
	case outOfMemory(text):
		return fail(grading.OutOfMemory, "ran out of memory (the limit is %s): does it allocate in a loop without end, or far more than the grid needs?", formatSize(cfg.MemBytes))
	case strings.Contains(text, "all goroutines are asleep - deadlock"):
		return fail(grading.Crashed, "deadlock: every goroutine was blocked — does every thread of a block reach each barrier?")
	case strings.Contains(text, "panic: "):
		return fail(grading.Panicked, "panicked: %s", panicSummary(text))
	}
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err == nil {
		code = 0
	}
	detail := lastLines(text, cfg.Root, 6)
	if code == 0 {
		return fail(grading.Crashed, "the process exited with status 0 before reporting, after %v: does the code call os.Exit, or return from the program some other way? (%s)",
			elapsed.Round(time.Millisecond), detail)
	}
	return fail(grading.Crashed, "the process ended after %v with status %d before reporting: %s", elapsed.Round(time.Millisecond), code, detail)
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
