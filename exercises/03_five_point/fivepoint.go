// Package fivepoint is exercise 3 of Stencil Lab: one sweep of the 2D
// five-point stencil (Figs. 8.3A and 8.4) over a grid whose boundary cells
// hold fixed boundary conditions (Fig. 8.5), and many sweeps in a row.
//
// # Your task
//
// Sweep(dst, src, c) computes, for every interior point (j, k) with
// 1 ≤ j < NY−1 and 1 ≤ k < NX−1,
//
//	dst(j,k) = c0·src(j,k) + c1·src(j,k−1) + c2·src(j,k+1)
//	         + c3·src(j−1,k) + c4·src(j+1,k)
//
// with the coefficients c = {c0, c1, c2, c3, c4} in the order of
// lab.FivePoint: centre, x−1, x+1, y−1, y+1. Points are stored row by row:
// (j, k) is Data[j*NX+k]; Grid2 has At and Set. The boundary cells of dst
// are not touched: they hold the boundary conditions. src is only read.
//
// Iterate(g, c, steps) applies steps sweeps, starting from g, and returns
// the grid after the last one. Use two grids and swap them after each
// sweep ("ping-pong"). The boundary stays that of g in every sweep: both
// grids must start with it. g itself is not changed; steps = 0 returns a
// copy of g.
//
// Return an error, never panic, when dst and src differ in shape, when a
// grid is nil, when a grid has no interior point (a side below 3), or
// when steps is negative.
//
// Check your work with `go test ./exercises/03_five_point` or
// `go run ./cmd/grade 03`.
package fivepoint

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Sweep writes one sweep of the five-point stencil with coefficients c
// (centre, x−1, x+1, y−1, y+1) over the interior of src into dst. The
// boundary cells of dst keep their values.
func Sweep(dst, src *lab.Grid2[float64], c [5]float64) error {
	// BEGIN SOLUTION
	if dst == nil || src == nil {
		return fmt.Errorf("fivepoint: sweep: nil grid")
	}
	if err := dst.SameShape(src); err != nil {
		return fmt.Errorf("fivepoint: sweep: %w", err)
	}
	if src.NY < 3 || src.NX < 3 {
		return fmt.Errorf("fivepoint: sweep: grid %d×%d has no interior point", src.NY, src.NX)
	}
	for j := 1; j < src.NY-1; j++ {
		for k := 1; k < src.NX-1; k++ {
			dst.Set(j, k, c[0]*src.At(j, k)+c[1]*src.At(j, k-1)+c[2]*src.At(j, k+1)+
				c[3]*src.At(j-1, k)+c[4]*src.At(j+1, k))
		}
	}
	return nil
	// END SOLUTION
	// BEGIN STUB
	// return errNotImplemented
	// END STUB
}

// Iterate applies steps sweeps of the five-point stencil to g, with g's
// boundary held fixed, and returns the grid after the last sweep. g is not
// changed.
func Iterate(g *lab.Grid2[float64], c [5]float64, steps int) (*lab.Grid2[float64], error) {
	// BEGIN SOLUTION
	if g == nil {
		return nil, fmt.Errorf("fivepoint: iterate: nil grid")
	}
	if steps < 0 {
		return nil, fmt.Errorf("fivepoint: iterate %d steps: the number of steps cannot be negative", steps)
	}
	a, b := g.Clone(), g.Clone()
	for s := 0; s < steps; s++ {
		if err := Sweep(b, a, c); err != nil {
			return nil, fmt.Errorf("fivepoint: iterate, step %d: %w", s+1, err)
		}
		a, b = b, a
	}
	return a, nil
	// END SOLUTION
	// BEGIN STUB
	// return nil, errNotImplemented
	// END STUB
}
