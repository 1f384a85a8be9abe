// Package cudaregistertiled is exercise 23 of Stencil Lab: register tiling (Fig. 8.12), in CUDA C.
//
// # Your task
//
// Complete the kernel register_tiled in register_tiled.cu: as in
// exercise 22, but the previous and next planes are registers (inPrev,
// inNext: only their own thread reads them) and only the current plane is
// in shared memory, which four neighbours read. Refill the shared plane
// from inNext at the end of each iteration (the figure names a
// non-existent inNext_s there).
//
// The performance check asks for 30 % of the float4 copy: the reference
// reached 42 % on the H200 (three quarters of it, rounded to 5 %).
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
// Run the checks with `go run ./cmd/grade 23_cuda_register_tiled` on a machine with an NV23_cuda_register_tiledIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudaregistertiled
