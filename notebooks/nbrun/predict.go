package nbrun

import (
	"math"

	"stencillab.dev/exercises/grading"
)

// Predict grades a prediction the way the exercises are graded: one check,
// worth one point, that passes when got lies within tol of want, the value
// the lab computes. A NaN got is a prediction not made yet and scores like
// a stub. It prints the check and the score and returns the result. name
// says what was predicted ("bytes per point at T = 6"); the check's message
// never gives want away.
func Predict(id, name string, got, want, tol float64) grading.ExerciseResult {
	e := grading.Exercise{ID: id, Title: name, Checks: []grading.Check{{
		ID: id, Title: name, Points: 1,
		Run: func(t *grading.T) {
			if math.IsNaN(got) {
				t.NotImplemented("your prediction " + id)
				return
			}
			if math.Abs(got-want) > tol {
				t.Errorf("%s: %g is not it; work it out again before you look at the answer", name, got)
			}
		},
	}}}
	return grading.Print(e)
}

// Unset is the value of a prediction not made yet: the notebooks' question
// cells start with it.
var Unset = math.NaN()
