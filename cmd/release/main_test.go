package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/cuda"
	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/release"
)

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(nil, &out, &errb))
	assert.Contains(t, errb.String(), "usage: release -out DIR")
	assert.Equal(t, 2, run([]string{"-out", t.TempDir(), "extra"}, &out, &errb))
	assert.Equal(t, 2, run([]string{"-bogus"}, &out, &errb))
}

// writeTree writes files (slash paths) under a new folder and makes it a
// git repository that tracks them.
func writeTree(t *testing.T, files map[string]string) string {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git on the PATH")
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = release.GitEnv(os.Environ())
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, b)
	}
	return root
}

// writeFiles writes files (slash paths) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// TestCourseDataStaysWithTheInstructor grades a term in the repository's
// root, as docs/course.md's relative paths invite, and releases: none of
// it is copied, and a roster the instructor added to git stops the
// release.
func TestCourseDataStaysWithTheInstructor(t *testing.T) {
	root := writeTree(t, map[string]string{"go.mod": "module ex\n", "README.md": "# ex\n", ".gitignore": "/build/\n"})
	term := map[string]string{
		"roster.csv":                      "id,name,email,sis_id,section\nana,Ana López,ana.lopez@uni.edu,1001,Lab A\n",
		"overrides.csv":                   "ana,01_sine,5,regraded by hand\n",
		"gradebook/gradebook.csv":         "student,01_sine,total\nana,5,5\n",
		"gradebook/gradebook.json":        `{"version": 1, "runs": [], "students": {"ana": {"points": 5, "max_points": 5}}}`,
		"gradebook/feedback/ana.md":       "# Feedback for ana\n\nTotal: 5/5\n",
		"class/ana/01_sine/sine.go":       "package sine\n",
		"class/bjorn/09_exercises.ipynb":  "{}",
		"build/parts/0/gradebook.json":    `{"students": {}, "runs": [{"shard": "0/2"}]}`,
		"notebooks/grades/leaderboard.md": "# Leaderboard: 25_cuda_challenge\n",
	}
	writeFiles(t, root, term)
	out := filepath.Join(t.TempDir(), "s")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-C", root, "-out", out, "-scan"}, &stdout, &stderr), "%s%s", stdout.String(), stderr.String())
	assert.Contains(t, stdout.String(), "for course data: 0 findings")
	for rel := range term {
		assert.NoFileExists(t, filepath.Join(out, filepath.FromSlash(rel)))
	}
	assert.FileExists(t, filepath.Join(out, "README.md"))

	cmd := exec.Command("git", "-C", root, "add", "roster.csv")
	cmd.Env = release.GitEnv(os.Environ())
	require.NoError(t, cmd.Run())
	stdout.Reset()
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"-C", root, "-out", filepath.Join(t.TempDir(), "s")}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "roster.csv: roster")
	assert.Contains(t, stderr.String(), "git rm --cached roster.csv")
}

