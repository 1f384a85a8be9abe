// Package launch is exercise 11 of Stencil Lab: the host code of a launch,
// what the CPU decides before and after the kernels of chapter 8 run. The
// kernels are those of the exercises 6 and 7, on the thirteen-point star
// of radius 2: an input tile of IN_TILE = T points a side, an output tile
// of OUT_TILE = T − 4.
//
// # Your task
//
//  1. Configure returns the launch of a kernel at tile T on an nz×ny×nx
//     grid: the grid of blocks, the block of threads and the bytes of
//     shared memory a block needs (4 bytes a float, sim.ElemBytes).
//     "tiled": a T×T×T block, the whole input tile in shared memory.
//     "coarsened": a T×T block that marches in z through T − 4 output
//     planes, with the five input planes an output plane needs in shared
//     memory. Either way each block writes an output tile of T − 4 points
//     in x and y (and in z), so enough blocks must cover every point of
//     the grid, and none lie past its end. Errors for an unknown kernel,
//     T < 5, or a side below 1.
//  2. Validate refuses a launch the device would refuse, with an error
//     that wraps sim.ErrLimit and names the limit broken and the numbers:
//     "block 34×34 = 1156 threads exceeds 1024 threads per block". The
//     limits: every dimension at least 1; a block at most 1024×1024×64
//     and a grid at most (2³¹−1)×65535×65535; at most lim.MaxThreads
//     threads and lim.MaxSharedBytes bytes of shared memory per block (and
//     not a negative number of bytes).
//  3. Report decides what the host code says after a launch. launchErr is
//     what the launch itself returned (cudaGetLastError right after the
//     launch: a refused launch, which ran nothing), syncErr what waiting
//     for the kernel returned (cudaDeviceSynchronize: a failure while it
//     ran). It returns nil when both are nil, else an error that names the
//     kernel and wraps the error it reports (fmt.Errorf with %w), so that
//     errors.Is still finds sim.ErrLimit or sim.ErrFault. A refused
//     launch is reported alone: the kernel never ran.
//
// Check your work with `go test ./exercises/11_launch` or
// `go run ./cmd/grade 11_launch`; the notebook notebooks/09_exercises.ipynb
// has the same exercise and the same checks.
package launch

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Configure returns the grid, the block and the bytes of shared memory per
// block of the thirteen-point kernel ("tiled" or "coarsened") at input
// tile T on an nz×ny×nx grid.
func Configure(kernel string, T, nz, ny, nx int) (grid, block sim.Dim3, sharedBytes int, err error) {
	// BEGIN SOLUTION
	if T < 5 {
		return grid, block, 0, fmt.Errorf("launch: %s at T = %d: a halo of 2 on each side needs T ≥ 5 for an output", kernel, T)
	}
	if nz < 1 || ny < 1 || nx < 1 {
		return grid, block, 0, fmt.Errorf("launch: %s on a %d×%d×%d grid: every side must be at least 1", kernel, nz, ny, nx)
	}
	outTile := T - 4
	blocksFor := func(n int) int { return (n + outTile - 1) / outTile }
	grid = sim.Dim3{X: blocksFor(nx), Y: blocksFor(ny), Z: blocksFor(nz)}
	switch kernel {
	case "tiled":
		block = sim.Dim3{X: T, Y: T, Z: T}
		sharedBytes = T * T * T * sim.ElemBytes
	case "coarsened":
		const livePlanes = 5
		block = sim.Dim3{X: T, Y: T, Z: 1}
		sharedBytes = livePlanes * T * T * sim.ElemBytes
	default:
		return sim.Dim3{}, sim.Dim3{}, 0, fmt.Errorf("launch: unknown kernel %q (known: tiled, coarsened)", kernel)
	}
	return grid, block, sharedBytes, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Dim3{}, sim.Dim3{}, 0, errNotImplemented
	// END STUB
}

// Validate returns nil when the device allows launching grid blocks of
// block threads with sharedBytes of shared memory each under lim, or an
// error wrapping sim.ErrLimit that names the limit broken.
func Validate(grid, block sim.Dim3, sharedBytes int, lim sim.Limits) error {
	// BEGIN SOLUTION
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("launch: grid %s of blocks %s: %s: %w", grid.Shape(), block.Shape(), fmt.Sprintf(format, args...), sim.ErrLimit)
	}
	for _, d := range []struct {
		what string
		v    sim.Dim3
	}{{"grid", grid}, {"block", block}} {
		for _, n := range []int{d.v.X, d.v.Y, d.v.Z} {
			if n < 1 {
				return refuse("%s dimension %d must be at least 1", d.what, n)
			}
		}
	}
	if block.X > 1024 || block.Y > 1024 || block.Z > 64 {
		return refuse("block %d×%d×%d exceeds the largest block, 1024×1024×64", block.X, block.Y, block.Z)
	}
	if grid.X > 1<<31-1 || grid.Y > 65535 || grid.Z > 65535 {
		return refuse("grid %d×%d×%d exceeds the largest grid, %d×65535×65535", grid.X, grid.Y, grid.Z, 1<<31-1)
	}
	if n := block.Size(); n > lim.MaxThreads {
		return refuse("block %s = %d threads exceeds %d threads per block", block.Shape(), n, lim.MaxThreads)
	}
	if sharedBytes < 0 {
		return refuse("%d bytes of shared memory: the count cannot be negative", sharedBytes)
	}
	if sharedBytes > lim.MaxSharedBytes {
		return refuse("%d bytes of shared memory exceed %d bytes per block", sharedBytes, lim.MaxSharedBytes)
	}
	return nil
	// END SOLUTION
	// BEGIN STUB
	// return errNotImplemented
	// END STUB
}

// Report returns what the host code reports after launching kernel:
// launchErr is the launch's own error, syncErr what waiting for the
// kernel's end returned; nil when both are nil.
func Report(kernel string, launchErr, syncErr error) error {
	// BEGIN SOLUTION
	switch {
	case launchErr != nil: // checked first: a refused launch ran nothing
		return fmt.Errorf("launch: %s was refused before it ran: %w", kernel, launchErr)
	case syncErr == nil:
		return nil
	}
	return fmt.Errorf("launch: %s failed while it ran: %w", kernel, syncErr)
	// END SOLUTION
	// BEGIN STUB
	// return errNotImplemented
	// END STUB
}
