package lab

import "stencillab.dev/lab/sim"

// This file holds the launch-geometry helpers that the steps' files share.
// A step's file (basic.go, tiled.go, …) may use what is here, never another
// step file's helpers, so that the steps stand side by side and a new step
// is one file of this package.

// interior returns the interior points of an nz×ny×nx grid.
func interior(nz, ny, nx int) int64 {
	return int64(max(nz-2, 0)) * int64(max(ny-2, 0)) * int64(max(nx-2, 0))
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// tiledBlocks returns the number of blocks along an axis of n points for
// output tiles of side out: (n−2)/out + 1, the fewest whose tiles,
// starting at 0, cover the interior points 1…n−2.
func tiledBlocks(n, out int) int { return max(n-2, 0)/out + 1 }

// tiledGrid returns the grid of blocks of the tiled kernels on an
// nz×ny×nx grid for output tiles of side out: tiledBlocks along each axis
// (z too: a coarsened block marches through out planes).
func tiledGrid(nz, ny, nx, out int) sim.Dim3 {
	return sim.Dim3{X: tiledBlocks(nx, out), Y: tiledBlocks(ny, out), Z: tiledBlocks(nz, out)}
}

// haloLoads counts the input elements that the tiled kernels (shared-memory
// tiling, coarsening and register tiling load alike) read from global
// memory on an nz×ny×nx grid with input tile T: every block loads the
// points of its input tile that lie in the grid. Along an axis of n points
// the nb = tiledBlocks(n, T−2) blocks span the points b(T−2)−1 …
// b(T−2)+T−2, so they load L = nb·T − 1 − max(0, nb(T−2) + 1 − n) of them:
// the first tile sticks out by one below 0, the last by nb(T−2)+1−n past
// n−1. The load test is a product over the three axes, so the launch
// loads Lz·Ly·Lx elements.
func haloLoads(nz, ny, nx, T int) int64 {
	axis := func(n int) int64 {
		nb := tiledBlocks(n, T-2)
		return int64(nb*T - 1 - max(0, nb*(T-2)+1-n))
	}
	return axis(nz) * axis(ny) * axis(nx)
}

// planeGeometry returns the launch of a kernel coarsened in z with the
// given number of T×T planes in shared memory: T×T blocks marching through
// T−2 output planes each, tiledBlocks along every axis.
func planeGeometry(sharedPlanes int) func(nz, ny, nx int, cfg Config) Geometry {
	return func(nz, ny, nx int, cfg Config) Geometry {
		T := cfg.Tile
		return Geometry{Grid: tiledGrid(nz, ny, nx, T-2), Block: sim.Dim3{X: T, Y: T, Z: 1},
			SharedBytes: Float32Bytes * sharedPlanes * T * T, Planes: T - 2}
	}
}
