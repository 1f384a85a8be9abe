package grading

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"stencillab.dev/internal/testlimit"
)

// runOne runs a single check and returns its result and the exercise's.
// The check is legitimate work: unless opt sets a limit, it gets one
// derived from the test's deadline, so load cannot time it out.
func runOne(t *testing.T, run func(*T), opt Options) (CheckResult, ExerciseResult) {
	e := Exercise{ID: "00_test", Title: "test", Checks: []Check{{ID: "c", Title: "a check", Points: 3, Run: run}}}
	if opt.CheckTimeout == 0 {
		opt.CheckTimeout = testlimit.Legit(t)
	}
	res := Run(e, opt)
	require.Len(t, res.Checks, 1)
	return res.Checks[0], res
}

func TestTestifyMessagesAreReducedToTheMessage(t *testing.T) {
	cr, res := runOne(t, func(t *T) {
		assert.Equal(t, 1, 2, "wrong value at (3,4,5): got %d, want %d", 2, 1)
	}, Options{Seed: 1})
	assert.False(t, cr.Passed)
	assert.Equal(t, 0, cr.Points)
	assert.Equal(t, 3, cr.MaxPoints)
	assert.Equal(t, "wrong value at (3,4,5): got 2, want 1", cr.Message)
	assert.Equal(t, Graded, res.Status)

	cr, _ = runOne(t, func(t *T) { assert.True(t, false) }, Options{Seed: 1})
	assert.Equal(t, "Should be true", cr.Message, "without a message, testify's error line is kept")
}

func TestRequireStopsTheCheck(t *testing.T) {
	reached := false
	cr, _ := runOne(t, func(t *T) {
		require.Len(t, []int{1}, 2, "got %d values, want 2", 1)
		reached = true
	}, Options{Seed: 1})
	assert.False(t, reached, "require must stop the check")
	assert.Equal(t, "got 1 values, want 2", cr.Message)
}

func TestPassingCheckScoresItsPoints(t *testing.T) {
	cr, res := runOne(t, func(t *T) {}, Options{Seed: 1})
	assert.True(t, cr.Passed)
	assert.Equal(t, 3, cr.Points)
	assert.Equal(t, 3, res.Points)
	assert.Equal(t, 3, res.MaxPoints)
}

func TestNotImplemented(t *testing.T) {
	cr, res := runOne(t, func(t *T) {
		t.Must(fmt.Errorf("sine: %w", ErrNotImplemented), "Discretize(sin, 0, π, 7)")
	}, Options{Seed: 1})
	assert.True(t, cr.NotImplemented)
	assert.False(t, cr.Passed)
	assert.Equal(t, "Discretize(sin, 0, π, 7): not implemented yet", cr.Message)
	assert.Equal(t, Graded, res.Status)
}

func TestWantErrorDoesNotCountTheStubsError(t *testing.T) {
	cr, _ := runOne(t, func(t *T) { t.WantError(ErrNotImplemented, "F(bad)") }, Options{Seed: 1})
	assert.False(t, cr.Passed, "a stub must not pass a bad-input check")
	cr, _ = runOne(t, func(t *T) { t.WantError(nil, "F(bad)") }, Options{Seed: 1})
	assert.Equal(t, "F(bad) returned no error; it should reject this input", cr.Message)
	cr, _ = runOne(t, func(t *T) { t.WantError(fmt.Errorf("bad"), "F(bad)") }, Options{Seed: 1})
	assert.True(t, cr.Passed)
}

func TestPanicStopsTheExerciseWithZero(t *testing.T) {
	e := Exercise{ID: "00_test", Checks: []Check{
		{ID: "first", Points: 2, Run: func(t *T) {}},
		{ID: "second", Points: 2, Run: func(t *T) {
			var s []int
			_ = s[3]
		}},
		{ID: "third", Points: 2, Run: func(t *T) {}},
	}}
	res := Run(e, Options{Seed: 1, CheckTimeout: testlimit.Legit(t)})
	assert.Equal(t, Panicked, res.Status)
	assert.Equal(t, 0, res.Points)
	assert.Equal(t, 6, res.MaxPoints)
	assert.Contains(t, res.Message, `check "second" panicked`)
	assert.Contains(t, res.Message, "index out of range [3] with length 0")
	assert.Contains(t, res.Message, "grading_test.go:", "the message names the line that panicked")
	require.Len(t, res.Checks, 3)
	for _, c := range res.Checks {
		assert.Equal(t, 0, c.Points)
		assert.False(t, c.Passed)
	}
	assert.Contains(t, res.Checks[2].Message, "not run")
}

func TestTimeoutStopsTheExerciseWithZero(t *testing.T) {
	e := Exercise{ID: "00_test", Checks: []Check{
		{ID: "spin", Points: 2, Run: func(t *T) {
			for x := 0; ; x++ {
				_ = math.Sqrt(float64(x))
			}
		}},
		{ID: "after", Points: 1, Run: func(t *T) {}},
	}}
	// The spin never ends, so a short limit is safe under load: what is
	// asserted is the reason the exercise stopped, not how fast.
	res := Run(e, Options{Seed: 1, CheckTimeout: 200 * time.Millisecond})
	assert.Equal(t, TimedOut, res.Status)
	assert.Equal(t, 0, res.Points)
	assert.Contains(t, res.Message, `check "spin" did not finish within 200ms`)
	assert.Contains(t, res.Checks[1].Message, "not run")
}

