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
// solution reached 44.9 % on an NVIDIA H200
// (exercises/cudacheck/cuda13_record.json); the threshold is three quarters
// of it, rounded to 5 %.
//
// # The method check (5 points)
//
// The grader checks the register tiling on evidence it gathers itself: it
// compiles register_tiled.cu to PTX (what NVRTC makes of your text) and
// runs a copy of that PTX that counts, for each thread, what it loads from
// global memory and from shared memory and the barriers it passes, once,
// on a grid drawn as the timed grid is (sides around 512). It asks for: the output right on that grid; at most
// 1.15 times the global loads per output point of this exercise's kernel
// on that grid (about 1.5 on the grids of the check, against the plain
// kernel's 13); between 7.5 and 9.5 values read from shared memory per
// output point (the x and y neighbours, 8, or 9 with the centre: the four
// z neighbours come from registers, not from shared planes as in exercise
// 22), values read from shared memory reaching the output; one to four
// planes of IN_TILE_DIM² floats of static shared memory, fewer than
// coarsening's five; and, in the compiled code, a loop that holds the
// output's store, a load from shared memory and a barrier (or, unrolled,
// a barrier per plane). The message
// gives your numbers. A plain kernel, or exercise 22's kernel handed in
// here, loses the method check, and the speed points with it. The kernel
// may read only the special registers of its place in the launch; one
// that reads the clock, or keeps __device__ state between launches, could
// tell the counting run from the graded one.
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
