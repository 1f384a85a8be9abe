// Package warps is exercise 10 of Stencil Lab: how the threads of a warp
// meet memory, counted by the lab's simulated device as a GPU moves it.
//
// # Your task
//
// A GPU runs the threads of a block in warps of 32: threads 0–31 in the
// order x fastest, then y, then z (sim.WarpThreads lists them). A load or
// store instruction of a warp is one request. For global memory the
// request moves whole 32-byte sectors (8 floats), one for each distinct
// sector its threads touch; for shared memory the 32 banks of 4 bytes
// serve one word each per pass, so distinct words in one bank cost one
// pass each (a bank conflict), while one word read by many threads is a
// broadcast. The simulator counts both, per launch and per line of the
// kernel, in sim.Stats.Memory; `stencil run -backend sim -kernel basic
// -block 32x8x1 -n 64` prints them.
//
//  1. Block() returns a block shape for the basic kernel of Fig. 8.6
//     (lab.BasicKernel, run with lab.Config{Block: ...}). On 64³ and 96³
//     grids, whose rows start on a sector, at least 90 % of the bytes its
//     warps move through global memory must be bytes the threads asked
//     for (Memory.Global().Efficiency()), and its load requests must move
//     at most 4.25 sectors each on average
//     (Memory.GlobalLoads.SectorsPerRequest()). The slides' 8×8×8 block
//     does neither: how many rows of the grid does one of its warps
//     read, and how many sectors does the load of in[i][j][k−1] cost?
//  2. Pitch(T) returns the row length P ≥ T of the shared tile
//     tile_s[T][P] of checks.TransposeKernel, which transposes a matrix
//     with T×T blocks: thread (tx, ty) stores tile_s[ty][tx], then reads
//     tile_s[tx][ty], a column. Lane (tx, ty) reads word tx·P + ty, in bank
//     (tx·P + ty) mod 32. Return the smallest P for which no warp's
//     column read has a bank conflict, for T = 4, 8, 16 and 32 (a warp is
//     then 32/T whole rows of the block), and an error for any other T.
//     T = 32 gives the classic answer, 33; the others are not T + 1.
//     sim.CountShared counts one request's passes if you want to try
//     pitches out.
//
// Check your work with `go test ./exercises/10_warps` or
// `go run ./cmd/grade 10`.
package warps

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Block returns the block shape the basic kernel should run with.
func Block() (sim.Dim3, error) {
	// BEGIN SOLUTION
	// One warp spans one row fragment of 32 floats: 4 sectors per
	// request where the row is aligned, 5 for the loads at k ± 1.
	return sim.Dim3{X: 32, Y: 8, Z: 1}, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Dim3{}, errNotImplemented
	// END STUB
}

// Pitch returns the smallest row length P ≥ T of a shared tile
// tile_s[T][P] whose columns a T×T block reads without a bank conflict.
func Pitch(T int) (int, error) {
	// BEGIN SOLUTION
	switch T {
	case 4, 8, 16, 32:
	default:
		return 0, fmt.Errorf("warps: pitch for T = %d: the tile must be 4, 8, 16 or 32 wide", T)
	}
	block := sim.Dim3{X: T, Y: T, Z: 1}
	for p := T; p <= T+sim.Banks; p++ {
		free := true
		for w := 0; free && w*sim.WarpSize < block.Size(); w++ {
			var words []int
			for _, th := range sim.WarpThreads(block, w) {
				words = append(words, th.X*p+th.Y)
			}
			free = sim.CountShared(words).Conflicts == 0
		}
		if free {
			return p, nil
		}
	}
	return 0, fmt.Errorf("warps: no pitch from %d to %d reads the columns of a %d×%d tile without a conflict", T, T+sim.Banks, T, T)
	// END SOLUTION
	// BEGIN STUB
	// return 0, errNotImplemented
	// END STUB
}
