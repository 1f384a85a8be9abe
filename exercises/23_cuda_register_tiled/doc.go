// Package cudaregistertiled is exercise 23 of Stencil Lab: register tiling (Fig. 8.12) applied to the thirteen-point star of radius 2, in CUDA C.
//
// # Your task
//
// Complete the kernel register_tiled in register_tiled.cu: as in
// exercise 22 (the same launch, the same columns and planes), but only the
// current plane is in shared memory, which the x and y neighbours read; the
// four planes above and below a thread's point (i−2, i−1, i+1, i+2) are
// only ever read by that thread, so they live in its registers. Mind the
// barriers: the shared plane is rewritten each iteration while
// neighbouring threads may still read it. Exercise 08 is the same kernel on
// the simulator.
//
// The performance check asks for 35 % of the float4 copy: the reference
// solution reached 46.2 % on an NVIDIA H200
// (exercises/cudacheck/cuda13_record.json); the threshold is three quarters
// of it, rounded to 5 %.
//
// # How it is graded
//
// The grader compiles the file with NVRTC on the GPU (a compile error is
// reported with NVRTC's log, which names the file and its lines; only the
// file's text reaches the compiler: an #include is refused), launches it on
// inputs it draws, with the output filled with NaN first (points within two
// of a face must stay untouched), and compares with the lab's reference
// sweep, lab.Sweep3 with lab.ThirteenPoint, on the CPU. The checks: non-cubic grids whose sides are not
// multiples of the tile, thirteen distinct coefficients and fresh random
// inputs, each twice; the smallest grids (N = 5, and grids with a side of
// 3 or 4, which have no interior point and get no output); other tiles. It times the
// kernel on a grid drawn fresh for the run, its sides around 512, as a
// chain of ten launches each reading what the one before wrote; the final
// grid is compared with ten sweeps of the reference, and the time per
// launch is taken as a share of the float4 copy of the same grid, measured
// in the same process. A kernel that faults or hangs scores 0 for the
// exercise, and the message names the check it was in.
//
// Run the checks with `go run ./cmd/grade 23_cuda_register_tiled` on a machine with an NVIDIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudaregistertiled
