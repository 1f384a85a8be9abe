package predict

import (
	"bytes"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// captureStdout runs f and returns what it printed.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, r)
		done <- b.String()
	}()
	f()
	os.Stdout = old
	require.NoError(t, w.Close())
	return <-done
}

// TestQuestionsSolve: every graded question computes a finite answer, its
// working shows that answer, and no hint of it states the answer.
func TestQuestionsSolve(t *testing.T) {
	seen := map[string]bool{}
	for _, q := range Questions() {
		key := q.Notebook + "/" + q.ID
		assert.False(t, seen[key], "%s declared twice", key)
		seen[key] = true
		if !q.Graded() {
			assert.NotEmpty(t, strings.TrimSpace(q.Working), "%s: a question with no number needs its working", key)
			continue
		}
		assert.NotEmpty(t, q.Name, key)
		a, err := q.Solve()
		require.NoError(t, err, key)
		require.False(t, math.IsNaN(a.Want) || math.IsInf(a.Want, 0), "%s: answer %g", key, a.Want)
		tol := q.Tolerance(a.Want)
		assert.NotEmpty(t, AnswerLeaks(a.Working, q, a.Want, tol, 1), "%s: the working %q does not show the answer %g", key, a.Working, a.Want)
		for _, m := range a.Mistakes {
			assert.Greater(t, math.Abs(m.Value-a.Want), tol, "%s: the mistake %g is an accepted answer", key, m.Value)
			assert.Empty(t, AnswerLeaks(m.Hint, q, a.Want, tol, 1), "%s: the hint %q states the answer %g", key, m.Hint, a.Want)
		}
	}
}

// TestCheckShowsTheAnswerOnlyAfterAPrediction: an unset prediction prints
// the score alone; a made one, right or wrong, prints the answer after it.
func TestCheckShowsTheAnswerOnlyAfterAPrediction(t *testing.T) {
	q, err := LookupQuestion("04", "q3")
	require.NoError(t, err)
	a, err := q.Solve()
	require.NoError(t, err)
	// The largest T with 4·T³ bytes within 48 KiB, counted here.
	wantT := 1
	for 4*(wantT+1)*(wantT+1)*(wantT+1) <= 48*1024 {
		wantT++
	}
	require.Equal(t, float64(wantT), a.Want)

	out := captureStdout(t, func() { Check("04", "q3", Unset) })
	assert.Contains(t, out, "Score 0/1")
	assert.NotContains(t, out, "Answer.")

	var res int
	out = captureStdout(t, func() { res = Check("04", "q3", wantT).Points })
	assert.Equal(t, 1, res)
	assert.Contains(t, out, "Answer. T = ")

	out = captureStdout(t, func() { res = Check("04", "q3", 7).Points })
	assert.Equal(t, 0, res)
	assert.Contains(t, out, "read the answer below")
	assert.Contains(t, out, "Answer. T = ")

	out = captureStdout(t, func() { Reveal("01", "q2") })
	assert.Contains(t, out, "Answer. No.")

	out = captureStdout(t, func() { res = Check("04", "nope", 3).Points })
	assert.Equal(t, 0, res, "an unknown question grades nothing")
}

func TestAnswerLeaks(t *testing.T) {
	q := Question{Forms: []string{"13/28"}}
	want := 13.0 / 28
	found := func(text string, min int) []string {
		var s []string
		for _, l := range AnswerLeaks(text, q, want, 0.005, min) {
			s = append(s, l.Text)
		}
		return s
	}
	assert.Equal(t, []string{"0.46", "0.464"}, found("about 0.46, or 0.464 exactly, not 0.47 nor 0.4", 2))
	assert.Equal(t, []string{"13/28"}, found("13/28 of it", 2))
	assert.Empty(t, found("float0.46 is a name", 2))

	big := Question{}
	hits := AnswerLeaks("a plane is 262 144 bytes, or 262144, or 262,144; not 262 145", big, 262144, 0, 3)
	require.Len(t, hits, 3)
	assert.Equal(t, "262 144", hits[0].Text)
	assert.Empty(t, AnswerLeaks("q6 and float64 and H200", Question{}, 6, 0, 1))
	assert.Len(t, AnswerLeaks("6 messages", Question{}, 6, 0, 1), 1)
	assert.Empty(t, AnswerLeaks("6 messages", Question{}, 6, 0, 2), "one digit is below two")
	assert.Len(t, AnswerLeaks("about 16 and 15.98", Question{}, 15.98, 1, 2), 2)
}

func TestAnswerFormsAreWholeWords(t *testing.T) {
	q := Question{Forms: []string{"4³"}}
	assert.Empty(t, AnswerLeaks("a 24³ grid", q, 64, 0, 2))
	assert.Len(t, AnswerLeaks("a 24³ grid, 4³ blocks", q, 64, 0, 2), 1)
}

func TestHyphenatedNumbersAreNames(t *testing.T) {
	assert.Empty(t, AnswerLeaks("indices are 64-bit", Question{}, 64, 0, 2))
	assert.Len(t, AnswerLeaks("64 - 1 blocks", Question{}, 64, 0, 2), 1)
}

func TestWrap(t *testing.T) {
	text := strings.Repeat("word ", 50) + "end"
	for _, line := range strings.Split(wrap(text, 30), "\n") {
		assert.LessOrEqual(t, len([]rune(line)), 30, line)
	}
	assert.Equal(t, strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(wrap(text, 30)), " "))
}

// A number grouped by threes is never broken across two lines: "262" at
// the end of one and "144" at the start of the next read as two numbers.
func TestWrapKeepsGroupedNumbers(t *testing.T) {
	for pad := 0; pad < 12; pad++ {
		text := strings.Repeat("x", pad) + " so 262 144 bytes, 1 048 576 in all, at 64 128-wide blocks."
		got := wrap(text, 14)
		assert.Equal(t, strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(got), " "))
		for _, line := range strings.Split(got, "\n") {
			assert.False(t, strings.HasSuffix(line, "262") || strings.HasSuffix(line, "048") || strings.HasSuffix(line, " 1"),
				"pad %d: a grouped number broken after %q", pad, line)
		}
		assert.Contains(t, got, "262 144")
		assert.Contains(t, got, "1 048 576")
	}
	assert.Equal(t, []string{"at", "64", "128-wide"}, words("at 64 128-wide"), "64 and 128 are two numbers")
	assert.Equal(t, []string{"0.5", "125"}, words("0.5 125"), "a decimal is no group's head")
	assert.Equal(t, []string{"1234", "567"}, words("1234 567"))
}

// CheckCall reads a check as the notebooks write it, spaces and a
// prediction's variable or not, and nothing that only looks like one.
func TestCheckCall(t *testing.T) {
	for src, want := range map[string][]string{
		`nbrun.Check("02", "q1", q1)`:               {"Check", "02", "q1", "q1"},
		"nbrun.Check(\n\t\"07b\" ,\"q3\",  guess )": {"Check", "07b", "q3", "guess"},
		`nbrun.Reveal("06", "q1b")`:                 {"Reveal", "06", "q1b", ""},
		`nbrun.Check("04", "q2", 3*x)`:              {"Check", "04", "q2", ""},
	} {
		m := CheckCall.FindStringSubmatch(src)
		if assert.NotNil(t, m, src) {
			assert.Equal(t, want, m[1:], src)
		}
	}
	for _, src := range []string{`nbrun.Checked("02", "q1")`, `nbrun.Check(nb, "q1")`, `Check("02", "q1")`, `nbrun.Unset`} {
		assert.False(t, CheckCall.MatchString(src), src)
	}
}
