// Package basic is exercise 5 of Stencil Lab: the basic 3D seven-point
// kernel of Fig. 8.6, written for the lab's simulated CUDA device.
//
// # The simulator
//
// A kernel is Go code that every thread runs. Basic is the host side: given
// the arguments (a.In and a.Out in global memory, the sides a.NZ, a.NY and
// a.NX of the grid, the coefficients a.C and the tile a.Tile), it returns
// a sim.Kernel (package stencillab.dev/lab/sim, the simulated machine) with
// the launch configuration <<<Grid, Block>>> and Body, the code of one
// thread. Inside Body, t.BlockIdx, t.ThreadIdx and t.BlockDim are
// CUDA's blockIdx, threadIdx and blockDim; t.Load(a.In, idx) reads global
// memory and t.Store(a.Out, idx, v) writes it; t.Flops(n) reports n
// floating-point operations. The simulator counts every access, and an
// index outside an array fails the launch with a message naming the
// thread.
//
// # Your task
//
// Write Basic, the kernel of Fig. 8.6: one thread per grid point (i, j, k),
// with i from the z coordinates, j from y and k from x:
//
//	i = blockIdx.z*blockDim.z + threadIdx.z   (and j from y, k from x)
//
// A thread whose point is interior (1 ≤ i ≤ NZ−2, 1 ≤ j ≤ NY−2,
// 1 ≤ k ≤ NX−2) loads its seven
// inputs, writes
//
//	out(i,j,k) = c0·in(i,j,k) + c1·in(i,j,k−1) + c2·in(i,j,k+1)
//	           + c3·in(i,j−1,k) + c4·in(i,j+1,k)
//	           + c5·in(i−1,j,k) + c6·in(i+1,j,k)
//
// and reports lab.Flops7 (13) operations; other threads do nothing. The
// point (i, j, k) is element (i*NY + j)*NX + k. Blocks are B×B×B threads
// with B = a.Tile, or lab.BasicBlockDim (8) when a.Tile is 0, and the grid
// has enough blocks along each axis to give every point a thread, even
// when a side is not a multiple of B. The arithmetic is float32: convert the
// coefficients once, outside Body.
//
// Check your work with `go test ./exercises/05_basic` or
// `go run ./cmd/grade 05`.
package basic

import (
	"stencillab.dev/exercises/grading"
	"stencillab.dev/lab"
	"stencillab.dev/lab/sim"
)

// errNotImplemented is what a function returns until you write it.
var errNotImplemented = grading.ErrNotImplemented

// Basic prepares the basic seven-point kernel of Fig. 8.6 for the
// arguments a: one thread per grid point, in blocks of B×B×B threads.
func Basic(a lab.StencilArgs) (sim.Kernel, error) {
	// BEGIN SOLUTION
	B := a.Tile
	if B == 0 {
		B = lab.BasicBlockDim
	}
	nz, ny, nx := a.NZ, a.NY, a.NX
	in, out := a.In, a.Out
	c0, c1, c2, c3 := float32(a.C[0]), float32(a.C[1]), float32(a.C[2]), float32(a.C[3])
	c4, c5, c6 := float32(a.C[4]), float32(a.C[5]), float32(a.C[6])
	return sim.Kernel{
		Name:  "basic",
		Grid:  sim.Dim3{X: (nx + B - 1) / B, Y: (ny + B - 1) / B, Z: (nz + B - 1) / B},
		Block: sim.Dim3{X: B, Y: B, Z: B},
		Body: func(t *sim.Thread) {
			i := t.BlockIdx.Z*t.BlockDim.Z + t.ThreadIdx.Z
			j := t.BlockIdx.Y*t.BlockDim.Y + t.ThreadIdx.Y
			k := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
			if i >= 1 && i < nz-1 && j >= 1 && j < ny-1 && k >= 1 && k < nx-1 {
				t.Store(out, (i*ny+j)*nx+k, c0*t.Load(in, (i*ny+j)*nx+k)+
					c1*t.Load(in, (i*ny+j)*nx+k-1)+
					c2*t.Load(in, (i*ny+j)*nx+k+1)+
					c3*t.Load(in, (i*ny+(j-1))*nx+k)+
					c4*t.Load(in, (i*ny+(j+1))*nx+k)+
					c5*t.Load(in, ((i-1)*ny+j)*nx+k)+
					c6*t.Load(in, ((i+1)*ny+j)*nx+k))
				t.Flops(lab.Flops7)
			}
		},
	}, nil
	// END SOLUTION
	// BEGIN STUB
	// return sim.Kernel{}, errNotImplemented
	// END STUB
}
