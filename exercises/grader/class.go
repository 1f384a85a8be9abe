package grader

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

// Class grading: `grade -class DIR -out DIR` grades one folder per student
// (the student files, as in an exercises folder or a copy of the
// repository, or the notebook 09_exercises.ipynb), in parallel, with one
// seed for the whole class, and writes the gradebook (CSV and JSON) and
// one feedback file per student. No hand-in stops the run: an entry of the
// class folder that is not a student's folder, a link, an unreadable or
// oversized notebook gets a row of zeros with the reason; a folder whose
// name is not a valid id is graded under an id derived from it; a student
// the grader itself fails on gets empty cells; and the gradebook, the
// feedback and the summary are written for everyone graded.

// The gradebook's schema lives in package gradebook; these names keep
// the grader's code and tests short.
type (
	// Gradebook is gradebook.json.
	Gradebook = gradebook.Book
	// GradebookRun records one run of the class grading.
	GradebookRun = gradebook.Run
	// GradebookExercise is a column of the gradebook.
	GradebookExercise = gradebook.Exercise
	// Student is a row of the gradebook.
	Student = gradebook.Student
	// Cell is one student's result on one exercise.
	Cell = gradebook.Cell
	// Override is an instructor's score for a cell.
	Override = gradebook.Override
)

// Cell states in the gradebook (see package gradebook).
const (
	// StateGraded: the exercise was graded; its points count.
	StateGraded = gradebook.StateGraded
	// StateNeedsGPU: withheld until a run on a machine with a GPU.
	StateNeedsGPU = gradebook.StateNeedsGPU
	// StateError: the grader could not grade it; the cell is empty.
	StateError = gradebook.StateError
)

// GradebookVersion is the version of gradebook.json's format.
const GradebookVersion = gradebook.Version

// ClassConfig configures a class grading run.
type ClassConfig struct {
	Grade     Config // Root, Seed, Timeout, MemBytes, Hidden, NoSandbox, Only, CacheDir
	Class     string // one folder per student
	Out       string // gradebook.csv, gradebook.json, feedback/
	Jobs      int    // students graded at once
	Overrides string // CSV: student, exercise, points, reason; the whole set of overrides
	// ExtraCredit lets an override give more than the exercise's maximum.
	ExtraCredit bool
	// Roster is a CSV that maps hand-in folders to people (see
	// gradebook.ReadRoster); a folder named by an email address is a
	// student's only when the roster lists it.
	Roster string
	// Shard grades one part of the class: the students whose id falls in
	// part Shard.Index of Shard.Count (see gradebook.Shard.Has); the zero
	// value grades everyone.
	Shard    gradebook.Shard
	Progress io.Writer
	Summary  io.Writer

	// grade, when set, replaces Grade for each student (tests).
	grade func(Config) (grading.Report, error)
}

