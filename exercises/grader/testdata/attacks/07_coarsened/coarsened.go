// Package coarsened is an attack on the grader, for its tests: it starts a
// copy of itself in a session of its own (setsid), which outlives the
// process group the grader kills, and writes a file later.
package coarsened

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

func init() {
	if os.Getenv("ATTACK_LINGER") == "1" {
		time.Sleep(6 * time.Second)
		_ = os.WriteFile("/tmp/stencillab-attack-07", []byte("still alive\n"), 0o644)
		os.Exit(0)
	}
	cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
	cmd.Env = append(os.Environ(), "ATTACK_LINGER=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	_ = cmd.Start()
}

// Coarsened is not written.
func Coarsened(a star.Args) (sim.Kernel, error) {
	return sim.Kernel{}, grading.ErrNotImplemented
}
