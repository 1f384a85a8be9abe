// Each thread computes one interior point of the 2D five-point stencil.
extern "C" __global__ void smooth2d(const float* in, float* out, int ny, int nx, float c0, float c1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= 1 && i < nx - 1 && j >= 1 && j < ny - 1) {
        int at = j * nx + i;
        out[at] = c0 * in[at] + c1 * (in[at - 1] + in[at + 1] + in[at - nx] + in[at + nx]);
    }
}
