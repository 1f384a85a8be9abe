package cudacheck

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"stencillab.dev/exercises/grading"
)

// The grader takes nothing from the child but raw outputs and times it
// checks: these tests run the CPU stand-in of the child (CPUChildMain)
// honest, then misbehaving as a cheating kernel or a subverted child would.

// fakeCfg is self with the CPU stand-in of the child in mode: its
// requests get the test's remaining time, as self's do.
func fakeCfg(t *testing.T, mode string) Config {
	return self(t, envFake+"="+mode)
}

func checkByID(r grading.ExerciseResult, id string) grading.CheckResult {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return grading.CheckResult{}
}

func TestHonestChildGetsFullMarksAndItsShare(t *testing.T) {
	for _, id := range []string{"20_cuda_basic", "25_cuda_challenge"} {
		spec, _ := Lookup(id)
		r := Grade(fakeCfg(t, FakeHonest), spec, []byte("// a kernel\n#define BLOCK_X 8\n#define BLOCK_Y 8\n#define BLOCK_Z 1\n#define TILE_X 8\n#define TILE_Y 8\n#define TILE_Z 8\n"))
		require.Equal(t, grading.Graded, r.Status, r.Message)
		assert.Equal(t, r.MaxPoints, r.Points, id)
		assert.InDelta(t, fakePct, r.Metrics["pct_copy"], 1e-9, id)
		assert.InDelta(t, 0.25*100/fakePct, r.Metrics["ms"], 1e-12, id)
		assert.Equal(t, 1.0, r.Metrics["correct"], id)
		for _, k := range []string{"timed_nz", "timed_ny", "timed_nx"} {
			assert.GreaterOrEqual(t, r.Metrics[k], float64(24-1), k)
			assert.LessOrEqual(t, r.Metrics[k], float64(24+1), k)
		}
		assert.NoError(t, r.Validate())
	}
}

func TestCheatingChildLosesTheSpeedPointsAndIsNotRanked(t *testing.T) {
	spec, _ := Lookup("25_cuda_challenge")
	src := []byte("#define BLOCK_X 8\n#define BLOCK_Y 8\n#define BLOCK_Z 1\n#define TILE_X 8\n#define TILE_Y 8\n#define TILE_Z 8\n")
	honest := Grade(fakeCfg(t, FakeHonest), spec, src)
	speed := 0
	for _, c := range spec.Exercise(nil, false).Checks {
		if strings.HasPrefix(c.ID, "speed-") {
			speed += c.Points
		}
	}
	for mode, why := range map[string]string{
		FakeSkipTimed:    "the output of the timed launches is wrong",
		FakeRemember:     "the output of the timed launches is wrong",
		FakeFast:         "more than a sweep can reach",
		FakeNegativeTime: "is not a finite positive number",
		FakeNoMemory:     "allocate the first grid of the timed chain",
	} {
		r := Grade(fakeCfg(t, mode), spec, src)
		require.Equal(t, grading.Graded, r.Status, "%s: %s", mode, r.Message)
		assert.Equal(t, honest.Points-speed, r.Points, mode)
		assert.Equal(t, 0.0, r.Metrics["correct"], "%s is not ranked", mode)
		_, timed := r.Metrics["pct_copy"]
		assert.False(t, timed, "%s: no share of the copy is recorded", mode)
		c := checkByID(r, "speed-10")
		assert.False(t, c.Passed, mode)
		assert.Contains(t, c.Message, why, mode)
	}
}

func TestForgedLinesOnStdoutAreOnlyLogs(t *testing.T) {
	spec, _ := Lookup("25_cuda_challenge")
	src := []byte("#define BLOCK_X 8\n#define BLOCK_Y 8\n#define BLOCK_Z 1\n#define TILE_X 8\n#define TILE_Y 8\n#define TILE_Z 8\n")
	r := Grade(fakeCfg(t, FakeForgeStdout), spec, src)
	require.Equal(t, grading.Graded, r.Status, r.Message)
	assert.Equal(t, spec.Exercise(nil, false).MaxPoints(), r.MaxPoints)
	assert.LessOrEqual(t, r.Points, r.MaxPoints, "the forged 1000 points are never read")
	assert.InDelta(t, fakePct, r.Metrics["pct_copy"], 1e-9, "the share is the grader's")
}

