package cudacheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/grading"
)

// Config configures the grading of one CUDA submission.
type Config struct {
	// Command is the child: a program and its first arguments, to which
	// -id, -seed and -mode are added (the grader: its own binary and
	// "-cuda-child").
	Command []string
	// Env is added to the child's environment.
	Env []string
	// Seed seeds the checks; 0 draws one.
	Seed uint64
	// Timeout bounds the child: past it, the process group is killed and
	// the check it was in is reported. 0 means 120 s.
	Timeout time.Duration
	// Sanitizer is the compute-sanitizer program; when set, memcheck and
	// racecheck run on the submission and two checks score them.
	Sanitizer string
}

// gpuMu makes the grading of CUDA submissions one at a time: the GPU is
// shared, and the timings would disturb each other.
var gpuMu sync.Mutex

// Grade grades source, the student's file of exercise spec, in a child
// process and returns the result. A child that faults, hangs or dies
// scores 0 for the exercise, with the check it was in; Grade itself never
// fails.
func Grade(cfg Config, spec Spec, source []byte) grading.ExerciseResult {
	if cfg.Seed == 0 {
		cfg.Seed = grading.NewSeed()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	ex := spec.Exercise(nil, cfg.Sanitizer != "")
	if len(source) > maxSource {
		return grading.Fail(ex, grading.Rejected, fmt.Sprintf("%s exceeds %d bytes", spec.File, maxSource), cfg.Seed)
	}
	gpuMu.Lock()
	defer gpuMu.Unlock()
	start := time.Now()
	out := runChild(cfg, cfg.Command, spec, source, "grade")
	res := out.toResult(ex, spec, cfg)
	if res.Status == grading.Graded && cfg.Sanitizer != "" {
		for _, tool := range []string{"memcheck", "racecheck"} {
			res.Checks = append(res.Checks, sanitize(cfg, spec, source, tool))
		}
		res.MaxPoints, res.Points = 0, 0
		for _, c := range res.Checks {
			res.MaxPoints += c.MaxPoints
			res.Points += c.Points
		}
	}
	if res.Metrics == nil {
		res.Metrics = map[string]float64{}
	}
	res.Metrics["seconds"] = time.Since(start).Seconds()
	if err := res.Validate(); err != nil {
		return grading.Fail(ex, grading.NotAvailable, fmt.Sprintf("the GPU checks returned an inconsistent result: %v", err), cfg.Seed)
	}
	return res
}

// childOutput is what a child run left.
type childOutput struct {
	check    string // the last check started
	fault    string // the fault reported, if any
	result   *grading.ExerciseResult
	timedOut bool
	err      error  // the child's exit
	stderr   string // its last lines
	other    string // lines of its standard output that are not events (compute-sanitizer's report)
	elapsed  time.Duration
}

// runChild runs command with the child's flags, feeding it source.
func runChild(cfg Config, command []string, spec Spec, source []byte, mode string) childOutput {
	var o childOutput
	if len(command) == 0 {
		o.err = errors.New("no child command")
		return o
	}
	args := append(slices.Clone(command[1:]), "-id", spec.ID, "-seed", strconv.FormatUint(cfg.Seed, 10), "-mode", mode,
		"-check-timeout", cfg.Timeout.String())
	cmd := exec.Command(command[0], args...)
	cmd.Env = append(cmd.Environ(), cfg.Env...)
	cmd.Stdin = bytes.NewReader(source)
	var stderr tailBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		o.err = err
		return o
	}
	newGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		o.err = fmt.Errorf("start the GPU checks: %w", err)
		return o
	}
	var mu sync.Mutex
	var other tailBuffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 8<<20)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			switch {
			case strings.HasPrefix(line, lineStart):
				o.check = strings.TrimPrefix(line, lineStart)
			case strings.HasPrefix(line, lineFault):
				var msg string
				if json.Unmarshal([]byte(strings.TrimPrefix(line, lineFault)), &msg) == nil {
					o.fault = msg
				}
			case strings.HasPrefix(line, lineResult):
				var r grading.ExerciseResult
				if json.Unmarshal([]byte(strings.TrimPrefix(line, lineResult)), &r) == nil {
					o.result = &r
				}
			default:
				other.Write([]byte(line + "\n"))
			}
			mu.Unlock()
		}
	}()
	done := make(chan error, 1)
	go func() {
		<-read
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		o.err = err
	case <-time.After(cfg.Timeout):
		o.timedOut = true
		killGroup(cmd)
		o.err = <-done
	}
	o.elapsed = time.Since(start)
	o.stderr = stderr.String()
	o.other = other.String()
	return o
}

