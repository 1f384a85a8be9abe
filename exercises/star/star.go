// Package star holds what a kernel of the 3D thirteen-point star stencil
// needs on the lab's simulated CUDA device, and nothing that computes it:
// the kernel's arguments, the kernel's type, the stencil's radius and its
// operation count.
//
// The thirteen-point star (Fig. 8.3D) has radius 2 along the three axes:
//
//	out(i,j,k) = c0·in(i,j,k)
//	           + c1·in(i,j,k−1) + c2·in(i,j,k+1)     x, distance 1
//	           + c3·in(i,j−1,k) + c4·in(i,j+1,k)     y, distance 1
//	           + c5·in(i−1,j,k) + c6·in(i+1,j,k)     z, distance 1
//	           + c7·in(i,j,k−2) + c8·in(i,j,k+2)     x, distance 2
//	           + c9·in(i,j−2,k) + c10·in(i,j+2,k)    y, distance 2
//	           + c11·in(i−2,j,k) + c12·in(i+2,j,k)   z, distance 2
//
// at every interior point, those at least Radius from every face
// (Radius ≤ i ≤ NZ−1−Radius, and likewise j and k); the points nearer a
// face hold boundary conditions and are not written. The point (i, j, k)
// is element (i*NY + j)*NX + k of In and Out.
package star

import "stencillab.dev/lab/sim"

// Radius is the stencil's reach along each axis: an output needs the
// inputs up to two points away, so a shared tile needs a halo of two on
// each side (IN_TILE_DIM = OUT_TILE_DIM + 2·Radius).
const Radius = 2

// Points is the number of inputs of one output: the centre and two
// neighbours on each side along each of the three axes.
const Points = 1 + 3*2*Radius

// Flops is the number of floating-point operations of one output, to be
// reported with Thread.Flops once per output a thread writes: 13
// multiplies and 12 adds.
const Flops = Points + Points - 1

// Coeffs are the thirteen coefficients: C[0] for the centre, C[1]…C[6] for
// the neighbours at distance 1 (x−1, x+1, y−1, y+1, z−1, z+1), C[7]…C[12]
// for those at distance 2 in the same order (x−2, x+2, y−2, y+2, z−2,
// z+2). x is k, the fastest index in memory; z is i.
type Coeffs [Points]float64

// Args are the arguments of a thirteen-point kernel: the input and output
// grids in global memory, their sides, the coefficients and the tile. A
// kernel reads them as a CUDA kernel reads its parameters, and picks its
// grid and block from them as the host code around a CUDA kernel does.
type Args struct {
	In, Out    *sim.Global // in and out of the kernel, NZ·NY·NX elements each
	NZ, NY, NX int         // the sides of the grid, x fastest in memory
	C          Coeffs      // c0…c12 as Coeffs orders them
	Tile       int         // IN_TILE_DIM, or the basic kernel's block edge; 0 takes the kernel's default
}

// Kernel prepares one launch of a thirteen-point kernel: like the host
// code around a CUDA kernel, it picks the grid and block for the sides and
// the tile, and binds the arguments into the thread code (sim.Kernel's
// Body). A tile that leaves no output tile is an error, returned before
// anything runs.
type Kernel func(a Args) (sim.Kernel, error)

// The default tiles, taken when Args.Tile is 0.
const (
	// BasicBlockDim is the basic kernel's default block edge: blocks of
	// 8×8×8 threads.
	BasicBlockDim = 8
	// TiledDefaultTile is the default IN_TILE_DIM of the kernel with a 3D
	// shared tile: 8×8×8 = 512 threads, output tiles of 4×4×4.
	TiledDefaultTile = 8
	// CoarsenedDefaultTile is the default IN_TILE_DIM of the kernels
	// coarsened in z (shared planes or registers): 32×32 = 1024 threads.
	CoarsenedDefaultTile = 32
)