// cause is what an error of the file system says, without the path.
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// GradeClass grades every student of cfg.Class and writes the gradebook.
// It fails before grading anyone when it cannot grade at all (no sandbox,
// no class folder, an unreadable gradebook already in cfg.Out, a wrong
// overrides file). Once grading has begun, nothing a hand-in holds stops
// the run: the gradebook, the feedback and the summary are written for
// every student, and the error returned with the gradebook lists the
// students the grader itself failed on, and the files it could not write.
func GradeClass(cfg ClassConfig) (*Gradebook, error) {
	if cfg.Jobs < 1 {
		cfg.Jobs = 1
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.Summary == nil {
		cfg.Summary = io.Discard
	}
	if insideDir(cfg.Class, cfg.Out) {
		return nil, fmt.Errorf("the output folder %s lies inside the class folder %s, where a later run would take it for a student's folder: write the gradebook elsewhere", cfg.Out, cfg.Class)
	}
	gcfg := cfg.Grade
	if gcfg.Seed == 0 {
		gcfg.Seed = grading.NewSeed()
	}
	gcfg.RequireSandbox = !gcfg.NoSandbox
	if gcfg.Timeout <= 0 {
		gcfg.Timeout = defaultTimeout
	}
	if gcfg.MemBytes <= 0 {
		gcfg.MemBytes = 1 << 30
	}
	root, err := findRoot(orDot(gcfg.Root))
	if err != nil {
		return nil, err
	}
	gcfg.Root = root
	sandbox := false
	if gcfg.sandboxProbe == nil {
		gcfg.sandboxProbe = findSandbox
	}
	exs, err := selectExercises(catalogueWith(gcfg.Sanitizer != ""), gcfg.Only)
	if err != nil {
		return nil, err
	}
	// The sandbox is required whatever the exercises: a CUDA-only class
	// runs the student's text through NVRTC and the GPU in a child as
	// much as a Go class runs the student's Go code.
	if !gcfg.NoSandbox {
		if _, err := gcfg.sandboxProbe(); err != nil {
			return nil, fmt.Errorf("class grading needs the sandbox: %w; -unsafe-no-sandbox grades without it", err)
		}
		sandbox = true
	}
	if _, err := exec.LookPath("go"); err == nil && gcfg.Hidden && !checks.HiddenIncluded() && hasHiddenChecks(root) {
		return gradeClassTrusted(cfg, gcfg)
	}
	roster, err := readRoster(cfg.Roster)
	if err != nil {
		return nil, err
	}
	entries, ignored, needs, err := classEntriesOf(cfg.Class, cfg.Out, roster)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 && len(needs) == 0 {
		return nil, fmt.Errorf("the class folder %s holds no student's folder", cfg.Class)
	}
	// The gradebook already there is read before anyone is graded: one
	// that cannot be read stops the run now, not after it.
	book, err := gradebook.ReadIfExists(cfg.Out)
	if err != nil {
		return nil, fmt.Errorf("the existing gradebook.json: %w", err)
	}
	// Overrides may name any student of the class (also of another
	// shard) or of the gradebook, and any exercise.
	ids := book.StudentIDs()
	for _, e := range entries {
		ids = append(ids, e.id)
	}
	overrides, err := readOverrides(cfg.Overrides, ids, catalogueWith(gcfg.Sanitizer != ""), cfg.ExtraCredit)
	if err != nil {
		return nil, err
	}
	if cfg.Shard.Count > 0 {
		entries = shardEntries(entries, cfg.Shard)
		if len(entries) == 0 {
			fmt.Fprintf(cfg.Progress, "grade: part %s of the class holds no student\n", cfg.Shard)
		}
	}
	if err := os.MkdirAll(filepath.Join(cfg.Out, "feedback"), 0o755); err != nil {
		return nil, fmt.Errorf("the output folder: %w", err)
	}
	// The test binaries are kept between runs, one folder per repository
	// and submitted files: a second run of an unchanged class relinks
	// nothing. Nothing is pruned during the run, while other students'
	// binaries are in use; folders unused for two weeks are pruned before.
	cache, err := classCache(gcfg.CacheDir)
	if err != nil {
		return nil, err
	}
	gcfg.CacheDir = cache
	gcfg.noPrune = true
	if goBin, err := exec.LookPath("go"); err == nil && cfg.grade == nil {
		if gcfg.treeKey, err = classTreeDigest(root, goBin); err != nil {
			fmt.Fprintf(cfg.Progress, "grade: every test binary is checked by the go command: %v\n", err)
		}
	}
	// The CUDA submissions share the GPUs of -gpus, whatever -j.
	if _, cudaExs := splitCUDA(exs); len(cudaExs) > 0 && gcfg.pool == nil {
		devs, err := resolveGPUs(gcfg.GPUs)
		if err != nil {
			return nil, err
		}
		gcfg.pool = newDevicePool(devs)
		if len(devs) > 0 {
			fmt.Fprintf(cfg.Progress, "grade: the CUDA submissions are graded on %d GPU(s), one child each at a time: %s\n", len(devs), strings.Join(gcfg.pool.names(), ","))
		}
	}
	// The notebooks' extracted files are private to this run.
	work, err := os.MkdirTemp("", "grade-class-")
	if err != nil {
		return nil, fmt.Errorf("a work folder: %w", err)
	}
	defer os.RemoveAll(work)

	var cols []GradebookExercise
	for _, e := range exs {
		cols = append(cols, GradebookExercise{ID: e.ID, Title: e.Title, MaxPoints: e.MaxPoints()})
	}
	run := gradebook.New(cols)
	run.Seed = gcfg.Seed
	run.Runs = []GradebookRun{{Seed: gcfg.Seed, Started: time.Now().UTC().Format(time.RFC3339), Students: len(entries), Sandbox: sandbox, Shard: cfg.Shard.String()}}
	setRosterAndNeeds(run, roster, needs, cfg.Shard)
	var (
		mu    sync.Mutex
		done  int
		wg    sync.WaitGroup
		sem   = make(chan struct{}, cfg.Jobs)
		ferrs []error
	)
	start := time.Now()
	for _, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := gradeEntry(gcfg, e, exs, work, cfg.grade, sem)
			s.Person = e.person
			mu.Lock()
			defer mu.Unlock()
			done++
			run.Students[e.id] = s
			pts := 0
			for _, c := range s.Cells {
				pts += c.Points
			}
			switch {
			case err != nil:
				ferrs = append(ferrs, fmt.Errorf("%s: %w", e.id, err))
				fmt.Fprintf(cfg.Progress, "grade: [%d/%d] %s: not graded: %s\n", done, len(entries), e.id, firstLines(err.Error(), 1))
			case s.Source == gradebook.SourceRefused:
				fmt.Fprintf(cfg.Progress, "grade: [%d/%d] %s 0/%d, refused: %s\n", done, len(entries), e.id, s.MaxPoints, firstLines(s.RowNote(), 1))
			default:
				fmt.Fprintf(cfg.Progress, "grade: [%d/%d] %s %d/%d (%.1fs)\n", done, len(entries), e.id, pts, s.MaxPoints, s.Seconds)
			}
		}()
	}
	wg.Wait()
	werrs := finishClass(cfg, book, run, ignored, time.Since(start), overrides)
	sort.Slice(ferrs, func(a, b int) bool { return ferrs[a].Error() < ferrs[b].Error() })
	if len(ferrs) > 0 {
		werrs = append(werrs, fmt.Errorf("the grader failed on %d of %d students, whose cells are left empty for a later run: %w",
			len(ferrs), len(entries), errors.Join(ferrs...)))
	}
	return book, errors.Join(werrs...)
}

