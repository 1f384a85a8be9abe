package grading

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Status says how the grading of an exercise ended.
type Status string

// Statuses of an exercise. Every status but Graded scores 0; NeedsGPU
// and NotAvailable are not the student's doing, and a gradebook leaves
// their cells empty rather than 0.
const (
	Graded       Status = "graded"        // every check ran
	Panicked     Status = "panicked"      // a check panicked
	TimedOut     Status = "timeout"       // a check or the process ran past its time limit
	OutOfMemory  Status = "out_of_memory" // the process ran past its memory limit
	Crashed      Status = "crashed"       // the process died for another reason
	BuildFailed  Status = "build_failed"  // the exercise does not compile
	Rejected     Status = "rejected"      // a submitted file breaks a rule of the static check
	Missing      Status = "missing"       // the submission has no file for the exercise
	NeedsGPU     Status = "needs_gpu"     // graded only on a machine with a GPU: withheld, not zero
	NotAvailable Status = "not_available" // the exercise could not be graded at all
)

// CheckResult is the outcome of one check.
type CheckResult struct {
	ID             string `json:"id"`
	Title          string `json:"title"`
	Points         int    `json:"points"`
	MaxPoints      int    `json:"max_points"`
	Passed         bool   `json:"passed"`
	Hidden         bool   `json:"hidden,omitempty"`
	NotImplemented bool   `json:"not_implemented,omitempty"`
	Message        string `json:"message"`
}

