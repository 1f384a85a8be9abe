// basic.cu: the chapter's basic 3D seven-point sweep (Fig. 8.6).
//
// One thread per grid point; each thread that owns an interior point reads
// its seven inputs from global memory and writes one output. The block
// shape is chosen at launch (8×8×8 by default), so this file needs no
// tile define.
//
// Differences from the figure, all deliberate:
//   - the grid may be nz×ny×nx rather than a cube;
//   - indices into the arrays are 64-bit, so N = 2048 (8.6e9 points) works:
//     the figure's unsigned i*N*N overflows once N exceeds about 1625;
//   - the coefficients are kernel arguments with the lab's mapping
//     c1/c2 for k−1/k+1 (x), c3/c4 for j−1/j+1 (y), c5/c6 for i−1/i+1 (z).

extern "C" __global__ void basic(const float* in, float* out,
                                 int nz, int ny, int nx,
                                 float c0, float c1, float c2, float c3,
                                 float c4, float c5, float c6)
{
    const int i = blockIdx.z * blockDim.z + threadIdx.z;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < nz - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nx - 1) {
        const long long sy = nx;                       // stride between rows
        const long long sz = (long long)ny * nx;       // stride between planes
        const long long p = i * sz + j * sy + k;
        out[p] = c0 * in[p]
               + c1 * in[p - 1]
               + c2 * in[p + 1]
               + c3 * in[p - sy]
               + c4 * in[p + sy]
               + c5 * in[p - sz]
               + c6 * in[p + sz];
    }
}
