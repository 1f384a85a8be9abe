package grader

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
	"stencillab.dev/exercises/sandbox"
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
	// build, when not zero, replaces defaultBuildLimits (tests).
	build buildLimits
}

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
// submission graded has a folder of its own. It also keeps the folders
// within maxCacheBytes together (pruneCacheSize).
func pruneCache(cache string, keep int, maxAge time.Duration) {
	pruneCacheSize(cache, keep, maxAge, maxCacheBytes)
}

// maxCacheBytes bounds the folders of a cache together.
const maxCacheBytes = 4 << 30

// pruneCacheSize removes from cache the folders beyond the keep most
// recently used, those unused for longer than maxAge, and, least recently
// used first, those beyond maxBytes together. A folder's time is its last
// use (build touches it).
func pruneCacheSize(cache string, keep int, maxAge time.Duration, maxBytes int64) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	type dir struct {
		path string
		mod  time.Time
		size int64
	}
	var dirs []dir
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() {
			p := filepath.Join(cache, e.Name())
			dirs = append(dirs, dir{p, info.ModTime(), folderSize(p)})
		}
	}
	sort.Slice(dirs, func(a, b int) bool { return dirs[a].mod.After(dirs[b].mod) })
	var total int64
	for i, d := range dirs {
		total += d.size
		if i >= keep || time.Since(d.mod) > maxAge || (total > maxBytes && i > 0) {
			_ = os.RemoveAll(d.path)
		}
	}
}

// folderSize is the bytes of the regular files under p.
func folderSize(p string) int64 {
	var n int64
	_ = filepath.WalkDir(p, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
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
