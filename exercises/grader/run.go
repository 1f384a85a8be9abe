// The run and verdict stages: the test binary runs as the sandboxed
// child that answers the checks (job.run), and what it did becomes a
// result, or 0 with the reason (diagnose).

package grader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"stencillab.dev/exercises/checks"
	"stencillab.dev/exercises/grading"
)

// run starts the test binary as the child that serves calls to the
// student's functions (sandboxed when cfg.Sandbox), runs the exercise's
// checks here against it, and turns how the child ended into the
// exercise's status when it could not answer.
func (j *job) run(cfg Config) grading.ExerciseResult {
	callsR, callsW, err := os.Pipe()
	if err != nil {
		return grading.Fail(j.ex, grading.NotAvailable, fmt.Sprintf("cannot make a pipe: %v", err), cfg.Seed)
	}
	repliesR, repliesW, err := os.Pipe()
	if err != nil {
		callsR.Close()
		callsW.Close()
		return grading.Fail(j.ex, grading.NotAvailable, fmt.Sprintf("cannot make a pipe: %v", err), cfg.Seed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	cmd := childCommand(ctx, cfg, j.bin)
	cmd.ExtraFiles = []*os.File{callsR, repliesW} // descriptors 3 and 4
	var stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	setProcessGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		callsR.Close()
		callsW.Close()
		repliesR.Close()
		repliesW.Close()
		return grading.Fail(j.ex, grading.NotAvailable, fmt.Sprintf("cannot start the exercise's process: %v", err), cfg.Seed)
	}
	callsR.Close()
	repliesW.Close()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	// end stops the child: it closes the channel, waits a moment for the
	// child to leave by itself, then kills its process group.
	var endOnce sync.Once
	end := func(grace time.Duration) {
		endOnce.Do(func() {
			callsW.Close()
			select {
			case <-exited:
			case <-time.After(grace):
				killGroup(cmd)
				<-exited
			}
			repliesR.Close()
		})
	}
	defer end(0)

	client := grading.NewClient(callsW, repliesR)
	client.Diagnose = func(chanErr error) *grading.ChildFailure {
		end(2 * time.Second)
		if errors.Is(chanErr, grading.ErrMalformed) && ctx.Err() == nil {
			// What it sent was not a reply.
			return &grading.ChildFailure{Status: grading.Crashed, Message: fmt.Sprintf(
				"the submission wrote on the grader's channel something that is not a reply (%v) and was stopped: the channel carries only the outputs of the functions the grader calls, and the grader alone gives points", chanErr)}
		}
		return diagnose(cfg, ctx.Err() != nil, waitErr, stderr.String(), time.Since(start))
	}
	ex, err := checks.Remote(j.ex.ID, client)
	if err != nil {
		return grading.Fail(j.ex, grading.NotAvailable, err.Error(), cfg.Seed)
	}
	res := grading.Run(ex, grading.Options{Seed: cfg.Seed, CheckTimeout: checkTimeout(cfg.Timeout)})
	end(2 * time.Second)
	if res.Status != grading.Graded {
		fmt.Fprintf(cfg.Log, "grade: %s: %s; the process's last output:\n%s\n", j.ex.ID, res.Status, firstLines(stderr.String(), 30))
	}
	return res
}

// diagnose says why a child stopped answering, from how it ended and
// what it printed.
func diagnose(cfg Config, timedOut bool, err error, text string, elapsed time.Duration) *grading.ChildFailure {
	fail := func(s grading.Status, format string, args ...any) *grading.ChildFailure {
		return &grading.ChildFailure{Status: s, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case timedOut:
		return fail(grading.TimedOut, "did not finish within %v and was stopped: is there a loop that never ends, or a barrier that not every thread reaches?", cfg.Timeout)
	case outOfMemory(text):
		return fail(grading.OutOfMemory, "ran out of memory (the limit is %s): does it allocate in a loop without end, or far more than the grid needs?", formatSize(cfg.MemBytes))
	case strings.Contains(text, "all goroutines are asleep - deadlock"):
		return fail(grading.Crashed, "deadlock: every goroutine was blocked — does every thread of a block reach each barrier?")
	case strings.Contains(text, "panic: "):
		return fail(grading.Panicked, "panicked: %s", panicSummary(text))
	}
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err == nil {
		code = 0
	}
	detail := lastLines(text, cfg.Root, 6)
	if code == 0 {
		return fail(grading.Crashed, "the process exited with status 0 before reporting, after %v: does the code call os.Exit, or return from the program some other way? (%s)",
			elapsed.Round(time.Millisecond), detail)
	}
	return fail(grading.Crashed, "the process ended after %v with status %d before reporting: %s", elapsed.Round(time.Millisecond), code, detail)
}

// outOfMemory reports whether a process's output shows that it ran out of
// memory. Under RLIMIT_DATA a thread's stack is one more private mapping,
// so a thread that cannot be made is the same exhaustion.
func outOfMemory(s string) bool {
	return strings.Contains(s, "fatal error: out of memory") ||
		strings.Contains(s, "runtime: out of memory") ||
		strings.Contains(s, "cannot allocate memory") ||
		strings.Contains(s, "fatal error: runtime: cannot allocate") ||
		strings.Contains(s, "failed to create new OS thread") ||
		strings.Contains(s, "pthread_create failed")
}

var frameRE = regexp.MustCompile(`(?m)^\t(\S+\.go):(\d+)`)

// panicSummary returns the panic's first line and the first frame in an
// exercise's own files, e.g. "runtime error: index out of range [7] with
// length 7 at basic.go:33".
func panicSummary(text string) string {
	i := strings.Index(text, "panic: ")
	msg := strings.TrimSpace(strings.SplitN(text[i+len("panic: "):], "\n", 2)[0])
	msg = strings.TrimSuffix(msg, " [recovered]")
	for _, m := range frameRE.FindAllStringSubmatch(text[i:], -1) {
		f := filepath.ToSlash(m[1])
		if strings.Contains(f, "/exercises/") && !strings.Contains(f, "/exercises/grading/") &&
			!strings.Contains(f, "/exercises/checks/") && !strings.HasSuffix(f, "_test.go") {
			return fmt.Sprintf("%s at %s:%s", msg, filepath.Base(f), m[2])
		}
	}
	return msg
}

// lastLines returns the last n non-empty lines of s, paths shortened.
func lastLines(s, root string, n int) string {
	s = strings.ReplaceAll(s, root+string(filepath.Separator), "")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "no output"
	}
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// limitedBuffer keeps the first 64 KiB and the last 192 KiB written to it,
// so that a program that prints without end cannot exhaust the grader's
// memory, and a panic at the end of a long output is still seen.
type limitedBuffer struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte
	dropped bool
}

const (
	headBytes = 64 << 10
	tailBytes = 192 << 10
)

// Write keeps what fits of p and never fails.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := headBytes - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.tail = append(b.tail, p...)
	if extra := len(b.tail) - tailBytes; extra > 0 {
		b.tail = append(b.tail[:0], b.tail[extra:]...)
		b.dropped = true
	}
	return n, nil
}

// String returns the head and the tail kept, with "…" where output was
// dropped between them.
func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	mid := ""
	if b.dropped {
		mid = "\n…\n"
	}
	return string(b.head) + mid + string(b.tail)
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// checkTimeout is the limit of one check of an exercise whose process may
// run for timeout: grading's default (20 s), within three quarters of the
// process's time so that a check that never ends is named before the
// process is stopped, and a third of it for a longer timeout than the
// default (an instructor's -timeout 10m, a test's deadline), so that a
// limit raised for a slow machine raises the checks' limits with it.
func checkTimeout(timeout time.Duration) time.Duration {
	return max(min(grading.DefaultCheckTimeout, timeout*3/4), timeout/3)
}
