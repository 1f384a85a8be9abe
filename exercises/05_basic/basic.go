// Package basic is exercise 5 of Stencil Lab: the basic kernel of
// Fig. 8.6 applied to a stencil the chapter only draws, the 3D
// thirteen-point star of radius 2 (Fig. 8.3D), on the lab's simulated CUDA
// device.
//
// # The simulator
//
// A kernel is Go code that every thread runs. Basic is the host side: given
// the arguments (a.In and a.Out in global memory, the sides a.NZ, a.NY and
// a.NX of the grid, the coefficients a.C and the tile a.Tile: a star.Args,
// package stencillab.dev/exercises/star), it returns a sim.Kernel (package
// stencillab.dev/lab/sim, the simulated machine) with the launch
// configuration <<<Grid, Block>>> and Body, the code of one thread. Inside
// Body, t.BlockIdx, t.ThreadIdx and t.BlockDim are CUDA's blockIdx,
// threadIdx and blockDim; t.Load(a.In, idx) reads global memory and
// t.Store(a.Out, idx, v) writes it; t.Flops(n) reports n floating-point
// operations. The simulator counts every access, and an index outside an
// array fails the launch with a message naming the thread.
//
// # The stencil
//
// The thirteen-point star reaches two points along each axis:
//
//	out(i,j,k) = c0·in(i,j,k)
//	           + c1·in(i,j,k−1) + c2·in(i,j,k+1) + c3·in(i,j−1,k) + c4·in(i,j+1,k)
//	           + c5·in(i−1,j,k) + c6·in(i+1,j,k)
//	           + c7·in(i,j,k−2) + c8·in(i,j,k+2) + c9·in(i,j−2,k) + c10·in(i,j+2,k)
//	           + c11·in(i−2,j,k) + c12·in(i+2,j,k)
//
// with c0…c12 = a.C[0]…a.C[12]. Its outputs are the interior points, those
// at least two from every face: 2 ≤ i ≤ NZ−3, 2 ≤ j ≤ NY−3,
// 2 ≤ k ≤ NX−3. The points nearer a face hold boundary conditions and are
// never written. The point (i, j, k) is element (i*NY + j)*NX + k.
//
// # Your task
//
// Write Basic: one thread per grid point (i, j, k), with i from the z
// coordinates, j from y and k from x:
//
//	i = blockIdx.z*blockDim.z + threadIdx.z   (and j from y, k from x)
//
// A thread whose point is interior loads its thirteen inputs, writes the
// output and reports star.Flops (25: 13 multiplies, 12 adds); other threads
// do nothing. Blocks are B×B×B threads with B = a.Tile, or
// star.BasicBlockDim (8) when a.Tile is 0, and the grid has enough blocks
// along each axis to give every point a thread, even when a side is not a
// multiple of B. The arithmetic is float32: convert the coefficients once,
// outside Body.
//
// # How it is graded
//
// The values on random grids are the correctness part (the checks small
// and values).
// The rest pays for the technique, measured by the simulator on a run
// whose values are right: one thread per output point (the threads that
// store, and at most one store each), 13 global loads per output, no
// shared memory and no barrier. A kernel that computes the right values
// another way (one thread looping over a column, say) scores the
// correctness part only, and the feedback says which number is off.
//
// Check your work with `go test ./exercises/05_basic` or
// `go run ./cmd/grade 05`.
package basic

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/exercises/star"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Basic prepares the basic thirteen-point kernel for the arguments a: one
// thread per grid point, in blocks of B×B×B threads.
func Basic(a star.Args) (sim.Kernel, error) {
	// BEGIN SOLUTION
	B := a.Tile
	if B == 0 {
		B = star.BasicBlockDim
	}
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	var c [star.Points]float32
	for q := range c {
		c[q] = float32(a.C[q])
	}
	return sim.Kernel{
		Name:  "basic13",
		Grid:  sim.Dim3{X: (nx + B - 1) / B, Y: (ny + B - 1) / B, Z: (nz + B - 1) / B},
		Block: sim.Dim3{X: B, Y: B, Z: B},
		Body: func(t *sim.Thread) {
			i := t.BlockIdx.Z*t.BlockDim.Z + t.ThreadIdx.Z
			j := t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y
			k := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
			if i < 2 || i >= nz-2 || j < 2 || j >= ny-2 || k < 2 || k >= nx-2 {
				return
			}
			at := func(di, dj, dk int) float32 { return t.Load(in, ((i+di)*ny+j+dj)*nx+k+dk) }
			t.Store(out, (i*ny+j)*nx+k, c[0]*at(0, 0, 0)+
				c[1]*at(0, 0, -1)+c[2]*at(0, 0, 1)+
				c[3]*at(0, -1, 0)+c[4]*at(0, 1, 0)+
				c[5]*at(-1, 0, 0)+c[6]*at(1, 0, 0)+
				c[7]*at(0, 0, -2)+c[8]*at(0, 0, 2)+
				c[9]*at(0, -2, 0)+c[10]*at(0, 2, 0)+
				c[11]*at(-2, 0, 0)+c[12]*at(2, 0, 0))
			t.Flops(star.Flops)
		},
	}, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Kernel{}, errNotImplemented
	// END STUB
}
