// Package cudabasic is exercise 20 of Stencil Lab: the basic kernel of Fig. 8.6 applied to the thirteen-point star of radius 2 (Fig. 8.3D), in CUDA C.
//
// # Your task
//
// Complete the kernel basic in basic.cu: one thread per grid point (i, j, k),
// i from z, j from y and k from x (i = blockIdx.z*blockDim.z + threadIdx.z,
// and so on). A thread whose point is interior, at least two from every
// face (2 ≤ i ≤ nz−3, 2 ≤ j ≤ ny−3, 2 ≤ k ≤ nx−3), writes
//
//	out(i,j,k) = c0·in(i,j,k)
//	           + c1·in(i,j,k−1) + c2·in(i,j,k+1)      x, distance 1
//	           + c3·in(i,j−1,k) + c4·in(i,j+1,k)      y, distance 1
//	           + c5·in(i−1,j,k) + c6·in(i+1,j,k)      z, distance 1
//	           + c7·in(i,j,k−2) + c8·in(i,j,k+2)      x, distance 2
//	           + c9·in(i,j−2,k) + c10·in(i,j+2,k)     y, distance 2
//	           + c11·in(i−2,j,k) + c12·in(i+2,j,k)    z, distance 2
//
// where the point (i, j, k) is element (i·ny + j)·nx + k; the other threads
// do nothing. The block shape is chosen by the grader (the top of basic.cu
// says how): the kernel must work for any block edge. Use 64-bit indices
// (long long): at N = 1700 the index i·ny·nx passes 2³².
//
// The performance check asks for 20 % of the float4 copy: the reference
// solution reached 25.1 % on an NVIDIA H200
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
// Run the checks with `go run ./cmd/grade 20_cuda_basic` on a machine with an NVIDIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudabasic
