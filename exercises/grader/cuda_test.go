package grader

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/gradebook"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
	"stencillab.dev/internal/testlimit"
)

// envFakeGPU makes the test binary, started as the child of the GPU
// checks, answer as a GPU machine running a correct kernel would
// (cudacheck.CPUChildMain): outputs from the CPU reference, the kernel at
// the share of the copy given in the variable; envFakeMode makes it
// misbehave as a cheating kernel would. envProbe makes it report what it
// sees of the machine instead.
const (
	envFakeGPU  = "STENCILLAB_FAKE_GPU_PCT"
	envFakeMode = "STENCILLAB_FAKE_GPU_MODE"
	envProbe    = "STENCILLAB_CUDA_CHILD_PROBE"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == cudaChildFlag {
		if os.Getenv(envProbe) == "1" {
			os.Exit(probeChild(os.Args[2:]))
		}
		if pct := os.Getenv(envFakeGPU); pct != "" {
			var p float64
			fmt.Sscan(pct, &p)
			child := func() int { return cudacheck.CPUChildMain(os.Args[2:], os.Stdin, os.Stdout, p, os.Getenv(envFakeMode)) }
			if dir := os.Getenv(envDeviceDir); dir != "" {
				os.Exit(onDevice(dir, child))
			}
			os.Exit(child())
		}
		os.Exit(cudacheck.ChildMain(os.Args[2:], os.Stdin, os.Stdout))
	}
	// The grader's default limits bound legitimate work in most tests
	// here (building and grading correct exercises): they are the
	// binary's remaining time, from go test -timeout, so that load slows
	// those tests but cannot fail them. A test of work that never ends
	// sets its own short limit.
	lim := testlimit.Legit(testlimit.FromFlags())
	defaultTimeout, defaultBuildLimits.Wall, toolTimeout = lim, lim, lim
	// The tests' gradebooks are signed with a key of their own, not
	// with the instructor key of the user running them.
	keyDir, err := os.MkdirTemp("", "grade-key-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(gradebook.EnvKey, filepath.Join(keyDir, "instructor.key"))
	code := m.Run()
	os.RemoveAll(keyDir)
	os.Exit(code)
}

// probeChild prints the child's user, working directory and environment,
// and whether it can read each file of paths.
func probeChild(paths []string) int {
	wd, _ := os.Getwd()
	fmt.Printf("uid=%d cwd=%s\nenv=%s\n", os.Getuid(), wd, strings.Join(os.Environ(), ","))
	for _, p := range paths {
		_, err := os.ReadFile(p)
		fmt.Printf("read %s: %v\n", p, err == nil)
	}
	return 0
}

// fakeGPU makes the CUDA children of this test the CPU stand-in, at pct %
// of the copy, misbehaving as mode says, on small timed grids.
func fakeGPU(t *testing.T, pct, mode string) {
	t.Helper()
	old, oldN := cudaTestEnv, cudaPerfN
	cudaTestEnv = []string{envFakeGPU + "=" + pct, envFakeMode + "=" + mode}
	cudaPerfN = 24
	t.Cleanup(func() { cudaTestEnv, cudaPerfN = old, oldN })
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
	fakeGPU(t, "61.5", "")
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
	// The leaderboard shows pseudonyms under the instructor's key; two
	// equal shares are ordered by pseudonym.
	key, err := gradebook.InstructorKey()
	require.NoError(t, err)
	names, err := book.Pseudonyms(key)
	require.NoError(t, err)
	tied := []string{names["ann"], names["ben"]}
	slices.Sort(tied)
	assert.Contains(t, string(lb), "| 1 | "+tied[0]+" | 61.5 | 0.407 | yes |")
	assert.Contains(t, string(lb), "| 2 | "+tied[1]+" | 61.5 | 0.407 | yes |")
	assert.NotContains(t, string(lb), "| ann |")
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
	key := []byte("a test key of the leaderboard, 32")
	s, err := leaderboard(g, id, key)
	require.NoError(t, err)
	names, err := g.Pseudonyms(key)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(s), "\n")
	rows := lines[len(lines)-5:]
	assert.Equal(t, "| 1 | "+names["fast"]+" | 71.2 | 0.360 | yes |", rows[0])
	assert.Equal(t, "| 2 | "+names["slow"]+" | 38.9 | 0.650 | yes |", rows[1])
	assert.Equal(t, "| — | "+names["wrong"]+" | 80.0 | 0.310 | no |", rows[2])
	assert.Contains(t, rows[3]+rows[4], "| — | "+names["hung"]+" | — | — | no (timeout) |")
	assert.Contains(t, rows[3]+rows[4], "| — | "+names["absent"]+" | — | — | no submission |")
	for sid := range g.Students {
		assert.NotRegexp(t, `\b`+sid+`\b`, s, "no id on the leaderboard")
	}
}

// The CUDA child runs in the sandbox: as nobody, in an empty /tmp, with
// only the environment it is given, and no file of the repository or of
// the machine's configuration in reach.
func TestCUDAChildRunsInTheSandbox(t *testing.T) {
	bwrap, err := findSandbox()
	if err != nil {
		t.Skipf("the sandbox cannot run here: %v", err)
	}
	root := repoRoot(t)
	old := cudaTestEnv
	cudaTestEnv = []string{envProbe + "=1"}
	t.Cleanup(func() { cudaTestEnv = old })
	exe, err := os.Executable()
	require.NoError(t, err)
	ref := filepath.Join(root, "exercises", "20_cuda_basic", "basic.cu")
	cmd, err := cudaLauncher([]string{exe, cudaChildFlag}, bwrap, "")([]string{ref, "/etc/passwd", "/etc/hostname"}, nil)
	require.NoError(t, err)
	out, err := cmd.Output()
	require.NoError(t, err)
	o := string(out)
	assert.Contains(t, o, "uid=65534 cwd=/tmp\n")
	assert.NotRegexp(t, `(env=|,)PATH=`, o, "the grader's environment is not passed on (LD_LIBRARY_PATH may name the driver's folders)")
	assert.Contains(t, o, "read "+ref+": false", "the instructor's files are out of reach")
	assert.Contains(t, o, "read /etc/passwd: false")
	assert.Contains(t, o, "read /etc/hostname: false")
}

// Without a sandbox, a run that requires one refuses the CUDA exercises;
// self-grading goes on, saying so once.
func TestCUDAWithoutTheSandbox(t *testing.T) {
	none := func() (string, error) { return "", errors.New("bubblewrap (bwrap) is not installed") }
	_, err := cudaSandbox(Config{RequireSandbox: true, sandboxProbe: none})
	assert.ErrorContains(t, err, "-unsafe-no-sandbox grades without it")
	var notice strings.Builder
	p, err := cudaSandbox(Config{sandboxProbe: none, Notice: &notice})
	require.NoError(t, err)
	assert.Empty(t, p)
	p, err = cudaSandbox(Config{RequireSandbox: true, NoSandbox: true, sandboxProbe: none})
	require.NoError(t, err, "-unsafe-no-sandbox")
	assert.Empty(t, p)
}

// The leaderboard ranks only the kernels whose timed launches the grader
// verified: a kernel that does no work on the timed grid, or whose times
// no GPU could reach, is not ranked; a kernel that prints a forged result
// is ranked at its measured share, not the one it printed.
func TestLeaderboardRanksOnlyVerifiedKernels(t *testing.T) {
	noGPU(t)
	root := repoRoot(t)
	class, out := t.TempDir(), t.TempDir()
	launch := "#define BLOCK_X 8\n#define BLOCK_Y 8\n#define BLOCK_Z 1\n#define TILE_X 8\n#define TILE_Y 8\n#define TILE_Z 8\n"
	for s, mode := range map[string]string{"ann": "", "lazy": cudacheck.FakeSkipTimed, "skipper": cudacheck.FakeRemember,
		"quick": cudacheck.FakeFast, "forger": cudacheck.FakeForgeStdout} {
		p := filepath.Join(class, s, "exercises", "25_cuda_challenge", "challenge.cu")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		src := launch
		if mode != "" {
			src += "// stand-in: " + mode + "\n"
		}
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	fakeGPU(t, "61.5", "")
	_, err := GradeClass(ClassConfig{Grade: Config{Root: root, Only: []string{"25"}, Seed: 5}, Class: class, Out: out})
	require.NoError(t, err)
	lb, err := os.ReadFile(filepath.Join(out, "leaderboard.md"))
	require.NoError(t, err)
	s := string(lb)
	book, err := gradebook.Read(filepath.Join(out, "gradebook.json"))
	require.NoError(t, err)
	key, err := gradebook.InstructorKey()
	require.NoError(t, err)
	names, err := book.Pseudonyms(key)
	require.NoError(t, err)
	assert.Contains(t, s, "| "+names["ann"]+" | 61.5 | 0.407 | yes |")
	assert.Contains(t, s, "| "+names["forger"]+" | 61.5 | 0.407 | yes |", "the forged line is never read")
	for _, who := range []string{"lazy", "skipper", "quick"} {
		assert.Regexp(t, `\| — \| `+names[who]+` \| — \| — \| no`, s, who)
		fb, err := os.ReadFile(filepath.Join(out, "feedback", who+".md"))
		require.NoError(t, err)
		assert.Contains(t, string(fb), "you are ` "+names[who]+" `", "each student is told their own pseudonym")
	}
	// No id is a cell of the table (an id may be a word of a pseudonym,
	// "quick" of quick-quail-9e1b, under some key).
	for sid := range book.Students {
		assert.NotContains(t, s, "| "+sid+" |", "no id on the leaderboard")
	}
	// No share the grader did not measure: the two verified kernels are
	// ranked, each at most the copy's 100 % (the quick stand-in answered
	// ten times faster than the copy). Read cell by cell: a pseudonym's
	// random letters may hold any digits.
	ranked := 0
	for _, line := range strings.Split(s, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "|") || len(cells) != 5 || cells[0] == "rank" || strings.HasPrefix(cells[0], "---") || cells[2] == "—" {
			continue
		}
		share, err := strconv.ParseFloat(cells[2], 64)
		require.NoError(t, err, "the share of %q", line)
		assert.LessOrEqual(t, share, 100.0, "an impossible share on the board: %s", line)
		ranked++
	}
	assert.Equal(t, 2, ranked, "ann and forger are ranked:\n%s", s)
}

// The CUDA child's environment names the driver's folders and passes the
// gpu package's library overrides only when the sandbox shows their path.
func TestCUDAEnv(t *testing.T) {
	t.Setenv(gpu.EnvLibNVRTC, "/opt/secret/libnvrtc.so.13")
	t.Setenv(gpu.EnvLibCUDA, "/usr/lib/x86_64-linux-gnu/libcuda.so.1")
	t.Setenv("CUDA_HOME", "/usr/local/cuda")
	for _, kv := range cudaEnv(true, "") {
		assert.False(t, strings.HasPrefix(kv, "PATH="), "the grader's PATH is not passed: %s", kv)
	}
	env := strings.Join(cudaEnv(true, ""), "\n")
	assert.NotContains(t, env, "/opt/secret", "a path the sandbox hides is not passed")
	assert.Contains(t, env, gpu.EnvLibCUDA+"=/usr/lib/x86_64-linux-gnu/libcuda.so.1")
	assert.Contains(t, env, "CUDA_HOME=/usr/local/cuda")
	assert.Contains(t, env, "HOME=/tmp")
	assert.Contains(t, strings.Join(cudaEnv(false, ""), "\n"), "/opt/secret", "without the sandbox the override stands")
	assert.True(t, inView("libnvrtc.so.13"))
	assert.False(t, inView("/usr/../opt/x.so"))
	assert.False(t, inView("/home/u/lib.so"))
}
