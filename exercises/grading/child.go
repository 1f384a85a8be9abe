package grading

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Environment variables that connect an exercise's test binary to the
// grader.
const (
	// EnvServe, set to 1, makes Test serve the grader's calls to the
	// student's functions instead of testing: calls are read from file
	// descriptor 3 and replies written to file descriptor 4 (see Serve).
	EnvServe = "STENCILLAB_GRADE_SERVE"
	// EnvSeed fixes the seed of the random inputs.
	EnvSeed = "STENCILLAB_SEED"
	// EnvCheckTimeout bounds one check, as a Go duration ("20s").
	EnvCheckTimeout = "STENCILLAB_CHECK_TIMEOUT"
	// EnvUngraded, set to 1 (make test sets it), makes Test report the
	// failing checks of a student's copy (a file without its solution) as
	// skipped rather than failed: in the students' repository the
	// exercises are unfinished by design, and grading them is cmd/grade's
	// job, not CI's. The instructor's files are tested strictly.
	EnvUngraded = "STENCILLAB_EXERCISES_UNGRADED"
)

// The file descriptors of the channel in a child: the grader's calls come
// in on ServeIn and the replies go out on ServeOut.
const (
	ServeIn  = 3
	ServeOut = 4
)

// OptionsFromEnv reads the seed and the check timeout from the
// environment; a missing or bad value leaves the default.
func OptionsFromEnv() Options {
	var opt Options
	if s, err := strconv.ParseUint(os.Getenv(EnvSeed), 10, 64); err == nil {
		opt.Seed = s
	}
	if d, err := time.ParseDuration(os.Getenv(EnvCheckTimeout)); err == nil {
		opt.CheckTimeout = d
	}
	return opt
}

// Test runs the checks of e inside `go test`: one subtest per check, a
// failure's message as the test error, and a skip for a check whose
// function is still a stub. Run by the grader as its child (EnvServe set),
// it runs no check: it serves the grader's calls to the student's functions
// until the grader closes the channel.
func Test(t *testing.T, e Exercise) {
	if os.Getenv(EnvServe) == "1" {
		in, out := os.NewFile(ServeIn, "calls"), os.NewFile(ServeOut, "replies")
		if in == nil || out == nil {
			t.Fatalf("grading: %s=1 but no channel on file descriptors %d and %d", EnvServe, ServeIn, ServeOut)
		}
		if err := Serve(in, out, e.Serve); err != nil {
			t.Fatal(err)
		}
		// The grader has all it asked for; a goroutine of the student's
		// still running must not keep the process alive.
		_ = out.Close()
		os.Exit(0)
	}
	opt := OptionsFromEnv()
	res := Run(e, opt)
	soft := os.Getenv(EnvUngraded) == "1" && !holdsSolution(e)
	for _, c := range res.Checks {
		t.Run(c.ID, func(t *testing.T) {
			switch {
			case c.Passed:
			case c.NotImplemented:
				t.Skip(c.Message)
			case soft:
				t.Skipf("%s (%d points): %s (not a failure of CI: go run ./cmd/grade grades the exercises)", c.ID, c.MaxPoints, c.Message)
			default:
				t.Errorf("%s (%d points): %s\n(seed %d: %s=%d repeats these inputs)", c.ID, c.MaxPoints, c.Message, res.Seed, EnvSeed, res.Seed)
			}
		})
	}
	if res.Status != Graded {
		if soft {
			t.Skipf("%s: %s (not a failure of CI: go run ./cmd/grade grades the exercises)", res.Status, res.Message)
		}
		t.Fatalf("%s: %s", res.Status, res.Message)
	}
}

// holdsSolution reports whether a file of e in the working directory (the
// exercise's folder, where go test runs it) holds a solution block: the
// instructor's version.
func holdsSolution(e Exercise) bool {
	for _, f := range e.Files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "// BEGIN SOLUTION") {
			return true
		}
	}
	return false
}
