package main

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/lab"
)

// failingWriter refuses every write, as a closed pipe does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("write refused") }

// stencilTo runs the command with stdout going to w.
func stencilTo(w *os.File, args ...string) (code int, stderr string) {
	var e strings.Builder
	code = dispatch(args, w, &e)
	return code, e.String()
}

func TestEveryCommandFailsWhenItCannotWrite(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"steps"},
		{"run", "-n", "6", "-reps", "1"},
		{"run", "-n", "6", "-reps", "1", "-json"},
		{"run", "-n", "6", "-reps", "1", "-backend", "sim", "-kernel", "tiled", "-check"},
		{"sediment", "-nx", "8", "-ny", "8", "-steps", "1"},
		{"sediment", "-nx", "8", "-ny", "8", "-steps", "1", "-json"},
	} {
		// A writer that refuses, and a standard output that is closed.
		var e strings.Builder
		code := dispatch(args, failingWriter{}, &e)
		assert.Equal(t, 1, code, "%v: %s", args, e.String())
		assert.Contains(t, e.String(), "write", "%v", args)

		f, err := os.Create(filepath.Join(dir, "out"))
		require.NoError(t, err)
		require.NoError(t, f.Close())
		code, errOut := stencilTo(f, args...)
		assert.Equal(t, 1, code, "%v to a closed file: %s", args, errOut)
		assert.Contains(t, errOut, "file already closed", "%v: the error says why", args)
	}
}

func TestBenchJSONToAnUnwritablePathFailsFirst(t *testing.T) {
	dir := t.TempDir()
	for path, why := range map[string]string{filepath.Join(dir, "no", "such", "folder", "b.json"): "does not exist", dir: "is a folder"} {
		code, _, errOut := stencil("bench", "-n", "16", "-reps", "1", "-json", path)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "-json", path)
		assert.Contains(t, errOut, why, path)
		assert.NotContains(t, errOut, "GPU", "the path is checked before the GPU is opened")
	}
	good := filepath.Join(dir, "b.json")
	require.NoError(t, checkWritable(good))
	_, err := os.Stat(good)
	assert.True(t, os.IsNotExist(err), "the check leaves the path alone")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "and removes its scratch file")
}

func TestRepsAndStepsAreBounded(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-n", "5", "-reps", "99999999999999"}, "exceeds the limit of 100000 repetitions"},
		{[]string{"run", "-n", "5", "-steps", "99999999999999"}, "exceeds the limit of 1000000 time steps"},
		{[]string{"run", "-n", "5", "-steps", "-1"}, "-steps -1"},
		{[]string{"bench", "-reps", "99999999999999"}, "exceeds the limit of 100000 repetitions"},
		{[]string{"bench", "-steps", "99999999999999"}, "exceeds the limit of 1000000 time steps"},
		{[]string{"bench", "-warmup", "99999999999999"}, "-warmup"},
		{[]string{"sediment", "-nx", "8", "-ny", "8", "-steps", "99999999999999"}, "exceeds the limit of 1000000 time steps"},
		{[]string{"sediment", "-reps", "99999999999999"}, "100000"},
	} {
		code, out, errOut := stencil(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, c.want, "%v", c.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	}
}

func TestNearMissGetsDidYouMean(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-kernel", "tiledd"}, `did you mean "tiled"?`},
		{[]string{"run", "-kernel", "Coarsened"}, `did you mean "coarsened"?`},
		{[]string{"run", "-kernel", "registertiled"}, `did you mean "register_tiled"?`},
		{[]string{"bench", "-kernels", "basic,tilde"}, `did you mean "tiled"?`},
		{[]string{"bench", "-tile", "basik=4"}, `did you mean "basic"?`},
		{[]string{"runn"}, `did you mean "run"?`},
	} {
		code, _, errOut := stencil(c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
	_, _, errOut := stencil("run", "-kernel", "quantum")
	assert.NotContains(t, errOut, "did you mean", "nothing is near")
}

func TestCheckTolerance(t *testing.T) {
	// One time step: 10⁻⁵ of the largest value, at least 1.
	assert.NoError(t, checkTolerance(lab.Diff{MaxAbs: 0.9e-5, RelL2: 1e-7}, 1, 0.5))
	assert.Error(t, checkTolerance(lab.Diff{MaxAbs: 1.1e-5, RelL2: 1e-7}, 1, 0.5))
	// Ten steps of values grown to 1000: 10·10⁻⁵·1000 = 0.1.
	assert.NoError(t, checkTolerance(lab.Diff{MaxAbs: 0.09, RelL2: 1e-6}, 10, 1000))
	assert.ErrorContains(t, checkTolerance(lab.Diff{MaxAbs: 0.11, RelL2: 1e-6}, 10, 1000), "exceeds the tolerance 0.1")
	assert.ErrorContains(t, checkTolerance(lab.Diff{MaxAbs: 0, RelL2: 2e-5}, 1, 1), "relative L2")
	assert.ErrorContains(t, checkTolerance(lab.Diff{MaxAbs: math.Inf(1), RelL2: math.Inf(1)}, 1, 1), "never written")
	assert.Error(t, checkTolerance(lab.Diff{MaxAbs: math.NaN()}, 1, 1))
	assert.Equal(t, 3.0, lab.LargestFinite([]float32{1, -3, float32(math.Inf(-1)), float32(math.NaN()), 2}))
}

// TestRunCheckExitsOneOnAWrongResult registers, in a child process, a CPU
// step whose sweep gets one coefficient wrong, and runs it with -check:
// the summary still prints, and the exit status is 1.
func TestRunCheckExitsOneOnAWrongResult(t *testing.T) {
	if os.Getenv("STENCIL_TEST_WRONG_STEP") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunCheckExitsOneOnAWrongResult$", "-test.v")
		cmd.Env = append(os.Environ(), "STENCIL_TEST_WRONG_STEP=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), "--- PASS: TestRunCheckExitsOneOnAWrongResult")
		return
	}
	wrong := func(dst, src *lab.Grid3[float32], c lab.Coeffs) error {
		c[3], c[4] = c[4], c[3] // Fig. 8.10's swap
		return lab.SevenPoint(dst, src, c)
	}
	require.NoError(t, lab.Register3(lab.Step3{
		Step: lab.Step{Name: "wrong_reference", Title: "the reference with c3 and c4 swapped", Runs: "a wrong sweep",
			Notebook: "99_wrong"},
		Sweep: wrong,
	}))
	code, out, errOut := stencil("run", "-kernel", "wrong_reference", "-n", "9", "-reps", "1", "-check")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "Max abs error:", "the summary is printed")
	assert.Contains(t, errOut, "-check: wrong_reference on cpu: max |out − float64 reference|")
	assert.Contains(t, errOut, "exceeds the tolerance")

	code, out, errOut = stencil("run", "-kernel", "wrong_reference", "-n", "9", "-reps", "1", "-check", "-json")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, `"max_abs_err"`)

	code, _, errOut = stencil("run", "-kernel", "reference", "-n", "9", "-reps", "1", "-check", "-steps", "20")
	assert.Equal(t, 0, code, "the right sweep passes over 20 time steps: %s", errOut)
	code, _, _ = stencil("run", "-kernel", "wrong_reference", "-n", "9", "-reps", "1")
	assert.Equal(t, 0, code, "without -check nothing is compared")
}
