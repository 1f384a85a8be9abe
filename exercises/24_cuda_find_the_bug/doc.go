// Package cudafindthebug is exercise 24 of Stencil Lab: find the bugs in a thirteen-point kernel on a GPU.
//
// # Your task
//
// fix.cu holds a kernel that applies thread coarsening in z (Fig. 8.10,
// exercise 22) to the thirteen-point star of radius 2 (Fig. 8.3D, exercise
// 20): blocks of 32×32 threads march in z with the five planes an output
// plane needs in shared memory. A student wrote it from the chapter and
// from study notes on the seven-point kernels. It compiles and it runs,
// yet it is wrong in several independent ways. Find the mistakes and fix
// them, changing as little as you can.
//
// Some help:
//
//   - Each check looks at one symptom of the output, on inputs chosen so
//     that only some mistakes can show: inputs that vary along x only, or
//     y only, or z only, give every point of a plane, a row or a column
//     the same inputs. Each says what it sees: which points are written,
//     which are right, whether two launches agree.
//   - The coefficients' order is that of exercise 20; the reference is
//     lab.Sweep3 with lab.ThirteenPoint.
//   - Exercise 09 is a kernel of the same kind on the simulator, which
//     reports more about what the threads do than a GPU does.
//   - One check (hidden) runs a grid of 1700³ points, where the GPU has the
//     memory for two such grids (2 × 19.7 GB).
//
// The performance check asks for 20 % of the float4 copy: the reference
// coarsened kernel reached 26.0 % on an NVIDIA H200
// (exercises/cudacheck/cuda13_record.json); the threshold is three
// quarters of it, rounded to 5 %. Speed counts only once every other check
// passes.
//
// # The method check (6 points)
//
// The points for the fix are for the given kernel, fixed: its structure
// kept. The grader compiles fix.cu to PTX (what NVRTC makes of your text)
// and runs a copy of that PTX that counts, for each thread, what it loads
// from global memory and from shared memory and the barriers it passes,
// once, on a grid drawn as the timed grid is (sides around 512). It asks for: the output right on that grid;
// the five shared arrays of the given kernel (inPrev2_s, inPrev_s,
// inCurr_s, inNext_s, inNext2_s, one plane each), each written and read;
// in the compiled code, a loop that holds the output's store, stores to
// and loads from shared memory and a barrier (or, unrolled, a barrier
// per plane); at most 1.15 times the
// global loads per output point of the coarsened kernel on that grid
// (about 1.5, against the plain kernel's 13); at least 12 of the 13
// neighbours read from shared memory per output point, reaching the
// output. A kernel written anew (a plain kernel marching in z, say) earns
// the correctness checks only, with a message that says why, and no speed
// points. The kernel may read only the special registers of its place in
// the launch, and keep no __device__ state between launches.
//
// # How it is graded
//
// The grader compiles the file with NVRTC on the GPU (a compile error is
// reported with NVRTC's log, which names the file and its lines; only the
// file's text reaches the compiler: an #include is refused), launches it on
// inputs it draws, with the output filled with NaN first (points within two
// of a face must stay untouched), and compares with the lab's reference
// sweep, lab.Sweep3 with lab.ThirteenPoint, on the CPU. It times the
// kernel on a grid drawn fresh for the run, its sides around 512, as a
// chain of ten launches each reading what the one before wrote; the final
// grid is compared with ten sweeps of the reference, and the time per
// launch is taken as a share of the float4 copy of the same grid, measured
// in the same process. A kernel that faults or hangs scores 0 for the
// exercise, and the message names the check it was in.
//
// Run the checks with `go run ./cmd/grade 24_cuda_find_the_bug` on a machine with an NVIDIA
// GPU; elsewhere the exercise is reported as needs_gpu: its score is
// withheld, not zero.
package cudafindthebug
