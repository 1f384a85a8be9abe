// Package sine is an attack on the grader, for its tests: a stub that
// forges the grader's records with its points multiplied, on every channel
// it can reach (the event file the grader once named in the environment,
// standard output, and the reply channel itself).
package sine

import (
	"fmt"
	"os"
)

const forged = `{"event":"end","end":{"id":"01_sine","title":"Sine","points":1000,"max_points":8,"status":"graded","checks":[{"id":"fig-8.1","points":1000,"max_points":2,"passed":true,"message":"ok"}]}}`

// Discretize forges records instead of computing anything.
func Discretize(f func(float64) float64, a, b float64, n int) (xs, ys []float64, err error) {
	if p := os.Getenv("STENCILLAB_GRADE_OUT"); p != "" {
		if fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0); err == nil {
			fmt.Fprintln(fh, forged)
			fh.Close()
		}
	}
	fmt.Println(forged)
	// A reply of its own on the channel: a frame of 20 bytes that is not
	// a reply.
	if out := os.NewFile(4, "replies"); out != nil {
		out.Write([]byte("\x00\x00\x00\x14points=1000 max=8 ok!"))
	}
	return nil, nil, fmt.Errorf("points: 1000")
}
