package grader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/release"
	"stencillab.dev/internal/testlimit"
)

// These tests build and run every exercise's test binary, as the grader
// does: they need the go command, and take a minute on two cores.

func repoRoot(t *testing.T) string {
	root, err := findRoot(".")
	require.NoError(t, err)
	return root
}

// studentFiles returns the student files of every exercise, relative to
// the repository.
func studentFiles() []string {
	var files []string
	for _, e := range catalogue() {
		for _, f := range e.Files {
			files = append(files, filepath.ToSlash(filepath.Join("exercises", e.ID, f)))
		}
	}
	return files
}

// needSolutions skips a test in a student release, which has no solutions
// to grade.
func needSolutions(t *testing.T, root string) {
	if !release.IsInstructorTree(root) {
		t.Skip("needs the solutions: this is a student release")
	}
}

// longRunRoot skips a long test (what it does, why) in -short mode or in a
// student release, and returns the repository otherwise.
func longRunRoot(t *testing.T, why string) string {
	if testing.Short() {
		t.Skip(why + "; not in -short mode")
	}
	root := repoRoot(t)
	needSolutions(t, root)
	return root
}

func byID(rep grading.Report) map[string]grading.ExerciseResult {
	m := map[string]grading.ExerciseResult{}
	for _, e := range rep.Exercises {
		m[e.ID] = e
	}
	return m
}

func TestSolutionsScoreFullMarks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every exercise; not in -short mode")
	}
	root := repoRoot(t)
	needSolutions(t, root)
	rep, err := Grade(Config{Root: root, Hidden: true, Timeout: testlimit.Legit(t), CacheDir: t.TempDir()})
	require.NoError(t, err)
	require.Len(t, rep.Exercises, len(catalogue()))
	hidden, withheld := 0, 0
	for _, e := range rep.Exercises {
		if cudacheck.IsCUDA(e.ID) && e.Status == grading.NeedsGPU {
			// No GPU here: withheld, not zero (the GPU machine grades them).
			assert.Contains(t, e.Message, "withheld", e.ID)
			withheld += e.MaxPoints
			continue
		}
		assert.Equal(t, grading.Graded, e.Status, "%s: %s", e.ID, e.Message)
		assert.Equal(t, e.MaxPoints, e.Points, "%s", e.ID)
		for _, c := range e.Checks {
			assert.True(t, c.Passed, "%s/%s: %s", e.ID, c.ID, c.Message)
			if c.Hidden {
				hidden++
			}
		}
	}
	assert.Equal(t, rep.MaxPoints-withheld, rep.Points)
	assert.Positive(t, hidden, "the hidden checks ran")
	assert.GreaterOrEqual(t, len(rep.Exercises), 8)
}

func TestReleasedStubsScoreZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every exercise; not in -short mode")
	}
	root := repoRoot(t)
	needSolutions(t, root)
	// The student version of each student file, as the release writes it,
	// replaces the file through the overlay; without the tag "hidden" the
	// exercises are then exactly those of the release.
	dir := t.TempDir()
	overlay := map[string]string{}
	for _, rel := range studentFiles() {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		require.NoError(t, err)
		var stub []byte
		if strings.HasSuffix(rel, ".cu") {
			require.True(t, release.HasSolution(b), "%s holds its solution", rel)
			stub, err = release.StripText(rel, b)
		} else {
			require.True(t, release.GoHasSolution(b), "%s holds its solution", rel)
			stub, err = release.StripGo(rel, b)
		}
		require.NoError(t, err)
		p := filepath.Join(dir, strings.ReplaceAll(rel, "/", "_"))
		require.NoError(t, os.WriteFile(p, stub, 0o644))
		overlay[rel] = p
	}
	rep, err := Grade(Config{Root: root, Overlay: overlay, Hidden: false, Timeout: testlimit.Legit(t), CacheDir: t.TempDir()})
	require.NoError(t, err)
	require.Len(t, rep.Exercises, len(catalogue()))
	for _, e := range rep.Exercises {
		if spec, ok := cudacheck.Lookup(e.ID); ok && (e.Status == grading.NeedsGPU || spec.Kind == cudacheck.Challenge) {
			// Withheld without a GPU; the challenge starts as a correct,
			// slow kernel, which scores.
			continue
		}
		assert.Equal(t, grading.Graded, e.Status, "%s: the stubs must not crash the grader: %s", e.ID, e.Message)
		assert.Zero(t, e.Points, "%s", e.ID)
		assert.Positive(t, e.MaxPoints, "%s", e.ID)
		for _, c := range e.Checks {
			assert.False(t, c.Passed, "%s/%s", e.ID, c.ID)
			assert.NotEmpty(t, c.Message, "%s/%s", e.ID, c.ID)
			assert.False(t, c.Hidden, "%s/%s: no hidden check in the release", e.ID, c.ID)
		}
	}
	for _, e := range rep.Exercises {
		if spec, ok := cudacheck.Lookup(e.ID); !ok || spec.Kind != cudacheck.Challenge {
			assert.Zero(t, e.Points, e.ID)
		}
	}
}