func TestChildThatBreaksTheChannelScoresZero(t *testing.T) {
	spec, _ := Lookup("20_cuda_basic")
	r := Grade(fakeCfg(t, FakeShort), spec, []byte("// k\n"))
	assert.Equal(t, grading.Crashed, r.Status)
	assert.Zero(t, r.Points)
	assert.Contains(t, r.Message, "broke the channel's rules")
	assert.Contains(t, r.Message, "floats where")
}

func TestHangInTheTimedRunIsKilled(t *testing.T) {
	spec, _ := Lookup("20_cuda_basic")
	r := gradeHung(t, fakeCfg(t, FakeHangTimed), spec, []byte("// k\n"), "performance", 3*time.Second)
	assert.Equal(t, grading.TimedOut, r.Status)
	assert.Zero(t, r.Points)
	assert.Contains(t, r.Message, `during check "performance"`)
}

// A refused directive never reaches a child: the launcher is not called.
func TestDirectiveIsRefusedBeforeAnyChild(t *testing.T) {
	spec, _ := Lookup("20_cuda_basic")
	cfg := Config{Launch: func(args, wrapper []string) (*exec.Cmd, error) {
		t.Fatal("a child was started for a refused file")
		return nil, nil
	}}
	for src, want := range map[string]string{
		"#include \"../../cuda/basic.cu\"\n": "basic.cu:1: #include is not allowed",
		"// x\n#include \"/etc/passwd\"\n":   "basic.cu:2: #include is not allowed",
		"#pragma once\n":                     "basic.cu:1: #pragma once is not allowed",
		"int a;\x00":                         "control character U+0000",
	} {
		r := Grade(cfg, spec, []byte(src))
		assert.Equal(t, grading.Rejected, r.Status, src)
		assert.Zero(t, r.Points)
		assert.Contains(t, r.Message, want, src)
		assert.NotContains(t, r.Message, "root:", "nothing of the file named is read")
	}
	r := Grade(cfg, spec, bytes.Repeat([]byte(" "), maxSource+1))
	assert.Equal(t, grading.Rejected, r.Status)
	assert.Contains(t, r.Message, "over the limit")
}

func TestAnswersRoundTripAndAreChecked(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	data := []float32{1, float32(math.NaN()), -2.5}
	require.NoError(t, writeAnswer(w, response{Op: opSweep}, data))
	h, got, err := readAnswer(bufio.NewReader(bytes.NewReader(buf.Bytes())), opSweep, 3)
	require.NoError(t, err)
	assert.Equal(t, 3, h.Floats)
	assert.Equal(t, data[0], got[0])
	assert.True(t, math.IsNaN(float64(got[1])))
	assert.Equal(t, data[2], got[2])

	for name, c := range map[string]struct {
		raw  string
		op   string
		want int
		why  string
	}{
		"wrong op":      {`{"op":"time"}` + "\n", opSweep, 0, `answer to "time" where "sweep" was asked`},
		"more floats":   {`{"op":"sweep","floats":4}` + "\n", opSweep, 3, "4 floats where 3 are due"},
		"unknown field": {`{"op":"sweep","points":1000}` + "\n", opSweep, 0, "not JSON"},
		"unknown kind":  {`{"op":"sweep","err":"x","err_kind":"graded"}` + "\n", opSweep, 0, "unknown error kind"},
		"error+floats":  {`{"op":"sweep","err":"x","err_kind":"other","floats":2}` + "\n", opSweep, 0, "an error with 2 floats"},
		"cut short":     {`{"op":"sweep","floats":3}` + "\n" + "abcd", opSweep, 3, "ends after 0 of 3 floats"},
		"huge header":   {`{"op":"sweep","log":"` + strings.Repeat("x", maxHeader) + `"}` + "\n", opSweep, 0, "a header over"},
		"no newline":    {`{"op":"sweep"`, opSweep, 0, "ends inside a header"},
	} {
		_, _, err := readAnswer(bufio.NewReader(strings.NewReader(c.raw)), c.op, c.want)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, errProtocol, name)
		assert.Contains(t, err.Error(), c.why, name)
	}
}

// The input both sides draw: values in [−1, 1), the same at any offset,
// different for different seeds.
func TestInputValues(t *testing.T) {
	a := make([]float32, 300000)
	fillInput(a, 11, 0)
	b := make([]float32, 1000)
	fillInput(b, 11, 123456)
	assert.Equal(t, a[123456:124456], b)
	seen := map[float32]bool{}
	lo, hi := float32(1), float32(-1)
	for i, v := range a {
		assert.Equal(t, inputValue(11, uint64(i)), v)
		lo, hi = min(lo, v), max(hi, v)
		seen[v] = true
	}
	assert.GreaterOrEqual(t, lo, float32(-1))
	assert.Less(t, hi, float32(1))
	assert.Less(t, lo, float32(-0.99))
	assert.Greater(t, hi, float32(0.99))
	assert.Greater(t, len(seen), 290000, "values rarely repeat")
	assert.NotEqual(t, inputValue(11, 5), inputValue(12, 5))
}

