// five_point.cu: the 2D five-point stencil (Figs. 8.3A, 8.4, 8.7) with
// shared-memory tiling.
//
// A block of IN_TILE_DIM × IN_TILE_DIM threads loads an input tile; its
// inner OUT_TILE_DIM² threads compute
//   out(j,k) = c0·in(j,k) + c1·in(j,k−1) + c2·in(j,k+1)
//            + c3·in(j−1,k) + c4·in(j+1,k)
// for every interior point. Launch with blockDim = (T, T) and
// gridDim = (ceil((nx−1)/(T−2)), ceil((ny−1)/(T−2))).

#ifndef IN_TILE_DIM
#define IN_TILE_DIM 16
#endif
#define OUT_TILE_DIM (IN_TILE_DIM - 2)

extern "C" __global__ void five_point(const float* in, float* out, int ny, int nx,
                                      float c0, float c1, float c2, float c3, float c4)
{
    const int j = blockIdx.y * OUT_TILE_DIM + threadIdx.y - 1;
    const int k = blockIdx.x * OUT_TILE_DIM + threadIdx.x - 1;
    const long long p = (long long)j * nx + k;
    __shared__ float in_s[IN_TILE_DIM][IN_TILE_DIM];
    if (j >= 0 && j < ny && k >= 0 && k < nx) {
        in_s[threadIdx.y][threadIdx.x] = in[p];
    }
    __syncthreads();
    if (j >= 1 && j < ny - 1 && k >= 1 && k < nx - 1 &&
        threadIdx.y >= 1 && threadIdx.y < IN_TILE_DIM - 1 &&
        threadIdx.x >= 1 && threadIdx.x < IN_TILE_DIM - 1) {
        out[p] = c0 * in_s[threadIdx.y][threadIdx.x]
               + c1 * in_s[threadIdx.y][threadIdx.x - 1]
               + c2 * in_s[threadIdx.y][threadIdx.x + 1]
               + c3 * in_s[threadIdx.y - 1][threadIdx.x]
               + c4 * in_s[threadIdx.y + 1][threadIdx.x];
    }
}
