// register_tiled.cu: exercise 23, register tiling (Fig. 8.12) applied to
// the 3D thirteen-point star of radius 2 (Fig. 8.3D), in CUDA C. The task
// is in doc.go.
//
// The grader compiles it with -DIN_TILE_DIM=T (T = 32, and 8, 16 and 20 in
// the "tiles" check) and launches it as coarsened.cu (exercise 22): blocks
// of T×T×1 threads, (n−3)/(T−4) + 1 blocks along each axis of n points,
// z included, each marching through OUT_TILE_DIM = T − 4 output planes.

#ifndef IN_TILE_DIM
#define IN_TILE_DIM 32
#endif
#define OUT_TILE_DIM (IN_TILE_DIM - 4)

extern "C" __global__ void register_tiled(const float* in, float* out,
                                          int nz, int ny, int nx,
                                          float c0, float c1, float c2, float c3,
                                          float c4, float c5, float c6, float c7,
                                          float c8, float c9, float c10, float c11,
                                          float c12)
{
    // BEGIN SOLUTION
    // Only the current plane is shared (its x and y neighbours); the four
    // planes above and below a thread's point stay in its registers.
    __shared__ float cur_s[IN_TILE_DIM][IN_TILE_DIM];
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int first = blockIdx.z * OUT_TILE_DIM;
    const int j = blockIdx.y * OUT_TILE_DIM + ty - 2;
    const int k = blockIdx.x * OUT_TILE_DIM + tx - 2;
    const long long row = nx;
    const long long plane = (long long)ny * nx;
    const bool column = j >= 0 && j < ny && k >= 0 && k < nx;
    const long long col = j * row + k;
    float below2 = 0.0f, below = 0.0f, here = 0.0f, above = 0.0f, above2 = 0.0f;
    if (column && first - 2 >= 0) {
        below2 = in[(first - 2) * plane + col];
    }
    if (column && first - 1 >= 0) {
        below = in[(first - 1) * plane + col];
    }
    if (column && first < nz) {
        here = in[first * plane + col];
    }
    if (column && first + 1 < nz) {
        above = in[(first + 1) * plane + col];
    }
    const bool inner = ty >= 2 && ty < IN_TILE_DIM - 2 && tx >= 2 && tx < IN_TILE_DIM - 2 &&
                       j >= 2 && j < ny - 2 && k >= 2 && k < nx - 2;
    for (int i = first; i < first + OUT_TILE_DIM; ++i) {
        if (column && i + 2 < nz) {
            above2 = in[(i + 2) * plane + col];
        }
        __syncthreads();
        cur_s[ty][tx] = here;
        __syncthreads();
        if (inner && i >= 2 && i < nz - 2) {
            float acc = c0 * here;
            acc += c1 * cur_s[ty][tx - 1] + c2 * cur_s[ty][tx + 1];
            acc += c3 * cur_s[ty - 1][tx] + c4 * cur_s[ty + 1][tx];
            acc += c5 * below + c6 * above;
            acc += c7 * cur_s[ty][tx - 2] + c8 * cur_s[ty][tx + 2];
            acc += c9 * cur_s[ty - 2][tx] + c10 * cur_s[ty + 2][tx];
            acc += c11 * below2 + c12 * above2;
            out[i * plane + col] = acc;
        }
        below2 = below;
        below = here;
        here = above;
        above = above2;
    }
    // END SOLUTION
    // BEGIN STUB: not written yet; write the kernel here (until then it writes no output).
    // return;
    // END STUB
}