func TestBrokenSubmissionsScoreZeroAndTheRestIsGraded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs exercises; not in -short mode")
	}
	root := repoRoot(t)
	planted := map[string]string{
		"01_sine":       "sine.go",       // loops for ever inside a check
		"02_derivative": "derivative.go", // panics in a goroutine of its own
		"03_five_point": "fivepoint.go",  // allocates without end
		"04_intensity":  "intensity.go",  // never finishes its initialisation (refused by the static check)
		"05_basic":      "basic.go",      // does not compile
	}
	overlay := map[string]string{}
	for id, f := range planted {
		p, err := filepath.Abs(filepath.Join("testdata", "planted", id, f))
		require.NoError(t, err)
		overlay["exercises/"+id+"/"+f] = p
	}
	only := []string{"01", "02", "03", "04", "05", "06"}
	// 01_sine's loop never ends, so a short limit stops it whatever the
	// load. The same limit bounds honest work (each process's start, the
	// checks before the loop, 06_tiled): should a starved machine not
	// finish it in time, a limit fires where no loop is, and the grading
	// runs again with the limit doubled, within the test's deadline.
	cache := t.TempDir()
	var got map[string]grading.ExerciseResult
	var rep grading.Report
	for timeout := 10 * time.Second; ; timeout *= 2 {
		var err error
		rep, err = Grade(Config{Root: root, Overlay: overlay, Hidden: false, Timeout: timeout,
			MemBytes: 512 << 20, Only: only, CacheDir: cache})
		require.NoError(t, err)
		got = byID(rep)
		slowed := ""
		for id, e := range got {
			if e.Status == grading.TimedOut && (id != "01_sine" || !strings.Contains(e.Message, `check "fig-8.1" did not finish`)) {
				slowed = id + ": " + e.Message
			}
		}
		if slowed == "" {
			break
		}
		require.Less(t, 2*timeout, testlimit.Legit(t), "honest work still timed out at %v: %s", timeout, slowed)
		t.Logf("timed out at %v where no loop is (%s); doubling the limit", timeout, slowed)
	}
	require.Len(t, got, len(only))

	for id := range planted {
		e := got[id]
		assert.Zero(t, e.Points, id)
		assert.Positive(t, e.MaxPoints, "%s: the checks are still listed", id)
		assert.Len(t, e.Checks, len(findExercise(t, id).Checks), id)
		for _, c := range e.Checks {
			assert.False(t, c.Passed, "%s/%s", id, c.ID)
		}
	}
	assert.Equal(t, grading.TimedOut, got["01_sine"].Status, got["01_sine"].Message)
	assert.Contains(t, got["01_sine"].Message, `check "fig-8.1" did not finish`)

	assert.Equal(t, grading.Panicked, got["02_derivative"].Status, got["02_derivative"].Message)
	assert.Contains(t, got["02_derivative"].Message, "index out of range")
	assert.Contains(t, got["02_derivative"].Message, "derivative.go:", "the message names the student's line")

	assert.Equal(t, grading.OutOfMemory, got["03_five_point"].Status, got["03_five_point"].Message)
	assert.Contains(t, got["03_five_point"].Message, "ran out of memory")
	assert.Contains(t, got["03_five_point"].Message, "512 MiB")

	// Code that would run at initialisation is refused before it is built.
	assert.Equal(t, grading.Rejected, got["04_intensity"].Status, got["04_intensity"].Message)
	assert.Contains(t, got["04_intensity"].Message, "intensity.go:13: package-level variable started is initialised by a function call")

	assert.Equal(t, grading.BuildFailed, got["05_basic"].Status, got["05_basic"].Message)
	assert.Contains(t, got["05_basic"].Message, "exercises/05_basic/basic.go:9")
	assert.Contains(t, got["05_basic"].Message, "undefined: blockOfEight")
	assert.NotContains(t, got["05_basic"].Message, root, "no machine paths in messages")

	tiled := got["06_tiled"]
	assert.Equal(t, grading.Graded, tiled.Status, "the exercise after the broken ones is graded as usual: %s", tiled.Message)
	if release.IsInstructorTree(root) {
		assert.Equal(t, tiled.MaxPoints, tiled.Points, "the exercise after the broken ones is graded as usual")
	}
	assert.Equal(t, tiled.Points, rep.Points)
}

