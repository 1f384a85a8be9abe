package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
)

// envFakeGPU makes the test binary, started as the child of the GPU
// checks, answer as a GPU machine would: every check passed, with the
// share of the copy given in the variable, for the tests of the merge and
// the leaderboard on a machine without a GPU.
const envFakeGPU = "STENCILLAB_FAKE_GPU_PCT"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == cudaChildFlag {
		if pct := os.Getenv(envFakeGPU); pct != "" {
			os.Exit(fakeGPUChild(os.Args[2:], pct))
		}
		os.Exit(cudacheck.ChildMain(os.Args[2:], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

func fakeGPUChild(args []string, pct string) int {
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	id := fs.String("id", "", "")
	seed := fs.Uint64("seed", 1, "")
	fs.String("mode", "", "")
	fs.Duration("check-timeout", 0, "")
	if fs.Parse(args) != nil {
		return 2
	}
	io.ReadAll(os.Stdin)
	spec, _ := cudacheck.Lookup(*id)
	ex := spec.Exercise(nil, false)
	r := grading.ExerciseResult{ID: ex.ID, Title: ex.Title, Status: grading.Graded, Seed: *seed, MaxPoints: ex.MaxPoints(), Points: ex.MaxPoints()}
	for _, c := range ex.Checks {
		r.Checks = append(r.Checks, grading.CheckResult{ID: c.ID, Title: c.Title, Points: c.Points, MaxPoints: c.Points, Passed: true, Hidden: c.Hidden, Message: "ok"})
	}
	var p float64
	fmt.Sscan(pct, &p)
	r.Metrics = map[string]float64{"pct_copy": p, "ms": 0.25 * 100 / p, "copy_ms": 0.25, "correct": 1}
	b, _ := json.Marshal(r)
	fmt.Printf("start values\nresult %s\n", b)
	return 0
}

func noGPU(t *testing.T) {
	t.Helper()
	if d, err := gpu.Default(); err == nil {
		t.Skipf("this machine has a GPU (%s): the needs_gpu path is tested where there is none", d.Props().Name)
	}
}

// Grading a CUDA exercise needs neither go nor the sandbox; without a GPU
// it is withheld (needs_gpu), with the message saying where to run it.
func TestCUDAExerciseNeedsGPU(t *testing.T) {
	noGPU(t)
	t.Setenv("PATH", t.TempDir()) // no go, no bwrap
	rep, err := Grade(Config{Root: repoRoot(t), Only: []string{"20"}, Seed: 3})
	require.NoError(t, err)
	require.Len(t, rep.Exercises, 1)
	r := rep.Exercises[0]
	assert.Equal(t, grading.NeedsGPU, r.Status)
	assert.Zero(t, r.Points)
	assert.Contains(t, r.Message, "withheld, not zero")
	assert.Contains(t, r.Message, "grade 20_cuda_basic")
}

// A class graded on a CPU machine leaves the CUDA cells empty (needs_gpu);
// a later run with the same -out on the GPU machine fills them in, and
// writes the challenge's leaderboard.
func TestClassCUDACellsFilledByALaterRun(t *testing.T) {
	noGPU(t)
	root := repoRoot(t)
	class, out := t.TempDir(), t.TempDir()
	for _, s := range []string{"ann", "ben"} {
		for _, f := range []string{"20_cuda_basic/basic.cu", "25_cuda_challenge/challenge.cu"} {
			p := filepath.Join(class, s, "exercises", f)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte("// a kernel\n"), 0o644))
		}
	}
	cfg := ClassConfig{Grade: Config{Root: root, Only: []string{"20", "25"}, Seed: 5}, Class: class, Out: out}
	_, err := GradeClass(cfg)
	require.NoError(t, err, "only GPU exercises: no sandbox needed")
	book := readBook(t, out)
	for _, s := range []string{"ann", "ben"} {
		for _, id := range []string{"20_cuda_basic", "25_cuda_challenge"} {
			assert.Equal(t, StateNeedsGPU, book.Students[s].Cells[id].State, "%s %s", s, id)
		}
	}
	rows := readCSV(t, filepath.Join(out, "gradebook.csv"))
	require.GreaterOrEqual(t, len(rows), 3)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, row := range rows[1:] {
		assert.Equal(t, "", row[col["20_cuda_basic"]], "a withheld cell is empty, not 0")
	}
	lb, err := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	require.NoError(t, err)
	assert.Contains(t, string(lb), "not graded yet (needs_gpu)")

	// The GPU machine's run (a child that answers as one would).
	t.Setenv(envFakeGPU, "61.5")
	cfg.Grade.Seed = 6
	_, err = GradeClass(cfg)
	require.NoError(t, err)
	book = readBook(t, out)
	ex, _ := cudacheck.Lookup("25_cuda_challenge")
	for _, s := range []string{"ann", "ben"} {
		c := book.Students[s].Cells["25_cuda_challenge"]
		assert.Equal(t, StateGraded, c.State)
		assert.Equal(t, ex.Exercise(nil, false).MaxPoints(), c.Points)
	}
	assert.Len(t, book.Runs, 2)
	lb, err = os.ReadFile(filepath.Join(out, "leaderboard.md"))
	require.NoError(t, err)
	assert.Contains(t, string(lb), "| 1 | ann | 61.5 | 0.407 | yes |")
	assert.Contains(t, string(lb), "| 2 | ben | 61.5 | 0.407 | yes |")
}

func readBook(t *testing.T, out string) *Gradebook {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "gradebook.json"))
	require.NoError(t, err)
	g := &Gradebook{}
	require.NoError(t, json.Unmarshal(b, g))
	return g
}

func readCSV(t *testing.T, p string) [][]string {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return rows
}

// The leaderboard ranks correct kernels by their share of the copy; the
// others follow unranked.
func TestLeaderboardOrder(t *testing.T) {
	id := challengeID()
	cell := func(pct, ms float64, correct bool, st grading.Status) *Cell {
		m := map[string]float64{"pct_copy": pct, "ms": ms, "correct": 0}
		if correct {
			m["correct"] = 1
		}
		return &Cell{State: StateGraded, Result: &grading.ExerciseResult{ID: id, Status: st, Metrics: m}}
	}
	g := &Gradebook{Students: map[string]*Student{
		"slow":   {ID: "slow", Cells: map[string]*Cell{id: cell(38.9, 0.65, true, grading.Graded)}},
		"fast":   {ID: "fast", Cells: map[string]*Cell{id: cell(71.2, 0.36, true, grading.Graded)}},
		"wrong":  {ID: "wrong", Cells: map[string]*Cell{id: cell(80, 0.31, false, grading.Graded)}},
		"hung":   {ID: "hung", Cells: map[string]*Cell{id: {State: StateGraded, Result: &grading.ExerciseResult{ID: id, Status: grading.TimedOut}}}},
		"absent": {ID: "absent", Cells: map[string]*Cell{}},
	}}
	s, err := leaderboard(g, id)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(s), "\n")
	rows := lines[len(lines)-5:]
	assert.Equal(t, "| 1 | fast | 71.2 | 0.360 | yes |", rows[0])
	assert.Equal(t, "| 2 | slow | 38.9 | 0.650 | yes |", rows[1])
	assert.Equal(t, "| — | wrong | 80.0 | 0.310 | no |", rows[2])
	assert.Contains(t, rows[3]+rows[4], "| — | hung | — | — | no (timeout) |")
	assert.Contains(t, rows[3]+rows[4], "| — | absent | — | — | no submission |")
}
