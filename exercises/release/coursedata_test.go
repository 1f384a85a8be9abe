package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
)

// TestTheRepositoryHoldsNoCourseData: every file this repository tracks
// is of a kind a release holds and has no shape of course data, so that
// the check refuses only what it should.
func TestTheRepositoryHoldsNoCourseData(t *testing.T) {
	root := repoRoot(t)
	files, err := TrackedFiles(root)
	if err != nil {
		t.Skipf("needs the repository's git checkout: %v", err)
	}
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			continue // deleted in the working tree, or a submodule
		}
		f, found := CourseData(filepath.ToSlash(rel), b)
		assert.False(t, found, "%s", f)
	}
}

// gitRepo writes files under a new folder and makes it a git repository
// that tracks them (added to its index, as `git ls-files` lists them).
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git on the PATH")
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = GitEnv(os.Environ())
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, b)
	}
	return root
}

// term is what grading a class of three leaves behind, made by the
// grader's own writers (package gradebook): the files by their slash
// path, and the kind of course data each is.
type term struct {
	files map[string]string
	kinds map[string]string
}

// gradedTerm returns the course data of a graded term, with the
// gradebook's folder, the class folder and the rest placed under the
// given prefixes.
func gradedTerm(t *testing.T, book, class, loose string) term {
	t.Helper()
	exs := []gradebook.Exercise{{ID: "01_sine", Title: "Sine", MaxPoints: 5}, {ID: "25_cuda_challenge", Title: "Challenge", MaxPoints: 14}}
	people := []*gradebook.Person{
		{ID: "ana.lopez@uni.example", Name: "Ana López", Email: "ana.lopez@uni.example", SISID: "1001", Section: "Lab A"},
		{ID: "bjorn", Name: "Björn Ångström", Email: "bjorn@uni.example", SISID: "1002", Section: "Lab A"},
		{ID: "chloe", Name: "Chloé Martin", Email: "chloe.martin@uni.example", SISID: "1003", Section: "Lab B"},
	}
	roster, err := gradebook.NewRoster(people)
	require.NoError(t, err)
	g := gradebook.New(exs)
	for i, p := range people {
		r := grading.ExerciseResult{ID: "01_sine", Title: "Sine", Points: i + 2, MaxPoints: 5, Status: grading.Graded,
			Checks: []grading.CheckResult{{ID: "values", Title: "values", Points: i + 2, MaxPoints: 5, Passed: i == 3, Message: "ok"}}}
		c := gradebook.NewCell(r)
		ch := grading.ExerciseResult{ID: "25_cuda_challenge", Title: "Challenge", Points: 14, MaxPoints: 14, Status: grading.Graded,
			Metrics: map[string]float64{"pct_copy": float64(40 + 10*i), "ms": 0.5, "correct": 1}}
		g.Students[p.ID] = &gradebook.Student{ID: p.ID, Source: "files", Person: p,
			Cells: map[string]*gradebook.Cell{"01_sine": c, "25_cuda_challenge": gradebook.NewCell(ch)}}
	}
	g.Students["bjorn"].Cells["01_sine"].Override = &gradebook.Override{Points: 5, Reason: "regraded by hand", Was: 3}
	g.Recount()
	g.Runs = []gradebook.Run{{Seed: 1, Started: "2026-11-26T14:00:00Z", Students: 3, Sandbox: true}}

	tm := term{files: map[string]string{}, kinds: map[string]string{}}
	add := func(rel, kind, text string) { tm.files[rel], tm.kinds[rel] = text, kind }

	dir := t.TempDir()
	require.NoError(t, g.Write(dir))
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		kind := DataGradebook
		if strings.HasPrefix(filepath.ToSlash(rel), "feedback/") {
			kind = DataFeedback
		}
		add(book+filepath.ToSlash(rel), kind, string(b))
		return err
	}))
	add(book+"leaderboard.md", DataFeedback, g.LeaderboardMarkdown("25_cuda_challenge", "Fastest first.", "ms"))
	for _, format := range []string{gradebook.FormatCSV, "canvas", "moodle"} {
		var b bytes.Buffer
		_, err := g.Export(&b, format, roster)
		require.NoError(t, err, format)
		add(loose+format+".csv", DataGradebook, b.String())
	}
	part := *g
	part.Runs = []gradebook.Run{{Seed: 1, Started: "2026-11-26T14:00:00Z", Students: 1, Sandbox: true, Shard: "0/3"}}
	b, err := json.MarshalIndent(&part, "", "  ")
	require.NoError(t, err)
	add(loose+"parts/0/gradebook.json", DataGradebook, string(b))

	var rb strings.Builder
	rb.WriteString("id,name,email,sis_id,section\n")
	for _, p := range people {
		rb.WriteString(strings.Join([]string{p.ID, p.Name, p.Email, p.SISID, p.Section}, ",") + "\n")
	}
	add(loose+"roster.csv", DataRoster, rb.String())
	add(loose+"overrides.csv", DataOverrides, "bjorn,01_sine,5,regraded by hand\nchloe,01_sine,4,late by a day\n")
	add(loose+"similarity.csv", DataGradebook, "exercise,student_a,student_b,score,shared,of\n01_sine,bjorn,chloe,0.912,31,34\n")

	sine := "package sine\n\n// Sine is Ana's.\nfunc Sine(x float64) float64 { return x - x*x*x/6 }\n"
	add(class+"ana.lopez@uni.example/01_sine/sine.go", DataHandIn, sine)
	add(class+"bjorn/exercises/01_sine/sine.go", DataHandIn, sine)
	add(class+"chloe/09_exercises.ipynb", DataHandIn, `{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`+"\n")
	return tm
}

