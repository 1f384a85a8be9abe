// Package cudacoarsened is exercise 22 of Stencil Lab: thread coarsening in z (Fig. 8.10) applied to the thirteen-point star of radius 2, five planes live, in CUDA C.
//
// # Your task
//
// Complete the kernel coarsened in coarsened.cu. The stencil and its
// interior are those of exercise 20, the halo of two and the grid,
// (n−3)/OUT_TILE_DIM + 1 blocks along each axis of n points, z included,
// those of exercise 21. A block is one IN_TILE_DIM×IN_TILE_DIM plane of
// threads; it marches in z through the OUT_TILE_DIM output planes
// i = iStart … iStart+OUT_TILE_DIM−1 of its tile, iStart =
// blockIdx.z·OUT_TILE_DIM, and thread (tx, ty) stands for the column
// j = by·OUT_TILE_DIM + ty − 2, k = bx·OUT_TILE_DIM + tx − 2. An output
// plane needs five input planes, i−2 to i+2, and the block keeps all five
// in shared memory. Load planes iStart−2 … iStart+1 first (each element
// where it lies in the grid); then, for each output plane, load plane i+2,
// wait, compute the inner threads' interior points, wait, and move the
// planes down by one. IN_TILE_DIM is a define the grader varies (32 by
// default; 8, 16 and 20 in the "tiles" check); exercise 07 is the same
// kernel on the simulator.
//
// The performance check asks for 20 % of the float4 copy: the reference
// solution reached 26.0 % on an NVIDIA H200
// (exercises/cudacheck/cuda13_record.json); the threshold is three quarters
// of it, rounded to 5 %.
//
// # The method check (5 points)
//
// The grader checks that the kernel coarsens, on evidence it gathers
// itself: it compiles coarsened.cu to PTX (what NVRTC makes of your text)
// and runs a copy of that PTX that counts, for each thread, what it loads
// from global memory and from shared memory and the barriers it passes,
// once, on a grid drawn as the timed grid is (sides around 512). It asks for: the output right on that grid; at
// most 1.15 times the global loads per output point of this exercise's
// kernel on that grid (each block loads each plane of its columns once:
// about 1.5 on the grids of the check, against the plain kernel's 13); at
// least 12 of the 13 neighbours read from shared memory per output point,
// values read from shared memory reaching the output; five planes of
// IN_TILE_DIM² floats of static shared memory (cuFuncGetAttribute); and,
// in the compiled code, a loop that holds the output's store, a store to
// shared memory, a load from it and a barrier (the march through the
// planes; where the compiler unrolled that loop, a barrier per plane,
// counted, stands for it). The message gives your numbers ("your kernel makes 13.0 global
// loads per output point …"). A plain kernel, or one that fills shared
// planes for show, earns the correctness checks only: the speed points
// count only for a kernel that passed its method check. The kernel may
// read only the special registers of its place in the launch; one that
// reads the clock, or keeps __device__ state between launches, could tell
// the counting run from the graded one.
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
// Run the checks with `go run ./cmd/grade 22_cuda_coarsened` on a machine with an NVIDIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudacoarsened
