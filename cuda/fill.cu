// fill.cu: fills a device buffer with uniform pseudo-random values in
// [−1, 1), so that large grids get random inputs without a host round trip.
//
// Value p is a hash (SplitMix64) of seed and p: the same seed gives the
// same buffer whatever the launch shape. A grid-stride loop covers any n.

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

extern "C" __global__ void fill_random(float* out, long long n, unsigned long long seed)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += stride) {
        const unsigned long long h = splitmix64(seed ^ splitmix64((unsigned long long)p));
        // 24 random bits give a float in [0, 1) exactly; map to [−1, 1).
        out[p] = (float)(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
    }
}
