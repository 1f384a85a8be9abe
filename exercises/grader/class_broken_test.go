package grader

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
	"stencillab.dev/internal/testlimit"
)

// A class in which hand-ins are broken in every way a folder can be: the
// run never stops for one of them. Each broken entry gets a row of zeros
// with the reason (or, when only one file is broken, a 0 on that
// exercise), every other student is graded, and the gradebook, the
// feedback and the summary are written, also for the students the grader
// itself fails on.

// brokenClass is what a class folder holds and what each entry must score.
type brokenClass struct {
	dir  string
	want map[string]wantRow // by folder name
}

type wantRow struct {
	points  []int  // per exercise; -1 for a cell left empty (the grader failed)
	refused string // a phrase of the reason when the hand-in is refused as a whole
}

// writeHonest writes the instructor's files of the exercises into dir, in
// the layout of a copy of the repository.
func writeHonest(t *testing.T, root, dir string, ids ...string) {
	for _, id := range ids {
		copyExercise(t, root, filepath.Join(dir, "exercises"), id, false)
	}
}

// figuresNotebook is the instructor's notebook with a PNG output of the
// given size on every code cell, as an honest student's notebook with
// figures is.
func figuresNotebook(t *testing.T, root string, imageBytes int, rng *rand.Rand) []byte {
	b, err := os.ReadFile(filepath.Join(root, "notebooks", handin.NotebookName))
	require.NoError(t, err)
	var nb map[string]any
	require.NoError(t, json.Unmarshal(b, &nb))
	img := make([]byte, imageBytes)
	for i := range img {
		img[i] = byte(rng.IntN(256))
	}
	for _, c := range nb["cells"].([]any) {
		cell := c.(map[string]any)
		if cell["cell_type"] == "code" {
			cell["outputs"] = []any{map[string]any{"output_type": "display_data", "metadata": map[string]any{},
				"data": map[string]any{"image/png": img, "text/plain": "<Figure>"}}}
		}
	}
	out, err := json.Marshal(nb)
	require.NoError(t, err)
	return out
}

