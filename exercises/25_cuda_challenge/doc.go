// Package cudachallenge is exercise 25 of Stencil Lab: the fastest correct sweep of the thirteen-point star of radius 2.
//
// # Your task
//
// Write, in challenge.cu, any correct sweep of the thirteen-point star of
// exercise 20 (the same coefficients, interior and boundary), as fast as
// you can make it. The file starts empty: the launch is yours, given by
// six lines "#define NAME number" (BLOCK_X, BLOCK_Y, BLOCK_Z: the block;
// TILE_X, TILE_Y, TILE_Z: the points of the grid each block covers); the
// top of challenge.cu says how the grader reads them. The chapter's
// techniques (exercises 21–23), the read-only cache (__ldg, const
// __restrict__), the registers and the block shape are all allowed.
//
// The speed points count only for a kernel that passes the values and
// small checks and whose every timed launch did its work: two points for
// each tenth of the float4 copy it reaches, up to the best chapter
// kernel's share rounded down to a tenth (40 %: register tiling reached
// 44.9 % on an NVIDIA H200, exercises/cudacheck/cuda13_record.json).
// `grade -class` ranks the class's correct kernels in leaderboard.md.
//
// # The method check (3 points)
//
// Any technique is allowed, but the speed points count only for a kernel
// that reuses its inputs, the chapter's subject: the grader compiles
// challenge.cu to PTX and runs a copy of that PTX that counts, for each
// thread, the bytes it loads from global memory (through any path: plain,
// read-only __ldg, vector or generic loads), once, on a grid drawn as the
// timed grid is, and
// asks for the output right on that grid and at most 10 global loads per
// output point (the plain kernel makes 13; keeping the z neighbours in
// registers makes 9, shared-memory tiles fewer). Warp shuffles are
// allowed; instructions the counting cannot account for (textures,
// asynchronous copies, atomics, functions the compiler did not inline),
// the clock and timers, and __device__ state kept between launches are
// not.
//
// # How it is graded
//
// The grader compiles the file with NVRTC on the GPU (a compile error is
// reported with NVRTC's log, which names the file and its lines; only the
// file's text reaches the compiler: an #include is refused), launches it on
// inputs it draws, with the output filled with NaN first (points within two
// of a face must stay untouched), and compares with the lab's reference
// sweep, lab.Sweep3 with lab.ThirteenPoint, on the CPU. The checks: non-cubic grids, thirteen distinct
// coefficients and fresh random inputs, each twice; the smallest grids (N =
// 5, and grids with a side of 3 or 4, which get no output). It times the
// kernel on a grid drawn fresh for the run, its sides around 512, as a
// chain of ten launches each reading what the one before wrote; the final
// grid is compared with ten sweeps of the reference, and the time per
// launch is taken as a share of the float4 copy of the same grid, measured
// in the same process. A kernel that faults or hangs scores 0 for the
// exercise, and the message names the check it was in.
//
// Run the checks with `go run ./cmd/grade 25_cuda_challenge` on a machine with an NVIDIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudachallenge
