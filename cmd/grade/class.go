package main

import (
	"encoding/csv"
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

// Class grading: `grade -class DIR -out DIR` grades one folder per student
// (the student files, as in an exercises folder or a copy of the
// repository, or the notebook 09_exercises.ipynb), in parallel, with one
// seed for the whole class, and writes the gradebook (CSV and JSON) and
// one feedback file per student.

// Cell states in the gradebook.
const (
	// StateGraded: the exercise was graded; its points count (0 for a
	// submission that failed, was refused or is missing).
	StateGraded = "graded"
	// StateNeedsGPU: the exercise can only be graded on a machine with a
	// GPU; its points are withheld (not zero) until a run there fills the
	// cell in.
	StateNeedsGPU = "needs_gpu"
	// StateError: the grader could not grade it (the toolchain, the
	// machine); the cell is empty until a later run grades it.
	StateError = "error"
)

// GradebookVersion is the version of gradebook.json's format.
const GradebookVersion = 1

// Gradebook is gradebook.json: every student's result per exercise. A
// later run with the same -out merges into it (see Merge).
type Gradebook struct {
	Version   int                 `json:"version"`
	Seed      uint64              `json:"seed"` // the seed of the latest run
	Runs      []GradebookRun      `json:"runs"`
	Exercises []GradebookExercise `json:"exercises"`
	Students  map[string]*Student `json:"students"`
}

// GradebookRun records one run of the class grading.
type GradebookRun struct {
	Seed     uint64 `json:"seed"`
	Started  string `json:"started"` // RFC 3339, UTC
	Students int    `json:"students"`
	Sandbox  bool   `json:"sandbox"`
}

// GradebookExercise is a column of the gradebook.
type GradebookExercise struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	MaxPoints int    `json:"max_points"`
}

// Student is a row of the gradebook.
type Student struct {
	ID        string           `json:"id"`
	Source    string           `json:"source"` // "files" or "notebook"
	Points    int              `json:"points"` // graded cells, overrides applied
	MaxPoints int              `json:"max_points"`
	Complete  bool             `json:"complete"` // every cell graded
	Seconds   float64          `json:"seconds"`  // time of the latest run
	Cells     map[string]*Cell `json:"cells"`
}

// Cell is one student's result on one exercise.
type Cell struct {
	State     string                  `json:"state"` // graded, needs_gpu or error
	Points    int                     `json:"points"`
	MaxPoints int                     `json:"max_points"`
	Seed      uint64                  `json:"seed"`
	Result    *grading.ExerciseResult `json:"result,omitempty"`
	Override  *Override               `json:"override,omitempty"`
}

// Override is an instructor's score for a cell, replacing the grader's.
type Override struct {
	Points int    `json:"points"`
	Reason string `json:"reason"`
	Was    int    `json:"was"` // the grader's points
}

// stateOf is the gradebook state of an exercise's result.
func stateOf(r grading.ExerciseResult) string {
	switch r.Status {
	case grading.NotAvailable:
		return StateError
	case grading.NeedsGPU:
		return StateNeedsGPU
	}
	return StateGraded
}

// Merge puts the cells of run into g: a graded cell replaces what was
// there; a needs_gpu or error cell replaces only a cell that is not
// graded, so that a later run on another machine can fill in what an
// earlier one withheld without losing what it graded. Overrides stay.
func (g *Gradebook) Merge(run *Gradebook) {
	if g.Students == nil {
		g.Students = map[string]*Student{}
	}
	g.Version, g.Seed = GradebookVersion, run.Seed
	g.Runs = append(g.Runs, run.Runs...)
	have := map[string]bool{}
	for _, e := range g.Exercises {
		have[e.ID] = true
	}
	for _, e := range run.Exercises {
		if !have[e.ID] {
			g.Exercises = append(g.Exercises, e)
		} else {
			for i := range g.Exercises {
				if g.Exercises[i].ID == e.ID {
					g.Exercises[i] = e
				}
			}
		}
	}
	sort.Slice(g.Exercises, func(a, b int) bool { return g.Exercises[a].ID < g.Exercises[b].ID })
	for id, s := range run.Students {
		old, ok := g.Students[id]
		if !ok {
			g.Students[id] = s
			continue
		}
		old.Source, old.Seconds = s.Source, s.Seconds
		for ex, c := range s.Cells {
			prev, ok := old.Cells[ex]
			if ok && prev.State == StateGraded && c.State != StateGraded {
				continue
			}
			if ok && prev.Override != nil && c.Override == nil {
				c.Override = prev.Override
			}
			old.Cells[ex] = c
		}
	}
	g.total()
}