// makeBrokenClass builds the class in a temporary folder: links and FIFOs
// are made here, never committed.
func makeBrokenClass(t *testing.T, root string, only []string, rng *rand.Rand) brokenClass {
	class := t.TempDir()
	c := brokenClass{dir: class, want: map[string]wantRow{}}
	n := len(only)
	full := func() []int {
		p := make([]int, n)
		for i, id := range only {
			p[i] = findExercise(t, id).MaxPoints()
		}
		return p
	}
	zeros := func() []int { return make([]int, n) }
	mk := func(name string) string {
		d := filepath.Join(class, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		return d
	}
	// first is the first exercise's student file in folder d.
	first := func(d string) string {
		e := findExercise(t, only[0])
		p := filepath.Join(d, "exercises", e.ID, e.Files[0])
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		return p
	}
	firstZero := func() []int { p := full(); p[0] = 0; return p }

	writeHonest(t, root, mk("honest"), only...)
	c.want["honest"] = wantRow{points: full()}

	// Folder names that are not ids: graded under an id derived from them.
	for _, name := range []string{"Jane Doe", "=HYPERLINK(\"http:\\\\evil\")", "<img src=x onerror=alert(1)>", "-rf", "josé\nmarkup`|", "ansi\x1b]0;owned\x07\x1b[2J"} {
		writeHonest(t, root, mk(name), only...)
		c.want[name] = wantRow{points: full()}
	}

	// Entries that are not a student's folder.
	require.NoError(t, os.WriteFile(filepath.Join(class, "stray.txt"), []byte("notes"), 0o644))
	c.want["stray.txt"] = wantRow{points: zeros(), refused: "is a file"}
	require.NoError(t, os.Symlink(filepath.Join(class, "honest"), filepath.Join(class, "link-to-honest")))
	c.want["link-to-honest"] = wantRow{points: zeros(), refused: "symbolic link"}
	require.NoError(t, os.Symlink(filepath.Join(root, "exercises"), filepath.Join(class, "link-to-solutions")))
	c.want["link-to-solutions"] = wantRow{points: zeros(), refused: "symbolic link"}
	if err := mkfifo(filepath.Join(class, "fifo")); err == nil {
		c.want["fifo"] = wantRow{points: zeros(), refused: "FIFO"}
	}

	// One broken file: 0 on its exercise, the others graded.
	d := mk("inner-link")
	writeHonest(t, root, d, only[1:]...)
	e0 := findExercise(t, only[0])
	require.NoError(t, os.Symlink(filepath.Join(root, "exercises", e0.ID, e0.Files[0]), first(d)))
	c.want["inner-link"] = wantRow{points: firstZero()}

	d = mk("inner-link-folder")
	writeHonest(t, root, d, only[1:]...)
	require.NoError(t, os.Symlink(filepath.Join(root, "exercises", e0.ID), filepath.Join(d, "exercises", e0.ID)))
	c.want["inner-link-folder"] = wantRow{points: firstZero()}

	d = mk("inner-devzero")
	writeHonest(t, root, d, only[1:]...)
	require.NoError(t, os.Symlink("/dev/zero", first(d)))
	c.want["inner-devzero"] = wantRow{points: firstZero()}

	d = mk("inner-fifo")
	writeHonest(t, root, d, only[1:]...)
	if err := mkfifo(first(d)); err == nil {
		c.want["inner-fifo"] = wantRow{points: firstZero()}
	}

	d = mk("inner-huge")
	writeHonest(t, root, d, only[1:]...)
	f, err := os.Create(first(d))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2<<30)) // sparse: no disk used
	require.NoError(t, f.Close())
	c.want["inner-huge"] = wantRow{points: firstZero()}

	// Thousands of stray files beside an honest hand-in.
	d = mk("many-files")
	writeHonest(t, root, d, only...)
	for i := range 3000 {
		require.NoError(t, os.WriteFile(filepath.Join(d, fmt.Sprintf("junk-%04d", i)), nil, 0o644))
	}
	c.want["many-files"] = wantRow{points: full()}

	// Notebooks: broken ones are refused, an honest one with figures over
	// 1 MiB is graded.
	nb := func(name string) string { return filepath.Join(mk(name), handin.NotebookName) }
	require.NoError(t, os.WriteFile(nb("nb-figures"), figuresNotebook(t, root, 200_000, rng), 0o644))
	c.want["nb-figures"] = wantRow{points: full()}
	garbage := make([]byte, 5000)
	for i := range garbage {
		garbage[i] = byte(rng.IntN(256))
	}
	require.NoError(t, os.WriteFile(nb("nb-garbage"), garbage, 0o644))
	c.want["nb-garbage"] = wantRow{points: zeros(), refused: "not a notebook"}
	require.NoError(t, os.Symlink(filepath.Join(root, "notebooks", handin.NotebookName), nb("nb-link")))
	c.want["nb-link"] = wantRow{points: zeros(), refused: "symbolic link"}
	f, err = os.Create(nb("nb-huge"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(handin.MaxNotebookBytes+1))
	require.NoError(t, f.Close())
	c.want["nb-huge"] = wantRow{points: zeros(), refused: fmt.Sprintf("more than the %d", handin.MaxNotebookBytes)}
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	require.NoError(t, os.WriteFile(nb("nb-deep"), []byte(`{"cells": `+deep+`}`), 0o644))
	c.want["nb-deep"] = wantRow{points: zeros(), refused: "levels deep"}
	require.NoError(t, os.MkdirAll(nb("nb-folder"), 0o755))
	c.want["nb-folder"] = wantRow{points: zeros(), refused: "a folder"}
	if err := mkfifo(nb("nb-fifo")); err == nil {
		c.want["nb-fifo"] = wantRow{points: zeros(), refused: "FIFO"}
	}

	// Hidden entries are not students.
	writeHonest(t, root, mk(".git"), only...)
	return c
}

