// Package cudachallenge is exercise 25 of Stencil Lab: the fastest correct 3D seven-point sweep.
//
// # Your task
//
// Write challenge in challenge.cu: any correct seven-point sweep (the
// formula of exercise 20, interior points only), as fast as you can make
// it. The launch is yours: the six #define lines at the top of the file
// give the block and the points each block covers (see the file). It starts
// as a correct one-thread-per-point kernel.
//
// Three points for the values and one for the smallest grids; then ten speed
// points, two for each tenth of the float4 copy your kernel reaches at
// N = 512, up to 50 % (a fifth above the best chapter kernel, register
// tiling, at 42 %): speed counts only for a correct kernel. `grade -class`
// ranks the class in leaderboard.md.
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
// Run the checks with `go run ./cmd/grade 25_cuda_challenge` on a machine with an NV25_cuda_challengeIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudachallenge
