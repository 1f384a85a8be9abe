// Package fivepoint is exercise 3 of Stencil Lab: a 2D sweep that the
// chapter does not show, the nine-point star of radius 2 (Fig. 8.3B) on a
// periodic grid, where the grid has no boundary: the neighbour of the last
// point of a row is the first point of that row, as on a torus.
//
// # Your task
//
// Sweep(dst, src, c) computes, for EVERY point (j, k), 0 ≤ j < NY and
// 0 ≤ k < NX,
//
//	dst(j,k) = c0·src(j,k)
//	         + c1·src(j,k−1) + c2·src(j,k+1) + c3·src(j−1,k) + c4·src(j+1,k)
//	         + c5·src(j,k−2) + c6·src(j,k+2) + c7·src(j−2,k) + c8·src(j+2,k)
//
// with the coefficients in the order of lab.NinePoint: centre, then x−1,
// x+1, y−1, y+1, then x−2, x+2, y−2, y+2. Every index wraps around: row
// j−1 of row 0 is row NY−1, column k+2 of column NX−1 is column 1. (Go's
// % keeps the sign of its left operand: −1 % 5 is −1.) Points are stored
// row by row: (j, k) is Data[j*NX+k]; Grid2 has At and Set. src is only
// read.
//
// Iterate(g, c, steps) applies steps sweeps, starting from g, and returns
// the grid after the last one, using two grids swapped after each sweep
// ("ping-pong"). g itself is not changed; steps = 0 returns a copy of g
// (after checking g as Sweep would).
// With coefficients that add up to 1, a periodic sweep keeps the sum of
// the grid: nothing flows out through a boundary.
//
// Return an error, never panic, when a grid is nil, when its Data does not
// hold NY·NX values, when dst and src differ in shape or are the same
// grid, when a side is below 5 (the star's five points along an axis
// would not be distinct), or when steps is negative.
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

// Sweep writes one sweep of the nine-point star of radius 2 with
// coefficients c (centre, x−1, x+1, y−1, y+1, x−2, x+2, y−2, y+2) over
// every point of src into dst, with periodic boundaries.
func Sweep(dst, src *lab.Grid2[float64], c [9]float64) error {
	// BEGIN SOLUTION
	for _, g := range []*lab.Grid2[float64]{dst, src} {
		if g == nil {
			return fmt.Errorf("fivepoint: sweep: nil grid")
		}
		if g.NY < 5 || g.NX < 5 || len(g.Data) != g.NY*g.NX {
			return fmt.Errorf("fivepoint: sweep: grid %d×%d with %d values: need sides of at least 5 and NY·NX values",
				g.NY, g.NX, len(g.Data))
		}
	}
	if dst.NY != src.NY || dst.NX != src.NX {
		return fmt.Errorf("fivepoint: sweep: dst %d×%d and src %d×%d differ", dst.NY, dst.NX, src.NY, src.NX)
	}
	if &dst.Data[0] == &src.Data[0] {
		return fmt.Errorf("fivepoint: sweep: dst and src are the same grid; a sweep needs two")
	}
	ny, nx := src.NY, src.NX
	wrap := func(i, n int) int { return (i%n + n) % n }
	offsets := [9][2]int{{0, 0}, {0, -1}, {0, 1}, {-1, 0}, {1, 0}, {0, -2}, {0, 2}, {-2, 0}, {2, 0}}
	for j := 0; j < ny; j++ {
		for k := 0; k < nx; k++ {
			var sum float64
			for m, o := range offsets {
				sum += c[m] * src.At(wrap(j+o[0], ny), wrap(k+o[1], nx))
			}
			dst.Set(j, k, sum)
		}
	}
	return nil
	// END SOLUTION
	// BEGIN STUB
	// return errNotImplemented
	// END STUB
}

// Iterate applies steps periodic sweeps of the nine-point star to g and
// returns the grid after the last sweep. g is not changed.
func Iterate(g *lab.Grid2[float64], c [9]float64, steps int) (*lab.Grid2[float64], error) {
	// BEGIN SOLUTION
	if g == nil {
		return nil, fmt.Errorf("fivepoint: iterate: nil grid")
	}
	if steps < 0 {
		return nil, fmt.Errorf("fivepoint: iterate %d steps: the number of steps cannot be negative", steps)
	}
	if g.NY < 5 || g.NX < 5 || len(g.Data) != g.NY*g.NX {
		return nil, fmt.Errorf("fivepoint: iterate on a grid %d×%d with %d values: need sides of at least 5 and NY·NX values",
			g.NY, g.NX, len(g.Data))
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