// treeFiles hashes each file of the repository's sources (exercises, cmd,
// lab, notebooks, go.mod, go.sum), so that a change names the file.
func treeFiles(t *testing.T, root string) map[string]string {
	m := map[string]string{}
	for _, top := range []string{"exercises", "cmd", "lab", "notebooks", "go.mod", "go.sum"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			m[p] = hex.EncodeToString(sum[:])
			return nil
		})
		require.NoError(t, err)
	}
	return m
}

// changedFiles lists the files that differ between two treeFiles.
func changedFiles(before, after map[string]string) []string {
	var out []string
	for p, h := range before {
		if after[p] != h {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// idOf is the id the class run gives the entry name.
func idOf(name string) string {
	if gradebook.ValidID(name) {
		return name
	}
	return gradebook.DeriveID(name, nil)
}

// checkBrokenClass checks the files a run wrote for the class c.
func checkBrokenClass(t *testing.T, c brokenClass, out string, only []string, failed map[string]bool) {
	rows := readCSV(t, filepath.Join(out, "gradebook.csv"))
	header := append(append([]string{"student"}, only...), "total", "graded_max", "withheld_max", "max_points", "sha256", "modified", "note")
	require.Equal(t, header, rows[0])
	got := map[string][]string{}
	for _, r := range rows[1:] {
		got[r[0]] = r
	}
	assert.Len(t, got, len(c.want), "a row for every entry but the hidden ones")
	maxTotal := 0
	for _, id := range only {
		maxTotal += findExercise(t, id).MaxPoints()
	}
	for name, w := range c.want {
		id := idOf(name)
		row, ok := got[id]
		if !assert.True(t, ok, "no row for %q (id %s)", name, id) {
			continue
		}
		want := []string{id}
		total := 0
		for _, p := range w.points {
			if failed[name] {
				want = append(want, "") // not graded: empty, not 0
				continue
			}
			want = append(want, fmt.Sprint(p))
			total += p
		}
		graded, withheld := maxTotal, 0
		if failed[name] {
			graded, withheld = 0, maxTotal
		}
		want = append(want, fmt.Sprint(total), fmt.Sprint(graded), fmt.Sprint(withheld), fmt.Sprint(maxTotal))
		assert.Equal(t, want, row[:len(want)], "%q", name)
		note := row[len(row)-1]
		switch {
		case w.refused != "":
			assert.Contains(t, note, w.refused, "%q says why it is refused", name)
		case id != name:
			assert.Equal(t, "folder "+gradebook.QuoteName(name), note, "%q: the row says which folder", name)
		default:
			assert.Empty(t, note, "%q", name)
		}
		for _, cell := range row {
			assert.False(t, strings.HasPrefix(strings.TrimLeft(cell, " "), "=") || strings.HasPrefix(cell, "+") || strings.HasPrefix(cell, "@") || strings.HasPrefix(cell, "\t"),
				"%q: the cell %q is not a formula", name, cell)
		}
		fb, err := os.ReadFile(filepath.Join(out, "feedback", id+".md"))
		require.NoError(t, err, "feedback for %q", name)
		if strings.Contains(name, "<img") {
			assert.Equal(t, strings.Count(string(fb), "` \"<img"), strings.Count(string(fb), "<img"),
				"%q: a tag of a folder's name is shown only in code in its feedback", name)
		}
	}
}

// TestClassRunNeverAbortsForOneHandIn runs the class with a stand-in for
// the grading of one student (full points for a file with the solution,
// 0 otherwise; a panic and an error for two students), so that it runs
// in -short mode: what it tests is the class run around it.
func TestClassRunNeverAbortsForOneHandIn(t *testing.T) {
	root := repoRoot(t)
	needSolutions(t, root)
	only := []string{"01_sine", "03_five_point"}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 21))
	c := makeBrokenClass(t, root, only, rng)
	for _, name := range []string{"grader-panics", "grader-fails"} {
		writeHonest(t, root, filepath.Join(c.dir, name), only...)
		c.want[name] = wantRow{points: make([]int, len(only))}
	}
	exs, err := selectExercises(catalogue(), only)
	require.NoError(t, err)
	// Before grading: the tree's files, to show that nothing of the
	// instructor's tree changed.
	before := treeFiles(t, root)
	stand := func(cfg Config) (grading.Report, error) {
		switch filepath.Base(cfg.Submission) {
		case "grader-panics":
			panic("a bug of the grader")
		case "grader-fails":
			return grading.Report{}, errors.New("the go command vanished")
		}
		var rs []grading.ExerciseResult
		for _, e := range exs {
			b, err := submissionFile(cfg.Submission, e.ID, e.Files[0])
			switch {
			case errors.Is(err, errLink):
				rs = append(rs, grading.Fail(e, grading.Rejected, err.Error(), cfg.Seed))
			case errors.Is(err, errMissing):
				rs = append(rs, grading.Fail(e, grading.Missing, err.Error(), cfg.Seed))
			case err != nil:
				rs = append(rs, grading.Fail(e, grading.Rejected, err.Error(), cfg.Seed))
			case bytes.Contains(b, []byte("// BEGIN SOLUTION")):
				r := grading.ExerciseResult{ID: e.ID, Title: e.Title, Status: grading.Graded, Seed: cfg.Seed, MaxPoints: e.MaxPoints(), Points: e.MaxPoints()}
				for _, ch := range e.Checks {
					r.Checks = append(r.Checks, grading.CheckResult{ID: ch.ID, Title: ch.Title, Points: ch.Points, MaxPoints: ch.Points, Passed: true, Message: "ok"})
				}
				rs = append(rs, r)
			default:
				rs = append(rs, grading.Fail(e, grading.Crashed, "not the solution", cfg.Seed))
			}
		}
		return grading.NewReport(cfg.Seed, rs), nil
	}
	out := t.TempDir()
	var summary, progress bytes.Buffer
	cfg := ClassConfig{Grade: Config{Root: root, Seed: 77, Only: only, NoSandbox: true}, Class: c.dir, Out: out, Jobs: 2,
		Progress: &progress, Summary: &summary, grade: stand}
	done := make(chan struct{})
	var book *Gradebook
	go func() {
		defer close(done)
		book, err = GradeClass(cfg)
	}()
	select {
	case <-done:
	case <-time.After(testlimit.Legit(t)):
		// The class run ends by itself (a FIFO is refused, not read),
		// so only the test's deadline bounds it: load cannot fail it.
		t.Fatal("the class run hangs (on a FIFO?)")
	}
	require.Error(t, err, "the grader's own failures are reported")
	assert.Contains(t, err.Error(), "the grader failed on 2 of")
	assert.Contains(t, err.Error(), "grader-panics: the grader panicked: a bug of the grader")
	assert.Contains(t, err.Error(), "grader-fails: the go command vanished")
	require.NotNil(t, book, "the gradebook is returned, and written")
	checkBrokenClass(t, c, out, only, map[string]bool{"grader-panics": true, "grader-fails": true})
	for _, name := range []string{"grader-panics", "grader-fails"} {
		for _, id := range only {
			assert.Equal(t, StateError, book.Students[name].Cells[id].State)
		}
	}
	assert.Equal(t, gradebook.SourceNotebook, book.Students["nb-figures"].Source)
	fb, err := os.ReadFile(filepath.Join(out, "feedback", "nb-garbage.md"))
	require.NoError(t, err)
	assert.Contains(t, string(fb), "The hand-in was refused as a whole:\n\n```text\n09_exercises.ipynb: not a notebook")
	assert.Contains(t, string(fb), fmt.Sprintf("- %s: 0/%d\n", gradebook.Escape("01_sine "+findExercise(t, "01_sine").Title), findExercise(t, "01_sine").MaxPoints()))
	assert.NotContains(t, string(fb), "| check |", "the reason once, not once an exercise")
	assert.Equal(t, "Jane Doe", book.Students[idOf("Jane Doe")].Folder)
	assert.Contains(t, summary.String(), fmt.Sprintf("Graded %d students", len(c.want)))
	assert.Contains(t, summary.String(), `Ignored: ".git" (a hidden entry)`)
	assert.Contains(t, summary.String(), "Refused: nb-garbage: ")
	assert.Contains(t, summary.String(), "Not graded (the grader failed): grader-fails: 01_sine, 03_five_point")
	assert.NotContains(t, summary.String()+progress.String(), "\x1b", "no control character of a name reaches the terminal")
	assert.Empty(t, changedFiles(before, treeFiles(t, root)), "the instructor's tree is unchanged")

	// A later run, where the grader works, fills in the empty cells and
	// keeps the rest.
	cfg.grade = func(g Config) (grading.Report, error) {
		if b := filepath.Base(g.Submission); b == "grader-panics" || b == "grader-fails" {
			g.Submission = filepath.Join(c.dir, "honest")
		}
		return stand(g)
	}
	cfg.Summary, cfg.Progress = nil, nil
	_, err = GradeClass(cfg)
	require.NoError(t, err)
	for _, name := range []string{"grader-panics", "grader-fails"} {
		c.want[name] = c.want["honest"]
	}
	checkBrokenClass(t, c, out, only, nil)
}

// TestClassWithBrokenHandInsGradesEveryoneElse is the same class graded
// for real: built, run in the sandbox, with one exercise.
func TestClassWithBrokenHandInsGradesEveryoneElse(t *testing.T) {
	root := longRunRoot(t, "builds and runs an exercise for a class")
	needSandbox(t)
	only := []string{"01_sine", "03_five_point"}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 22))
	c := makeBrokenClass(t, root, only, rng)
	// A student whose errors are markup: 0 on 01_sine, escaped feedback.
	d := filepath.Join(c.dir, "markup")
	writeHonest(t, root, d, only[1:]...)
	src, err := os.ReadFile(filepath.Join("testdata", "attacks", "class_markup", "01_sine", "sine.go"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(d, "exercises", "01_sine"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(d, "exercises", "01_sine", "sine.go"), src, 0o644))
	// It passes only the check that wants errors for bad input.
	bad := 0
	for _, ch := range findExercise(t, only[0]).Checks {
		if ch.ID == "bad-input" {
			bad += ch.Points
		}
	}
	require.Positive(t, bad)
	w := c.want["honest"]
	w.points = append([]int{bad}, w.points[1:]...)
	c.want["markup"] = w
	before := treeFiles(t, root)
	out := t.TempDir()
	tag := fmt.Sprintf("class-%d", time.Now().UnixNano())
	var progress bytes.Buffer
	_, err = GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 4243, Timeout: testlimit.Legit(t), Only: only, runTag: tag},
		Class: c.dir, Out: out, Jobs: 2, Progress: &progress})
	require.NoError(t, err, progress.String())
	checkBrokenClass(t, c, out, only, nil)
	fb, err := os.ReadFile(filepath.Join(out, "feedback", "markup.md"))
	require.NoError(t, err)
	assert.Contains(t, string(fb), "<script>alert(1)</script>", "the student's text is shown")
	for _, l := range strings.Split(string(fb), "\n") {
		// Each line that holds the student's text holds it in code.
		if strings.Contains(l, "<script>") && !strings.HasPrefix(l, "=HYPERLINK") {
			assert.Regexp(t, "^\\| .* \\| `+ .*<script>.* `+ ", l, "in a code span")
		}
		assert.NotRegexp(t, "^# Total", l, "no heading of the student's")
		assert.NotRegexp(t, "^\\| forged", l, "no row of the student's")
	}
	assert.Empty(t, changedFiles(before, treeFiles(t, root)), "the instructor's tree is unchanged")
	assert.Empty(t, submissionProcesses(t, tag, filepath.Join(os.TempDir(), "grade-class-")), "no process of a run outlives it")
}

