// tiled.cu: exercise 21, the shared-memory tiled kernel of Fig. 8.8 in
// CUDA C. The task is in doc.go.
//
// The grader compiles it with -DIN_TILE_DIM=T (8, and 4, 6 and 10 in the
// "tiles" check) and launches it as the lab launches tiled.cu: blocks of
// T×T×T threads, each loading an input tile of T³ points and computing the
// inner (T−2)³ outputs, and ⌈(n−1)/(T−2)⌉ blocks along each axis of n
// points.

#ifndef IN_TILE_DIM
#define IN_TILE_DIM 8
#endif
#define OUT_TILE_DIM (IN_TILE_DIM - 2)

extern "C" __global__ void tiled(const float* in, float* out,
                                 int nz, int ny, int nx,
                                 float c0, float c1, float c2, float c3,
                                 float c4, float c5, float c6)
{
    // BEGIN SOLUTION
    const int i = blockIdx.z * OUT_TILE_DIM + threadIdx.z - 1;
    const int j = blockIdx.y * OUT_TILE_DIM + threadIdx.y - 1;
    const int k = blockIdx.x * OUT_TILE_DIM + threadIdx.x - 1;
    const long long sy = nx;
    const long long sz = (long long)ny * nx;
    __shared__ float in_s[IN_TILE_DIM][IN_TILE_DIM][IN_TILE_DIM];
    if (i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx) {
        in_s[threadIdx.z][threadIdx.y][threadIdx.x] = in[i * sz + j * sy + k];
    }
    __syncthreads();
    if (i >= 1 && i < nz - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nx - 1) {
        if (threadIdx.z >= 1 && threadIdx.z < IN_TILE_DIM - 1 &&
            threadIdx.y >= 1 && threadIdx.y < IN_TILE_DIM - 1 &&
            threadIdx.x >= 1 && threadIdx.x < IN_TILE_DIM - 1) {
            out[i * sz + j * sy + k] =
                  c0 * in_s[threadIdx.z][threadIdx.y][threadIdx.x]
                + c1 * in_s[threadIdx.z][threadIdx.y][threadIdx.x - 1]
                + c2 * in_s[threadIdx.z][threadIdx.y][threadIdx.x + 1]
                + c3 * in_s[threadIdx.z][threadIdx.y - 1][threadIdx.x]
                + c4 * in_s[threadIdx.z][threadIdx.y + 1][threadIdx.x]
                + c5 * in_s[threadIdx.z - 1][threadIdx.y][threadIdx.x]
                + c6 * in_s[threadIdx.z + 1][threadIdx.y][threadIdx.x];
        }
    }
    // END SOLUTION
    // BEGIN STUB: not written yet; write the kernel here (until then it writes no output).
    // return;
    // END STUB
}
