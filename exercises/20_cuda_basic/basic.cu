// basic.cu: exercise 20, the basic 3D seven-point kernel of Fig. 8.6 in
// CUDA C. The task is in doc.go.
//
// The grader launches it as the lab launches basic.cu: blocks of
// T×T×T threads (T = 8, and 4 and 10 in the "tiles" check) and
// ⌈nx/T⌉×⌈ny/T⌉×⌈nz/T⌉ blocks, so that every grid point has a thread.

extern "C" __global__ void basic(const float* in, float* out,
                                 int nz, int ny, int nx,
                                 float c0, float c1, float c2, float c3,
                                 float c4, float c5, float c6)
{
    // BEGIN SOLUTION
    const int i = blockIdx.z * blockDim.z + threadIdx.z;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < nz - 1 && j >= 1 && j < ny - 1 && k >= 1 && k < nx - 1) {
        const long long sy = nx;
        const long long sz = (long long)ny * nx;
        const long long p = i * sz + j * sy + k;
        out[p] = c0 * in[p]
               + c1 * in[p - 1]
               + c2 * in[p + 1]
               + c3 * in[p - sy]
               + c4 * in[p + sy]
               + c5 * in[p - sz]
               + c6 * in[p + sz];
    }
    // END SOLUTION
    // BEGIN STUB: not written yet; write the kernel here (until then it writes no output).
    // return;
    // END STUB
}
