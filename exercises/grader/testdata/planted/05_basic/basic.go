// Package basic is a planted solution of exercise 5 that does not compile,
// for the grader's tests.
package basic

import "stencillab.dev/exercises/star"

// Basic refers to a name that does not exist.
func Basic(a star.Args) (sim.Kernel, error) {
	return sim.Kernel{Block: blockOfEight}, nil
}
