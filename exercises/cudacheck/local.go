package cudacheck

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/gpu"
	"stencillab.dev/lab"
)

// RunLocal grades source, the CUDA C of exercise id, in this process: the
// notebook's way, on the student's own machine, with the same checks as
// the grader (which runs them in a child, so that a fault or a hang cannot
// take it down). A kernel that faults here loses this process's CUDA
// context for the checks after it; the next call opens a fresh one.
// Without a GPU the result is needs_gpu and env is nil.
func RunLocal(id, source string) (res grading.ExerciseResult, env *Env, err error) {
	spec, ok := Lookup(id)
	if !ok {
		return res, nil, fmt.Errorf("cudacheck: no CUDA exercise %q", id)
	}
	seed := grading.NewSeed()
	listing := spec.Exercise(nil, false)
	d, err := gpu.Default()
	if err != nil {
		if errors.Is(err, gpu.ErrNoGPU) {
			return grading.Fail(listing, grading.NeedsGPU, NeedsGPUMessage(id, err), seed), nil, nil
		}
		return res, nil, err
	}
	env = NewEnv(spec, d, source)
	if _, err := env.Kernel(0); err != nil {
		return grading.Fail(listing, grading.BuildFailed, err.Error(), seed), env, nil
	}
	res = grading.Run(spec.Exercise(env, false), grading.Options{Seed: seed,
		OnResult: func(c grading.CheckResult) { env.Passed[c.ID] = c.Passed }})
	res.Metrics = env.Metrics
	return res, env, nil
}

// SweepCube runs the student's kernel once on a random n³ grid with seven
// distinct coefficients, every output point set to poison first (a NaN
// whose bits say "never written"), and returns the
// input, the output and the reference (lab.SevenPoint, boundary NaN): what
// a notebook draws as a map of the wrong points. The reference's boundary
// holds poison too.
func (e *Env) SweepCube(n int, seed uint64, poison float32) (in, out, want *lab.Grid3[float32], err error) {
	r := rand.New(rand.NewPCG(seed, 14))
	in, err = lab.NewGrid3[float32](n, n, n)
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range in.Data {
		in.Data[i] = float32(2*r.Float64() - 1)
	}
	c := lab.DistinctCoeffs()
	k, err := e.Kernel(0)
	if err != nil {
		return nil, nil, nil, err
	}
	src, err := e.Dev.Alloc(len(in.Data))
	if err != nil {
		return nil, nil, nil, err
	}
	defer src.Free()
	dst, err := e.Dev.Alloc(len(in.Data))
	if err != nil {
		return nil, nil, nil, err
	}
	defer dst.Free()
	if err := src.Upload(0, in.Data); err != nil {
		return nil, nil, nil, err
	}
	if err := dst.Fill(poison); err != nil {
		return nil, nil, nil, err
	}
	if _, err := k.Launch(dst, src, n, n, n, c); err != nil {
		return nil, nil, nil, err
	}
	out, _ = lab.NewGrid3[float32](n, n, n)
	if err := dst.Download(0, out.Data); err != nil {
		return nil, nil, nil, err
	}
	want, _ = lab.NewGrid3[float32](n, n, n)
	for i := range want.Data {
		want.Data[i] = poison
	}
	if err := lab.SevenPoint(want, in, c); err != nil {
		return nil, nil, nil, err
	}
	return in, out, want, nil
}