// When the grader with the hidden checks stops before it writes anything
// (killed, crashed), the gradebook still gets a row for every entry: the
// students' cells left empty for a later run, the entries that are no
// student's folder refused.
func TestAGraderThatStopsStillWritesARowForEveryone(t *testing.T) {
	root := repoRoot(t)
	needSolutions(t, root)
	only := []string{"01_sine", "03_five_point"}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 23))
	c := makeBrokenClass(t, root, only, rng)
	out := t.TempDir()
	var summary bytes.Buffer
	book, err := writeUngraded(ClassConfig{Class: c.dir, Out: out, Summary: &summary}, Config{Root: root, Seed: 5, Only: only},
		"the grader stopped before grading this hand-in: signal: killed")
	require.NoError(t, err)
	require.NotNil(t, book)
	failed := map[string]bool{}
	for name, w := range c.want {
		if strings.HasPrefix(name, "nb-") {
			// A notebook is read when its student is graded: no one was.
			w.refused = ""
			c.want[name] = w
		}
		failed[name] = w.refused == ""
	}
	checkBrokenClass(t, c, out, only, failed)
	fb, err := os.ReadFile(filepath.Join(out, "feedback", "honest.md"))
	require.NoError(t, err)
	assert.Contains(t, string(fb), "signal: killed")
	assert.Contains(t, summary.String(), "Not graded (the grader failed): honest: 01_sine, 03_five_point")
}

