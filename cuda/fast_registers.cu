// fast_registers.cu: FAST_MODE 0 of the fast sweep, planes in registers.
// Needs fast_common.cu in front, whose march_columns it runs for rows of
// any length: each thread holds FAST_RY rows plus their two y neighbour
// rows in registers and relies on L1 for the overlap between threads; no
// shared memory, no barrier.
//
// Launch: blockDim = (32·FAST_WX, FAST_BY, 1); gridDim = (ceil((nx−1)/
// (32·FAST_WX·V)), ceil((ny−2)/(FAST_BY·FAST_RY)), ceil((nz−2)/cz)).

// The mode this file is: the gpu package passes FAST_MODE with the other
// parameters, so that the define it records names the file that ran.
#ifndef FAST_MODE
#define FAST_MODE 0
#endif
#if FAST_MODE != 0
#error "fast_registers.cu is FAST_MODE 0"
#endif

// Threads per block of fast4 and fast1, for __launch_bounds__.
#define FAST4_THREADS (32 * FAST_WX * FAST_BY)
#define FAST1_THREADS (32 * FAST_WX * FAST_BY)

extern "C" __global__ void __launch_bounds__(FAST4_THREADS, FAST_MINB)
fast4(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
      float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    const Coeffs7 c = {c0, c1, c2, c3, c4, c5, c6};
    march_columns<4>(in, out, nz, ny, nx, cz, c);
}

// fast1 runs rows of any length one point per thread.
extern "C" __global__ void __launch_bounds__(FAST1_THREADS, FAST_MINB)
fast1(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
      float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    const Coeffs7 c = {c0, c1, c2, c3, c4, c5, c6};
    march_columns<1>(in, out, nz, ny, nx, cz, c);
}