func TestSeedMakesInputsRepeatable(t *testing.T) {
	draw := func(seed uint64) (a, b uint64) {
		e := Exercise{ID: "00_test", Checks: []Check{
			{ID: "one", Points: 1, Run: func(t *T) { a = t.Rand().Uint64() }},
			{ID: "two", Points: 1, Run: func(t *T) { b = t.Rand().Uint64() }},
		}}
		res := Run(e, Options{Seed: seed, CheckTimeout: testlimit.Legit(t)})
		assert.Equal(t, seed, res.Seed)
		return a, b
	}
	a1, b1 := draw(42)
	a2, b2 := draw(42)
	a3, _ := draw(43)
	assert.Equal(t, a1, a2)
	assert.Equal(t, b1, b2)
	assert.NotEqual(t, a1, b1, "each check has its own stream")
	assert.NotEqual(t, a1, a3)
	assert.NotZero(t, Run(Exercise{}, Options{}).Seed, "a fresh seed is drawn when none is given")
}

func TestDiffNamesTheFirstWrongPointAndTheMistake(t *testing.T) {
	want := []float64{1, 2, 3, 4}
	swappedVals := []float64{1, 3, 2, 4}
	cr, _ := runOne(t, func(t *T) {
		Diff{What: "Sweep", Label: func(i int) string { return fmt.Sprintf("(%d)", i) }}.Check(t, swappedVals, want,
			Variant{Hint: "unrelated", Values: []float64{9, 9, 9, 9}},
			Variant{Hint: "are c1 and c2 swapped?", Values: swappedVals})
	}, Options{Seed: 1})
	assert.Equal(t, "Sweep: wrong value at (1): got 3, want 2 (2 wrong points) — are c1 and c2 swapped?", cr.Message)

	cr, _ = runOne(t, func(t *T) {
		Diff{What: "Sweep"}.Check(t, []float64{1, math.NaN(), 3, math.NaN()}, want)
	}, Options{Seed: 1})
	assert.Equal(t, "Sweep: 2 points never written (still NaN), the first at [1] — does every output point get a thread that writes it?", cr.Message)

	cr, _ = runOne(t, func(t *T) {
		Diff{What: "Sweep", Only: func(i int) bool { return i != 1 }}.Check(t, []float64{1, 7, 3, 4}, want)
	}, Options{Seed: 1})
	assert.True(t, cr.Passed, "points outside Only are not compared")

	cr, _ = runOne(t, func(t *T) { Diff{What: "Sweep"}.Check(t, []float64{1}, want) }, Options{Seed: 1})
	assert.Equal(t, "Sweep: got 1 values, want 4", cr.Message)
}

func TestNumberNamesTheMistake(t *testing.T) {
	cr, _ := runOne(t, func(t *T) {
		Number(t, "Intensity(basic)", 13.0/7, 13.0/28, Float64, Scalar{Hint: "each float is 4 bytes", Value: 13.0 / 7})
	}, Options{Seed: 1})
	assert.Equal(t, "Intensity(basic): got 1.85714, want 0.464286 — each float is 4 bytes", cr.Message)
	cr, _ = runOne(t, func(t *T) { Number(t, "x", 1+1e-12, 1, Float64) }, Options{Seed: 1})
	assert.True(t, cr.Passed)
}

func TestReportTotalsAndJSON(t *testing.T) {
	a := Run(Exercise{ID: "01_a", Title: "A", Checks: []Check{
		{ID: "ok", Points: 2, Run: func(t *T) {}},
		{ID: "bad", Points: 3, Run: func(t *T) { t.Fail("wrong") }},
	}}, Options{Seed: 7, CheckTimeout: testlimit.Legit(t)})
	b := Fail(Exercise{ID: "02_b", Title: "B", Checks: []Check{{ID: "x", Points: 4}}}, BuildFailed, "does not compile", 7)
	rep := NewReport(7, []ExerciseResult{a, b})
	assert.Equal(t, 2, rep.Points)
	assert.Equal(t, 9, rep.MaxPoints)

	var buf bytes.Buffer
	require.NoError(t, rep.WriteJSON(&buf))
	var decoded struct {
		Total     int `json:"points"`
		Max       int `json:"max_points"`
		Exercises []struct {
			ID        string `json:"id"`
			Points    int    `json:"points"`
			MaxPoints int    `json:"max_points"`
			Status    string `json:"status"`
			Checks    []struct {
				ID        string `json:"id"`
				Points    int    `json:"points"`
				MaxPoints int    `json:"max_points"`
				Passed    bool   `json:"passed"`
				Message   string `json:"message"`
			} `json:"checks"`
		} `json:"exercises"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &decoded))
	assert.Equal(t, 2, decoded.Total)
	assert.Equal(t, 9, decoded.Max)
	require.Len(t, decoded.Exercises, 2)
	assert.Equal(t, "build_failed", decoded.Exercises[1].Status)
	assert.Equal(t, "wrong", decoded.Exercises[0].Checks[1].Message)
	assert.Equal(t, 3, decoded.Exercises[0].Checks[1].MaxPoints)
	assert.False(t, decoded.Exercises[0].Checks[1].Passed)

	buf.Reset()
	require.NoError(t, rep.WriteText(&buf))
	text := buf.String()
	assert.Contains(t, text, "01_a  A  2/5")
	assert.Contains(t, text, "FAIL bad  0/3  wrong")
	assert.Contains(t, text, "02_b  B  0/4  [build_failed]")
	assert.True(t, strings.HasPrefix(text[strings.LastIndex(text, "Total"):], "Total 2/9"))
}