// The class folder's entries: the hidden ones and the output folder are
// ignored; names that are one after case folding, and a folder named as
// another's derived id, go to the instructor's list onto no one's row;
// other names get derived ids, and what is not a folder is refused with
// what it is.
func TestClassEntries(t *testing.T) {
	class := t.TempDir()
	for _, d := range []string{"ann", "Ann", "Jane Doe", "Zoë K", "carl", "results", ".git"} {
		require.NoError(t, os.Mkdir(filepath.Join(class, d), 0o755))
	}
	// A valid folder named as "Jane Doe"'s derived id would be.
	clash := gradebook.DeriveID("Jane Doe", nil)
	require.NoError(t, os.Mkdir(filepath.Join(class, clash), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(class, "notes.txt"), nil, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(class, "carl"), filepath.Join(class, "bo")))

	entries, ignored, needs, err := classEntries(class, filepath.Join(class, "results"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{`".git" (a hidden entry)`, `"results" (the output folder)`}, ignored)
	byName := map[string]classEntry{}
	ids := map[string]bool{}
	for _, e := range entries {
		byName[e.name] = e
		assert.False(t, ids[gradebook.FoldName(e.id)], "the id %s is given once, case aside", e.id)
		ids[gradebook.FoldName(e.id)] = true
		assert.True(t, gradebook.ValidID(e.id), e.id)
	}
	// ann, Ann, Jane Doe and its clash are on the list; the others are graded.
	assert.ElementsMatch(t, []string{"Zoë K", "carl", "notes.txt", "bo"}, sortedKeys(byName))
	require.Len(t, needs, 4)
	for _, n := range []string{`"ann"`, `"Ann"`, `"Jane Doe"`, `"` + clash + `"`} {
		assert.Contains(t, strings.Join(needs, "\n"), n+": one student with")
	}
	assert.Equal(t, gradebook.DeriveID("Zoë K", nil), byName["Zoë K"].id)
	assert.Contains(t, byName["notes.txt"].refused, "is a file")
	assert.Contains(t, byName["bo"].refused, "symbolic link")
	assert.Empty(t, byName["carl"].refused)

	_, _, _, err = classEntries(filepath.Join(class, "none"), t.TempDir())
	assert.ErrorContains(t, err, "the class folder")
}
