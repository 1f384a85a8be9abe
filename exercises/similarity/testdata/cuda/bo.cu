// Each thread computes one interior point of the 2D five-point stencil.
#define IDX(r, c) ((r) * nx + (c))
extern "C" __global__ void smooth2d(const float* in, float* out, int ny, int nx, float c0, float c1)
{
    const int col = threadIdx.x + blockDim.x * blockIdx.x;
    const int row = threadIdx.y + blockDim.y * blockIdx.y;
    if (row <= 0 || col <= 0 || row >= ny - 1 || col >= nx - 1)
        return;
    float sum = in[IDX(row - 1, col)];
    sum += in[IDX(row + 1, col)];
    sum += in[IDX(row, col - 1)];
    sum += in[IDX(row, col + 1)];
    out[IDX(row, col)] = c1 * sum + c0 * in[IDX(row, col)];
}
