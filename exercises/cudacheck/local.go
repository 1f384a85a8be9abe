package cudacheck

import (
	"errors"
	"fmt"
	"math"
	"os/exec"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// localCall answers requests in this process, as the child does: the
// notebook's way, on the student's own machine.
func localCall(h *host) func(request, int) (response, []float32, error) {
	return func(req request, want int) (response, []float32, error) {
		resp, data := h.handle(req)
		resp.Op = req.Op
		switch {
		case resp.ErrKind == errKindFault:
			return resp, nil, &faultError{msg: resp.Err}
		case resp.Err != "":
			return resp, nil, &childError{kind: resp.ErrKind, msg: resp.Err}
		case want <= -2 && len(data) > -2-want, want > -2 && len(data) != max(want, 0):
			return resp, nil, fmt.Errorf("%w: %d floats where %d are due", errProtocol, len(data), max(want, 0))
		}
		return resp, data, nil
	}
}

// RunLocal grades source, the CUDA C of exercise id, in this process: the
// notebook's way, on the student's own machine, with the same checks as
// the grader (which runs the kernel in a child, so that a fault or a hang
// cannot take it down). A kernel that faults here loses this process's
// CUDA context for the checks after it; the next call opens a fresh one.
// Without a GPU the result is needs_gpu and env is nil. In a GoNB notebook
// whose code cell of the exercise did not compile when it last ran, source
// is an older definition: the error says so, and nothing is graded
// (grading.CellError).
func RunLocal(id, source string) (res grading.ExerciseResult, env *Env, err error) {
	spec, ok := Lookup(id)
	if !ok {
		return res, nil, fmt.Errorf("cudacheck: no CUDA exercise %q", id)
	}
	if err := grading.CellError(id); err != nil {
		return res, nil, err
	}
	cfg := Config{}
	cfg.Launch = func([]string, []string) (*exec.Cmd, error) { return nil, errors.New("no child") }
	cfg.defaults()
	listing := spec.Exercise(nil, false)
	if err := CheckDirectives(spec.File, source); err != nil {
		return grading.Fail(listing, grading.Rejected, err.Error(), cfg.Seed), nil, nil
	}
	res, env = gradeWith(cfg, spec, source, localCall(&host{}), func() string { return "" })
	return res, env, nil
}

// SweepCube runs the student's kernel once on a random n³ grid with
// thirteen distinct coefficients, every output point set to poison first (a NaN
// whose bits say "never written"), and returns the input, the output and
// the reference (lab.Sweep3 with lab.ThirteenPoint, boundary poison): what a notebook draws
// as a map of the wrong points.
func (e *Env) SweepCube(n int, seed uint64, poison float32) (in, out, want *lab.Grid3[float32], err error) {
	g, err := seededGrid(n, n, n, seed)
	if err != nil {
		return nil, nil, nil, err
	}
	c := distinctCoeffs(newRand(seed), 0.01)
	if err := e.Kernel(0); err != nil {
		return nil, nil, nil, err
	}
	bits := math.Float32bits(poison)
	_, data, err := e.do(request{Op: opSweep, Dims: [3]int{n, n, n}, Seed: seed, Coeffs: c[:], Poison: bits}, n*n*n)
	if err != nil {
		return nil, nil, nil, err
	}
	out = &lab.Grid3[float32]{NZ: n, NY: n, NX: n, Data: data}
	want, _ = lab.NewGrid3[float32](n, n, n)
	for i := range want.Data {
		want.Data[i] = poison
	}
	if err := sweep13(want, g.Grid3, c); err != nil {
		return nil, nil, nil, err
	}
	return g.Grid3, out, want, nil
}
