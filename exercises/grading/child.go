package grading

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"
	"time"
)

// Environment variables that connect an exercise's test binary to the
// grader.
const (
	// EnvOut names the file the test binary writes its events to. When it
	// is set, Test grades instead of testing.
	EnvOut = "STENCILLAB_GRADE_OUT"
	// EnvList, when set to 1 together with EnvOut, makes the binary write
	// the exercise's checks and stop without running them.
	EnvList = "STENCILLAB_GRADE_LIST"
	// EnvSeed fixes the seed of the random inputs.
	EnvSeed = "STENCILLAB_SEED"
	// EnvCheckTimeout bounds one check, as a Go duration ("20s").
	EnvCheckTimeout = "STENCILLAB_CHECK_TIMEOUT"
)

// CheckInfo describes a check without its code.
type CheckInfo struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Points int    `json:"points"`
	Hidden bool   `json:"hidden,omitempty"`
}

// ExerciseInfo describes an exercise without its code.
type ExerciseInfo struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Files  []string    `json:"files"`
	Checks []CheckInfo `json:"checks"`
}

// Info returns the description of e.
func (e Exercise) Info() ExerciseInfo {
	info := ExerciseInfo{ID: e.ID, Title: e.Title, Files: e.Files}
	for _, c := range e.Checks {
		info.Checks = append(info.Checks, CheckInfo{ID: c.ID, Title: c.Title, Points: c.Points, Hidden: c.Hidden})
	}
	return info
}

// Exercise returns an exercise with info's checks and no code, for
// reports of exercises that could not run.
func (info ExerciseInfo) Exercise() Exercise {
	e := Exercise{ID: info.ID, Title: info.Title, Files: info.Files}
	for _, c := range info.Checks {
		e.Checks = append(e.Checks, Check{ID: c.ID, Title: c.Title, Points: c.Points, Hidden: c.Hidden})
	}
	return e
}

// Event is one line of the file a test binary writes for the grader.
type Event struct {
	Event    string          `json:"event"` // "exercise", "start", "result" or "end"
	Exercise *ExerciseInfo   `json:"exercise,omitempty"`
	Check    string          `json:"check,omitempty"`
	Result   *CheckResult    `json:"result,omitempty"`
	End      *ExerciseResult `json:"end,omitempty"`
	Seed     uint64          `json:"seed,omitempty"`
}

// ReadEvents parses an event file; a truncated last line is ignored, since
// the process may have died while writing it.
func ReadEvents(r io.Reader) ([]Event, error) {
	var evs []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		return evs, fmt.Errorf("grading: read events: %w", err)
	}
	return evs, nil
}

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
// function is still a stub. Run by the grader (EnvOut set), it writes the
// events for the grader instead.
func Test(t *testing.T, e Exercise) {
	if out := os.Getenv(EnvOut); out != "" {
		if err := grade(e, out, os.Getenv(EnvList) == "1"); err != nil {
			t.Fatal(err)
		}
		return
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

// grade writes the exercise, then each check's start and result, then the
// end, one JSON line each, written straight to the file so that a process
// that dies leaves what it did.
func grade(e Exercise, path string, listOnly bool) (err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("grading: open event file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("grading: close event file: %w", cerr)
		}
	}()
	var werr error
	emit := func(ev Event) {
		b, err := json.Marshal(ev)
		if err != nil {
			werr = errors.Join(werr, err)
			return
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			werr = errors.Join(werr, err)
		}
	}
	opt := OptionsFromEnv()
	if opt.Seed == 0 {
		opt.Seed = NewSeed()
	}
	info := e.Info()
	emit(Event{Event: "exercise", Exercise: &info, Seed: opt.Seed})
	if listOnly {
		return werr
	}
	opt.OnStart = func(id string) { emit(Event{Event: "start", Check: id}) }
	opt.OnResult = func(cr CheckResult) { emit(Event{Event: "result", Result: &cr}) }
	res := Run(e, opt)
	emit(Event{Event: "end", End: &res})
	if werr != nil {
		return fmt.Errorf("grading: write event file: %w", werr)
	}
	if res.Status != Graded {
		// A check is still running in a goroutine that will not stop;
		// end the process now that the result is written.
		_ = f.Close()
		os.Exit(0)
	}
	return nil
}
