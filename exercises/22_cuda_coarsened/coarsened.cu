// coarsened.cu: exercise 22, thread coarsening in z (Fig. 8.10) applied to
// the 3D thirteen-point star of radius 2 (Fig. 8.3D), with five planes in
// shared memory, in CUDA C. The task is in doc.go.
//
// The grader compiles it with -DIN_TILE_DIM=T (T = 32, and 8, 16 and 20 in
// the "tiles" check) and launches blocks of T×T×1 threads,
// (n−3)/(T−4) + 1 blocks along each axis of n points, z included. Block
// (bx, by, bz) marches through the output planes iStart … iStart +
// OUT_TILE_DIM − 1, iStart = bz·OUT_TILE_DIM; thread (tx, ty) stands for
// the column j = by·OUT_TILE_DIM + ty − 2, k = bx·OUT_TILE_DIM + tx − 2.

#ifndef IN_TILE_DIM
#define IN_TILE_DIM 32
#endif
#define OUT_TILE_DIM (IN_TILE_DIM - 4)

extern "C" __global__ void coarsened(const float* in, float* out,
                                     int nz, int ny, int nx,
                                     float c0, float c1, float c2, float c3,
                                     float c4, float c5, float c6, float c7,
                                     float c8, float c9, float c10, float c11,
                                     float c12)
{
    // BEGIN SOLUTION
    // s[(base + d) % 5] holds plane i − 2 + d of the output plane i.
    __shared__ float s[5][IN_TILE_DIM][IN_TILE_DIM];
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int first = blockIdx.z * OUT_TILE_DIM;
    const int j = blockIdx.y * OUT_TILE_DIM + ty - 2;
    const int k = blockIdx.x * OUT_TILE_DIM + tx - 2;
    const long long row = nx;
    const long long plane = (long long)ny * nx;
    const bool column = j >= 0 && j < ny && k >= 0 && k < nx;
    const long long col = j * row + k;
    for (int d = 0; d < 4; ++d) {
        const int p = first - 2 + d;
        if (column && p >= 0 && p < nz) {
            s[d][ty][tx] = in[p * plane + col];
        }
    }
    const bool inner = ty >= 2 && ty < IN_TILE_DIM - 2 && tx >= 2 && tx < IN_TILE_DIM - 2 &&
                       j >= 2 && j < ny - 2 && k >= 2 && k < nx - 2;
    int base = 0;
    for (int i = first; i < first + OUT_TILE_DIM; ++i) {
        if (column && i + 2 < nz) {
            s[(base + 4) % 5][ty][tx] = in[(i + 2) * plane + col];
        }
        __syncthreads();
        if (inner && i >= 2 && i < nz - 2) {
            const int m2 = base, m1 = (base + 1) % 5, c = (base + 2) % 5;
            const int p1 = (base + 3) % 5, p2 = (base + 4) % 5;
            float acc = c0 * s[c][ty][tx];
            acc += c1 * s[c][ty][tx - 1] + c2 * s[c][ty][tx + 1];
            acc += c3 * s[c][ty - 1][tx] + c4 * s[c][ty + 1][tx];
            acc += c5 * s[m1][ty][tx] + c6 * s[p1][ty][tx];
            acc += c7 * s[c][ty][tx - 2] + c8 * s[c][ty][tx + 2];
            acc += c9 * s[c][ty - 2][tx] + c10 * s[c][ty + 2][tx];
            acc += c11 * s[m2][ty][tx] + c12 * s[p2][ty][tx];
            out[i * plane + col] = acc;
        }
        __syncthreads();
        base = (base + 1) % 5;
    }
    // END SOLUTION
    // BEGIN STUB: not written yet; write the kernel here (until then it writes no output).
    // return;
    // END STUB
}
