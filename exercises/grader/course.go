package grader

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
)

// The commands of a course beyond grading: merge the parts of a class
// graded apart, export the gradebook into a learning-management system,
// find near-identical hand-ins.

// parseFlags parses args with fs, flags before or after the positional
// arguments, and returns the positional ones; false on a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, bool) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, false
		}
		if fs.NArg() == 0 {
			return pos, true
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// writeOut writes b to path through a temporary file, or to stdout when
// path is empty.
func writeOut(path string, stdout io.Writer, b []byte) error {
	if path == "" {
		_, err := stdout.Write(b)
		return err
	}
	return gradebook.WriteFileAtomic(path, b)
}

// readPart reads the gradebook of a part: a folder holding gradebook.json,
// or the file itself.
func readPart(p string) (*gradebook.Book, error) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, "gradebook.json")
	}
	return gradebook.Read(p)
}

// readVerifiedPart reads the gradebook of a part as readPart does, and
// believes it only with the grader's MAC (gradebook.ReadVerified).
func readVerifiedPart(p string) (*gradebook.Book, error) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, "gradebook.json")
	}
	return gradebook.ReadVerified(p)
}

// rederivePart checks a part against what the grader itself knows: its
// columns are exercises of the catalogue, with their titles and maximums
// (which replace the part's); every cell's maximum is its exercise's,
// its points from 0 to that maximum, and its result's points the cell's;
// an override is one of the instructor's overrides file (nil: none may
// be), with its points and reason. Anything else is refused, naming the
// part, the student and the exercise.
func rederivePart(name string, b *gradebook.Book, all []grading.Exercise, overrides map[[2]string]*Override) error {
	byID := map[string]grading.Exercise{}
	for _, e := range all {
		byID[e.ID] = e
	}
	where := gradebook.QuoteName(name)
	var cols []GradebookExercise
	for _, c := range b.Exercises {
		e, ok := byID[c.ID]
		if !ok {
			return fmt.Errorf("part %s: the column %s is no exercise of this grader", where, gradebook.QuoteName(c.ID))
		}
		if c.MaxPoints != e.MaxPoints() || c.Title != e.Title {
			return fmt.Errorf("part %s: the column %s has the maximum %d and title %s, the exercise %d and %s", where, e.ID, c.MaxPoints, gradebook.QuoteName(c.Title), e.MaxPoints(), gradebook.QuoteName(e.Title))
		}
		cols = append(cols, GradebookExercise{ID: e.ID, Title: e.Title, MaxPoints: e.MaxPoints()})
	}
	b.Exercises = cols
	for _, id := range b.StudentIDs() {
		s := b.Students[id]
		for ex, c := range s.Cells {
			e, ok := byID[ex]
			at := fmt.Sprintf("part %s: %s's cell %s", where, gradebook.QuoteName(id), gradebook.QuoteName(ex))
			switch {
			case c == nil:
				return fmt.Errorf("%s is empty", at)
			case !ok:
				return fmt.Errorf("%s: no exercise of this grader", at)
			case c.MaxPoints != e.MaxPoints():
				return fmt.Errorf("%s has the maximum %d, the exercise %d", at, c.MaxPoints, e.MaxPoints())
			case c.Points < 0 || c.Points > e.MaxPoints():
				return fmt.Errorf("%s has %d points, outside 0 to the maximum %d", at, c.Points, e.MaxPoints())
			case c.Result != nil && (c.Result.ID != ex || c.Result.MaxPoints != e.MaxPoints() || (c.State == StateGraded && c.Result.Points != c.Points)):
				return fmt.Errorf("%s does not agree with its own result (%d of %d points)", at, c.Result.Points, c.Result.MaxPoints)
			case c.Result != nil && c.Result.Validate() != nil:
				return fmt.Errorf("%s: %v", at, c.Result.Validate())
			case c.State != StateGraded && c.Points != 0:
				return fmt.Errorf("%s is not graded (%s) but has %d points", at, c.State, c.Points)
			}
			if c.Override != nil {
				o := overrides[[2]string{id, ex}]
				if o == nil || o.Points != c.Override.Points || o.Reason != c.Override.Reason {
					return fmt.Errorf("%s has an override (%d points) that the instructor's overrides file does not give: pass that file with -overrides", at, c.Override.Points)
				}
			}
		}
	}
	b.Recount()
	return nil
}

// runMerge is `grade merge -out DIR PART...`: it joins the gradebooks of
// the parts of a class graded with -shard (same seed, no student twice)
// and writes the gradebook, the feedback, the leaderboard and the summary
// into DIR, merging into a gradebook already there as a class run does.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "write the merged gradebook, feedback and leaderboard here")
	overridesPath := fs.String("overrides", "", "the instructor's overrides file (student, exercise, points, reason): the whole set, applied to the merged gradebook")
	extra := fs.Bool("extra-credit", false, "with -overrides: allow points above an exercise's maximum")
	allowRepo := fs.Bool(allowInRepoFlag, false, allowInRepoUsage)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: grade merge -out DIR [-overrides FILE [-extra-credit]] [-allow-in-repo] PART...  (each PART the -out folder of one -shard run, or its gradebook.json)")
		fs.PrintDefaults()
	}
	parts, ok := parseFlags(fs, args)
	if !ok {
		return 2
	}
	if *out == "" || len(parts) == 0 {
		fs.Usage()
		return 2
	}
	if *extra && *overridesPath == "" {
		fmt.Fprintln(stderr, "grade merge: -extra-credit needs -overrides: it allows points above the maximum in the overrides file")
		return 2
	}
	if err := refuseInRepo(*allowRepo, append([]coursePath{{"-out", *out}, {"-overrides", *overridesPath}}, coursePaths("the part", parts)...)...); err != nil {
		fmt.Fprintf(stderr, "grade merge: %v\n", err)
		return 2
	}
	var books []*gradebook.Book
	for _, p := range parts {
		b, err := readVerifiedPart(p)
		if err != nil {
			fmt.Fprintf(stderr, "grade merge: part %s: %v\n", p, err)
			return 1
		}
		books = append(books, b)
	}
	// The overrides name students of the parts, and of the gradebook
	// merged into.
	all := catalogueWith(true)
	var overrides map[[2]string]*Override
	if *overridesPath != "" {
		var ids []string
		if old, err := gradebook.ReadIfExists(*out); err == nil {
			ids = old.StudentIDs()
		}
		for _, b := range books {
			ids = append(ids, b.StudentIDs()...)
		}
		var err error
		if overrides, err = readOverrides(*overridesPath, ids, all, *extra); err != nil {
			fmt.Fprintf(stderr, "grade merge: %v\n", err)
			return 1
		}
	}
	for i, b := range books {
		// A part graded with -sanitize has the sanitizer's checks in its
		// CUDA exercises' maximums; one without, not.
		if err := rederivePart(parts[i], b, catalogueWith(false), overrides); err != nil {
			if err2 := rederivePart(parts[i], b, all, overrides); err2 != nil {
				fmt.Fprintf(stderr, "grade merge: %v\n", err)
				return 1
			}
		}
	}
	run, err := gradebook.MergeParts(books, parts)
	if err != nil {
		fmt.Fprintf(stderr, "grade %v\n", err)
		return 1
	}
	if err := mergeInto(*out, run, overrides, stdout); err != nil {
		fmt.Fprintf(stderr, "grade merge: %v\n", err)
		return 1
	}
	return 0
}

// mergeInto merges run into the gradebook in out (or a new one), makes
// overrides its whole set of overrides (nil: the gradebook's stay), and
// writes it with the feedback, the leaderboard and the summary.
func mergeInto(out string, run *gradebook.Book, overrides map[[2]string]*Override, summary io.Writer) error {
	book, err := gradebook.ReadIfExists(out)
	if err != nil {
		return fmt.Errorf("the existing gradebook.json: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(out, "feedback"), 0o755); err != nil {
		return fmt.Errorf("the output folder: %w", err)
	}
	book.Merge(run)
	if overrides != nil {
		applyOverrides(book, overrides)
	}
	var errs []error
	if err := publishLeaderboard(book); err != nil {
		errs = append(errs, err)
	}
	if err := book.Write(out); err != nil {
		errs = append(errs, err)
	}
	if err := writeLeaderboard(out, book); err != nil {
		errs = append(errs, err)
	}
	elapsed := 0.0
	for _, s := range run.Students {
		elapsed += s.Seconds
	}
	book.Summary(summary, run, time.Duration(elapsed*float64(time.Second)))
	return errors.Join(errs...)
}

// runExport is `grade export -format canvas|moodle|csv [-roster FILE]
// [-o FILE] DIR`: the gradebook in DIR as a file the LMS imports.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "", "canvas, moodle or csv")
	rosterPath := fs.String("roster", "", "the roster (id, then name, email, sis_id, section); default: the people recorded by the class run")
	outPath := fs.String("o", "", "write the file here (default: standard output)")
	allowRepo := fs.Bool(allowInRepoFlag, false, allowInRepoUsage)
	canvasCols := fs.String("canvas-columns", "", "with -format canvas: a map of exercises to Canvas assignment numbers (exercise,canvas_id; or Canvas's own gradebook export), kept in DIR for later exports, so that a column keeps its assignment across a renamed exercise")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: grade export -format canvas|moodle|csv [-roster FILE] [-canvas-columns FILE] [-o FILE] [-allow-in-repo] DIR  (DIR holds gradebook.json)")
		fs.PrintDefaults()
	}
	pos, ok := parseFlags(fs, args)
	if !ok {
		return 2
	}
	if len(pos) != 1 || !slices.Contains(gradebook.Formats, *format) {
		fs.Usage()
		return 2
	}
	if *canvasCols != "" && *format != gradebook.FormatCanvas {
		fmt.Fprintln(stderr, "grade export: -canvas-columns needs -format canvas: it maps exercises to Canvas's assignments")
		return 2
	}
	if err := refuseInRepo(*allowRepo, coursePath{"the gradebook", pos[0]}, coursePath{"-roster", *rosterPath}, coursePath{"-o", *outPath},
		coursePath{"-canvas-columns", *canvasCols}); err != nil {
		fmt.Fprintf(stderr, "grade export: %v\n", err)
		return 2
	}
	book, err := readPart(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "grade export: %v\n", err)
		return 1
	}
	if *format == gradebook.FormatCanvas {
		if err := canvasColumns(book, pos[0], *canvasCols); err != nil {
			fmt.Fprintf(stderr, "grade export: %v\n", err)
			return 1
		}
	}
	roster, err := readRoster(*rosterPath)
	if err != nil {
		fmt.Fprintf(stderr, "grade export: %v\n", err)
		return 1
	}
	if roster == nil {
		if roster, err = rosterOfBook(book); err != nil {
			fmt.Fprintf(stderr, "grade export: %v\n", err)
			return 1
		}
	}
	var b bytes.Buffer
	rep, err := book.Export(&b, *format, roster)
	if err != nil {
		fmt.Fprintf(stderr, "grade export: %v\n", err)
		return 1
	}
	if len(rep.NotListed) > 0 {
		fmt.Fprintf(stderr, "grade export: not in the roster, left out: %s\n", strings.Join(rep.NotListed, ", "))
	}
	if len(rep.NoHandIn) > 0 {
		fmt.Fprintf(stderr, "grade export: no hand-in, cells left empty: %s\n", strings.Join(rep.NoHandIn, ", "))
	}
	if len(rep.NoIdentifier) > 0 {
		fmt.Fprintf(stderr, "grade export: neither email nor ID number, left out (Moodle stops a whole import at one user it cannot find): %s\n", strings.Join(rep.NoIdentifier, ", "))
	}
	if len(rep.Maximums) > 0 {
		fmt.Fprintf(stderr, "grade export: Moodle's import does not set maximums (a new grade item is out of 100): create the grade items first, with these maximums: %s\n", strings.Join(rep.Maximums, "; "))
	}
	if err := writeOut(*outPath, stdout, b.Bytes()); err != nil {
		fmt.Fprintf(stderr, "grade export: %v\n", err)
		return 1
	}
	return 0
}

// canvasColumns gives the book the map of its exercises to Canvas's
// assignment numbers: read from file and kept in the gradebook's folder
// (gradebook.CanvasColumnsFile) when file is given, else the one kept
// there, if any.
func canvasColumns(book *gradebook.Book, dir, file string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = filepath.Dir(dir) // the gradebook.json named
	}
	if file == "" {
		m, err := gradebook.ReadCanvasColumnsIn(dir, book.Exercises)
		if err != nil {
			return err
		}
		book.SetCanvasColumns(m)
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("-canvas-columns: %w", err)
	}
	defer f.Close()
	m, err := gradebook.ReadCanvasColumns(f, book.Exercises)
	if err != nil {
		return fmt.Errorf("-canvas-columns %s: %w", file, err)
	}
	var b bytes.Buffer
	if err := gradebook.WriteCanvasColumns(&b, m); err != nil {
		return err
	}
	if err := gradebook.WriteFileAtomic(filepath.Join(dir, gradebook.CanvasColumnsFile), b.Bytes()); err != nil {
		return fmt.Errorf("keeping the Canvas column map beside the gradebook: %w", err)
	}
	book.SetCanvasColumns(m)
	return nil
}

// rosterOfBook is the roster the class run recorded in the gradebook
// (the whole roster, people without a hand-in too; from a gradebook of an
// earlier version, the people of its rows), or nil when it recorded none.
func rosterOfBook(book *gradebook.Book) (*gradebook.Roster, error) {
	if len(book.Roster) > 0 {
		r, err := gradebook.NewRoster(book.Roster)
		if err != nil {
			return nil, fmt.Errorf("the roster recorded in the gradebook: %w", err)
		}
		return r, nil
	}
	var people []*gradebook.Person
	for _, id := range book.StudentIDs() {
		if p := book.Students[id].Person; p != nil {
			people = append(people, p)
		}
	}
	if len(people) == 0 {
		return nil, nil
	}
	r, err := gradebook.NewRoster(people)
	if err != nil {
		return nil, fmt.Errorf("the roster recorded in the gradebook: %w", err)
	}
	return r, nil
}

// parseGPUs reads -gpus: "" (the default device), "all", or a list of
// device numbers such as 0,1,2,3, each at most once.
func parseGPUs(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 255 {
			return nil, fmt.Errorf("%q is not a device number from 0 to 255 (give a list such as 0,1,2,3, or all)", f)
		}
		if seen[n] {
			return nil, fmt.Errorf("device %d is named twice", n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// listWithHidden lists the exercises and their checks; in the instructor's
// tree, from a grader built with the hidden checks, so that their points
// are listed too.
func listWithHidden(cfg Config, exs []grading.Exercise, names []string, stdout, stderr io.Writer) int {
	root, err := findRoot(orDot(cfg.Root))
	goBin, lerr := exec.LookPath("go")
	if err != nil || lerr != nil || !cfg.Hidden || checks.HiddenIncluded() || !hasHiddenChecks(root) {
		listExercises(exs, stdout)
		return 0
	}
	cache := cfg.CacheDir
	if cache == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			uc = os.TempDir()
		}
		cache = filepath.Join(uc, "stencillab-grade")
	}
	bin, err := trustedBinary(root, goBin, cache)
	if err != nil {
		fmt.Fprintf(stderr, "grade: %v\n", err)
		return 1
	}
	args := []string{"-list", "-C", root}
	if cfg.Sanitizer != "" {
		args = append(args, "-sanitize")
	}
	cmd := exec.Command(bin, append(args, names...)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "grade: the grader with the hidden checks: %v\n", err)
		return 1
	}
	return 0
}

// notebookSubmission makes -submission grade a handed-in notebook as
// -class does: when the folder holds the exercises' notebook, its cells
// are extracted into a private folder, which is graded instead. It
// returns the function that removes that folder; *lines maps the files'
// lines back to the notebook's cells, for the messages.
func notebookSubmission(cfg *Config, exs []grading.Exercise, lines *handin.NotebookLines) (func(), error) {
	nb := filepath.Join(cfg.Submission, handin.NotebookName)
	if _, err := os.Lstat(nb); err != nil {
		return func() {}, nil
	}
	root, err := findRoot(orDot(cfg.Root))
	if err != nil {
		return nil, err
	}
	cells, err := handin.ReadNotebook(nb)
	if err != nil {
		return nil, fmt.Errorf("the notebook %s is refused: %w", handin.NotebookName, err)
	}
	tmp, err := os.MkdirTemp("", "grade-notebook-")
	if err != nil {
		return nil, fmt.Errorf("a folder for the notebook's files: %w", err)
	}
	if *lines, err = handin.ExtractNotebookLines(tmp, root, cells, exs); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	cfg.Submission = tmp
	return func() { os.RemoveAll(tmp) }, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