// total recomputes every student's points from the cells.
func (g *Gradebook) total() {
	for _, s := range g.Students {
		s.Points, s.MaxPoints, s.Complete = 0, 0, true
		for _, e := range g.Exercises {
			s.MaxPoints += e.MaxPoints
			c, ok := s.Cells[e.ID]
			if !ok || c.State != StateGraded {
				s.Complete = false
				if !ok || c.Override == nil {
					continue
				}
			}
			s.Points += c.score()
		}
	}
}

// score is the cell's points, the override's when there is one.
func (c *Cell) score() int {
	if c.Override != nil {
		return c.Override.Points
	}
	return c.Points
}

// ClassConfig configures a class grading run.
type ClassConfig struct {
	Grade     Config // Root, Seed, Timeout, MemBytes, Hidden, NoSandbox, Only
	Class     string // one folder per student
	Out       string // gradebook.csv, gradebook.json, feedback/
	Jobs      int    // students graded at once
	Overrides string // CSV: student, exercise, points, reason
	Progress  io.Writer
	Summary   io.Writer
}

var studentIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// GradeClass grades every student of cfg.Class and writes the gradebook.
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
	gcfg := cfg.Grade
	if gcfg.Seed == 0 {
		gcfg.Seed = grading.NewSeed()
	}
	gcfg.RequireSandbox = !gcfg.NoSandbox
	if gcfg.Timeout <= 0 {
		gcfg.Timeout = 60 * time.Second
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
	if goExs, _ := splitCUDA(exs); len(goExs) == 0 {
		// Only GPU exercises: the student's code is CUDA C, run by the
		// GPU checks' own child; no Go code of the student's runs.
		gcfg.NoSandbox, gcfg.RequireSandbox = true, false
	}
	if !gcfg.NoSandbox {
		if _, err := gcfg.sandboxProbe(); err != nil {
			return nil, fmt.Errorf("class grading needs the sandbox: %w; -unsafe-no-sandbox grades without it", err)
		}
		sandbox = true
	}
	if _, err := exec.LookPath("go"); err == nil && gcfg.Hidden && !checks.HiddenIncluded() && hasHiddenChecks(root) {
		return gradeClassTrusted(cfg, gcfg)
	}
	entries, err := os.ReadDir(cfg.Class)
	if err != nil {
		return nil, fmt.Errorf("the class folder: %w", err)
	}
	var students []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("the class folder holds %s, which is not a student's folder (links are refused)", e.Name())
		}
		if !studentIDRE.MatchString(e.Name()) {
			return nil, fmt.Errorf("the class folder holds %q: a student's folder is named with letters, digits, '.', '_' and '-'", e.Name())
		}
		students = append(students, e.Name())
	}
	if len(students) == 0 {
		return nil, fmt.Errorf("the class folder %s holds no student's folder", cfg.Class)
	}
	overrides, err := readOverrides(cfg.Overrides, students, exs)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(cfg.Out, "feedback"), 0o755); err != nil {
		return nil, fmt.Errorf("the output folder: %w", err)
	}
	// One private cache for the class: the binaries of one run are never
	// pruned while another student's are in use.
	cache, err := os.MkdirTemp("", "grade-class-")
	if err != nil {
		return nil, fmt.Errorf("a cache folder: %w", err)
	}
	defer os.RemoveAll(cache)
	gcfg.CacheDir = cache
	gcfg.noPrune = true

	run := &Gradebook{Version: GradebookVersion, Seed: gcfg.Seed, Students: map[string]*Student{},
		Runs: []GradebookRun{{Seed: gcfg.Seed, Started: time.Now().UTC().Format(time.RFC3339), Students: len(students), Sandbox: sandbox}}}
	for _, e := range exs {
		run.Exercises = append(run.Exercises, GradebookExercise{ID: e.ID, Title: e.Title, MaxPoints: e.MaxPoints()})
	}
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		sem  = make(chan struct{}, cfg.Jobs)
		ferr error
	)
	start := time.Now()
	for _, id := range students {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			s, err := gradeStudent(gcfg, filepath.Join(cfg.Class, id), id, exs, cache)
			mu.Lock()
			defer mu.Unlock()
			done++
			if err != nil {
				ferr = errors.Join(ferr, fmt.Errorf("%s: %w", id, err))
				fmt.Fprintf(cfg.Progress, "grade: [%d/%d] %s: %v\n", done, len(students), id, err)
				return
			}
			run.Students[id] = s
			pts := 0
			for _, c := range s.Cells {
				pts += c.Points
			}
			fmt.Fprintf(cfg.Progress, "grade: [%d/%d] %s %d/%d (%.1fs)\n", done, len(students), id, pts, s.MaxPoints, s.Seconds)
		}()
	}
	wg.Wait()
	if ferr != nil {
		return nil, ferr
	}
	for key, o := range overrides {
		c := run.Students[key[0]].Cells[key[1]]
		o.Was = c.Points
		c.Override = o
	}
	book := &Gradebook{}
	if b, err := os.ReadFile(filepath.Join(cfg.Out, "gradebook.json")); err == nil {
		if err := json.Unmarshal(b, book); err != nil {
			return nil, fmt.Errorf("the existing gradebook.json: %w", err)
		}
		if book.Version != GradebookVersion {
			return nil, fmt.Errorf("the existing gradebook.json has version %d, not %d", book.Version, GradebookVersion)
		}
	}
	book.Merge(run)
	if err := book.write(cfg.Out); err != nil {
		return nil, err
	}
	if err := writeLeaderboard(cfg.Out, book); err != nil {
		return nil, err
	}
	book.summary(cfg.Summary, run, time.Since(start))
	return book, nil
}

