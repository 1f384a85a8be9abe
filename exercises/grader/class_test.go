package grader

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/handin"
	"stencillab.dev/exercises/release"
	"stencillab.dev/internal/testlimit"
)

// copyExercise writes the instructor's file of exercise id into
// dir/ID/FILE, or its released stub when stub is set.
func copyExercise(t *testing.T, root, dir, id string, stub bool) {
	e := findExercise(t, id)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, id), 0o755))
	for _, f := range e.Files {
		rel := filepath.ToSlash(filepath.Join("exercises", id, f))
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		require.NoError(t, err)
		if stub {
			b, err = release.StripGo(rel, b)
			require.NoError(t, err)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, id, f), b, 0o644))
	}
}

func copyAttack(t *testing.T, dir, id string) {
	e := findExercise(t, id)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, id), 0o755))
	for _, f := range e.Files {
		b, err := os.ReadFile(filepath.Join("testdata", "attacks", id, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, id, f), b, 0o644))
	}
}

func TestClassGradingOfTenStudents(t *testing.T) {
	root := longRunRoot(t, "builds and runs exercises for ten students")
	needSandbox(t)
	only := []string{"01_sine", "03_five_point", "05_basic"}
	max := map[string]int{}
	for _, id := range only {
		max[id] = findExercise(t, id).MaxPoints()
	}
	class := t.TempDir()
	student := func(name string) string {
		d := filepath.Join(class, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		return d
	}
	// Each student's expected points per exercise, worked out from the
	// exercises' maxima: a correct file scores the maximum, a stub, a
	// missing file or an attack 0.
	want := map[string][3]int{}
	for _, id := range only {
		copyExercise(t, root, student("correct-a"), id, false)
		copyExercise(t, root, student("stubs"), id, true)
		copyExercise(t, root, student("overridden"), id, true)
	}
	want["correct-a"] = [3]int{max["01_sine"], max["03_five_point"], max["05_basic"]}
	want["stubs"] = [3]int{0, 0, 0}
	want["overridden"] = [3]int{4, 0, 0} // the override below

	// A copy of the whole repository layout: DIR/exercises/ID/FILE.
	for _, id := range only {
		copyExercise(t, root, filepath.Join(student("correct-b"), "exercises"), id, false)
	}
	want["correct-b"] = want["correct-a"]

	student("empty")
	want["empty"] = [3]int{0, 0, 0}

	copyExercise(t, root, student("partial"), "01_sine", false)
	want["partial"] = [3]int{max["01_sine"], 0, 0}

	copyExercise(t, root, student("uses-reference"), "01_sine", false)
	copyExercise(t, root, student("uses-reference"), "03_five_point", false)
	copyAttack(t, student("uses-reference"), "05_basic")
	want["uses-reference"] = [3]int{max["01_sine"], max["03_five_point"], 0}

	copyAttack(t, student("forger"), "01_sine")
	copyExercise(t, root, student("forger"), "03_five_point", false)
	copyExercise(t, root, student("forger"), "05_basic", false)
	want["forger"] = [3]int{0, max["03_five_point"], max["05_basic"]}

	copyExercise(t, root, student("leaker"), "01_sine", false)
	copyAttack(t, student("leaker"), "03_five_point")
	copyExercise(t, root, student("leaker"), "05_basic", false)
	want["leaker"] = [3]int{max["01_sine"], 0, max["05_basic"]}

	nb, err := os.ReadFile(filepath.Join(root, "notebooks", handin.NotebookName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(student("notebook"), handin.NotebookName), nb, 0o644))
	want["notebook"] = want["correct-a"]
	require.Len(t, want, 10)

	overrides := filepath.Join(t.TempDir(), "overrides.csv")
	require.NoError(t, os.WriteFile(overrides, []byte("student,exercise,points,reason\noverridden,01,4,\"handed in on paper, checked by hand\"\n"), 0o644))

	out := t.TempDir()
	var summary, progress bytes.Buffer
	book, err := GradeClass(ClassConfig{Grade: Config{Root: root, Seed: 4242, Timeout: testlimit.Legit(t), Only: only},
		Class: class, Out: out, Jobs: 2, Overrides: overrides, Progress: &progress, Summary: &summary})
	require.NoError(t, err, progress.String())

	// The CSV: each row's points, its total out of the graded maximum,
	// nothing withheld, and the digest and latest time of the files
	// handed in, worked out here from the student's folder.
	var csv strings.Builder
	csv.WriteString("student,01_sine,03_five_point,05_basic,total,graded_max,withheld_max,max_points,sha256,modified,note\n")
	maxTotal := max["01_sine"] + max["03_five_point"] + max["05_basic"]
	for _, name := range []string{"correct-a", "correct-b", "empty", "forger", "leaker", "notebook", "overridden", "partial", "stubs", "uses-reference"} {
		w := want[name]
		digest, latest := folderDigest(t, filepath.Join(class, name))
		fmt.Fprintf(&csv, "%s,%d,%d,%d,%d,%d,0,%d,%s,%s,\n", name, w[0], w[1], w[2], w[0]+w[1]+w[2], maxTotal, maxTotal, digest, latest)
	}
	got, err := os.ReadFile(filepath.Join(out, "gradebook.csv"))
	require.NoError(t, err)
	assert.Equal(t, csv.String(), string(got))

	var fromFile Gradebook
	b, err := os.ReadFile(filepath.Join(out, "gradebook.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &fromFile))
	assert.Equal(t, uint64(4242), fromFile.Seed, "the class's one seed is recorded")
	require.Len(t, fromFile.Runs, 1)
	assert.True(t, fromFile.Runs[0].Sandbox)
	assert.Equal(t, book.Students["correct-a"].Points, fromFile.Students["correct-a"].Points)
	assert.Equal(t, "notebook", fromFile.Students["notebook"].Source)
	ov := fromFile.Students["overridden"].Cells["01_sine"].Override
	require.NotNil(t, ov)
	assert.Equal(t, Override{Points: 4, Reason: "handed in on paper, checked by hand", Was: 0}, *ov)
	assert.Equal(t, grading.Rejected, fromFile.Students["uses-reference"].Cells["05_basic"].Result.Status)
	assert.Equal(t, grading.Missing, fromFile.Students["empty"].Cells["01_sine"].Result.Status)
	for _, s := range fromFile.Students {
		for id, c := range s.Cells {
			assert.Equal(t, StateGraded, c.State, "%s/%s", s.ID, id)
			assert.Equal(t, uint64(4242), c.Seed, "%s/%s", s.ID, id)
			require.NoError(t, c.Result.Validate())
		}
	}

	fb, err := os.ReadFile(filepath.Join(out, "feedback", "overridden.md"))
	require.NoError(t, err)
	assert.Contains(t, string(fb), "Override by the instructor: 4/"+fmt.Sprint(max["01_sine"])+" instead of 0. handed in on paper, checked by hand")
	fb, err = os.ReadFile(filepath.Join(out, "feedback", "uses-reference.md"))
	require.NoError(t, err)
	assert.Contains(t, string(fb), "Status: rejected.", "the exercise refused by the static check")
	assert.Regexp(t, "(?m)^basic\\.go:[0-9]+: ", string(fb), "the static check's file:line, shown in a code block")
	assert.Contains(t, string(fb), "| small | 0/1 |")

	assert.Contains(t, summary.String(), "Graded 10 students")
	assert.Contains(t, summary.String(), "seed 4242")
	assert.Contains(t, summary.String(), "Slowest submission: ")
	// 01_sine: correct-a, correct-b, leaker, notebook, partial, uses-reference
	// score the maximum; overridden 4; the other three 0.
	assert.Contains(t, summary.String(), fmt.Sprintf("%-20s %6d %6.2f  0: 3, 4: 1, %d: 6", "01_sine", max["01_sine"],
		float64(6*max["01_sine"]+4)/10, max["01_sine"]))
	assert.Contains(t, progress.String(), "[10/10]")
}

// folderDigest is the digest of a hand-in's files as the gradebook
// records it (the SHA-256 of each file's path and the SHA-256 of its
// contents, in the order of the paths) and the latest of their
// modification times, or two empty strings for a folder without files.
func folderDigest(t *testing.T, dir string) (string, string) {
	var lines []string
	latest := time.Time{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		info, err := d.Info()
		require.NoError(t, err)
		if info.ModTime().After(latest) {
			latest = info.ModTime()
		}
		rel, err := filepath.Rel(dir, p)
		require.NoError(t, err)
		lines = append(lines, fmt.Sprintf("%s\x00%x\n", filepath.ToSlash(rel), sha256.Sum256(b)))
		return nil
	}))
	if len(lines) == 0 {
		return "", ""
	}
	sort.Strings(lines)
	return fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(lines, "")))), latest.UTC().Format(time.RFC3339)
}