// placements are where an instructor may have graded: the repository's
// root as docs/course.md's relative paths invite, odd folders of the
// tree, and folders git ignores. Each is the gradebook's folder, the class
// folder and the folder of the rest.
var placements = [][3]string{
	{"gradebook/", "class/", ""},
	{"exercises/01_sine/out/", "notebooks/class/", "docs/"},
	{"lab/sim/x/y/", "exercises/handins/", "exercises/01_sine/"},
	{"build/gradebook/", "build/class/", "build/"},
}

// releaseBase is a repository's tracked files for the tests of course
// data: an exercise with its solution, a notebook, a document, and a
// .gitignore that ignores build/.
func releaseBase() map[string]string {
	return map[string]string{
		"go.mod":                       "module example.com/demo\n",
		".gitignore":                   "/build/\n",
		"README.md":                    "# Demo\n\nWrite to ana.lopez@uni.example for help.\n",
		"exercises/01_sine/sine.go":    instructorGo,
		"notebooks/09_exercises.ipynb": `{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}` + "\n",
		"docs/data.json":               `{"steps": [{"name": "basic", "points": 3}]}` + "\n",
	}
}

func TestAReleaseAfterAGradedTermHoldsNoCourseData(t *testing.T) {
	base := releaseBase()
	root := gitRepo(t, base)
	var planted []string
	for _, pl := range placements {
		tm := gradedTerm(t, pl[0], pl[1], pl[2])
		writeFiles(t, root, tm.files)
		for rel := range tm.files {
			planted = append(planted, rel)
		}
	}
	out := filepath.Join(t.TempDir(), "student")
	sum, err := Tree(root, out)
	require.NoError(t, err)
	assert.Equal(t, []string{"exercises/01_sine/sine.go"}, sum.Stripped)

	var released []string
	require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			released = append(released, filepath.ToSlash(rel))
		}
		return err
	}))
	var want []string
	for rel := range base {
		want = append(want, rel)
	}
	assert.ElementsMatch(t, want, released, "the release holds the tracked files and nothing else")
	for _, rel := range planted {
		assert.NoFileExists(t, filepath.Join(out, filepath.FromSlash(rel)))
	}
	tracked := map[string]bool{}
	for rel := range base {
		tracked[rel] = true
	}
	found, err := ScanCourseData(out, tracked)
	require.NoError(t, err)
	assert.Empty(t, found)
}

func TestScanFindsCourseDataAnywhere(t *testing.T) {
	for _, pl := range placements {
		tm := gradedTerm(t, pl[0], pl[1], pl[2])
		root := t.TempDir()
		writeFiles(t, root, releaseBase())
		writeFiles(t, root, tm.files)
		found, err := ScanCourseData(root, nil)
		require.NoError(t, err)
		got := map[string]string{}
		for _, f := range found {
			got[f.File] = f.Kind
		}
		for rel, kind := range tm.kinds {
			assert.Equal(t, kind, got[rel], "%s", rel)
		}
		assert.Len(t, found, len(tm.files), "the repository's own files are no course data: %v", found)
	}
}

func TestScanFindsWhatTheRepositoryDoesNotTrack(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"README.md": "# Demo\n", "notes.md": "# Notes\n", ".git/config": "[core]\n"})
	found, err := ScanCourseData(root, map[string]bool{"README.md": true})
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, CourseFinding{File: "notes.md", Kind: DataUntracked, Why: "not a file the repository tracks"}, found[0])
}