// The chain's reference is steps sweeps of the CPU reference, the
// boundary the input's.
func TestChainReference(t *testing.T) {
	c := perfCoeffs(newRand(3))
	sum := 0.0
	for _, v := range c {
		sum += v
	}
	assert.InDelta(t, 1, sum, 1e-12)
	dims := [3]int{7, 9, 11}
	got, err := chainReference(dims, 5, c, 3)
	require.NoError(t, err)
	in, _ := seededGrid(7, 9, 11, 5)
	// Three sweeps by hand, a point at a time, in float64.
	cur := make([]float64, len(in.Data))
	for i, v := range in.Data {
		cur[i] = float64(v)
	}
	offsets := [Points][3]int{{0, 0, 0}, {0, 0, -1}, {0, 0, 1}, {0, -1, 0}, {0, 1, 0}, {-1, 0, 0}, {1, 0, 0},
		{0, 0, -2}, {0, 0, 2}, {0, -2, 0}, {0, 2, 0}, {-2, 0, 0}, {2, 0, 0}}
	for range 3 {
		next := append([]float64(nil), cur...)
		for i := 2; i < 5; i++ {
			for j := 2; j < 7; j++ {
				for k := 2; k < 9; k++ {
					sum := 0.0
					for m, o := range offsets {
						sum += c[m] * cur[((i+o[0])*9+j+o[1])*11+k+o[2]]
					}
					next[(i*9+j)*11+k] = sum
				}
			}
		}
		cur = next
	}
	for i := range cur {
		assert.InDelta(t, cur[i], float64(got.Data[i]), 1e-5, i)
	}
}

// Whatever the child writes, reading it never panics, and an answer
// accepted has exactly the floats due (want ≥ −1), or at most −2 − want
// of them (want ≤ −2, atMost).
func FuzzReadAnswer(f *testing.F) {
	f.Add([]byte(`{"op":"sweep","floats":1}`+"\nabcd"), 1)
	f.Add([]byte(`{"op":"sweep","err":"x","err_kind":"fault"}`+"\n"), 0)
	f.Add([]byte(`{"op":"time","chain_ms":1}`+"\n"), 0)
	f.Fuzz(func(t *testing.T, raw []byte, want int) {
		want = want % 1000
		h, data, err := readAnswer(bufio.NewReader(bytes.NewReader(raw)), opSweep, want)
		if err != nil || h.Err != "" {
			return
		}
		if want <= -2 {
			if len(data) > -2-want {
				t.Fatalf("%d floats accepted where at most %d are due", len(data), -2-want)
			}
		} else if len(data) != max(want, 0) {
			t.Fatalf("%d floats accepted where %d are due", len(data), want)
		}
	})
}

// The sanitizer's two points count only beside a correct kernel: a kernel
// that computes wrong values (or nothing) has no access for the tool to
// find. The tool here is a script that runs the child unchanged.
func TestSanitizerCountsOnlyForACorrectKernel(t *testing.T) {
	tool := filepath.Join(t.TempDir(), "compute-sanitizer")
	require.NoError(t, os.WriteFile(tool, []byte("#!/bin/sh\nshift 6\nexec \"$@\"\n"), 0o755))
	spec, _ := Lookup("20_cuda_basic")
	for src, correct := range map[string]bool{"// a kernel\n": true, "// stand-in: swap\n": false} {
		cfg := fakeCfg(t, FakeHonest)
		cfg.Sanitizer = tool
		r := Grade(cfg, spec, []byte(src))
		require.Equal(t, grading.Graded, r.Status, r.Message)
		for _, id := range []string{"memcheck", "racecheck"} {
			c := checkByID(r, id)
			assert.Equal(t, correct, c.Passed, "%s %s: %s", src, id, c.Message)
			if !correct {
				assert.Zero(t, c.Points, id)
				assert.Contains(t, c.Message, "counts only for a correct kernel", id)
			}
		}
		assert.Equal(t, correct, r.Points == r.MaxPoints, src)
	}
}
