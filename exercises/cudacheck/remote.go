package cudacheck

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// Launcher makes the command of one child: args are the child's own
// arguments, and wrapper, when not nil, the program that runs the child
// (compute-sanitizer and its flags). The grader's launcher puts the child
// in the sandbox (package sandbox).
type Launcher func(args, wrapper []string) (*exec.Cmd, error)

// hungError is the error of a request the child did not answer in time:
// the kernel hung (or the machine is too slow); the child was killed.
type hungError struct {
	op      string
	timeout time.Duration
}

func (e *hungError) Error() string {
	return fmt.Sprintf("the GPU did not answer the %s request within %v", e.op, e.timeout)
}

// faultError is the error of a kernel that lost the CUDA context.
type faultError struct{ msg string }

func (e *faultError) Error() string { return e.msg }

// diedError is the error of a child that ended, or broke the channel's
// rules, before answering.
type diedError struct{ msg string }

func (e *diedError) Error() string { return e.msg }

// childError is an error the child answered (not a fault): a compile
// error, a launch refused, a lack of memory.
type childError struct{ kind, msg string }

func (e *childError) Error() string { return e.msg }

// remote is a running child and its channel.
type remote struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	res     *bufio.Reader
	resFile *os.File
	stdout  tailBuffer
	stderr  tailBuffer
	timeout time.Duration
	dead    error
	waited  chan struct{}
	waitErr error
}

// startRemote starts a child with launch, wrapped by wrapper when not nil.
func startRemote(launch Launcher, id string, timeout time.Duration, wrapper []string) (*remote, error) {
	cmd, err := launch([]string{"-id", id}, wrapper)
	if err != nil {
		return nil, err
	}
	r := &remote{cmd: cmd, timeout: timeout, waited: make(chan struct{})}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("the channel to the GPU checks: %w", err)
	}
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Stdout = &r.stdout
	cmd.Stderr = &r.stderr
	r.stdin, err = cmd.StdinPipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	newGroup(cmd)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("start the GPU checks: %w", err)
	}
	pw.Close()
	r.resFile = pr
	r.res = bufio.NewReaderSize(pr, 1<<16)
	go func() {
		r.waitErr = cmd.Wait()
		close(r.waited)
	}()
	return r, nil
}

// call sends req and reads its answer, with want floats (−1: none); a
// child error is answered as an error of type *childError.
func (r *remote) call(req request, want int) (response, []float32, error) {
	if r.dead != nil {
		return response{}, nil, r.dead
	}
	type answer struct {
		h    response
		data []float32
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		b, err := json.Marshal(req)
		if err != nil {
			ch <- answer{err: err}
			return
		}
		if _, err := r.stdin.Write(append(b, '\n')); err != nil {
			ch <- answer{err: fmt.Errorf("send the %s request: %w", req.Op, err)}
			return
		}
		h, data, err := readAnswer(r.res, req.Op, want)
		ch <- answer{h, data, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-time.After(r.timeout):
		r.kill()
		r.dead = &hungError{op: req.Op, timeout: r.timeout}
		return response{}, nil, r.dead
	}
	switch {
	case a.err != nil:
		r.kill()
		msg := fmt.Sprintf("the GPU checks' process ended during the %s request", req.Op)
		if errors.Is(a.err, errProtocol) {
			msg = fmt.Sprintf("the GPU checks' process broke the channel's rules during the %s request (%v)", req.Op, a.err)
		}
		if e := r.exit(); e != "" {
			msg += ": " + e
		}
		r.dead = &diedError{msg: msg}
		return response{}, nil, r.dead
	case a.h.ErrKind == errKindFault:
		r.dead = &faultError{msg: a.h.Err}
		return a.h, nil, r.dead
	case a.h.Err != "":
		return a.h, nil, &childError{kind: a.h.ErrKind, msg: a.h.Err}
	}
	return a.h, a.data, nil
}

// exit waits a little for the child's end and says how it ended, with
// the last lines of its stderr.
func (r *remote) exit() string {
	select {
	case <-r.waited:
	case <-time.After(5 * time.Second):
		r.kill()
		<-r.waited
	}
	msg := fmt.Sprint(r.waitErr)
	if r.waitErr == nil {
		msg = "exit status 0"
	}
	if s := strings.TrimSpace(r.stderr.String()); s != "" {
		msg += "; its last output: " + cut(lastLines(s, 6), 1000)
	}
	return msg
}

// kill ends the child and everything it started.
func (r *remote) kill() {
	killGroup(r.cmd)
}

// close ends the channel: the child exits when its stdin ends; one that
// does not is killed. It returns the child's exit error.
func (r *remote) close() error {
	r.stdin.Close()
	select {
	case <-r.waited:
	case <-time.After(10 * time.Second):
		r.kill()
		<-r.waited
	}
	r.resFile.Close()
	return r.waitErr
}

// log returns the child's standard output and error, cut: the kernel's
// printf, shown to the student, never parsed.
func (r *remote) log() string {
	var parts []string
	if s := strings.TrimSpace(r.stdout.String()); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimSpace(r.stderr.String()); s != "" {
		parts = append(parts, s)
	}
	return cut(strings.Join(parts, "\n"), 600)
}

// defaultLauncher runs command (a program and its first arguments) with
// env added to this process's environment, without a sandbox: a student's
// own tests (Test), where the student's machine is not defended from the
// student.
func defaultLauncher(command, env []string) Launcher {
	return func(args, wrapper []string) (*exec.Cmd, error) {
		if len(command) == 0 {
			return nil, errors.New("no child command")
		}
		argv := append(append(slices.Clone(wrapper), command...), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), env...)
		return cmd, nil
	}
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

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// exitCode returns the exit status of a child that exited, −1 otherwise.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// newRand returns a generator seeded by seed.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }
