package grading

import (
	"os"
	"strconv"
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
	for _, c := range res.Checks {
		t.Run(c.ID, func(t *testing.T) {
			switch {
			case c.Passed:
			case c.NotImplemented:
				t.Skip(c.Message)
			default:
				t.Errorf("%s (%d points): %s\n(seed %d: %s=%d repeats these inputs)", c.ID, c.MaxPoints, c.Message, res.Seed, EnvSeed, res.Seed)
			}
		})
	}
	if res.Status != Graded {
		t.Fatalf("%s: %s", res.Status, res.Message)
	}
}