// finishClass merges run into book, sets the overrides (the whole set,
// when the run had an overrides file: nil leaves the book's as they are)
// and writes the gradebook, the feedback, the leaderboard and the
// summary; it returns the errors of the files it could not write.
func finishClass(cfg ClassConfig, book, run *Gradebook, ignored []string, elapsed time.Duration, overrides map[[2]string]*Override) []error {
	book.Merge(run)
	if overrides != nil {
		applyOverrides(book, overrides)
	}
	var werrs []error
	if err := publishLeaderboard(book); err != nil {
		werrs = append(werrs, err)
	}
	if err := book.Write(cfg.Out); err != nil {
		werrs = append(werrs, err)
	}
	if err := writeLeaderboard(cfg.Out, book); err != nil {
		werrs = append(werrs, err)
	}
	book.Summary(cfg.Summary, run, elapsed)
	for _, ig := range ignored {
		fmt.Fprintf(cfg.Summary, "Ignored: %s\n", ig)
	}
	return werrs
}

// setRosterAndNeeds records in run the roster (whose people without a
// hand-in an export lists) and the folders that need the instructor:
// these in part 0 alone of a class graded in parts, so that the merge
// lists them once.
func setRosterAndNeeds(run *Gradebook, roster *gradebook.Roster, needs []string, shard gradebook.Shard) {
	if roster != nil {
		run.Roster = roster.People
	}
	if shard.Count == 0 || shard.Index == 0 {
		run.Runs[0].NeedsInstructor = needs
	}
}

// writeUngraded writes the gradebook of a run that graded no one because
// the grader stopped (why): every student's cells are left empty for a
// later run, and the entries that are no student's folder are refused.
func writeUngraded(cfg ClassConfig, g Config, why string) (*Gradebook, error) {
	exs, err := selectExercises(catalogueWith(g.Sanitizer != ""), g.Only)
	if err != nil {
		return nil, err
	}
	roster, err := readRoster(cfg.Roster)
	if err != nil {
		return nil, err
	}
	entries, ignored, needs, err := classEntriesOf(cfg.Class, cfg.Out, roster)
	if err != nil {
		return nil, err
	}
	entries = shardEntries(entries, cfg.Shard)
	book, err := gradebook.ReadIfExists(cfg.Out)
	if err != nil {
		return nil, fmt.Errorf("the existing gradebook.json: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(cfg.Out, "feedback"), 0o755); err != nil {
		return nil, fmt.Errorf("the output folder: %w", err)
	}
	var cols []GradebookExercise
	for _, e := range exs {
		cols = append(cols, GradebookExercise{ID: e.ID, Title: e.Title, MaxPoints: e.MaxPoints()})
	}
	run := gradebook.New(cols)
	run.Seed = g.Seed
	run.Runs = []GradebookRun{{Seed: g.Seed, Started: time.Now().UTC().Format(time.RFC3339), Students: len(entries), Shard: cfg.Shard.String()}}
	setRosterAndNeeds(run, roster, needs, cfg.Shard)
	for _, e := range entries {
		s := failedStudent(g, e, exs, why)
		if e.refused != "" {
			s = refusedStudent(g, e, exs, e.refused)
		}
		if e.name != e.id {
			s.Folder = e.name
		}
		s.Person = e.person
		run.Students[e.id] = s
	}
	return book, errors.Join(finishClass(cfg, book, run, ignored, 0, nil)...)
}

// gradeEntry grades one entry of the class folder, its Go exercises
// while it holds a slot of cpu (-j), its CUDA exercises on the GPUs of
// cfg's pool. A hand-in refused as a whole is a row of zeros with the
// reason; an error is the grader's own failure (the cells are then
// StateError, empty), and a panic of the grader is one too. The
// student's seconds are those spent grading, not waiting for a slot or
// a GPU.
func gradeEntry(cfg Config, e classEntry, exs []grading.Exercise, cache string, grade func(Config) (grading.Report, error), cpu chan struct{}) (s *Student, err error) {
	start := time.Now()
	var waited time.Duration
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the grader panicked: %v\n%s", p, firstLines(string(debug.Stack()), 12))
		}
		if err != nil {
			// The student reads this: the first line, without the
			// grader's paths.
			why := strings.ReplaceAll(firstLines(err.Error(), 1), cfg.Root+string(filepath.Separator), "")
			s = failedStudent(cfg, e, exs, "the grader failed on this hand-in: "+why)
		}
		s.Seconds = (time.Since(start) - waited).Seconds()
		if e.name != e.id {
			s.Folder = e.name
		}
	}()
	if e.refused == "" {
		// Looked at again just before grading: an entry swapped for a
		// link since the class folder was listed is refused too.
		e.refused = refuseEntry(e.dir)
	}
	if e.refused != "" {
		return refusedStudent(cfg, e, exs, e.refused), nil
	}
	if grade == nil {
		grade = Grade
	}
	return gradeStudent(cfg, e, exs, cache, grade, cpu, &waited)
}

// refusedStudent is the row of a hand-in refused as a whole: every
// exercise graded 0 with the reason.
func refusedStudent(cfg Config, e classEntry, exs []grading.Exercise, why string) *Student {
	why = scrubber(Config{Root: cfg.Root, Submission: e.dir, CacheDir: cfg.CacheDir}).Replace(why)
	s := &Student{ID: e.id, Source: gradebook.SourceRefused, Note: why, Cells: map[string]*Cell{}}
	for _, ex := range exs {
		s.Cells[ex.ID] = gradebook.NewCell(grading.Fail(ex, grading.Rejected, "the hand-in was refused: "+why, cfg.Seed))
		s.MaxPoints += ex.MaxPoints()
	}
	return s
}

// failedStudent is the row of a student the grader failed on: every cell
// not graded (empty), for a later run to fill in.
func failedStudent(cfg Config, e classEntry, exs []grading.Exercise, why string) *Student {
	why = scrubber(Config{Root: cfg.Root, Submission: e.dir, CacheDir: cfg.CacheDir}).Replace(why)
	s := &Student{ID: e.id, Source: gradebook.SourceFiles, Cells: map[string]*Cell{}}
	for _, ex := range exs {
		s.Cells[ex.ID] = gradebook.NewCell(grading.Fail(ex, grading.NotAvailable, why, cfg.Seed))
		s.MaxPoints += ex.MaxPoints()
	}
	return s
}