func TestScanNamesTheFileThatHoldsASolution(t *testing.T) {
	const exercise = "package ex\n\nimport \"errors\"\n\n// Mean returns the mean of xs.\nfunc Mean(xs []float64) (float64, error) {\n" +
		"\t// BEGIN SOLUTION\n\tif len(xs) == 0 {\n\t\treturn 0, errors.New(\"ex: the mean of no values\")\n\t}\n" +
		"\tvar total float64\n\tfor _, value := range xs {\n\t\ttotal += value * value / (1 + value*value)\n\t}\n" +
		"\treturn total / float64(len(xs)), nil\n\t// END SOLUTION\n\t// BEGIN STUB\n\t// return 0, errors.New(\"not implemented\")\n\t// END STUB\n}\n"
	clean := writeTree(t, map[string]string{"exercises/01_mean/mean.go": exercise, "go.mod": "module ex\n"})
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-C", clean, "-out", filepath.Join(t.TempDir(), "s"), "-scan"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "for 1 secrets: 0 findings")

	leaky := writeTree(t, map[string]string{"exercises/01_mean/mean.go": exercise, "go.mod": "module ex\n",
		"lab/stats.go": "package lab\n\n// Avg is the lab's.\nfunc Avg(v []float64) float64 {\n\tvar s float64\n" +
			"\tfor _, x := range v {\n\t\ts += x * x / (1 + x*x)\n\t}\n\treturn s / float64(len(v))\n}\n"})
	stdout.Reset()
	assert.Equal(t, 1, run([]string{"-C", leaky, "-out", filepath.Join(t.TempDir(), "s"), "-scan"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "FOUND    lab/stats.go:5 holds")
	assert.Contains(t, stdout.String(), "exercises/01_mean/mean.go:8")
}

func TestReleaseOfThisRepository(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "student")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-C", root, "-out", out}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "release: wrote")

	// Every student file is in the release, without solutions, and every
	// file of the release is free of solution markers and hidden checks.
	for _, e := range checks.All() {
		for _, f := range e.Files {
			b, err := os.ReadFile(filepath.Join(out, "exercises", e.ID, f))
			require.NoError(t, err, "%s/%s", e.ID, f)
			assert.False(t, release.GoHasSolution(b), "%s/%s", e.ID, f)
		}
	}
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		switch filepath.Ext(p) {
		case ".go":
			assert.False(t, release.GoHasSolution(b), "%s keeps a solution", rel)
			assert.False(t, release.IsHidden(b), "%s is instructor-only", rel)
		case ".ipynb":
			assert.False(t, release.NotebookHasSolution(b), "%s keeps a solution", rel)
		}
		return nil
	})
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(out, "exercises", "checks", "hidden.go"))
	assert.FileExists(t, filepath.Join(out, "exercises", "checks", "sine.go"))
	assert.FileExists(t, filepath.Join(out, "go.mod"))
	assert.FileExists(t, filepath.Join(out, "notebooks", "09_exercises.ipynb"))
	own, err := os.ReadFile(filepath.Join(root, "exercises", "release", "release_test.go"))
	require.NoError(t, err)
	released, err := os.ReadFile(filepath.Join(out, "exercises", "release", "release_test.go"))
	require.NoError(t, err)
	assert.Equal(t, string(own), string(released), "markers inside string literals are left alone")

	// Every lab kernel that withholds itself is its placeholder in the
	// release, and the output names it.
	for _, name := range cuda.Names() {
		src, err := cuda.Source(name)
		require.NoError(t, err)
		why, err := release.WithheldReason(name+".cu", []byte(src))
		require.NoError(t, err, name)
		got, err := os.ReadFile(filepath.Join(out, "cuda", name+".cu"))
		require.NoError(t, err, name)
		if why == "" {
			assert.Equal(t, src, string(got), "%s.cu is copied as it is", name)
			continue
		}
		want, err := release.Placeholder("cuda/"+name+".cu", []byte(src))
		require.NoError(t, err, name)
		assert.Equal(t, string(want), string(got), "%s.cu is withheld", name)
		assert.Contains(t, stdout.String(), "  withheld cuda/"+name+".cu ")
	}

	// A second release into the same folder is refused.
	assert.Equal(t, 1, run([]string{"-C", root, "-out", out}, &stdout, &stderr))
}

func TestTheReleaseIsARepositoryWithOneCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git on the PATH")
	}
	const nb = `{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}` + "\n"
	root := writeTree(t, map[string]string{"go.mod": "module ex\n", "notebooks/04_tiling.ipynb": nb, "README.md": "# ex\n"})
	out := filepath.Join(t.TempDir(), "student")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-C", root, "-out", out}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "is a git repository with one commit")

	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", out}, args...)...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, b)
		return strings.TrimSpace(string(b))
	}
	assert.Equal(t, "1", git("rev-list", "--count", "HEAD"))
	assert.Equal(t, "", git("status", "--porcelain"), "every released file is in the commit")
	files := strings.Fields(git("ls-files"))
	assert.ElementsMatch(t, []string{"README.md", "go.mod", "notebooks/04_tiling.ipynb"}, files)
	assert.Equal(t, "Stencil Lab <release@stencillab.invalid>", git("log", "--format=%an <%ae>"),
		"no instructor's name or address goes with the release")

	// A student who spoils a notebook gets it back.
	p := filepath.Join(out, "notebooks", "04_tiling.ipynb")
	require.NoError(t, os.WriteFile(p, []byte("spoiled"), 0o644))
	git("checkout", "--", "notebooks/04_tiling.ipynb")
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, nb, string(b))

	// Without -git the folder holds the files alone.
	plain := filepath.Join(t.TempDir(), "plain")
	require.Equal(t, 0, run([]string{"-C", root, "-out", plain, "-git=false"}, &stdout, &stderr), stderr.String())
	_, err = os.Stat(filepath.Join(plain, ".git"))
	assert.True(t, os.IsNotExist(err))
}
