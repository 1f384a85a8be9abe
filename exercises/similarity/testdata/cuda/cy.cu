// Each thread computes one interior point of the 2D five-point stencil.
extern "C" __global__ void smooth2d(const float* in, float* out, int ny, int nx, float c0, float c1)
{
    for (int y = 1 + blockIdx.y * blockDim.y + threadIdx.y; y < ny - 1; y += gridDim.y * blockDim.y) {
        for (int x = 1 + blockIdx.x * blockDim.x + threadIdx.x; x < nx - 1; x += gridDim.x * blockDim.x) {
            const float* p = in + (size_t)y * nx + x;
            float north = p[-nx], south = p[nx], west = p[-1], east = p[1];
            out[(size_t)y * nx + x] = c0 * p[0] + c1 * (north + south + west + east);
        }
    }
}