// gradeClassTrusted runs the class grading in the grader built with the
// hidden checks (see trusted.go) and reads the gradebook it wrote.
func gradeClassTrusted(cfg ClassConfig, g Config) (*Gradebook, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build the exercises: %w", err)
	}
	cache := g.CacheDir
	if cache == "" {
		if cache, err = os.MkdirTemp("", "grade-trusted-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(cache)
	}
	bin, err := trustedBinary(g.Root, goBin, cache)
	if err != nil {
		return nil, err
	}
	args := []string{"-class", cfg.Class, "-out", cfg.Out, "-j", strconv.Itoa(cfg.Jobs), "-seed", strconv.FormatUint(g.Seed, 10),
		"-timeout", g.Timeout.String(), "-mem", strconv.FormatInt(g.MemBytes, 10), "-C", g.Root}
	if cfg.Overrides != "" {
		args = append(args, "-overrides", cfg.Overrides)
	}
	if g.NoSandbox {
		args = append(args, "-unsafe-no-sandbox")
	}
	if g.Sanitizer != "" {
		args = append(args, "-sanitize")
	}
	args = append(args, g.Only...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = cfg.Summary, cfg.Progress
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("the grader with the hidden checks: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Out, "gradebook.json"))
	if err != nil {
		return nil, err
	}
	book := &Gradebook{}
	if err := json.Unmarshal(b, book); err != nil {
		return nil, fmt.Errorf("gradebook.json: %w", err)
	}
	return book, nil
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// gradeStudent grades one student's folder.
func gradeStudent(cfg Config, dir, id string, exs []grading.Exercise, cache string) (*Student, error) {
	start := time.Now()
	s := &Student{ID: id, Source: "files", Cells: map[string]*Cell{}}
	cfg.Submission = dir
	nb := filepath.Join(dir, notebookName)
	if _, err := os.Lstat(nb); err == nil {
		s.Source = "notebook"
		tmp, err := os.MkdirTemp(cache, "notebook-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		if err := extractNotebook(cfg.Root, nb, tmp, exs); err != nil {
			return nil, err
		}
		cfg.Submission = tmp
	}
	rep, err := Grade(cfg)
	if err != nil {
		return nil, err
	}
	s.Seconds = time.Since(start).Seconds()
	for _, r := range rep.Exercises {
		r := r
		st := stateOf(r)
		c := &Cell{State: st, Points: r.Points, MaxPoints: r.MaxPoints, Seed: r.Seed, Result: &r}
		if st == StateNeedsGPU {
			c.Points = 0
		}
		s.Cells[r.ID] = c
		s.MaxPoints += r.MaxPoints
	}
	return s, nil
}

// readOverrides reads the overrides CSV (student, exercise, points,
// reason; a first line "student,…" is a header). Exercises are named as
// on the command line.
func readOverrides(path string, students []string, exs []grading.Exercise) (map[[2]string]*Override, error) {
	out := map[[2]string]*Override{}
	if path == "" {
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("overrides: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 4
	r.TrimLeadingSpace = true
	known := map[string]bool{}
	for _, s := range students {
		known[s] = true
	}
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("overrides: %w", err)
		}
		if line == 1 && strings.EqualFold(rec[0], "student") {
			continue
		}
		where := fmt.Sprintf("overrides %s:%d", filepath.Base(path), line)
		if !known[rec[0]] {
			return nil, fmt.Errorf("%s: no student %q in the class", where, rec[0])
		}
		sel, err := selectExercises(exs, []string{rec[1]})
		if err != nil || len(sel) != 1 {
			return nil, fmt.Errorf("%s: no exercise %q", where, rec[1])
		}
		pts, err := strconv.Atoi(rec[2])
		if err != nil || pts < 0 || pts > sel[0].MaxPoints() {
			return nil, fmt.Errorf("%s: points %q: must be a whole number from 0 to %d, the exercise's maximum", where, rec[2], sel[0].MaxPoints())
		}
		if strings.TrimSpace(rec[3]) == "" {
			return nil, fmt.Errorf("%s: an override needs a reason", where)
		}
		out[[2]string{rec[0], sel[0].ID}] = &Override{Points: pts, Reason: rec[3]}
	}
	return out, nil
}

// studentIDs returns the students in order.
func (g *Gradebook) studentIDs() []string {
	ids := make([]string, 0, len(g.Students))
	for id := range g.Students {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// write writes gradebook.json, gradebook.csv and feedback/STUDENT.md.
func (g *Gradebook) write(out string) error {
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return fmt.Errorf("gradebook.json: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(out, "gradebook.json"), append(b, '\n')); err != nil {
		return err
	}
	var csvb strings.Builder
	w := csv.NewWriter(&csvb)
	header := []string{"student"}
	for _, e := range g.Exercises {
		header = append(header, e.ID)
	}
	header = append(header, "total", "max_points")
	_ = w.Write(header)
	for _, id := range g.studentIDs() {
		s := g.Students[id]
		row := []string{id}
		for _, e := range g.Exercises {
			c, ok := s.Cells[e.ID]
			switch {
			case !ok || (c.State != StateGraded && c.Override == nil):
				row = append(row, "") // withheld or not graded: empty, not 0
			default:
				row = append(row, strconv.Itoa(c.score()))
			}
		}
		row = append(row, strconv.Itoa(s.Points), strconv.Itoa(s.MaxPoints))
		_ = w.Write(row)
	}
	w.Flush()
	if err := writeFileAtomic(filepath.Join(out, "gradebook.csv"), []byte(csvb.String())); err != nil {
		return err
	}
	for _, id := range g.studentIDs() {
		if err := writeFileAtomic(filepath.Join(out, "feedback", id+".md"), []byte(g.feedback(g.Students[id]))); err != nil {
			return err
		}
	}
	return nil
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// feedback is a student's feedback file: each exercise's points, status
// and message, and each check's points and message.
func (g *Gradebook) feedback(s *Student) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Feedback for %s\n\n", s.ID)
	state := ""
	if !s.Complete {
		state = " (some exercises are not graded yet)"
	}
	fmt.Fprintf(&b, "Total: %d/%d%s\n", s.Points, s.MaxPoints, state)
	for _, e := range g.Exercises {
		c, ok := s.Cells[e.ID]
		if !ok {
			fmt.Fprintf(&b, "\n## %s %s: not graded\n", e.ID, e.Title)
			continue
		}
		switch c.State {
		case StateNeedsGPU:
			fmt.Fprintf(&b, "\n## %s %s: –/%d, to be graded on a machine with a GPU\n", e.ID, e.Title, c.MaxPoints)
		case StateError:
			fmt.Fprintf(&b, "\n## %s %s: –/%d, not graded: the grader could not run it\n", e.ID, e.Title, c.MaxPoints)
		default:
			fmt.Fprintf(&b, "\n## %s %s: %d/%d\n", e.ID, e.Title, c.score(), c.MaxPoints)
		}
		if c.Override != nil {
			fmt.Fprintf(&b, "\nOverride by the instructor: %d/%d instead of %d. %s\n", c.Override.Points, c.MaxPoints, c.Override.Was, c.Override.Reason)
		}
		if c.Result == nil {
			continue
		}
		r := c.Result
		if r.Status != grading.Graded {
			fmt.Fprintf(&b, "\nStatus: %s. %s\n", r.Status, r.Message)
		}
		b.WriteString("\n| check | points | result |\n| --- | --- | --- |\n")
		for _, ch := range r.Checks {
			msg := ch.Message
			if ch.Passed {
				msg = "ok: " + ch.Title
			}
			hidden := ""
			if ch.Hidden {
				hidden = " (hidden)"
			}
			fmt.Fprintf(&b, "| %s%s | %d/%d | %s |\n", ch.ID, hidden, ch.Points, ch.MaxPoints, mdCell(msg))
		}
		fmt.Fprintf(&b, "\nSeed %d.\n", c.Seed)
	}
	return b.String()
}

// mdCell makes text fit a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", "<br>")
}

// summary writes the run's summary: the students, each exercise's mean and
// distribution, the slowest submission.
func (g *Gradebook) summary(w io.Writer, run *Gradebook, elapsed time.Duration) {
	ids := run.studentIDs()
	fmt.Fprintf(w, "Graded %d students in %v (seed %d; -seed %d repeats these inputs)\n", len(ids), elapsed.Round(time.Second), run.Seed, run.Seed)
	fmt.Fprintf(w, "%-20s %6s %6s  %s\n", "exercise", "max", "mean", "distribution (points: students)")
	for _, e := range g.Exercises {
		counts := map[int]int{}
		sum, n, withheld := 0, 0, 0
		for _, id := range ids {
			c, ok := g.Students[id].Cells[e.ID]
			if !ok || (c.State != StateGraded && c.Override == nil) {
				withheld++
				continue
			}
			counts[c.score()]++
			sum += c.score()
			n++
		}
		var keys []int
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		var dist []string
		for _, k := range keys {
			dist = append(dist, fmt.Sprintf("%d: %d", k, counts[k]))
		}
		mean := "–"
		if n > 0 {
			mean = fmt.Sprintf("%.2f", float64(sum)/float64(n))
		}
		extra := ""
		if withheld > 0 {
			extra = fmt.Sprintf("; %d not graded", withheld)
		}
		fmt.Fprintf(w, "%-20s %6d %6s  %s%s\n", e.ID, e.MaxPoints, mean, strings.Join(dist, ", "), extra)
	}
	slow, secs := "", -1.0
	for _, id := range ids {
		if s := run.Students[id]; s.Seconds > secs {
			slow, secs = id, s.Seconds
		}
	}
	fmt.Fprintf(w, "Slowest submission: %s, %.1f s\n", slow, secs)
}