func findExercise(t *testing.T, id string) grading.Exercise {
	for _, e := range catalogue() {
		if e.ID == id {
			return e
		}
	}
	require.Failf(t, "no exercise", "%s", id)
	return grading.Exercise{}
}

func TestCommandLine(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, Run([]string{"-bogus"}, &out, &errb))
	assert.Equal(t, 2, Run([]string{"-mem", "12KiB"}, &out, &errb))
	assert.Contains(t, errb.String(), "below 64 MiB")

	out.Reset()
	errb.Reset()
	assert.Equal(t, 2, Run([]string{"-list", "99_nothing"}, &out, &errb))
	assert.Contains(t, errb.String(), `no exercise "99_nothing"`)

	assert.Equal(t, 2, Run([]string{"99"}, &out, &errb), "an unknown exercise is a usage error")

	out.Reset()
	require.Equal(t, 0, Run([]string{"sine", "-list", "03"}, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "01_sine")
	assert.Contains(t, out.String(), "03_five_point")
	assert.NotContains(t, out.String(), "02_derivative")
}

func TestJSONReportOfOneExercise(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an exercise; not in -short mode")
	}
	var out, errb bytes.Buffer
	require.Equal(t, 0, Run([]string{"-json", "-seed", "12345", "-cache", t.TempDir(), "-C", repoRoot(t), "sine"}, &out, &errb), errb.String())
	var rep struct {
		Points    int    `json:"points"`
		MaxPoints int    `json:"max_points"`
		Seed      uint64 `json:"seed"`
		Exercises []struct {
			ID     string `json:"id"`
			Checks []struct {
				ID        string `json:"id"`
				Points    *int   `json:"points"`
				MaxPoints *int   `json:"max_points"`
				Passed    *bool  `json:"passed"`
				Message   string `json:"message"`
			} `json:"checks"`
		} `json:"exercises"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	assert.Equal(t, uint64(12345), rep.Seed)
	require.Len(t, rep.Exercises, 1)
	assert.Equal(t, "01_sine", rep.Exercises[0].ID)
	require.NotEmpty(t, rep.Exercises[0].Checks)
	for _, c := range rep.Exercises[0].Checks {
		assert.NotEmpty(t, c.ID)
		assert.NotNil(t, c.Points)
		assert.NotNil(t, c.MaxPoints)
		assert.NotNil(t, c.Passed)
		assert.NotEmpty(t, c.Message)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2GiB": 2 << 30, "512MiB": 512 << 20, "1G": 1 << 30, "100000000": 100000000} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "lots", "-1GiB", "0"} {
		_, err := parseSize(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "2 GiB", formatSize(2<<30))
	assert.Equal(t, "768 MiB", formatSize(768<<20))
}

func TestPanicSummaryKeepsTheStudentsLine(t *testing.T) {
	text := "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 7 [running]:\n" +
		"stencillab.dev/exercises/02_derivative.Weights.func1()\n\t/somewhere/exercises/02_derivative/derivative.go:16 +0x5d\n" +
		"created by stencillab.dev/exercises/02_derivative.Weights in goroutine 6\n\t/somewhere/exercises/02_derivative/derivative.go:14 +0x8e\n"
	assert.Equal(t, "runtime error: index out of range [5] with length 3 at derivative.go:16", panicSummary(text))
}

func TestPruneCache(t *testing.T) {
	cache := t.TempDir()
	now := time.Now()
	for i, age := range []time.Duration{time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 30 * 24 * time.Hour} {
		d := filepath.Join(cache, fmt.Sprintf("d%d", i))
		require.NoError(t, os.Mkdir(d, 0o755))
		require.NoError(t, os.Chtimes(d, now.Add(-age), now.Add(-age)))
	}
	pruneCache(cache, 3, 7*24*time.Hour)
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"d0", "d1", "d2"}, names, "the three most recent are kept")
}
