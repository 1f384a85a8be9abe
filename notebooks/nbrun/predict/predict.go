package predict

import (
	"fmt"
	"math"
	"os"
	"strings"

	"stencillab.dev/exercises/grading"
)

// Number is any Go number a prediction cell may hold: var q2 = 23 and
// var q2 = 23.0 are both predictions.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// Mistake is a known wrong answer to a prediction and the hint it earns:
// the value a student reaches by a common slip ("did you count the
// store?") and the question that points at the slip.
type Mistake struct {
	Value float64 // the wrong answer the slip gives
	Hint  string  // a question that points at the slip, never the answer
}

// Predict grades a prediction the way the exercises are graded: one check,
// worth one point, that passes when got lies within tol of want, the value
// the lab computes. got may be any integer or float type. A NaN got is a
// prediction not made yet and scores like a stub. A wrong got within tol of
// one of the known mistakes earns that mistake's hint; any other wrong got
// is told to work the answer out again (Check then prints the answer). It prints the check and the score
// (no seed: a prediction draws no random input) and returns the result. name
// says what was predicted ("bytes per point at T = 6"); no message gives
// want away. A NaN or infinite want or tol, or a negative tol, is a fault
// of the notebook, reported as the check's failure.
func Predict[N Number](id, name string, got N, want, tol float64, mistakes ...Mistake) grading.ExerciseResult {
	g := float64(got)
	if id == "" {
		id = "prediction"
	}
	if name == "" {
		name = id
	}
	e := grading.Exercise{ID: id, Title: name, Checks: []grading.Check{{
		ID: id, Title: name, Points: 1,
		Run: func(t *grading.T) {
			if msg := predictionFault(want, tol); msg != "" {
				t.Errorf("%s: %s", name, msg)
				return
			}
			if math.IsNaN(g) {
				t.NotImplemented("your prediction " + id)
				return
			}
			if math.Abs(g-want) <= tol {
				return
			}
			t.Errorf("%s: %s", name, predictionHint(g, want, tol, mistakes))
		},
	}}}
	res := grading.Run(e, grading.Options{})
	_ = res.WriteText(os.Stdout)
	fmt.Printf("Score %d/%d\n", res.Points, res.MaxPoints)
	return res
}

// predictionHint says what is wrong with the prediction got: the hint of
// the first known mistake within tol of got (and not within tol of want),
// or an invitation to work it out again. It never gives want away.
func predictionHint(got, want, tol float64, mistakes []Mistake) string {
	for _, m := range mistakes {
		if math.IsNaN(m.Value) || strings.TrimSpace(m.Hint) == "" {
			continue
		}
		if math.Abs(got-m.Value) <= tol && math.Abs(m.Value-want) > tol {
			return fmt.Sprintf("%g is not it. %s", got, strings.TrimSpace(m.Hint))
		}
	}
	return fmt.Sprintf("%g is not it; work it out again before you read the answer below", got)
}

// predictionFault says what is wrong with a check's own want and tol, ""
// when nothing is.
func predictionFault(want, tol float64) string {
	switch {
	case math.IsNaN(want) || math.IsInf(want, 0):
		return fmt.Sprintf("the notebook computed no answer to compare with (want = %g)", want)
	case math.IsNaN(tol) || math.IsInf(tol, 0) || tol < 0:
		return fmt.Sprintf("the notebook's tolerance %g must be a finite number ≥ 0", tol)
	}
	return ""
}

// Unset is the value of a prediction not made yet: the notebooks' question
// cells start with it.
var Unset = math.NaN()