func TestCourseDataByShape(t *testing.T) {
	for _, c := range []struct{ name, rel, text, kind string }{
		{"a roster renamed", "lab/table.txt", "Student Number;Full name;Email address\n1001;Ana;ana@uni.example\n", DataRoster},
		{"a roster without a header", "notes", "ana,Ana Lopez,ana@uni.example\nbjorn,Björn,bjorn@uni.example\n", DataRoster},
		{"a tab-separated roster", "figures/data/x.csv", "login\tsection\nana\tA\n", DataRoster},
		{"grades by exercise", "docs/t.csv", "who,01_sine,02_derivative\nana,3,4\n", DataGradebook},
		{"a gradebook as a golden file", "figures/fig/g.golden", `{"runs": [], "students": {"ana": {}}}`, DataGradebook},
		{"a report", "docs/r.json", `[{"id": "01_sine", "points": 3, "max_points": 5}]`, DataGradebook},
		{"people in JSON", "docs/p.json", `{"x": [{"email": "a"}]}`, DataRoster},
		{"a feedback file renamed", "docs/a.md", "# Feedback for ana\n\nTotal: 3/5\n", DataFeedback},
		{"a table of students", "docs/b.md", "| rank | Student | ms |\n| --- | --- | --- |\n| 1 | ana | 2 |\n", DataGradebook},
		{"a real address", "docs/c.md", "Ask ana.lopez@uni.edu.\n", DataAddress},
		{"an address in a fixture", "cmd/x/testdata/r.csv", "id,email\nana,ana@gmail.com\n", DataAddress},
		{"an LMS download", "docs/submissions.zip", "PK\x03\x04\x00\x00", DataKind},
		{"a spreadsheet", "docs/grades.xlsx", "PK\x03\x04\x00", DataKind},
		{"a clone of a hand-in", "x/ana/.git/HEAD", "ref: refs/heads/main\n", DataHandIn},
		{"a notebook outside notebooks/", "docs/09_exercises.ipynb", "{}", DataHandIn},
		{"an exercise folder outside exercises/", "docs/ana/03_five_point/fivepoint.go", "package fivepoint\n", DataHandIn},
		{"nested exercises", "exercises/ana/exercises/01_sine/sine.go", "package sine\n", DataHandIn},
	} {
		f, ok := CourseData(c.rel, []byte(c.text))
		assert.True(t, ok, c.name)
		assert.Equal(t, c.kind, f.Kind, "%s: %s", c.name, f)
	}
	for _, c := range []struct{ name, rel, text string }{
		{"a fixture shaped like a roster", "cmd/x/testdata/roster.csv", "id,email\nana,ana@uni.example\n"},
		{"a hand-in fixture", "cmd/grade/testdata/planted/01_sine/sine.go", "package sine\n"},
		{"the sample class", "notebooks/data/cuda_class/gradebook.csv", "student,20_cuda_basic\nalice,10\n"},
		{"an exercise", "exercises/01_sine/sine.go", "package sine\n"},
		{"a test with an address", "exercises/x/r_test.go", "package x\n\nconst r = \"id,email\\nb,b@c.de\\n\"\n"},
		{"bench data", "docs/b.json", `{"steps": [{"name": "tiled", "ms": 0.5}]}`},
		{"a script", ".ci/run", "#!/bin/sh\nexit 0\n"},
		{"reserved domains", "docs/d.md", "a@uni.example b@example.org c@x.invalid d@t.test\n"},
		{"a figure", "figures/a.png", "\x89PNG\r\n\x1a\n\x00"},
	} {
		f, ok := CourseData(c.rel, []byte(c.text))
		assert.False(t, ok, "%s: %s", c.name, f)
	}
}

func TestTreeRefusesTrackedCourseData(t *testing.T) {
	files := releaseBase()
	files["docs/people.txt"] = "id;name;email\nana;Ana;ana@uni.example\n"
	root := gitRepo(t, files)
	_, err := Tree(root, filepath.Join(t.TempDir(), "student"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrCourseData), "%v", err)
	assert.Contains(t, err.Error(), "docs/people.txt: roster")
	assert.Contains(t, err.Error(), "git rm --cached docs/people.txt")
}

func TestTreeNeedsARepository(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, releaseBase())
	_, err := Tree(root, filepath.Join(t.TempDir(), "student"))
	assert.ErrorContains(t, err, "list the files git tracks")
}
