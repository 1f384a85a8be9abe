// Package cudacoarsened is exercise 22 of Stencil Lab: thread coarsening in z (Fig. 8.10), in CUDA C.
//
// # Your task
//
// Complete the kernel coarsened in coarsened.cu: each block of
// IN_TILE_DIM×IN_TILE_DIM threads marches through OUT_TILE_DIM output
// planes, from iStart = blockIdx.z·OUT_TILE_DIM, keeping the previous,
// current and next input planes in three shared arrays. Before the loop it
// loads planes iStart−1 and iStart; each iteration loads plane i+1, waits,
// computes plane i from the three planes (c3 with j−1, c4 with j+1: the
// figure swaps them), waits, and moves the planes down. IN_TILE_DIM is a
// define the grader varies.
//
// The performance check asks for 25 % of the float4 copy: the reference
// reached 35 % on the H200 (three quarters of it, rounded to 5 %).
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
// Run the checks with `go run ./cmd/grade 22_cuda_coarsened` on a machine with an NV22_cuda_coarsenedIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudacoarsened
