// Package tiled is exercise 6 of Stencil Lab: the shared-memory tiled
// kernel of Fig. 8.8 on the lab's simulated CUDA device.
//
// # Your task
//
// Write Tiled. A block of IN_TILE_DIM³ threads (IN_TILE_DIM = a.Tile, or
// lab.TiledDefaultTile, 8, when a.Tile is 0) covers an input tile; the
// inner OUT_TILE_DIM³ of it, OUT_TILE_DIM = IN_TILE_DIM − 2, is the output
// tile. Thread (tx, ty, tz) of block (bx, by, bz) stands for the point
//
//	i = bz*OUT_TILE_DIM + tz − 1   (j from y, k from x)
//
// so neighbouring blocks' input tiles overlap by two points. The grid has
// (n−2)/OUT_TILE_DIM + 1 blocks along each axis of n points (NX, NY or
// NZ), so that the output tiles
// cover the interior even when they do not fit it evenly.
//
//  1. Declare the tile: in_s := t.Shared3("in_s", IN_TILE_DIM,
//     IN_TILE_DIM, IN_TILE_DIM). Every thread of the block gets the same
//     array; in_s.Store(z, y, x, v) and in_s.Load(z, y, x) index it
//     [z][y][x] as in CUDA.
//  2. Each thread whose point is in the grid (0 ≤ i < NZ, 0 ≤ j < NY, 0 ≤ k < NX) loads its
//     one element from global memory into in_s.
//  3. Barrier: t.Sync(), CUDA's __syncthreads().
//  4. The inner threads (1 ≤ tx, ty, tz ≤ IN_TILE_DIM−2) whose point is
//     interior to the grid (1 ≤ i ≤ NZ−2, and so on) compute the seven-point
//     update from in_s, write it to a.Out and report t.Flops(lab.Flops7).
//
// The coefficient mapping is lab.Coeffs': c1/c2 for x−1/x+1, c3/c4 for
// y−1/y+1, c5/c6 for z−1/z+1. The simulator checks your barriers: a read
// of an element that another thread writes in the same barrier interval is
// a race, and a read of an element no thread loaded is an uninitialised
// read. Either fails the launch with a message naming the threads.
//
// Check your work with `go test ./exercises/06_tiled` or
// `go run ./cmd/grade 06`.
package tiled

import (
	"fmt"

	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Tiled prepares the shared-memory tiled seven-point kernel of Fig. 8.8
// for the arguments a.
func Tiled(a lab.StencilArgs) (sim.Kernel, error) {
	// BEGIN SOLUTION
	IN_TILE_DIM := a.Tile
	if IN_TILE_DIM == 0 {
		IN_TILE_DIM = lab.TiledDefaultTile
	}
	if IN_TILE_DIM < 3 {
		return sim.Kernel{}, fmt.Errorf("tiled: IN_TILE_DIM = %d leaves no output tile", IN_TILE_DIM)
	}
	OUT_TILE_DIM := IN_TILE_DIM - 2
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3 := float32(a.C[0]), float32(a.C[1]), float32(a.C[2]), float32(a.C[3])
	c4, c5, c6 := float32(a.C[4]), float32(a.C[5]), float32(a.C[6])
	return sim.Kernel{
		Name:  "tiled",
		Grid:  sim.Dim3{X: (nx-2)/OUT_TILE_DIM + 1, Y: (ny-2)/OUT_TILE_DIM + 1, Z: (nz-2)/OUT_TILE_DIM + 1},
		Block: sim.Dim3{X: IN_TILE_DIM, Y: IN_TILE_DIM, Z: IN_TILE_DIM},
		Body: func(t *sim.Thread) {
			tz, ty, tx := t.ThreadIdx.Z, t.ThreadIdx.Y, t.ThreadIdx.X
			i := t.BlockIdx.Z*OUT_TILE_DIM + tz - 1
			j := t.BlockIdx.Y*OUT_TILE_DIM + ty - 1
			k := t.BlockIdx.X*OUT_TILE_DIM + tx - 1
			in_s := t.Shared3("in_s", IN_TILE_DIM, IN_TILE_DIM, IN_TILE_DIM)
			if i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx {
				in_s.Store(tz, ty, tx, t.Load(in, (i*ny+j)*nx+k))
			}
			t.Sync()
			inner := tz >= 1 && tz < IN_TILE_DIM-1 && ty >= 1 && ty < IN_TILE_DIM-1 && tx >= 1 && tx < IN_TILE_DIM-1
			interior := i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1
			if inner && interior {
				t.Store(out, (i*ny+j)*nx+k, c0*in_s.Load(tz, ty, tx)+
					c1*in_s.Load(tz, ty, tx-1)+
					c2*in_s.Load(tz, ty, tx+1)+
					c3*in_s.Load(tz, ty-1, tx)+
					c4*in_s.Load(tz, ty+1, tx)+
					c5*in_s.Load(tz-1, ty, tx)+
					c6*in_s.Load(tz+1, ty, tx))
				t.Flops(lab.Flops7)
			}
		},
	}, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Kernel{}, errNotImplemented
	// END STUB
}
