// fix.cu: exercise 24, find the bugs in a thirteen-point kernel on a GPU.
// The task is in doc.go.
//
// The kernel applies thread coarsening in z (Fig. 8.10) to the 3D
// thirteen-point star of radius 2 (Fig. 8.3D), with five planes in shared
// memory. The grader compiles it with -DIN_TILE_DIM=32 and launches blocks
// of 32×32×1 threads, (n−3)/28 + 1 blocks along each axis of n points,
// z included, as exercise 22's coarsened.cu.

#ifndef IN_TILE_DIM
#define IN_TILE_DIM 32
#endif

extern "C" __global__ void coarsened(const float* in, float* out,
                                     int nz, int ny, int nx,
                                     float c0, float c1, float c2, float c3,
                                     float c4, float c5, float c6, float c7,
                                     float c8, float c9, float c10, float c11,
                                     float c12)
{
    // BEGIN SOLUTION
    const int OUT_TILE_DIM = IN_TILE_DIM - 4;
    const int iStart = blockIdx.z * OUT_TILE_DIM;
    const int j = blockIdx.y * OUT_TILE_DIM + threadIdx.y - 2;
    const int k = blockIdx.x * OUT_TILE_DIM + threadIdx.x - 2;
    const int ty = threadIdx.y, tx = threadIdx.x;
    const long long sy = (long long)nx;
    const long long sz = sy * ny;
    const bool column = j >= 0 && j < ny && k >= 0 && k < nx;
    __shared__ float inPrev2_s[IN_TILE_DIM][IN_TILE_DIM];
    __shared__ float inPrev_s[IN_TILE_DIM][IN_TILE_DIM];
    __shared__ float inCurr_s[IN_TILE_DIM][IN_TILE_DIM];
    __shared__ float inNext_s[IN_TILE_DIM][IN_TILE_DIM];
    __shared__ float inNext2_s[IN_TILE_DIM][IN_TILE_DIM];
    if (column && iStart - 2 >= 0 && iStart - 2 < nz) {
        inPrev2_s[ty][tx] = in[(iStart - 2) * sz + j * sy + k];
    }
    if (column && iStart - 1 >= 0 && iStart - 1 < nz) {
        inPrev_s[ty][tx] = in[(iStart - 1) * sz + j * sy + k];
    }
    if (column && iStart < nz) {
        inCurr_s[ty][tx] = in[iStart * sz + j * sy + k];
    }
    if (column && iStart + 1 < nz) {
        inNext_s[ty][tx] = in[(iStart + 1) * sz + j * sy + k];
    }
    for (int i = iStart; i < iStart + OUT_TILE_DIM; ++i) {
        if (column && i + 2 < nz) {
            inNext2_s[ty][tx] = in[(i + 2) * sz + j * sy + k];
        }
        __syncthreads();
        if (i >= 2 && i < nz - 2 && j >= 2 && j < ny - 2 && k >= 2 && k < nx - 2 &&
            ty >= 2 && ty < IN_TILE_DIM - 2 && tx >= 2 && tx < IN_TILE_DIM - 2) {
            out[i * sz + j * sy + k] = c0 * inCurr_s[ty][tx]
                + c1 * inCurr_s[ty][tx - 1] + c2 * inCurr_s[ty][tx + 1]
                + c3 * inCurr_s[ty - 1][tx] + c4 * inCurr_s[ty + 1][tx]
                + c5 * inPrev_s[ty][tx] + c6 * inNext_s[ty][tx]
                + c7 * inCurr_s[ty][tx - 2] + c8 * inCurr_s[ty][tx + 2]
                + c9 * inCurr_s[ty - 2][tx] + c10 * inCurr_s[ty + 2][tx]
                + c11 * inPrev2_s[ty][tx] + c12 * inNext2_s[ty][tx];
        }
        __syncthreads();
        inPrev2_s[ty][tx] = inPrev_s[ty][tx];
        inPrev_s[ty][tx] = inCurr_s[ty][tx];
        inCurr_s[ty][tx] = inNext_s[ty][tx];
        inNext_s[ty][tx] = inNext2_s[ty][tx];
    }
    // END SOLUTION
    // BEGIN STUB: this kernel compiles and runs, yet it is wrong in several independent ways; find them and fix them.
    // const int OUT_TILE_DIM = IN_TILE_DIM - 2;
    // const int iStart = blockIdx.z * OUT_TILE_DIM;
    // const int j = blockIdx.y * OUT_TILE_DIM + threadIdx.y - 2;
    // const int k = blockIdx.x * OUT_TILE_DIM + threadIdx.x - 2;
    // const int ty = threadIdx.y, tx = threadIdx.x;
    // const unsigned int sy = nx;
    // const unsigned int sz = ny * nx;
    // const bool column = j >= 0 && j < ny && k >= 0 && k < nx;
    // __shared__ float inPrev2_s[IN_TILE_DIM][IN_TILE_DIM];
    // __shared__ float inPrev_s[IN_TILE_DIM][IN_TILE_DIM];
    // __shared__ float inCurr_s[IN_TILE_DIM][IN_TILE_DIM];
    // __shared__ float inNext_s[IN_TILE_DIM][IN_TILE_DIM];
    // __shared__ float inNext2_s[IN_TILE_DIM][IN_TILE_DIM];
    // if (column && iStart - 2 >= 0 && iStart - 2 < nz) {
    //     inPrev2_s[ty][tx] = in[(iStart - 2) * sz + j * sy + k];
    // }
    // if (column && iStart - 1 >= 0 && iStart - 1 < nz) {
    //     inPrev_s[ty][tx] = in[(iStart - 1) * sz + j * sy + k];
    // }
    // if (column && iStart < nz) {
    //     inCurr_s[ty][tx] = in[iStart * sz + j * sy + k];
    // }
    // if (column && iStart + 1 < nz) {
    //     inNext_s[ty][tx] = in[(iStart + 1) * sz + j * sy + k];
    // }
    // for (int i = iStart; i < iStart + OUT_TILE_DIM; ++i) {
    //     if (column && i + 2 < nz) {
    //         inNext2_s[ty][tx] = in[(i + 2) * sz + j * sy + k];
    //     }
    // }
    // __syncthreads();
    // const int i = iStart;
    // if (i >= 2 && i < nz - 2 && j >= 2 && j < ny - 2 && k >= 2 && k < nx - 2 &&
    //     ty >= 2 && ty < IN_TILE_DIM - 2 && tx >= 2 && tx < IN_TILE_DIM - 2) {
    //     out[i * sz + j * sy + k] = c0 * inCurr_s[ty][tx]
    //         + c1 * inCurr_s[ty][tx - 1] + c2 * inCurr_s[ty][tx + 1]
    //         + c3 * inCurr_s[ty - 1][tx] + c4 * inCurr_s[ty + 1][tx]
    //         + c5 * inPrev_s[ty][tx] + c6 * inNext_s[ty][tx]
    //         + c7 * inCurr_s[ty][tx - 2] + c8 * inCurr_s[ty][tx + 2]
    //         + c9 * inCurr_s[ty + 2][tx] + c10 * inCurr_s[ty - 2][tx]
    //         + c11 * inPrev2_s[ty][tx] + c12 * inNext2_s[ty][tx];
    // }
    // inPrev2_s[ty][tx] = inPrev_s[ty][tx];
    // inPrev_s[ty][tx] = inCurr_s[ty][tx];
    // inCurr_s[ty][tx] = inNext_s[ty][tx];
    // inNext_s[ty][tx] = inNext2_s[ty][tx];
    // END STUB
}
