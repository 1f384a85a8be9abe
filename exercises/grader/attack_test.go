package grader

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/internal/testlimit"
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
	rep, err := Grade(Config{Root: root, Submission: sub, runTag: tag, Timeout: testlimit.Legit(t), MemBytes: 1 << 30,
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
			{"02_derivative", `derivative.go:7: import "os" is forbidden`},
			{"03_five_point", `fivepoint.go:8: import "os" is forbidden`},
			{"04_intensity", "intensity.go:13: assigns to grading.Float64, a variable of another package"},
			{"05_basic", `basic.go:7: import "stencillab.dev/lab" is not allowed in 05_basic`},
			{"07_coarsened", `coarsened.go:8: import "os/exec" is forbidden`},
		}, "01_sine", true)
	})
	t.Run("b", func(t *testing.T) {
		gradeAttacks(t, []attack{
			{"01_sine", `sine.go:9: import "os" is forbidden`},
			{"06_tiled", "tiled.go: is a symbolic link: submit the file itself"},
			{"08_register_tiled", `register_tiled.go:6: import "os" is forbidden`},
			{"09_find_the_bug", `fix.go:7: import "stencillab.dev/lab" is not allowed in 09_find_the_bug`},
		}, "03_five_point", true)
	})
}

// TestAttacksAreContainedWithoutTheStaticCheck grades the attacks that
// run code with the static check off: the sandbox and the trust boundary
// hold alone. (Reaching the lab's kernels is caught by the static check
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

// TestAForgedFrameOnStandardOutputIsOnlyALog grades a stub that prints
// well-formed replies with the right answers on its standard output, the
// static check off: the replies come on the channel's own descriptor, so
// the stub's real answers, "not implemented", are what is graded.
func TestAForgedFrameOnStandardOutputIsOnlyALog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an exercise; not in -short mode")
	}
	gradeAttacks(t, []attack{{"10_warps", "not implemented yet"}}, "01_sine", false)
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

// staticAttacks try to reach what their exercise may not use, or to hide
// code from the static check: each is a folder of testdata/attacks holding
// what a student hands in for one exercise (its file, and for some a
// second file beside it), with the reason it must score 0. They hold
// whatever the exercise asks, since they attack the check, not the
// exercise's content.
var staticAttacks = []struct{ dir, id, why string }{
	{"30_registry_cost", "04_intensity", "lab.Steps3 is not available in this exercise"},
	{"31_registry_kernel", "05_basic", `import "stencillab.dev/lab" is not allowed in 05_basic`},
	{"32_does_not_parse", "01_sine", "expected"},
	{"33_second_file", "02_derivative", "undefined: weightsFromLab"},
	{"34_test_file", "01_sine", "undefined: discretizeFromTest"},
	{"35_method_value", "10_warps", "sim.Simulator is not available in this exercise"},
	{"36_type_alias", "03_five_point", "lab.Step3 is not available in this exercise"},
	{"37_interface", "04_intensity", "the interface's method OpPerByte would call lab.BlockCost.OpPerByte, which is not available in this exercise"},
	{"38_generic_constraint", "04_intensity", "the interface's method OpPerByte would call lab.BlockCost.OpPerByte, which is not available in this exercise"},
	{"39_embedded_method", "04_intensity", "lab.BlockCost.OpPerByte is not available in this exercise"},
	{"40_method_expression", "04_intensity", "lab.BlockCost.OpPerByte is not available in this exercise"},
	{"41_struct_conversion", "07_coarsened", "this struct type is sim.Global's, whose field sim.Global.Name is not available in this exercise"},
	{"42_line_directive", "08_register_tiled", "the directive //line is not allowed in an exercise"},
	{"43_build_constraint", "09_find_the_bug", "the directive //go:build is not allowed in an exercise"},
	{"44_import_alias", "05_basic", "sim.Simulator is not available in this exercise"},
	{"45_blank_import", "06_tiled", `import "stencillab.dev/lab" is not allowed in 06_tiled`},
	{"46_package_var_address", "01_sine", "takes the address of grading.ErrNotImplemented, a variable of another package"},
	{"47_init_receive", "01_sine", "package-level variable start is initialised by a receive"},
	{"48_composite_key", "08_register_tiled", "sim.Global.Data is not available in this exercise"},
	{"49_dot_import", "03_five_point", `import "stencillab.dev/lab" with a dot is not allowed`},
	{"50_global_data", "06_tiled", "sim.Global.Data is not available in this exercise"},
	{"51_print_hidden_field", "05_basic", "a value of type *sim.Global becomes an interface here, which would open sim.Global.Name, not available in this exercise"},
	{"52_recover_fault", "06_tiled", "tiled.go:14: recover is not available in an exercise"},
	{"53_goroutine", "08_register_tiled", "register_tiled.go:15: a go statement is not available in a kernel exercise"},
	{"54_halo_lab_exchange", "12_halo", "halo.Exchange is not available in this exercise"},
	{"55_halo_group", "12_halo", "Group is not available in this exercise"},
}

// staticAttackFiles reads the files an attack hands in for its exercise,
// every file of its folder.
func staticAttackFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", "attacks", dir))
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", "attacks", dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = b
	}
	return files
}

// TestStaticAttacksAreRefusedByTheCheck puts each attack to the static
// check alone, as the grader does: only the exercise's student files are
// taken from the submission.
func TestStaticAttacksAreRefusedByTheCheck(t *testing.T) {
	root := repoRoot(t)
	for _, a := range staticAttacks {
		e := findExercise(t, a.id)
		all := staticAttackFiles(t, a.dir)
		files := map[string][]byte{}
		for _, f := range e.Files {
			require.Contains(t, all, f, "%s hands in %s", a.dir, f)
			files[f] = all[f]
		}
		st, err := staticCheck(root, e, files)
		require.Error(t, err, a.dir)
		assert.Equal(t, staticStatus(a.dir), st, "%s: %v", a.dir, err)
		assert.Contains(t, err.Error(), a.why, a.dir)
		assert.Regexp(t, `(?m)^(exercises/`+a.id+`/)?`+regexp.QuoteMeta(e.Files[0])+`:\d+: `, err.Error(), "%s names the file and the line", a.dir)
	}
}

// staticStatus is the status an attack scores 0 with: a file that does
// not parse or type-check does not compile (refused before any build), the
// others break a rule.
func staticStatus(dir string) grading.Status {
	switch dir {
	case "32_does_not_parse", "33_second_file", "34_test_file":
		return grading.BuildFailed
	}
	return grading.Rejected
}

// TestStaticAttacksScoreZeroBesideACorrectExercise grades every attack,
// the static check on, each beside the instructor's solution of 10_warps
// (of 01_sine in the rounds that attack 10_warps), in as few rounds as their
// exercises allow.
func TestStaticAttacksScoreZeroBesideACorrectExercise(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an exercise; not in -short mode")
	}
	root := repoRoot(t)
	needSolutions(t, root)
	_, noSandbox := findSandbox()
	cache := t.TempDir()
	// Rounds of attacks on distinct exercises.
	var rounds [][]int
	for i, a := range staticAttacks {
		placed := false
		for r := range rounds {
			if (a.id == "10_warps") != (staticAttacks[rounds[r][0]].id == "10_warps") {
				continue // the attacks on 10_warps go in rounds of their own
			}
			clash := false
			for _, j := range rounds[r] {
				clash = clash || staticAttacks[j].id == a.id
			}
			if !clash {
				rounds[r] = append(rounds[r], i)
				placed = true
				break
			}
		}
		if !placed {
			rounds = append(rounds, []int{i})
		}
	}
	for _, round := range rounds {
		// The correct exercise is one that no attack of the round targets.
		correct := "10_warps"
		if staticAttacks[round[0]].id == correct {
			correct = "01_sine"
		}
		sub := t.TempDir()
		only := []string{correct}
		for _, i := range round {
			a := staticAttacks[i]
			only = append(only, a.id)
			require.NoError(t, os.MkdirAll(filepath.Join(sub, a.id), 0o755))
			for name, b := range staticAttackFiles(t, a.dir) {
				require.NoError(t, os.WriteFile(filepath.Join(sub, a.id, name), b, 0o644))
			}
		}
		e := findExercise(t, correct)
		require.NoError(t, os.MkdirAll(filepath.Join(sub, correct), 0o755))
		for _, f := range e.Files {
			b, err := os.ReadFile(filepath.Join(root, "exercises", correct, f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(sub, correct, f), b, 0o644))
		}
		rep, err := Grade(Config{Root: root, Submission: sub, Timeout: testlimit.Legit(t), MemBytes: 1 << 30,
			Only: only, CacheDir: cache, NoSandbox: noSandbox != nil})
		require.NoError(t, err)
		got := byID(rep)
		for _, i := range round {
			a := staticAttacks[i]
			r := got[a.id]
			assert.Equal(t, staticStatus(a.dir), r.Status, "%s: %s", a.dir, r.Message)
			assert.Zero(t, r.Points, "%s: %s", a.dir, r.Message)
			assert.Positive(t, r.MaxPoints, a.dir)
			assert.NoError(t, r.Validate(), a.dir)
			assert.Contains(t, r.Message, a.why, a.dir)
			assert.NotContains(t, r.Message, root, "%s: no path of the grader's machine reaches a message", a.dir)
		}
		ok := got[correct]
		assert.Equal(t, grading.Graded, ok.Status, ok.Message)
		assert.Equal(t, ok.MaxPoints, ok.Points, "%s, the correct exercise, keeps its full points", correct)
		assert.Equal(t, ok.Points, rep.Points, "the total is the correct exercise's points")
	}
	// Every attack is refused before it is built (rejected, or
	// build_failed for a file that does not compile), so none of its code
	// ran.
}
