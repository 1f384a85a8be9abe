// Package cudabasic is exercise 20 of Stencil Lab: the basic kernel of Fig. 8.6, in CUDA C.
//
// # Your task
//
// Complete the kernel basic in basic.cu: one thread per grid point (i, j, k),
// i from z, j from y and k from x (i = blockIdx.z*blockDim.z + threadIdx.z,
// and so on). A thread whose point is interior (1 ≤ i ≤ nz−2, 1 ≤ j ≤ ny−2,
// 1 ≤ k ≤ nx−2) writes
//
//	out(i,j,k) = c0·in(i,j,k) + c1·in(i,j,k−1) + c2·in(i,j,k+1)
//	           + c3·in(i,j−1,k) + c4·in(i,j+1,k)
//	           + c5·in(i−1,j,k) + c6·in(i+1,j,k)
//
// where the point (i, j, k) is element (i·ny + j)·nx + k; the other threads
// do nothing. The block shape is chosen by the grader (the top of basic.cu
// says how): the kernel must work for any block edge.
//
// The performance check asks for 30 % of the float4 copy: the reference
// solution reached 39 % on the H200 (figures/data/bench_h200.json); the
// threshold is three quarters of it, rounded to 5 %.
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
// Run the checks with `go run ./cmd/grade 20_cuda_basic` on a machine with an NVIDIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudabasic
