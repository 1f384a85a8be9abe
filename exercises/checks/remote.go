package checks

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// The exercises across the grader's trust boundary (grading.Serve): in the
// child, each exercise's Serve calls the student's functions on the inputs
// it receives and sends back what they return; in the grader, Remote builds
// the same exercise on functions that make those calls, so that the checks,
// the expected values and the tolerances never leave the grader.

// knownErrors are the errors whose identity the checks test with
// errors.Is on what a student's function returned.
var knownErrors = grading.KnownErrors{
	"hazard": sim.ErrHazard, "barrier": sim.ErrBarrier, "limit": sim.ErrLimit, "fault": sim.ErrFault,
	"size": lab.ErrSize, "mismatch": lab.ErrMismatch, "unknown": lab.ErrUnknown,
}

// Remote returns the exercise id with every student function replaced by a
// call through c to the exercise's test binary running as the grader's
// child. The checks (hidden ones included when built with the tag) run
// here.
func Remote(id string, c *grading.Client) (grading.Exercise, error) {
	switch id {
	case "01_sine":
		return sineExercise(remoteSine(c)), nil
	case "02_derivative":
		return Derivative(remoteDerivative(c)), nil
	case "03_five_point":
		return FivePoint(remoteFivePoint(c)), nil
	case "04_intensity":
		return Intensity(remoteIntensity(c)), nil
	case findTheBugID:
		return findTheBug(submitted{remote: c}), nil
	case warpsID:
		return Warps(remoteWarps(c)), nil
	}
	if d, ok := declarations[id]; ok {
		return d.remote(c)
	}
	for _, s := range kernelSteps() {
		if s.id() == id {
			return s.exercise(submitted{remote: c}), nil
		}
	}
	return grading.Exercise{}, fmt.Errorf("checks: no exercise %q", id)
}

// call makes a call and returns the decoded result; a failure of the
// channel stops the check (grading.Client.Call).
func call[R any](c *grading.Client, method string, args any) R {
	var r R
	c.Call(method, args, &r)
	return r
}

// serve returns a handler from methods, each decoding its arguments into A
// and returning its result.
type method func(args []byte) (any, error)

func handler(ms map[string]method) grading.Handler {
	return func(name string, args []byte) ([]byte, error) {
		m, ok := ms[name]
		if !ok {
			return nil, fmt.Errorf("no method %q", name)
		}
		res, err := m(args)
		if err != nil {
			return nil, err
		}
		return grading.Encode(res)
	}
}

// decoded is a method that decodes its arguments into A first.
func decoded[A any](f func(a A) any) method {
	return func(b []byte) (any, error) {
		var a A
		if err := grading.Decode(b, &a); err != nil {
			return nil, err
		}
		return f(a), nil
	}
}

// copyBack copies what the child left in a slice argument into the
// grader's, as if the student's function had run here.
func copyBack[F any](dst, src []F) {
	if len(dst) == len(src) {
		copy(dst, src)
	}
}

// --- 10_warps

type warpsArgs struct{ T int }

type warpsResult struct {
	Block sim.Dim3
	Pitch int
	Err   *grading.WireError
}

func serveWarps(fn WarpsFuncs) grading.Handler {
	return handler(map[string]method{
		"block": decoded(func(warpsArgs) any {
			b, err := fn.Block()
			return warpsResult{Block: b, Err: knownErrors.Wire(err)}
		}),
		"pitch": decoded(func(a warpsArgs) any {
			p, err := fn.Pitch(a.T)
			return warpsResult{Pitch: p, Err: knownErrors.Wire(err)}
		}),
	})
}

func remoteWarps(c *grading.Client) WarpsFuncs {
	return WarpsFuncs{
		Block: func() (sim.Dim3, error) {
			r := call[warpsResult](c, "block", warpsArgs{})
			return r.Block, knownErrors.Err(r.Err)
		},
		Pitch: func(T int) (int, error) {
			r := call[warpsResult](c, "pitch", warpsArgs{T: T})
			return r.Pitch, knownErrors.Err(r.Err)
		},
	}
}
