// Package cudafindthebug is exercise 24 of Stencil Lab: find the bugs that only a GPU shows.
//
// # Your task
//
// fix.cu starts as a coarsened kernel with three mistakes from the seeds of
// this lab, each of which a check is named for:
//
//   - z-loop: the z loop closes before computing, so each block computes
//     one plane, with the wrong next plane, and leaves the others unwritten;
//   - c3-c4: c3 and c4 are swapped (c3 must multiply in(i, j−1, k), as in
//     Fig. 8.6; Fig. 8.10 swaps them);
//   - index-64bit (hidden, N = 1700: two fp32 grids of 19.7 GB, run where
//     the GPU has the memory): the index arithmetic is 32-bit and wraps
//     once i·ny·nx passes 2³², above N ≈ 1625.
//
// Fix all three. The simulator would not show the last one: only a real
// grid of 4.9·10⁹ points does.
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
// Run the checks with `go run ./cmd/grade 24_cuda_find_the_bug` on a machine with an NV24_cuda_find_the_bugIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudafindthebug
