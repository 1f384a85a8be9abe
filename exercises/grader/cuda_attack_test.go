package grader

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/cudacheck"
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/release"
	"stencillab.dev/internal/testlimit"
)

// The attacks on the CUDA exercises, one folder each under
// testdata/attacks/cuda_*: attack.json says which exercise it attacks,
// where it can be graded ("cpu": refused before any compiler, graded here;
// "gpu": graded by scripts/cuda-exercises-gpu.sh), what it must lose
// ("zero": the exercise scores 0; "no_speed": the performance checks and
// the ranking; "check_lost": the check named), and the message that says
// why. The file is the folder's .cu file, or the instructor's solution
// with the attack inserted after the anchor and prepended ("base":
// "solution"), so that no solution is committed twice.

// envCUDAAttacks names the folder TestCUDAAttackFixtures writes the
// submissions to, for the GPU machine.
const envCUDAAttacks = "STENCILLAB_CUDA_ATTACKS"

type cudaAttack struct {
	Name     string `json:"-"`
	Exercise string `json:"exercise"`
	Where    string `json:"where"`
	Expect   string `json:"expect"`
	Check    string `json:"check,omitempty"`
	Why      string `json:"why"`
	What     string `json:"what"`
	Base     string `json:"base,omitempty"`
	Anchor   string `json:"anchor,omitempty"`
	Insert   string `json:"insert,omitempty"`
	Prepend  string `json:"prepend,omitempty"`
	Generate string `json:"generate,omitempty"`
}

// cudaAttacks reads the attacks and makes each one's file. An attack made
// from the instructor's solution is left out where there is none (a
// student release), and counted in unmade.
func cudaAttacks(t *testing.T, root string) (attacks []cudaAttack, files map[string][]byte, unmade int) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "attacks", "cuda_*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	sort.Strings(dirs)
	files = map[string][]byte{}
	for _, d := range dirs {
		var a cudaAttack
		b, err := os.ReadFile(filepath.Join(d, "attack.json"))
		require.NoError(t, err, d)
		require.NoError(t, json.Unmarshal(b, &a), d)
		a.Name = filepath.Base(d)
		spec, ok := cudacheck.Lookup(a.Exercise)
		require.True(t, ok, "%s: exercise %q", a.Name, a.Exercise)
		require.Contains(t, []string{"cpu", "gpu"}, a.Where, a.Name)
		require.Contains(t, []string{"zero", "no_speed", "check_lost"}, a.Expect, a.Name)
		require.NotEmpty(t, a.What, a.Name)
		var src []byte
		switch {
		case a.Generate == "huge":
			src = []byte("// " + strings.Repeat("x", 2<<20) + "\n")
		case a.Base == "solution":
			ref, err := os.ReadFile(filepath.Join(root, "exercises", a.Exercise, spec.File))
			require.NoError(t, err)
			if !release.HasSolution(ref) {
				unmade++
				continue
			}
			s := string(ref)
			if a.Anchor != "" {
				require.Equal(t, 1, strings.Count(s, a.Anchor), "%s: the anchor is in the solution once", a.Name)
				s = strings.Replace(s, a.Anchor, a.Anchor+a.Insert, 1)
			}
			src = []byte(a.Prepend + s)
		default:
			src, err = os.ReadFile(filepath.Join(d, spec.File))
			require.NoError(t, err, "%s: %s", a.Name, spec.File)
		}
		attacks = append(attacks, a)
		files[a.Name] = src
	}
	return attacks, files, unmade
}

// correctFor is the exercise graded beside an attack on id, which keeps
// its full marks.
func correctFor(id string) string {
	if id == "21_cuda_tiled" {
		return "20_cuda_basic"
	}
	return "21_cuda_tiled"
}

// The attacks refused before any compiler score 0 here, with their
// reason, while the correct exercise beside them keeps its full marks
// (graded by the CPU stand-in of the child, in the sandbox where there is
// one), and no message shows anything of the machine.
func TestCUDAAttacksRefusedBeforeCompiling(t *testing.T) {
	root := repoRoot(t)
	attacks, files, _ := cudaAttacks(t, root)
	fakeGPU(t, "61.5", "")
	n := 0
	for _, a := range attacks {
		if a.Where != "cpu" {
			continue
		}
		n++
		spec, _ := cudacheck.Lookup(a.Exercise)
		sub := t.TempDir()
		p := filepath.Join(sub, "exercises", a.Exercise, spec.File)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, files[a.Name], 0o644))
		ok := correctFor(a.Exercise)
		okSpec, _ := cudacheck.Lookup(ok)
		q := filepath.Join(sub, "exercises", ok, okSpec.File)
		require.NoError(t, os.MkdirAll(filepath.Dir(q), 0o755))
		require.NoError(t, os.WriteFile(q, []byte("// any kernel: the stand-in answers as a correct one\n"), 0o644))
		rep, err := Grade(Config{Root: root, Submission: sub, Only: []string{a.Exercise, ok}, Seed: 9, Timeout: testlimit.Legit(t)})
		require.NoError(t, err, a.Name)
		got := byID(rep)
		r := got[a.Exercise]
		assert.Zero(t, r.Points, "%s: %s", a.Name, r.Message)
		assert.Contains(t, []grading.Status{grading.Rejected, grading.Missing}, r.Status, a.Name)
		assert.Contains(t, r.Message, a.Why, a.Name)
		for _, leak := range []string{"root:", "PATH=", root, "BEGIN SOLUTION"} {
			assert.NotContains(t, r.Message, leak, "%s: nothing outside the submission in a message", a.Name)
		}
		assert.Equal(t, got[ok].MaxPoints, got[ok].Points, "%s: %s, the correct exercise, keeps its marks: %s", a.Name, ok, got[ok].Message)
		assert.Equal(t, got[ok].Points, rep.Points, a.Name)
	}
	assert.GreaterOrEqual(t, n, 10)
}

// TestCUDAAttackFixtures writes the submissions of every attack where
// STENCILLAB_CUDA_ATTACKS says, for scripts/cuda-exercises-gpu.sh: NAME/
// holds the attacked file, the correct exercise's reference, and
// attack.json.
func TestCUDAAttackFixtures(t *testing.T) {
	root := repoRoot(t)
	attacks, files, unmade := cudaAttacks(t, root)
	if unmade > 0 {
		t.Skipf("%d attacks need the instructor's files: this is a student release", unmade)
	}
	assert.GreaterOrEqual(t, len(attacks), 15)
	dir := os.Getenv(envCUDAAttacks)
	if dir == "" {
		return
	}
	for _, a := range attacks {
		spec, _ := cudacheck.Lookup(a.Exercise)
		p := filepath.Join(dir, a.Name, "exercises", a.Exercise, spec.File)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, files[a.Name], 0o644))
		ok := correctFor(a.Exercise)
		okSpec, _ := cudacheck.Lookup(ok)
		ref, err := os.ReadFile(filepath.Join(root, "exercises", ok, okSpec.File))
		require.NoError(t, err)
		q := filepath.Join(dir, a.Name, "exercises", ok, okSpec.File)
		require.NoError(t, os.MkdirAll(filepath.Dir(q), 0o755))
		require.NoError(t, os.WriteFile(q, ref, 0o644))
		b, err := json.MarshalIndent(map[string]string{"exercise": a.Exercise, "correct": ok, "where": a.Where,
			"expect": a.Expect, "check": a.Check, "why": a.Why, "what": a.What}, "", " ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, a.Name, "attack.json"), b, 0o644))
	}
}
