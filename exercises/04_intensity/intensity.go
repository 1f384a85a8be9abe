// Package intensity is exercise 4 of Stencil Lab: the arithmetic intensity
// of the chapter's four 3D kernels written for the 13-point star of
// radius 2 (Fig. 8.3D), and the hardware limits that bound their tile
// size. The chapter works these numbers out for the seven-point stencil;
// here you work them out for a stencil that reaches two points along
// each axis.
//
// # Your task
//
// Arithmetic intensity is the number of floating-point operations per byte
// loaded from global memory (OP/B). One 13-point update is 25 operations
// (13 multiplications, 12 additions); a float is 4 bytes. Count one block
// of threads far from the grid's faces, with input tile T (IN_TILE_DIM),
// as the chapter's slides do: stores are not counted. With a halo of two
// points on each side, the output tile is OUT_TILE = IN_TILE − 4.
//
//   - basic: a T×T×T block, one output per thread, each loading its 13
//     inputs from global memory. No shared memory.
//   - tiled: a T×T×T block loads the T³ input tile into shared memory, one
//     element per thread, and computes the (T−4)³ output tile.
//   - coarsened: a T×T block marches in z through T−4 output planes,
//     keeping in shared memory the five T×T input planes that an output
//     plane needs (two below, the current one, two above).
//   - register_tiled: as coarsened, but only the current plane is in
//     shared memory; the two planes below and the two above are in
//     registers.
//
// Write three functions:
//
//  1. Cost(kernel, T) fills lab.BlockCost: Outputs, Ops, Loads (input
//     elements from global memory), Threads and SharedBytes of one block.
//  2. Intensity(kernel, T) is Ops over the bytes loaded. The basic kernel
//     reaches 25/52 ≈ 0.48 OP/B whatever T; the tiled one 0.78 OP/B at
//     T = 8 and 4.19 at T = 32, and never more than 25/4.
//  3. MaxTile(kernel, lim) is the largest T whose block fits both
//     lim.MaxThreads threads and lim.MaxSharedBytes bytes of shared memory
//     (CUDA: 1024 and 48 KiB, sim.DefaultLimits), and the limit that stops
//     T+1: "threads" when the block of T+1 has too many threads (checked
//     first), else "shared memory".
//
// Return an error, never panic, for a kernel name other than the four
// above, for T < 5 (no output tile), for limits that are not positive, and
// from MaxTile when not even T = 5 fits (say which limit it breaks).
//
// Check your work with `go test ./exercises/04_intensity` or
// `go run ./cmd/grade 04`.
package intensity

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Cost returns what one block of the 13-point kernel ("basic", "tiled",
// "coarsened" or "register_tiled") does at input tile T, far from the
// grid's faces.
func Cost(kernel string, T int) (lab.BlockCost, error) {
	// BEGIN SOLUTION
	if T < 5 {
		return lab.BlockCost{}, fmt.Errorf("intensity: %s at T = %d: a halo of 2 on each side needs T ≥ 5 for an output", kernel, T)
	}
	const points, bytesPerFloat = 13, 4
	side := T - 4
	tile := side * side * side
	var c lab.BlockCost
	switch kernel {
	case "basic":
		c = lab.BlockCost{Outputs: T * T * T, Loads: points * T * T * T, Threads: T * T * T}
	case "tiled":
		c = lab.BlockCost{Outputs: tile, Loads: T * T * T, Threads: T * T * T, SharedBytes: bytesPerFloat * T * T * T}
	case "coarsened":
		c = lab.BlockCost{Outputs: tile, Loads: T * T * T, Threads: T * T, SharedBytes: 5 * bytesPerFloat * T * T}
	case "register_tiled":
		c = lab.BlockCost{Outputs: tile, Loads: T * T * T, Threads: T * T, SharedBytes: bytesPerFloat * T * T}
	default:
		return lab.BlockCost{}, fmt.Errorf("intensity: unknown kernel %q (known: basic, tiled, coarsened, register_tiled)", kernel)
	}
	c.Ops = (2*points - 1) * c.Outputs
	return c, nil
	// END SOLUTION
	// BEGIN STUB
	// return lab.BlockCost{}, errNotImplemented
	// END STUB
}

// Intensity returns the arithmetic intensity of the 13-point kernel at
// input tile T: operations per byte loaded from global memory.
func Intensity(kernel string, T int) (float64, error) {
	// BEGIN SOLUTION
	c, err := Cost(kernel, T)
	if err != nil {
		return 0, err
	}
	return float64(c.Ops) / float64(4*c.Loads), nil
	// END SOLUTION
	// BEGIN STUB
	// return 0, errNotImplemented
	// END STUB
}

// MaxTile returns the largest input tile T for which a block of the
// 13-point kernel fits lim, and the limit that a tile of T+1 breaks:
// "threads" or "shared memory".
func MaxTile(kernel string, lim sim.Limits) (int, string, error) {
	// BEGIN SOLUTION
	if lim.MaxThreads <= 0 || lim.MaxSharedBytes <= 0 {
		return 0, "", fmt.Errorf("intensity: limits of %d threads and %d shared bytes: both must be positive", lim.MaxThreads, lim.MaxSharedBytes)
	}
	broken := func(c lab.BlockCost) string {
		switch {
		case c.Threads > lim.MaxThreads:
			return "threads"
		case c.SharedBytes > lim.MaxSharedBytes:
			return "shared memory"
		}
		return ""
	}
	first, err := Cost(kernel, 5)
	if err != nil {
		return 0, "", err
	}
	if b := broken(first); b != "" {
		return 0, "", fmt.Errorf("intensity: %s at T = 5 needs %d threads and %d shared bytes: over the limit on %s (%d threads, %d bytes)",
			kernel, first.Threads, first.SharedBytes, b, lim.MaxThreads, lim.MaxSharedBytes)
	}
	for T := 5; ; T++ {
		next, err := Cost(kernel, T+1)
		if err != nil {
			return 0, "", err
		}
		if b := broken(next); b != "" {
			return T, b, nil
		}
	}
	// END SOLUTION
	// BEGIN STUB
	// return 0, "", errNotImplemented
	// END STUB
}
