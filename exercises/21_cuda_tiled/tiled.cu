// tiled.cu: exercise 21, the shared-memory tiling of Fig. 8.8 applied to
// the 3D thirteen-point star of radius 2 (Fig. 8.3D), in CUDA C. The task
// is in doc.go.
//
// The grader compiles it with -DIN_TILE_DIM=T (T = 8, and 6, 9 and 10 in
// the "tiles" check) and launches blocks of T×T×T threads, (n−3)/(T−4) + 1
// blocks along each axis of n points. Thread (tx, ty, tz) of block
// (bx, by, bz) stands for the point
//     i = bz·OUT_TILE_DIM + tz − 2   (j from y, k from x)

#ifndef IN_TILE_DIM
#define IN_TILE_DIM 8
#endif
#define OUT_TILE_DIM (IN_TILE_DIM - 4)

extern "C" __global__ void tiled(const float* in, float* out,
                                 int nz, int ny, int nx,
                                 float c0, float c1, float c2, float c3,
                                 float c4, float c5, float c6, float c7,
                                 float c8, float c9, float c10, float c11,
                                 float c12)
{
    // BEGIN SOLUTION
    __shared__ float tile[IN_TILE_DIM][IN_TILE_DIM][IN_TILE_DIM];
    const int tz = threadIdx.z, ty = threadIdx.y, tx = threadIdx.x;
    const int i = blockIdx.z * OUT_TILE_DIM + tz - 2;
    const int j = blockIdx.y * OUT_TILE_DIM + ty - 2;
    const int k = blockIdx.x * OUT_TILE_DIM + tx - 2;
    const long long row = nx;
    const long long plane = (long long)ny * nx;
    const bool inside = i >= 0 && i < nz && j >= 0 && j < ny && k >= 0 && k < nx;
    if (inside) {
        tile[tz][ty][tx] = in[i * plane + j * row + k];
    }
    __syncthreads();
    const bool inner = tz >= 2 && tz < IN_TILE_DIM - 2 && ty >= 2 && ty < IN_TILE_DIM - 2 &&
                       tx >= 2 && tx < IN_TILE_DIM - 2;
    if (inner && i >= 2 && i < nz - 2 && j >= 2 && j < ny - 2 && k >= 2 && k < nx - 2) {
        float acc = c0 * tile[tz][ty][tx];
        acc += c1 * tile[tz][ty][tx - 1] + c2 * tile[tz][ty][tx + 1];
        acc += c3 * tile[tz][ty - 1][tx] + c4 * tile[tz][ty + 1][tx];
        acc += c5 * tile[tz - 1][ty][tx] + c6 * tile[tz + 1][ty][tx];
        acc += c7 * tile[tz][ty][tx - 2] + c8 * tile[tz][ty][tx + 2];
        acc += c9 * tile[tz][ty - 2][tx] + c10 * tile[tz][ty + 2][tx];
        acc += c11 * tile[tz - 2][ty][tx] + c12 * tile[tz + 2][ty][tx];
        out[i * plane + j * row + k] = acc;
    }
    // END SOLUTION
    // BEGIN STUB: not written yet; write the kernel here (until then it writes no output).
    // return;
    // END STUB
}
