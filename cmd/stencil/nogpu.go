package main

import (
	"errors"
	"strings"

	"stencillab.dev/gpu"
)

// benchNoGPUAdvice is what stencil bench says on a machine without a GPU:
// it times real GPUs only, so the gpu package's advice to run on the
// simulator does not apply to it.
const benchNoGPUAdvice = "stencil bench times a real GPU and has no simulator backend: " +
	"read the H200 run recorded in figures/data/bench_h200.json, or count a step's traffic with stencil run -backend sim"

// adviceError replaces the message of an error, keeping it for errors.Is.
type adviceError struct {
	msg string
	err error
}

func (e *adviceError) Error() string { return e.msg }
func (e *adviceError) Unwrap() error { return e.err }

// benchNoGPU gives a gpu.ErrNoGPU error the advice that fits stencil
// bench; other errors pass unchanged.
func benchNoGPU(err error) error {
	if !errors.Is(err, gpu.ErrNoGPU) {
		return err
	}
	why := strings.TrimSuffix(err.Error(), ": run on the CPU simulator")
	return &adviceError{msg: why + ": " + benchNoGPUAdvice, err: err}
}