// gradeClassTrusted runs the class grading in the grader built with the
// hidden checks (see trusted.go) and reads the gradebook it wrote, also
// when it failed on some students.
func gradeClassTrusted(cfg ClassConfig, g Config) (*Gradebook, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build the exercises: %w", err)
	}
	cache, err := classCache(g.CacheDir)
	if err != nil {
		return nil, err
	}
	bin, err := keptTrustedBinary(g.Root, goBin, cache)
	if err != nil {
		return nil, err
	}
	args := []string{"-class", cfg.Class, "-out", cfg.Out, "-j", strconv.Itoa(cfg.Jobs), "-seed", strconv.FormatUint(g.Seed, 10),
		"-timeout", g.Timeout.String(), "-mem", strconv.FormatInt(g.MemBytes, 10), "-C", g.Root, "-cache", cache}
	if cfg.Overrides != "" {
		args = append(args, "-overrides", cfg.Overrides)
	}
	if cfg.ExtraCredit {
		args = append(args, "-extra-credit")
	}
	if cfg.Roster != "" {
		args = append(args, "-roster", cfg.Roster)
	}
	if cfg.Shard.Count > 0 {
		args = append(args, "-shard", cfg.Shard.String())
	}
	if g.NoSandbox {
		args = append(args, "-unsafe-no-sandbox")
	}
	if g.Sanitizer != "" {
		args = append(args, "-sanitize")
	}
	if g.GPUs != "" {
		args = append(args, "-gpus", g.GPUs)
	}
	args = append(args, g.Only...)
	before, _ := gradebook.ReadIfExists(cfg.Out)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = cfg.Summary, cfg.Progress
	runErr := cmd.Run()
	if runErr != nil {
		runErr = fmt.Errorf("the grader with the hidden checks: %w", runErr)
	}
	book, err := gradebook.Read(filepath.Join(cfg.Out, "gradebook.json"))
	wrote := err == nil && (before == nil || len(book.Runs) > len(before.Runs))
	if wrote {
		return book, runErr
	}
	var ee *exec.ExitError
	if runErr != nil && !(errors.As(runErr, &ee) && ee.ExitCode() == 1) {
		// It stopped before writing (a crash, a kill), not because it
		// could not grade at all (status 1, said on its standard error):
		// the gradebook still gets a row for everyone, cells left empty.
		book, werr := writeUngraded(cfg, g, "the grader stopped before grading this hand-in: "+runErr.Error())
		return book, errors.Join(runErr, werr)
	}
	if err == nil {
		err = errors.New("the grader with the hidden checks wrote no gradebook")
	}
	return nil, errors.Join(runErr, err)
}

// classTreeDigest is treeDigest, which the tests replace with fixed keys
// where other work may change the repository between two runs.
var classTreeDigest = treeDigest

// keptTrustedBinary is trustedBinary, without running the go command
// when the grader it built last in cache was built from a tree with the
// same digest (treeDigest): its marker, written after the build, holds
// the digest.
func keptTrustedBinary(root, goBin, cache string) (string, error) {
	tree, terr := treeDigest(root, goBin)
	bin := filepath.Join(trustedDir(root, cache, cgoSetting(runtime.GOOS, runtime.GOARCH)), "grade") // as trustedBinary names it
	if terr == nil {
		if b, err := os.ReadFile(bin + ".tree"); err == nil && string(b) == tree {
			if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
				return bin, nil
			}
		}
	}
	// The marker goes first: a build that stops half way, or one from a
	// tree without a digest, leaves no marker naming another tree.
	_ = os.Remove(bin + ".tree")
	built, err := trustedBinary(root, goBin, cache)
	if err != nil {
		return "", err
	}
	if terr == nil && built == bin {
		_ = os.WriteFile(bin+".tree", []byte(tree), 0o600)
	}
	return built, nil
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// gradeStudent grades one student's folder: the exercise files, or the
// notebook when there is one. A notebook that cannot be read is the
// hand-in's fault: the row is refused with the reason. The Go exercises
// are graded while a slot of cpu is held (none when cpu is nil), then the
// CUDA ones, each on a GPU of cfg's pool; *waited grows by the time spent
// waiting for the slot.
func gradeStudent(cfg Config, e classEntry, exs []grading.Exercise, cache string, grade func(Config) (grading.Report, error), cpu chan struct{}, waited *time.Duration) (*Student, error) {
	s := &Student{ID: e.id, Source: gradebook.SourceFiles, Cells: map[string]*Cell{}}
	s.SHA256, s.Files = handedIn(e.dir, exs)
	cfg.Submission = e.dir
	nb := filepath.Join(e.dir, handin.NotebookName)
	var lines handin.NotebookLines
	if _, err := os.Lstat(nb); err == nil {
		cells, err := handin.ReadNotebook(nb)
		if err != nil {
			return refusedStudent(cfg, e, exs, handin.NotebookName+": "+err.Error()), nil
		}
		s.Source = gradebook.SourceNotebook
		tmp, err := os.MkdirTemp(cache, "notebook-")
		if err != nil {
			return nil, fmt.Errorf("a folder for the notebook's files: %w", err)
		}
		defer os.RemoveAll(tmp)
		if lines, err = handin.ExtractNotebookLines(tmp, cfg.Root, cells, exs); err != nil {
			return nil, err
		}
		cfg.Submission = tmp
	}
	var results []grading.ExerciseResult
	goExs, cudaExs := splitCUDA(exs)
	for i, part := range [][]grading.Exercise{goExs, cudaExs} {
		if len(part) == 0 {
			continue
		}
		if i == 1 && !hasCUDAFile(cfg.Submission, part) {
			// No CUDA file at all: the CUDA exercises are withheld, not
			// zero, and the total is out of what was graded.
			for _, ex := range part {
				r := grading.Fail(ex, grading.Missing, "the hand-in holds no CUDA file (.cu) of any CUDA exercise: withheld, not graded", cfg.Seed)
				s.Cells[ex.ID] = &Cell{State: gradebook.StateWithheld, MaxPoints: ex.MaxPoints(), Seed: cfg.Seed, Result: &r}
				s.MaxPoints += ex.MaxPoints()
			}
			continue
		}
		pcfg := cfg
		pcfg.Only = nil
		for _, ex := range part {
			pcfg.Only = append(pcfg.Only, ex.ID)
		}
		onCPU := i == 0 && cpu != nil
		t0 := time.Now()
		if onCPU {
			cpu <- struct{}{}
			*waited += time.Since(t0)
		}
		rep, err := grade(pcfg)
		if onCPU {
			<-cpu
		}
		if err != nil {
			return nil, err
		}
		if i == 1 {
			// The time of the CUDA part less the GPU checks' own: the
			// wait for a GPU.
			busy := 0.0
			for _, r := range rep.Exercises {
				busy += r.Metrics["seconds"]
			}
			if w := time.Since(t0) - time.Duration(busy*float64(time.Second)); busy > 0 && w > 0 {
				*waited += w
			}
		}
		results = append(results, rep.Exercises...)
	}
	for _, r := range results {
		lines.RewriteResult(&r) // messages name the notebook's cells and lines
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("the grader's own result is inconsistent: %w", err)
		}
		s.Cells[r.ID] = gradebook.NewCell(r)
		s.MaxPoints += r.MaxPoints
	}
	return s, nil
}

// hasCUDAFile reports whether the hand-in dir holds a file of any of the
// CUDA exercises exs (one refused, a link say, counts: it scores 0).
func hasCUDAFile(dir string, exs []grading.Exercise) bool {
	for _, ex := range exs {
		for _, f := range ex.Files {
			if _, err := submissionFile(dir, ex.ID, f); !errors.Is(err, errMissing) {
				return true // there, even if it is refused
			}
		}
	}
	return false
}

// classCache is the folder that keeps the class's test binaries between
// runs: dir, or stencillab-grade/class in the user cache folder. Folders
// unused for two weeks are pruned. A folder that others may write to, or
// that another user owns, is refused.
func classCache(dir string) (string, error) {
	if dir == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			uc = os.TempDir()
		}
		dir = filepath.Join(uc, "stencillab-grade", "class")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("the cache folder: %w", err)
	}
	// What the folder keeps (test binaries, verdicts) is run and believed:
	// a folder that others may write to, made before this run, is refused.
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("the cache folder: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return "", fmt.Errorf("the cache folder %s is writable by others (mode %04o): it keeps the binaries and verdicts a class run trusts, so it must be writable by its owner alone (chmod go-w)", dir, perm)
	}
	if ownedByOther(fi) {
		return "", fmt.Errorf("the cache folder %s belongs to another user, who may write to it: it keeps the binaries and verdicts a class run trusts, so it must be this user's own", dir)
	}
	pruneCache(dir, 1<<20, 14*24*time.Hour)
	return dir, nil
}