func TestAGradebookMergesWhatALaterRunGrades(t *testing.T) {
	ex := []GradebookExercise{{ID: "01_a", MaxPoints: 5}, {ID: "10_gpu", MaxPoints: 7}}
	first := &Gradebook{Seed: 1, Exercises: ex, Students: map[string]*Student{
		"ann": {ID: "ann", Cells: map[string]*Cell{
			"01_a":   {State: StateGraded, Points: 5, MaxPoints: 5, Override: &Override{Points: 4, Reason: "late", Was: 5}},
			"10_gpu": {State: StateNeedsGPU, MaxPoints: 7},
		}}}}
	book := &Gradebook{}
	book.Merge(first)
	assert.Equal(t, 4, book.Students["ann"].Points, "the override counts; the withheld cell does not")
	assert.Equal(t, 12, book.Students["ann"].MaxPoints)
	assert.False(t, book.Students["ann"].Complete)

	// The run on the machine with a GPU grades 10_gpu and withholds
	// nothing else; the graded 01_a it could not run stays as it was.
	second := &Gradebook{Seed: 2, Exercises: ex, Students: map[string]*Student{
		"ann": {ID: "ann", Cells: map[string]*Cell{
			"01_a":   {State: StateError, MaxPoints: 5},
			"10_gpu": {State: StateGraded, Points: 6, MaxPoints: 7},
		}}}}
	book.Merge(second)
	assert.Equal(t, StateGraded, book.Students["ann"].Cells["01_a"].State)
	assert.Equal(t, 4+6, book.Students["ann"].Points)
	assert.True(t, book.Students["ann"].Complete)
	assert.Equal(t, uint64(2), book.Seed)
}

// TestHandedInReadsNothingThroughALinkedFolder: a hand-in whose exercise
// folder is a link to files elsewhere (the instructor's, say) has none of
// them stamped, while its own files are.
func TestHandedInReadsNothingThroughALinkedFolder(t *testing.T) {
	e := findExercise(t, "03_five_point")
	elsewhere := t.TempDir()
	src := fmt.Sprintf("package fivepoint\n\n// %d\n", time.Now().UnixNano())
	for _, f := range e.Files {
		require.NoError(t, os.WriteFile(filepath.Join(elsewhere, f), []byte(src), 0o644))
	}
	own := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(own, "exercises"), 0o755))
	require.NoError(t, os.CopyFS(filepath.Join(own, "exercises", e.ID), os.DirFS(elsewhere)))
	_, stamps := handedIn(own, []grading.Exercise{e})
	require.Len(t, stamps, len(e.Files), "the folder's own files are stamped")

	linked := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(linked, "exercises"), 0o755))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(linked, "exercises", e.ID)))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(linked, e.ID)))
	_, stamps = handedIn(linked, []grading.Exercise{e})
	assert.Empty(t, stamps, "nothing is read through a linked folder")
}