// result turns a child's output into the exercise's result.
func (o childOutput) toResult(ex grading.Exercise, spec Spec, cfg Config) grading.ExerciseResult {
	where := ""
	if o.check != "" {
		where = fmt.Sprintf(" during check %q", o.check)
	}
	switch {
	case o.timedOut:
		return grading.Fail(ex, grading.TimedOut, fmt.Sprintf("the GPU checks did not finish within %v: the kernel hung%s (a loop that never ends, or a barrier that not every thread reaches?). The process was killed; the GPU is free for the next exercise. The exercise scores 0.", cfg.Timeout, where), cfg.Seed)
	case o.fault != "":
		return grading.Fail(ex, grading.Crashed, fmt.Sprintf("the kernel faulted%s: %s. An access outside the arrays (check the bounds of every index) ends the launch; the exercise scores 0.", where, o.fault), cfg.Seed)
	case o.result == nil:
		msg := fmt.Sprintf("the GPU checks ended%s without a result (%v)", where, o.err)
		if s := strings.TrimSpace(o.stderr); s != "" {
			msg += ": " + s
		}
		return grading.Fail(ex, grading.Crashed, msg, cfg.Seed)
	}
	r := *o.result
	if r.ID != spec.ID {
		return grading.Fail(ex, grading.NotAvailable, fmt.Sprintf("the GPU checks graded %q, not %q", r.ID, spec.ID), cfg.Seed)
	}
	if r.Status != grading.Graded {
		// The child's own listing has no sanitizer checks: report them.
		f := grading.Fail(ex, r.Status, r.Message, r.Seed)
		f.Metrics = r.Metrics
		return f
	}
	return r
}

// sanitize runs compute-sanitizer's tool on the submission's kernel on
// small grids and returns the check named for the tool.
func sanitize(cfg Config, spec Spec, source []byte, tool string) grading.CheckResult {
	title := map[string]string{
		"memcheck":  "compute-sanitizer memcheck: no access outside the arrays",
		"racecheck": "compute-sanitizer racecheck: no shared-memory race",
	}[tool]
	cr := grading.CheckResult{ID: tool, Title: title, MaxPoints: 1}
	cmd := append([]string{cfg.Sanitizer, "--tool", tool, "--error-exitcode", "86", "--print-limit", "8"}, cfg.Command...)
	c := cfg
	c.Timeout = 4 * cfg.Timeout
	o := runChild(c, cmd, spec, source, "sanitize")
	var ee *exec.ExitError
	switch {
	case o.timedOut:
		cr.Message = fmt.Sprintf("compute-sanitizer %s did not finish within %v", tool, c.Timeout)
	case o.err == nil:
		cr.Passed, cr.Points, cr.Message = true, 1, "ok"
	case errors.As(o.err, &ee) && ee.ExitCode() == 86:
		cr.Message = fmt.Sprintf("compute-sanitizer %s found errors in %s:\n%s", tool, spec.File, sanitizerErrors(o.other+"\n"+o.stderr))
	default:
		cr.Message = fmt.Sprintf("compute-sanitizer %s could not run the kernel (%v): %s", tool, o.err, lastLines(o.stderr, 6))
	}
	return cr
}

// sanitizerErrors keeps compute-sanitizer's error lines ("========= …").
func sanitizerErrors(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "=========") && strings.TrimSpace(strings.TrimLeft(l, "=")) != "" {
			keep = append(keep, strings.TrimSpace(strings.TrimLeft(l, "= ")))
		}
		if len(keep) == 12 {
			break
		}
	}
	return strings.Join(keep, "\n")
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 64<<10 {
		t.b = t.b[len(t.b)-64<<10:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
