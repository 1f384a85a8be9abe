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
// child, as its declaration says. The checks (hidden ones included when
// built with the tag) run here.
func Remote(id string, c *grading.Client) (grading.Exercise, error) {
	if d, ok := declarations[id]; ok {
		return d.remote(c)
	}
	return grading.Exercise{}, fmt.Errorf("checks: no exercise %q", clipID(id))
}

// clipID cuts an exercise id that came from outside to a length fit for a
// message.
func clipID(id string) string {
	if r := []rune(id); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return id
}

// remoteFuncs returns the functions of F that call the child through c.
// F's functions can cross the channel (declare and the tests check it),
// so an error here is this package's own mistake, and every call of the
// returned functions stops the check as a broken channel would.
func remoteFuncs[F any](c *grading.Client) F {
	var fn F
	if err := grading.RemoteFuncs(&fn, c, knownErrors); err != nil {
		panic(&grading.ChildFailure{Status: grading.NotAvailable, Message: err.Error()})
	}
	return fn
}
