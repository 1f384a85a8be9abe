package grader

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
)

// defaultTimeout is the wall-clock limit of one exercise's process when
// Config.Timeout is 0 (the tests raise it to their deadline: see TestMain).
var defaultTimeout = 60 * time.Second

// toolTimeout bounds the grader's own tool runs on the instructor's tree,
// never a student's process: the static check's type-check, the build of
// the trusted grader and of a bundle's. They end on their own; the limit
// only keeps a wedged toolchain from holding a class run for ever (the
// tests raise it to their deadline: see TestMain).
var toolTimeout = 10 * time.Minute

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
	// build, when not zero, replaces defaultBuildLimits (tests).
	build buildLimits
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
	// Links resolved: the go command works in the real folder, and an
	// overlay keyed by a path through a link would be silently ignored
	// (the repository's file graded instead of the student's).
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
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
	rep, err := gradeUnscrubbed(cfg)
	if err != nil {
		return rep, err
	}
	scrubReport(cfg, &rep)
	return rep, nil
}

// scrubReport removes from every message of rep, which the student reads,
// the paths of this machine: the repository's (as given, and with its
// links resolved, which leaves a path relative to it), the student's own
// hand-in folder, the caches, the temporary folder and the home folder,
// and the machine's name.
func scrubReport(cfg Config, rep *grading.Report) {
	r := scrubber(cfg)
	for i := range rep.Exercises {
		e := &rep.Exercises[i]
		e.Message = r.Replace(e.Message)
		for k := range e.Checks {
			e.Checks[k].Message = r.Replace(e.Checks[k].Message)
		}
	}
}

// scrubber replaces the paths of this machine that cfg knows of, and the
// machine's name, in a message for a student (see scrubReport).
func scrubber(cfg Config) *strings.Replacer {
	var pairs []string
	add := func(p, with string) {
		if p == "" || p == "/" || p == "." {
			return
		}
		pairs = append(pairs, p+string(filepath.Separator), with, p, strings.TrimSuffix(with, "/"))
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			pairs = append(pairs, r+string(filepath.Separator), with, r, strings.TrimSuffix(with, "/"))
		}
	}
	root := cfg.Root
	if r, err := findRoot(orDot(root)); err == nil {
		root = r
	}
	add(root, "")
	add(cfg.Submission, "")
	add(cfg.CacheDir, "<cache>/")
	if uc, err := os.UserCacheDir(); err == nil {
		add(uc, "<cache>/")
	}
	add(goCacheDir, "<cache>/")
	add(os.TempDir(), "<tmp>/")
	if home, err := os.UserHomeDir(); err == nil {
		add(home, "<home>/")
	}
	if h, err := os.Hostname(); err == nil && len(h) >= 4 {
		pairs = append(pairs, h, "<host>")
	}
	// The longest first, so that a path inside another is replaced whole.
	type pr struct{ from, to string }
	var ps []pr
	for i := 0; i+1 < len(pairs); i += 2 {
		ps = append(ps, pr{pairs[i], pairs[i+1]})
	}
	sort.SliceStable(ps, func(a, b int) bool { return len(ps[a].from) > len(ps[b].from) })
	flat := make([]string, 0, 2*len(ps))
	for _, p := range ps {
		flat = append(flat, p.from, p.to)
	}
	return strings.NewReplacer(flat...)
}

// gradeUnscrubbed is Grade, before the machine's paths are removed from
// the messages.
func gradeUnscrubbed(cfg Config) (grading.Report, error) {
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
		cfg.Timeout = defaultTimeout
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
