// Package lab is the CPU side of Stencil Lab: grids, stencils, reference
// sweeps, the description of each 3D step (Step3, one file per step) with
// its kernel for the simulated CUDA machine of package sim, the one way to
// run a step on any backend (Execute), and the arithmetic-intensity model
// of chapter 8 of Programming Massively Parallel Processors.
//
// Grids are stored flat and row-major with x fastest, exactly as the chapter
// indexes them: the point (i, j, k) of a 3D grid, with i the z index, j the
// y index and k the x index, lives at i*NY*NX + j*NX + k (i*N*N + j*N + k
// for a cube of side N).
//
// The package is pure Go: it has no cgo, draws nothing and never talks to a
// notebook. The gpu package runs the same steps on an NVIDIA GPU, and the
// figures package draws them.
package lab
