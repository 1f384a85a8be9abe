// Package grading runs the checks of the lab's graded exercises.
//
// A check is a small test written with testify against a student's
// function: it draws fresh random inputs, computes the expected answer with
// the lab's reference code and compares. The same checks run in three
// places, with the same score:
//
//   - in `go test ./exercises/...`, through Test, one subtest per check;
//   - in `go run ./cmd/grade`, which runs the checks itself and the
//     student's functions only in a child process, the exercise's test
//     binary, sandboxed, under a time and memory limit (see Serve and
//     Client: the child returns outputs, never a score);
//   - in a notebook cell, through Print, on the function written in the
//     notebook.
//
// A check fails with a message a student can act on. When the wrong answer
// matches a known mistake (two coefficients swapped, the boundary
// overwritten, a spacing of (b−a)/n), the message names the mistake.
package grading

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
)

// ErrNotImplemented is returned by the stubs of the student version. A
// check that receives it fails with "not implemented yet", and Test skips
// it rather than failing it.
var ErrNotImplemented = errors.New("not implemented yet")

// Check is one graded check of an exercise.
type Check struct {
	ID     string // short and unique within the exercise, e.g. "fig-8.1"
	Title  string // what the check verifies, in one line
	Points int    // points awarded when it passes
	Hidden bool   // instructor-only: absent from the student release
	Run    func(t *T)
}

// Exercise is a graded exercise: the student's files in its folder and the
// checks that grade them.
type Exercise struct {
	ID     string   // the folder under exercises/, e.g. "01_sine"
	Title  string   // e.g. "Sine discretization"
	Files  []string // the files the student edits, relative to the folder
	Checks []Check
	// Allow is what a submitted file may use (the static check,
	// Static.Check): import paths, each allowing its package whole
	// ("fmt"), package-level names ("stencillab.dev/lab.Grid3") and the
	// fields and methods of named types ("stencillab.dev/lab/sim.Thread.Sync").
	// A package may be imported when it is allowed whole or one of its
	// names is. Anything else of another package is refused.
	Allow []string
	// Serve answers the grader's calls to the student's functions when the
	// exercise's test binary runs as the grader's child (EnvServe); the
	// checks then run in the grader, not here.
	Serve Handler
}

// MaxPoints returns the sum of the points of the exercise's checks.
func (e Exercise) MaxPoints() int {
	n := 0
	for _, c := range e.Checks {
		n += c.Points
	}
	return n
}

// T is the handle a check receives. It implements testify's TestingT and
// require.TestingT, so checks use assert and require directly. The first
// failure's message is what the student sees.
type T struct {
	mu       sync.Mutex
	messages []string
	notImpl  bool
	rng      *rand.Rand
	seed     uint64
}

func newT(seed uint64, checkID string) *T {
	h := uint64(14695981039346656037)
	for i := 0; i < len(checkID); i++ {
		h ^= uint64(checkID[i])
		h *= 1099511628211
	}
	return &T{rng: rand.New(rand.NewPCG(seed, h)), seed: seed}
}

// Rand returns the check's random source: fresh for every run, reproducible
// from the run's seed.
func (t *T) Rand() *rand.Rand { return t.rng }

// Seed returns the seed of the run.
func (t *T) Seed() uint64 { return t.seed }

// Errorf records a failure. Output formatted by testify is reduced to its
// message (or its error line when no message was given), without the trace.
func (t *T) Errorf(format string, args ...any) {
	msg := cleanMessage(fmt.Sprintf(format, args...))
	t.mu.Lock()
	t.messages = append(t.messages, msg)
	t.mu.Unlock()
}

// Fail records a failure with a plain message.
func (t *T) Fail(msg string) { t.Errorf("%s", msg) }

// FailNow stops the check. It must be called from the check's goroutine.
func (t *T) FailNow() { stopCheck() }

// Fatalf records a failure and stops the check.
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	t.FailNow()
}

// Failed reports whether the check has failed so far.
func (t *T) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.messages) > 0
}

// NotImplemented records that what is still a stub and stops the check.
func (t *T) NotImplemented(what string) {
	t.mu.Lock()
	t.notImpl = true
	t.messages = append(t.messages, what+": not implemented yet")
	t.mu.Unlock()
	t.FailNow()
}

// Must stops the check with a message unless err is nil. An error wrapping
// ErrNotImplemented marks the check as not implemented.
func (t *T) Must(err error, what string) {
	if err == nil {
		return
	}
	if errors.Is(err, ErrNotImplemented) {
		t.NotImplemented(what)
	}
	t.Fatalf("%s returned an error on valid input: %v", what, err)
}

// WantError fails the check unless err is a real error. The stubs' error
// does not count: an unimplemented function does not reject bad input.
func (t *T) WantError(err error, what string) bool {
	switch {
	case err == nil:
		t.Errorf("%s returned no error; it should reject this input", what)
		return false
	case errors.Is(err, ErrNotImplemented):
		t.NotImplemented(what)
	}
	return true
}

// result returns the first message and how many more failures followed.
func (t *T) result() (passed, notImpl bool, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.messages) == 0 {
		return true, false, ""
	}
	msg = t.messages[0]
	if n := len(t.messages) - 1; n > 0 && !t.notImpl {
		msg += fmt.Sprintf(" (and %d more failure%s)", n, plural(n))
	}
	return false, t.notImpl, msg
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

var labelRE = regexp.MustCompile(`^\t([A-Za-z ]+):\s*\t(.*)$`)

// cleanMessage reduces testify's labelled output ("Error Trace: …",
// "Error: …", "Messages: …") to the message, or to the error when there is
// no message. Other text is returned trimmed.
func cleanMessage(s string) string {
	if !strings.Contains(s, "Error Trace:") && !strings.Contains(s, "\tError:") {
		return strings.TrimSpace(s)
	}
	fields := map[string][]string{}
	label := ""
	for _, line := range strings.Split(s, "\n") {
		if m := labelRE.FindStringSubmatch(line); m != nil {
			label = m[1]
			fields[label] = append(fields[label], strings.TrimSpace(m[2]))
			continue
		}
		if label != "" {
			fields[label] = append(fields[label], strings.TrimSpace(line))
		}
	}
	pick := fields["Messages"]
	if len(pick) == 0 {
		pick = fields["Error"]
	}
	var parts []string
	for _, p := range pick {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}
