package grader

import (
	"context"
	"fmt"
	"os/exec"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/sandbox"
)

// The sandbox of every child, Go and CUDA alike, is package sandbox's:
// bubblewrap, user nobody, no network, a cleared environment, a private
// /tmp, only the child's own binary in view, and limits on memory, CPU
// time, file size and processes set before bubblewrap starts.

// findSandbox returns the path of a bubblewrap that can make the sandbox
// on this machine, or why there is none.
func findSandbox() (string, error) { return sandbox.Find() }

// probeSandbox returns the path of the bubblewrap program name if it can
// make the sandbox here, or why not.
func probeSandbox(name string) (string, error) { return sandbox.Probe(name) }

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

// childLimits are the limits of a Go exercise's child: cfg's memory, CPU
// time of four cores for the wall-clock limit, 64 MiB files.
func childLimits(cfg Config) sandbox.Limits {
	return sandbox.Limits{MemBytes: cfg.MemBytes, CPUSeconds: int64(4*cfg.Timeout.Seconds()) + 10}
}

// childCommand returns the command that runs the test binary bin as the
// grader's child: under the limits, in the sandbox when cfg has one.
func childCommand(ctx context.Context, cfg Config, bin string) *exec.Cmd {
	s := sandbox.Spec{Bin: bin, Args: []string{"-test.run=^TestGrade$", "-test.v=false"}, Env: childEnv(cfg), Limits: childLimits(cfg)}
	if cfg.sandbox != "" {
		return sandbox.Command(ctx, cfg.sandbox, s)
	}
	return sandbox.Unsandboxed(ctx, s)
}
