// Package cudatiled is exercise 21 of Stencil Lab: the shared-memory tiled kernel of Fig. 8.8, in CUDA C.
//
// # Your task
//
// Complete the kernel tiled in tiled.cu: each block of IN_TILE_DIM³
// threads loads its input tile, halo included, into shared memory
// (in_s[IN_TILE_DIM][IN_TILE_DIM][IN_TILE_DIM]), waits for the whole block
// (__syncthreads), and the threads of the inner OUT_TILE_DIM³ cube compute
// their interior outputs from shared memory, with the formula of
// exercise 20. Thread (x, y, z) of block (bx, by, bz) loads the point
// (bz·OUT_TILE_DIM + z − 1, by·OUT_TILE_DIM + y − 1, bx·OUT_TILE_DIM + x − 1)
// when it lies in the grid. IN_TILE_DIM is a define the grader varies.
//
// The performance check asks for 15 % of the float4 copy: the reference
// reached 18 % on the H200 (three quarters of it, rounded to 5 %).
//
// # How it is graded
//
// The grader compiles the file with NVRTC on the GPU (a compile error is
// reported with NVRTC's log, which names the file and its lines), runs it on
// non-cubic grids whose sides are not multiples of the tile, with seven
// distinct coefficients and fresh random inputs, on the smallest grids
// (N = 3), with the output filled with NaN first (the boundary must stay
// untouched), each check twice, and compares with the lab's reference
// sweep (lab.SevenPoint). It then times the kernel at N = 512, the median
// of 20 launches timed with CUDA events, as a share of the float4 copy of
// the same grid in the same process. A kernel that faults or hangs scores
// 0 for the exercise, and the message names the check it was in.
//
// Use 64-bit indices (long long): at N = 1700 the index i·ny·nx passes 2³².
//
// Run the checks with `go run ./cmd/grade 21_cuda_tiled` on a machine with an NV21_cuda_tiledIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudatiled
