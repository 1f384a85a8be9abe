// derivative.cu: a 1D central-difference stencil of radius RADIUS on a
// grid of n points (Fig. 8.2), tiled in shared memory.
//
// A block of IN_TILE_DIM threads loads IN_TILE_DIM consecutive inputs and
// its inner OUT_TILE_DIM = IN_TILE_DIM − 2·RADIUS threads each compute one
// output: out[k] = scale · Σ w.c[m+RADIUS]·in[k+m], m = −RADIUS…RADIUS,
// for RADIUS ≤ k < n−RADIUS. The first and last RADIUS points are left as
// they are. Launch with blockDim = IN_TILE_DIM and
// gridDim = ceil((n−RADIUS)/OUT_TILE_DIM).

#ifndef RADIUS
#define RADIUS 1
#endif
#ifndef IN_TILE_DIM
#define IN_TILE_DIM 256
#endif
#define OUT_TILE_DIM (IN_TILE_DIM - 2 * RADIUS)

// Weights1 holds up to nine weights (radius 4), passed by value.
struct Weights1 {
    float c[9];
};

extern "C" __global__ void derivative(const float* in, float* out, long long n,
                                      Weights1 w, float scale)
{
    __shared__ float in_s[IN_TILE_DIM];
    const long long k = (long long)blockIdx.x * OUT_TILE_DIM + threadIdx.x - RADIUS;
    if (k >= 0 && k < n) {
        in_s[threadIdx.x] = in[k];
    }
    __syncthreads();
    if (k >= RADIUS && k < n - RADIUS &&
        threadIdx.x >= RADIUS && threadIdx.x < IN_TILE_DIM - RADIUS) {
        float sum = 0.0f;
#pragma unroll
        for (int m = -RADIUS; m <= RADIUS; ++m) {
            sum += w.c[m + RADIUS] * in_s[threadIdx.x + m];
        }
        out[k] = sum * scale;
    }
}
