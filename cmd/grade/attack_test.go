package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// The attacks of a student who wants a better grade, each a submission in
// testdata/attacks (the symlink is made here). Each must score 0 on the
// exercise it attacks, with a message that says why, while a correct
// exercise in the same submission keeps its full points; the instructor's
// tree must be unchanged afterwards and no process of the submission alive.

// treeHash hashes every file of the repository's sources (exercises, cmd,
// lab, go.mod), names and contents.
func treeHash(t *testing.T, root string) string {
	h := sha256.New()
	var paths []string
	for _, top := range []string{"exercises", "cmd", "lab", "go.mod", "go.sum"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				paths = append(paths, p)
			}
			return nil
		})
		require.NoError(t, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		io.WriteString(h, p+"\x00")
		_, err = io.Copy(h, f)
		f.Close()
		require.NoError(t, err)
	}
	_, err := os.Stat(filepath.Join(root, "owned.txt"))
	require.True(t, os.IsNotExist(err), "no file was written at the repository's root")
	return hex.EncodeToString(h.Sum(nil))
}

// submissionProcesses lists the processes still running from a grading
// run: those whose environment holds the run's tag (every child and what
// it starts inherit it), or that run a binary of the run's cache folder.
func submissionProcesses(t *testing.T, tag, cache string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to look for processes: %v", err)
	}
	var alive []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if strings.Contains(string(env), envRunTag+"="+tag+"\x00") || strings.Contains(cmd, cache) {
			alive = append(alive, e.Name()+": "+cmd)
		}
	}
	return alive
}

// makeSubmission writes a submission (an exercises folder) with the attack
// files of the exercises attacked, the instructor's solution of the one
// correct, and for "06_tiled" a link to the instructor's solution.
func makeSubmission(t *testing.T, root string, attacked []string, correct string) string {
	dir := t.TempDir()
	for _, id := range attacked {
		e := findExercise(t, id)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, id), 0o755))
		for _, f := range e.Files {
			dst := filepath.Join(dir, id, f)
			if id == "06_tiled" {
				require.NoError(t, os.Symlink(filepath.Join(root, "exercises", id, f), dst))
				continue
			}
			b, err := os.ReadFile(filepath.Join("testdata", "attacks", id, f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(dst, b, 0o644))
		}
	}
	e := findExercise(t, correct)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, correct), 0o755))
	for _, f := range e.Files {
		b, err := os.ReadFile(filepath.Join(root, "exercises", correct, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, correct, f), b, 0o644))
	}
	return dir
}

// needSandbox skips where bubblewrap cannot run: the attacks that the
// static check lets through are then contained by nothing but the check.
func needSandbox(t *testing.T) {
	if _, err := findSandbox(); err != nil {
		t.Skipf("the sandbox cannot run here: %v", err)
	}
}

type attack struct {
	id, why string
}

func gradeAttacks(t *testing.T, attacks []attack, correct string, static bool) {
	root := repoRoot(t)
	needSolutions(t, root)
	// Without the static check only the sandbox contains the attacks; with
	// it, they never run, and the test runs where there is no sandbox too.
	_, noSandbox := findSandbox()
	if !static {
		needSandbox(t)
	}
	for _, p := range []string{"/tmp/stencillab-attack-02", "/tmp/stencillab-attack-07"} {
		_ = os.Remove(p)
	}
	before := treeHash(t, root)
	var ids []string
	for _, a := range attacks {
		ids = append(ids, a.id)
	}
	sub := makeSubmission(t, root, ids, correct)
	cache := t.TempDir()
	tag := hex.EncodeToString([]byte(filepath.Base(cache))) + fmt.Sprint(time.Now().UnixNano())
	rep, err := Grade(Config{Root: root, Submission: sub, runTag: tag, Timeout: 30 * time.Second, MemBytes: 1 << 30,
		Only: append(ids, correct), CacheDir: cache, RequireSandbox: !static, NoSandbox: static && noSandbox != nil,
		skipStaticCheck: !static})
	require.NoError(t, err)
	assert.Empty(t, submissionProcesses(t, tag, cache), "no process of the submission is alive when grading returns")
	got := byID(rep)
	for _, a := range attacks {
		e := got[a.id]
		assert.Zero(t, e.Points, "%s: %s", a.id, e.Message)
		assert.Positive(t, e.MaxPoints, a.id)
		assert.NoError(t, e.Validate(), a.id)
		text := e.Message
		for _, c := range e.Checks {
			text += "\n" + c.Message
		}
		assert.Contains(t, text, a.why, "%s says why it scores 0", a.id)
		assert.NotContains(t, text, "instructor-only checks", "%s: the hidden checks' source never reaches a message", a.id)
		assert.NotContains(t, text, "BEGIN SOLUTION", "%s: no solution reaches a message", a.id)
		assert.NotContains(t, text, "PATH=", "%s: the grader's environment never reaches a message", a.id)
		assert.NotContains(t, text, root, "%s: no path of the grader's machine reaches a message", a.id)
	}
	ok := got[correct]
	assert.Equal(t, grading.Graded, ok.Status, ok.Message)
	assert.Equal(t, ok.MaxPoints, ok.Points, "%s, the correct exercise, keeps its full points", correct)
	assert.Equal(t, ok.Points, rep.Points, "the total is the correct exercise's points")
	assert.LessOrEqual(t, rep.Points, rep.MaxPoints)

	assert.Equal(t, before, treeHash(t, root), "the instructor's tree is unchanged")
	for _, p := range []string{"/tmp/stencillab-attack-02"} {
		_, err := os.Stat(p)
		assert.True(t, os.IsNotExist(err), "%s was not written outside the sandbox", p)
	}
}

func TestAttacksAreRefusedByTheStaticCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs exercises; not in -short mode")
	}
	t.Run("a", func(t *testing.T) {
		gradeAttacks(t, []attack{
			{"02_derivative", "derivative.go:14: an init function is not allowed"},
			{"03_five_point", `fivepoint.go:8: import "os" is forbidden`},
			{"04_intensity", "intensity.go:13: assigns to grading.Float64, a variable of another package"},
			{"05_basic", "basic.go:11: lab.BasicKernel does the exercise's work"},
			{"07_coarsened", `coarsened.go:8: import "os/exec" is forbidden`},
		}, "01_sine", true)
	})
	t.Run("b", func(t *testing.T) {
		gradeAttacks(t, []attack{
			{"01_sine", `sine.go:9: import "os" is forbidden`},
			{"06_tiled", "tiled.go: is a symbolic link: submit the file itself"},
			{"08_register_tiled", `register_tiled.go:6: import "os" is forbidden`},
			{"09_find_the_bug", "fix.go:12: lab.LookupKernel does the exercise's work"},
		}, "03_five_point", true)
	})
}

// TestAttacksAreContainedWithoutTheStaticCheck grades the attacks that
// run code with the static check off: the sandbox and the trust boundary
// hold alone. (Calling the lab's kernels is caught by the static check
// only.)
func TestAttacksAreContainedWithoutTheStaticCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs exercises; not in -short mode")
	}
	gradeAttacks(t, []attack{
		{"01_sine", "not a reply"},
		{"02_derivative", "not implemented yet"},
		{"03_five_point", "no such file or directory"},
		{"04_intensity", "got 1, want 0.480769"},
		{"06_tiled", "is a symbolic link"},
		{"07_coarsened", "not implemented yet"},
		{"08_register_tiled", "exited with status 0 before reporting"},
	}, "05_basic", false)
	// The copy started with setsid would write this file 6 s after it
	// started, had it survived.
	time.Sleep(7 * time.Second)
	_, err := os.Stat("/tmp/stencillab-attack-07")
	assert.True(t, os.IsNotExist(err), "the process started with setsid did not survive")
}

func TestWithoutTheSandboxSelfGradingSaysSoAndClassGradingRefuses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an exercise; not in -short mode")
	}
	root := repoRoot(t)
	_, err := probeSandbox(filepath.Join(t.TempDir(), "no-bwrap"))
	require.ErrorContains(t, err, "bubblewrap (bwrap) is not installed")
	none := func() (string, error) { return "", err }

	var notice strings.Builder
	rep, gerr := Grade(Config{Root: root, Only: []string{"01"}, CacheDir: t.TempDir(), Notice: &notice, sandboxProbe: none})
	require.NoError(t, gerr)
	assert.Equal(t, "grade: grading without a sandbox: bubblewrap (bwrap) is not installed (scripts/install-sandbox.sh installs it)\n", notice.String(), "one line")
	require.Len(t, rep.Exercises, 1)
	assert.Equal(t, grading.Graded, rep.Exercises[0].Status, "grading goes on: %s", rep.Exercises[0].Message)

	_, gerr = Grade(Config{Root: root, Only: []string{"01"}, CacheDir: t.TempDir(), RequireSandbox: true, sandboxProbe: none})
	assert.ErrorContains(t, gerr, "-unsafe-no-sandbox grades without it")

	class := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(class, "ann"), 0o755))
	_, gerr = GradeClass(ClassConfig{Grade: Config{Root: root, sandboxProbe: none}, Class: class, Out: t.TempDir()})
	assert.ErrorContains(t, gerr, "class grading needs the sandbox")
}
