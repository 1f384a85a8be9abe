// Package cudatiled is exercise 21 of Stencil Lab: the shared-memory tiling of Fig. 8.8 applied to the thirteen-point star of radius 2, in CUDA C.
//
// # Your task
//
// Complete the kernel tiled in tiled.cu. The stencil, its coefficients and
// its interior are those of exercise 20; an output now needs the inputs up
// to two points away, so the input tile has a halo of two on each side:
//
//	IN_TILE_DIM = OUT_TILE_DIM + 4
//
// Each block of IN_TILE_DIM³ threads loads its input tile, halo included,
// into shared memory, waits for the whole block (__syncthreads), and the
// threads of the inner OUT_TILE_DIM³ cube (2 ≤ tx, ty, tz ≤ IN_TILE_DIM−3)
// whose point is interior compute it from shared memory only. Thread
// (tx, ty, tz) of block (bx, by, bz) stands for the point
//
//	i = bz·OUT_TILE_DIM + tz − 2   (j from y, k from x)
//
// and loads it when it lies in the grid. The grid has (n−3)/OUT_TILE_DIM + 1
// blocks along each axis of n points. IN_TILE_DIM is a define the grader
// varies (8 by default; 6, 9 and 10 in the "tiles" check); exercise 06 is
// the same kernel on the simulator.
//
// The performance check asks for 5 % of the float4 copy: the reference
// solution reached 6.3 % on an NVIDIA H200
// (exercises/cudacheck/cuda13_record.json); the threshold is three quarters
// of it, rounded to 5 %.
//
// # The method check (5 points)
//
// The grader checks that the kernel tiles, on evidence it gathers itself:
// it compiles tiled.cu to PTX (what NVRTC makes of your text) and runs a
// copy of that PTX that counts, for each thread, what it loads from global
// memory and from shared memory and the barriers it passes, once, on a
// grid drawn as the timed grid is (sides around 512). It asks for: the output right on that grid; at most 1.15
// times the global loads per output point that the tiled kernel makes on
// that grid (each block loads its IN_TILE_DIM³ input tile once: about 8.1 on
// the grids of the check, against the plain kernel's 13); at least 12 of
// the 13 neighbours read from shared memory per output point, values read
// from shared memory reaching the output; a shared tile of at least
// IN_TILE_DIM³ floats (cuFuncGetAttribute); a barrier. The message gives
// your numbers ("your kernel makes 13.0 global loads per output point …").
// A plain kernel, or one that fills a shared tile and never reads it,
// earns the correctness checks only: the speed points count only for a
// kernel that passed its method check. The kernel may read only the
// special registers of its place in the launch (threadIdx, blockIdx and
// their sizes): one that reads the clock, or keeps __device__ state
// between launches, could tell the counting run from the graded one.
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
// Run the checks with `go run ./cmd/grade 21_cuda_tiled` on a machine with an NVIDIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudatiled
