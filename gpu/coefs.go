package gpu

import (
	"fmt"

	"stencillab.dev/lab"
)

// A step's coefficients on their way to its kernel, for the seven-point
// and the thirteen-point stars alike, and the refusal of a star that does
// not take the seven-point path.

// coefs are a step's coefficients as its kernel takes them, in order:
// seven for the seven-point star (lab.Coeffs), thirteen for the
// thirteen-point star (lab.Coeffs13).
type coefs []float32

// sevenCoefs are the seven-point star's coefficients.
func sevenCoefs(c lab.Coeffs) coefs { return toCoefs(c[:]) }

// thirteenCoefs are the thirteen-point star's coefficients.
func thirteenCoefs(c lab.Coeffs13) coefs { return toCoefs(c[:]) }

func toCoefs(c []float64) coefs {
	out := make(coefs, len(c))
	for i, v := range c {
		out[i] = float32(v)
	}
	return out
}

// starCoefs returns the number of coefficients of a star of radius r: 7
// for radius 1, 13 for radius 2.
func starCoefs(r int) int { return 1 + 6*r }

// coeffsType names the lab's type of the coefficients of a star of radius r.
func coeffsType(r int) string {
	if r == lab.Radius13 {
		return "lab.Coeffs13: Launch13, Measure13, MeasureSteps13, Advance13"
	}
	return "lab.Coeffs"
}

// errNotSevenPoint is the refusal of a thirteen-point step where the
// seven-point star's contract (lab.SweepFunc, lab.Runner) is asked for.
func errNotSevenPoint(s lab.Step3) error {
	return fmt.Errorf("gpu: %s computes the star of radius %d: its %d coefficients do not pass through the seven-point runs of lab; time it with stencil bench or run it with %s: %w",
		s.Name, s.StarRadius(), starCoefs(s.StarRadius()), coeffsType(s.StarRadius()), lab.ErrUnknown)
}
