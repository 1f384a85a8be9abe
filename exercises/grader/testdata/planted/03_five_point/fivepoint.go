// Package fivepoint is a planted solution of exercise 3 that allocates
// without end, for the grader's tests.
package fivepoint

import "stencillab.dev/lab"

var keep [][]float64

// Sweep allocates 32 MiB at a time and keeps it all.
func Sweep(dst, src *lab.Grid2[float64], c [9]float64) error {
	for {
		s := make([]float64, 4<<20)
		for i := range s {
			s[i] = c[0]
		}
		keep = append(keep, s)
	}
}

// Iterate returns its input.
func Iterate(g *lab.Grid2[float64], c [9]float64, steps int) (*lab.Grid2[float64], error) {
	return g, nil
}
