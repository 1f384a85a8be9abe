package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"stencillab.dev/exercises/grading"
)

// The sandbox. Each exercise's child runs, on Linux with bubblewrap
// (Debian's package bubblewrap, installed by scripts/install-sandbox.sh),
// as the unprivileged user 65534 in new user, pid, network, IPC, UTS and
// cgroup namespaces (--unshare-all), dying with the grader
// (--die-with-parent): when the child ends, the pid namespace ends and
// every process it started ends with it. It sees only its own binary (read
// only), /dev, /proc and an empty private /tmp; nothing of the repository
// and no other file. Its environment is cleared: it gets only what the
// channel needs. The memory limit (RLIMIT_DATA) is set before bubblewrap
// starts and holds inside it.

// sandboxUID is the user the child runs as: nobody.
const sandboxUID = "65534"

// bwrapArgs returns bubblewrap's arguments for running bin with args and
// the environment env (NAME=value).
func bwrapArgs(bin string, env []string, args ...string) []string {
	a := []string{
		"--ro-bind", bin, "/exercise.test",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--unshare-all",
		"--die-with-parent",
		"--new-session",
		"--uid", sandboxUID, "--gid", sandboxUID,
		"--clearenv",
		"--chdir", "/tmp",
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	return append(append(a, "/exercise.test"), args...)
}

var (
	probeOnce sync.Once
	bwrapPath string
	bwrapErr  error
)

// findSandbox returns the path of a bubblewrap that can make the sandbox
// on this machine, or why there is none.
func findSandbox() (string, error) {
	probeOnce.Do(func() { bwrapPath, bwrapErr = probeSandbox("bwrap") })
	return bwrapPath, bwrapErr
}

// probeSandbox returns the path of the bubblewrap program name if it can
// make the sandbox here, or why not.
func probeSandbox(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("bubblewrap (bwrap) is not installed (scripts/install-sandbox.sh installs it)")
	}
	// The probe makes the same namespaces as a child's sandbox, with
	// the system's folders in view to find echo.
	cmd := exec.CommandContext(context.Background(), p, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp", "--unshare-all", "--die-with-parent", "--new-session", "--uid", sandboxUID, "--gid", sandboxUID,
		"--clearenv", "/bin/echo", "sandbox ok")
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "sandbox ok") {
		return "", fmt.Errorf("bubblewrap cannot make a sandbox here (%v): %s", err, strings.TrimSpace(firstLines(string(out), 3)))
	}
	return p, nil
}

// childEnv is the whole environment of a child.
func childEnv(cfg Config) []string {
	env := []string{
		grading.EnvServe + "=1",
		fmt.Sprintf("GOMEMLIMIT=%d", cfg.MemBytes/4*3),
		"HOME=/tmp",
		"TMPDIR=/tmp",
	}
	if cfg.runTag != "" {
		env = append(env, envRunTag+"="+cfg.runTag)
	}
	return env
}

// envRunTag carries Config.runTag.
const envRunTag = "STENCILLAB_GRADE_RUN"

// childCommand returns the command that runs the test binary bin as the
// grader's child: under the memory limit, in the sandbox when cfg has one.
func childCommand(ctx context.Context, cfg Config, bin string) *exec.Cmd {
	// RLIMIT_DATA counts the heap and every private writable mapping, but
	// not the address space a Go program reserves without using it, so
	// the limit is close to the memory the program may really use.
	limit := fmt.Sprintf(`ulimit -d %d 2>/dev/null || echo "grade: no memory limit on this system" >&2; exec "$@"`, cfg.MemBytes/1024)
	args := []string{"-test.run=^TestGrade$", "-test.v=false"}
	env := childEnv(cfg)
	var cmd *exec.Cmd
	if cfg.sandbox != "" {
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", limit, "sh", cfg.sandbox}, bwrapArgs(bin, env, args...)...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
	} else {
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", limit, "sh", bin}, args...)...)
		cmd.Env = append(env, "PATH=/usr/bin:/bin")
		cmd.Dir = os.TempDir()
	}
	return cmd
}
