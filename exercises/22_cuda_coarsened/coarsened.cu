// coarsened.cu: exercise 22, the thread-coarsened kernel of Fig. 8.10 in
// CUDA C. The task is in doc.go.
//
// The grader compiles it with -DIN_TILE_DIM=T (32, and 8, 16 and 20 in the
// "tiles" check) and launches it as the lab launches coarsened.cu: blocks
// of T×T×1 threads, each marching through T−2 output planes in z, and
// ⌈(nx−1)/(T−2)⌉×⌈(ny−1)/(T−2)⌉×⌈(nz−1)/(T−2)⌉ blocks.

#ifndef IN_TILE_DIM
#define IN_TILE_DIM 32
#endif
#define OUT_TILE_DIM (IN_TILE_DIM - 2)

extern "C" __global__ void coarsened(const float* in, float* out,
                                     int nz, int ny, int nx,
                                     float c0, float c1, float c2, float c3,
                                     float c4, float c5, float c6)
{
    // BEGIN SOLUTION
    const int iStart = blockIdx.z * OUT_TILE_DIM;
    const int j = blockIdx.y * OUT_TILE_DIM + threadIdx.y - 1;
    const int k = blockIdx.x * OUT_TILE_DIM + threadIdx.x - 1;
    const long long sy = nx;
    const long long sz = (long long)ny * nx;
    const bool inRow = j >= 0 && j < ny && k >= 0 && k < nx;
    __shared__ float inPrev_s[IN_TILE_DIM][IN_TILE_DIM];
    __shared__ float inCurr_s[IN_TILE_DIM][IN_TILE_DIM];
    __shared__ float inNext_s[IN_TILE_DIM][IN_TILE_DIM];
    if (iStart - 1 >= 0 && iStart - 1 < nz && inRow) {
        inPrev_s[threadIdx.y][threadIdx.x] = in[(iStart - 1) * sz + j * sy + k];
    }
    if (iStart < nz && inRow) {
        inCurr_s[threadIdx.y][threadIdx.x] = in[iStart * sz + j * sy + k];
    }
    for (int i = iStart; i < iStart + OUT_TILE_DIM; ++i) {
        if (i + 1 < nz && inRow) {
            inNext_s[threadIdx.y][threadIdx.x] = in[(i + 1) * sz + j * sy + k];
        }
        __syncthreads();
        if (i >= 1 && i < nz - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nx - 1) {
            if (threadIdx.y >= 1 && threadIdx.y < IN_TILE_DIM - 1 &&
                threadIdx.x >= 1 && threadIdx.x < IN_TILE_DIM - 1) {
                out[i * sz + j * sy + k] =
                      c0 * inCurr_s[threadIdx.y][threadIdx.x]
                    + c1 * inCurr_s[threadIdx.y][threadIdx.x - 1]
                    + c2 * inCurr_s[threadIdx.y][threadIdx.x + 1]
                    + c3 * inCurr_s[threadIdx.y - 1][threadIdx.x]
                    + c4 * inCurr_s[threadIdx.y + 1][threadIdx.x]
                    + c5 * inPrev_s[threadIdx.y][threadIdx.x]
                    + c6 * inNext_s[threadIdx.y][threadIdx.x];
            }
        }
        __syncthreads();
        inPrev_s[threadIdx.y][threadIdx.x] = inCurr_s[threadIdx.y][threadIdx.x];
        inCurr_s[threadIdx.y][threadIdx.x] = inNext_s[threadIdx.y][threadIdx.x];
    }
    // END SOLUTION
    // BEGIN STUB: not written yet; write the kernel here (until then it writes no output).
    // return;
    // END STUB
}
