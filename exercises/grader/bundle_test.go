package grader

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/release"
)

// TestBundleGradesWithoutGo builds a bundle, checks that it holds no
// solution, and grades a class of two with it where no go command is on
// the PATH: on a machine without a GPU every CUDA cell is withheld.
func TestBundleGradesWithoutGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the grader with the hidden checks; not in -short mode")
	}
	root := repoRoot(t)
	needSolutions(t, root)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command to build the bundle")
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, Run([]string{"bundle", "-out", dir, "-C", root}, &stdout, &stderr), stderr.String())

	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), "./grade -C . -class ../class -out ../gradebook-gpu -seed SEED -gpus all 20_cuda_basic")
	assert.Contains(t, string(readme), "grade merge -out gradebook gradebook-gpu")
	bin, err := os.ReadFile(filepath.Join(dir, "grade"))
	require.NoError(t, err)
	e := findExercise(t, "20_cuda_basic")
	sol, err := os.ReadFile(filepath.Join(root, "exercises", e.ID, e.Files[0]))
	require.NoError(t, err)
	stub, err := os.ReadFile(filepath.Join(dir, "exercises", e.ID, e.Files[0]))
	require.NoError(t, err)
	assert.False(t, release.HasSolution(stub), "the bundle's file is the stub")
	assert.NotEqual(t, string(sol), string(stub))
	// No line of the solution that neither the stub nor the lab's own
	// kernels (cuda/*.cu, public and compiled in) hold is in the grader.
	public := string(stub)
	kernels, err := filepath.Glob(filepath.Join(root, "cuda", "*.cu"))
	require.NoError(t, err)
	for _, k := range kernels {
		b, err := os.ReadFile(k)
		require.NoError(t, err)
		public += string(b)
	}
	checked := 0
	for _, line := range strings.Split(string(sol), "\n") {
		line = strings.TrimSpace(line)
		if len(line) < 24 || strings.HasPrefix(line, "//") || strings.Contains(public, line) {
			continue
		}
		assert.False(t, bytes.Contains(bin, []byte(line)), "the grader holds the solution's line %q", line)
		checked++
	}
	assert.Positive(t, checked, "the solution has lines of its own to look for")

	class := t.TempDir()
	for _, s := range []string{"ann", "ben"} {
		d := filepath.Join(class, s, e.ID)
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, e.Files[0]), sol, 0o644))
	}
	out := filepath.Join(t.TempDir(), "gradebook-gpu")
	cmd := exec.Command("./grade", "-C", ".", "-class", class, "-out", out, "-seed", "3", "-gpus", "all", e.ID)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	book := readBook(t, out)
	for _, s := range []string{"ann", "ben"} {
		c := book.Students[s].Cells[e.ID]
		require.NotNil(t, c)
		if c.State == StateGraded {
			assert.Equal(t, c.MaxPoints, c.Points, "graded on a GPU: the solution scores full marks\n%s", b)
			continue
		}
		assert.Equal(t, StateNeedsGPU, c.State, string(b))
		assert.Equal(t, 0, book.Students[s].GradedMax)
		// The bundle's grader has the hidden checks: its maximum counts
		// them too.
		assert.Greater(t, c.MaxPoints, e.MaxPoints())
		assert.Equal(t, c.MaxPoints, book.Students[s].WithheldMax)
	}
	fb, err := os.ReadFile(filepath.Join(out, "feedback", "ann.md"))
	require.NoError(t, err)
	if book.Students["ann"].Cells[e.ID].State == StateNeedsGPU {
		assert.Contains(t, string(fb), "graded later on the GPU")
	}
}
