// Package intensity is exercise 4 of Stencil Lab: the arithmetic intensity
// of the chapter's 3D seven-point kernels, and the hardware limits that
// bound their tile size.
//
// # Your task
//
// Arithmetic intensity is the number of floating-point operations per byte
// loaded from global memory (OP/B). One seven-point update is 13
// operations (7 multiplications, 6 additions); a float is 4 bytes. Count
// one block of threads far from the grid's faces, with input tile T
// (IN_TILE_DIM), as the chapter's slides do: stores are not counted.
//
//   - basic (Fig. 8.6): a T×T×T block, one output per thread, each
//     loading its 7 inputs from global memory. No shared memory.
//   - tiled (Fig. 8.8): a T×T×T block loads the T³ input tile into shared
//     memory, one element per thread, and computes the (T−2)³ output tile.
//   - coarsened (Fig. 8.10): a T×T block marches in z through T−2 output
//     planes, keeping three T×T input planes in shared memory.
//   - register_tiled (Fig. 8.12): as coarsened, but only the current plane
//     is in shared memory; the previous and next are in registers.
//
// Write three functions:
//
//  1. Cost(kernel, T) fills lab.BlockCost: Outputs, Ops, Loads (input
//     elements from global memory), Threads and SharedBytes of one block.
//  2. Intensity(kernel, T) is Ops over the bytes loaded. The slides give
//     0.46 OP/B for the basic kernel, and 1.37 and 2.68 OP/B for the tiled
//     one at T = 8 and T = 32.
//  3. MaxTile(kernel, lim) is the largest T whose block fits both
//     lim.MaxThreads threads and lim.MaxSharedBytes bytes of shared memory
//     (CUDA: 1024 and 48 KiB, sim.DefaultLimits), and the limit that stops
//     T+1: "threads" when the block of T+1 has too many threads (checked
//     first), else "shared memory".
//
// Return an error, never panic, for a kernel name other than the four
// above, for T < 3 (no output tile), and for limits that are not positive.
// Work the numbers out yourself: the lab's Cost and MaxTile are the
// references the checks compare with.
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

// Cost returns what one block of kernel ("basic", "tiled", "coarsened" or
// "register_tiled") does at input tile T, far from the grid's faces.
func Cost(kernel string, T int) (lab.BlockCost, error) {
	// BEGIN SOLUTION
	if T < 3 {
		return lab.BlockCost{}, fmt.Errorf("intensity: %s at T = %d: the input tile needs T ≥ 3 to have an output", kernel, T)
	}
	const opsPerOutput, bytesPerFloat = 13, 4
	out := (T - 2) * (T - 2) * (T - 2)
	var c lab.BlockCost
	switch kernel {
	case "basic":
		c = lab.BlockCost{Outputs: T * T * T, Loads: 7 * T * T * T, Threads: T * T * T}
	case "tiled":
		c = lab.BlockCost{Outputs: out, Loads: T * T * T, Threads: T * T * T, SharedBytes: bytesPerFloat * T * T * T}
	case "coarsened":
		c = lab.BlockCost{Outputs: out, Loads: T * T * T, Threads: T * T, SharedBytes: 3 * bytesPerFloat * T * T}
	case "register_tiled":
		c = lab.BlockCost{Outputs: out, Loads: T * T * T, Threads: T * T, SharedBytes: bytesPerFloat * T * T}
	default:
		return lab.BlockCost{}, fmt.Errorf("intensity: unknown kernel %q (known: basic, tiled, coarsened, register_tiled)", kernel)
	}
	c.Ops = opsPerOutput * c.Outputs
	return c, nil
	// END SOLUTION
	// BEGIN STUB
	// return lab.BlockCost{}, errNotImplemented
	// END STUB
}

// Intensity returns the arithmetic intensity of kernel at input tile T:
// operations per byte loaded from global memory.
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

// MaxTile returns the largest input tile T for which a block of kernel
// fits lim, and the limit that a tile of T+1 breaks: "threads" or
// "shared memory".
func MaxTile(kernel string, lim sim.Limits) (int, string, error) {
	// BEGIN SOLUTION
	if lim.MaxThreads <= 0 || lim.MaxSharedBytes <= 0 {
		return 0, "", fmt.Errorf("intensity: limits %+v must be positive", lim)
	}
	if _, err := Cost(kernel, 3); err != nil {
		return 0, "", err
	}
	for T := 3; ; T++ {
		next, err := Cost(kernel, T+1)
		if err != nil {
			return 0, "", err
		}
		if next.Threads > lim.MaxThreads {
			return T, "threads", nil
		}
		if next.SharedBytes > lim.MaxSharedBytes {
			return T, "shared memory", nil
		}
	}
	// END SOLUTION
	// BEGIN STUB
	// return 0, "", errNotImplemented
	// END STUB
}
