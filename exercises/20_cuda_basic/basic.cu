// basic.cu: exercise 20, the basic kernel of Fig. 8.6 applied to the 3D
// thirteen-point star of radius 2 (Fig. 8.3D), in CUDA C. The task is in
// doc.go.
//
// The grader launches it with blocks of T×T×T threads (T = 8, and 4 and 10
// in the "tiles" check) and ⌈nx/T⌉×⌈ny/T⌉×⌈nz/T⌉ blocks, so that every grid
// point has a thread.

extern "C" __global__ void basic(const float* in, float* out,
                                 int nz, int ny, int nx,
                                 float c0, float c1, float c2, float c3,
                                 float c4, float c5, float c6, float c7,
                                 float c8, float c9, float c10, float c11,
                                 float c12)
{
    // BEGIN SOLUTION
    const int i = blockIdx.z * blockDim.z + threadIdx.z;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 2 || i >= nz - 2 || j < 2 || j >= ny - 2 || k < 2 || k >= nx - 2) {
        return;
    }
    const long long row = nx;
    const long long plane = (long long)ny * nx;
    const long long at = i * plane + j * row + k;
    float acc = c0 * in[at];
    acc += c1 * in[at - 1] + c2 * in[at + 1];
    acc += c3 * in[at - row] + c4 * in[at + row];
    acc += c5 * in[at - plane] + c6 * in[at + plane];
    acc += c7 * in[at - 2] + c8 * in[at + 2];
    acc += c9 * in[at - 2 * row] + c10 * in[at + 2 * row];
    acc += c11 * in[at - 2 * plane] + c12 * in[at + 2 * plane];
    out[at] = acc;
    // END SOLUTION
    // BEGIN STUB: not written yet; write the kernel here (until then it writes no output).
    // return;
    // END STUB
}