// ExerciseResult is the outcome of one exercise.
type ExerciseResult struct {
	ID        string        `json:"id"`
	Title     string        `json:"title"`
	Points    int           `json:"points"`
	MaxPoints int           `json:"max_points"`
	Status    Status        `json:"status"`
	Message   string        `json:"message,omitempty"`
	Seed      uint64        `json:"seed"`
	Checks    []CheckResult `json:"checks"`
	// Metrics are measurements that come with the score, by name: the
	// GPU exercises' share of the float4 copy ("pct_copy"), their time
	// ("ms") and each check's seconds ("seconds:ID").
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// Options configures a run of checks.
type Options struct {
	// Seed seeds every check's random source; 0 draws a fresh seed.
	Seed uint64
	// CheckTimeout bounds one check; 0 means DefaultCheckTimeout.
	CheckTimeout time.Duration
	// OnStart, when set, is called before each check runs.
	OnStart func(check string)
	// OnResult, when set, is called after each check with its result.
	OnResult func(CheckResult)
}

// DefaultCheckTimeout bounds one check when Options.CheckTimeout is 0.
const DefaultCheckTimeout = 20 * time.Second

// NewSeed returns a fresh random seed, never 0.
func NewSeed() uint64 {
	for {
		if s := rand.Uint64() % 1_000_000_000; s != 0 {
			return s
		}
	}
}

type outcome struct {
	panicked bool
	value    any
	where    string
}

// stopOf turns a panic that stops a check into the exercise's status and
// the check's message: a student's panic (here or in the child), or the
// child's failure.
func stopOf(c Check, o outcome) (Status, string, string) {
	switch v := o.value.(type) {
	case *ChildFailure:
		return v.Status, v.Message, fmt.Sprintf("check %q stopped: %s", c.ID, v.Message)
	case *RemotePanic:
		return Panicked, "panicked: " + v.Value, fmt.Sprintf("check %q panicked: %s. The exercise scores 0 until it no longer panics.", c.ID, v.Value)
	}
	return Panicked, fmt.Sprintf("panicked: %v%s", o.value, o.where),
		fmt.Sprintf("check %q panicked: %v%s. The exercise scores 0 until it no longer panics.", c.ID, o.value, o.where)
}

// stopCheck ends the running check's goroutine; the runner sees a normal
// end with a recorded failure.
func stopCheck() { runtime.Goexit() }

// Run runs the checks of e in order and returns the result. A check that
// panics or runs past the time limit stops the exercise: it scores 0, and
// the message says which check and why. Run itself never panics.
func Run(e Exercise, opt Options) ExerciseResult {
	if opt.Seed == 0 {
		opt.Seed = NewSeed()
	}
	if opt.CheckTimeout <= 0 {
		opt.CheckTimeout = DefaultCheckTimeout
	}
	res := ExerciseResult{ID: e.ID, Title: e.Title, MaxPoints: e.MaxPoints(), Status: Graded, Seed: opt.Seed}
	for idx, c := range e.Checks {
		if opt.OnStart != nil {
			opt.OnStart(c.ID)
		}
		cr := CheckResult{ID: c.ID, Title: c.Title, MaxPoints: c.Points, Hidden: c.Hidden}
		t := newT(opt.Seed, c.ID)
		done := make(chan outcome, 1)
		go func() {
			var o outcome
			defer func() {
				if r := recover(); r != nil {
					o = outcome{panicked: true, value: r, where: panicSite()}
				}
				done <- o
			}()
			if c.Run == nil {
				t.Errorf("check %s has no code", c.ID)
				return
			}
			c.Run(t)
		}()
		var stop Status
		var why string
		select {
		case o := <-done:
			if o.panicked {
				stop, cr.Message, why = stopOf(c, o)
				break
			}
			cr.Passed, cr.NotImplemented, cr.Message = t.result()
			if cr.Passed {
				cr.Points = Clamp(c.Points, c.Points)
				cr.Message = "ok"
			}
		case <-time.After(opt.CheckTimeout):
			cr.Message = fmt.Sprintf("did not finish within %v", opt.CheckTimeout)
			stop, why = TimedOut, fmt.Sprintf("check %q did not finish within %v: is there a loop that never ends, or a barrier that not every thread reaches? The exercise scores 0 until it finishes.", c.ID, opt.CheckTimeout)
		}
		res.Points += cr.Points
		res.Checks = append(res.Checks, cr)
		if opt.OnResult != nil {
			opt.OnResult(cr)
		}
		if stop != "" {
			res.stop(e, idx, stop, why)
			return res
		}
	}
	return res
}

// Clamp returns points limited to 0 … max.
func Clamp(points, max int) int {
	switch {
	case max < 0 || points < 0:
		return 0
	case points > max:
		return max
	}
	return points
}

// Validate reports an error unless every check's points lie in 0 … its
// maximum, the maxima add up to the exercise's, the points add up to its
// points, and a check that did not pass scores 0. The grader asserts it
// of every result it reports.
func (r ExerciseResult) Validate() error {
	sum, maxSum := 0, 0
	for _, c := range r.Checks {
		if c.Points < 0 || c.Points > c.MaxPoints {
			return fmt.Errorf("grading: %s/%s scores %d of %d", r.ID, c.ID, c.Points, c.MaxPoints)
		}
		if !c.Passed && c.Points != 0 {
			return fmt.Errorf("grading: %s/%s failed but scores %d", r.ID, c.ID, c.Points)
		}
		sum += c.Points
		maxSum += c.MaxPoints
	}
	if sum != r.Points || maxSum != r.MaxPoints || r.Points > r.MaxPoints {
		return fmt.Errorf("grading: %s scores %d of %d, its checks %d of %d", r.ID, r.Points, r.MaxPoints, sum, maxSum)
	}
	if r.Status != Graded && r.Points != 0 {
		return fmt.Errorf("grading: %s is %s but scores %d", r.ID, r.Status, r.Points)
	}
	return nil
}

// stop marks the exercise as ended at check idx with status s: every check
// scores 0 and the checks after idx are reported as not run.
func (r *ExerciseResult) stop(e Exercise, idx int, s Status, msg string) {
	r.Status, r.Message, r.Points = s, msg, 0
	for i := range r.Checks {
		r.Checks[i].Points = 0
		r.Checks[i].Passed = false
		if r.Checks[i].Message == "ok" {
			r.Checks[i].Message = "passed, but scores 0: " + string(s)
		}
	}
	for _, c := range e.Checks[idx+1:] {
		r.Checks = append(r.Checks, CheckResult{ID: c.ID, Title: c.Title, MaxPoints: c.Points, Hidden: c.Hidden,
			Message: fmt.Sprintf("not run: the exercise stopped at check %q", e.Checks[idx].ID)})
	}
}

// Fail returns the result of an exercise that could not be graded: every
// check scores 0 and carries msg.
func Fail(e Exercise, s Status, msg string, seed uint64) ExerciseResult {
	r := ExerciseResult{ID: e.ID, Title: e.Title, MaxPoints: e.MaxPoints(), Status: s, Message: msg, Seed: seed}
	for _, c := range e.Checks {
		r.Checks = append(r.Checks, CheckResult{ID: c.ID, Title: c.Title, MaxPoints: c.Points, Hidden: c.Hidden,
			Message: "not run: " + string(s)})
	}
	return r
}

// panicSite returns " at FILE:LINE in FUNC" for the frame that panicked,
// skipping the runtime and this package; file names are given without
// their folders.
func panicSite() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		fn := f.Function
		file := filepath.ToSlash(f.File)
		ours := strings.Contains(file, "/exercises/grading/") && !strings.HasSuffix(file, "_test.go")
		if fn != "" && !strings.HasPrefix(fn, "runtime.") && !ours {
			return fmt.Sprintf(" at %s:%d in %s", filepath.Base(f.File), f.Line, shortFunc(fn))
		}
		if !more {
			return ""
		}
	}
}

// shortFunc drops the import path of a function name:
// "stencillab.dev/exercises/01_sine.Discretize" becomes
// "01_sine.Discretize".
func shortFunc(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}
