// star13.cu: one sweep of the 3D thirteen-point star of radius 2
// (Fig. 8.3D) on a GPU, beyond the chapter.
//
// release: instructor only — it is the technique CUDA exercises 21–25 ask for, on their stencil
//
//   out(i,j,k) = c0·in(i,j,k)
//              + c1·in(i,j,k−1) + c2·in(i,j,k+1) + c3·in(i,j−1,k) + c4·in(i,j+1,k)
//              + c5·in(i−1,j,k) + c6·in(i+1,j,k)
//              + c7·in(i,j,k−2) + c8·in(i,j,k+2) + c9·in(i,j−2,k) + c10·in(i,j+2,k)
//              + c11·in(i−2,j,k) + c12·in(i+2,j,k)
//
// on every point at least two from every face; the boundary shell, two
// points deep, is not written.
//
// A 2.5D z-march: a block of S13_BX × S13_BY threads owns an xy tile of as
// many outputs, one a thread, and marches through cz output planes (a
// kernel argument, which the host chooses so that the grid fills the GPU
// in whole waves). Each thread keeps the z−2, z−1, z+1 and z+2 values of
// its own point in registers, shifted down one plane an iteration, and
// loads one new plane (z+2) from global memory an iteration; the centre
// plane goes to shared memory with a halo two points deep on each side in
// x and y, which the threads at the tile's edges load, for the x and y
// neighbours. Two barriers an iteration: after the plane is stored, after
// it is read.
//
// Launch: blockDim = (S13_BX, S13_BY, 1); gridDim = (ceil((nx−4)/S13_BX),
// ceil((ny−4)/S13_BY), ceil((nz−4)/cz)); static shared memory
// (S13_BY+4)·(S13_BX+4) floats. Indices are 64-bit.

#ifndef S13_BX
#define S13_BX 32
#endif
#ifndef S13_BY
#define S13_BY 16
#endif

#define S13_R 2

extern "C" __global__ void __launch_bounds__(S13_BX * S13_BY)
star13(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
       float c0, float c1, float c2, float c3, float c4, float c5, float c6,
       float c7, float c8, float c9, float c10, float c11, float c12, int cz)
{
    __shared__ float tile[S13_BY + 2 * S13_R][S13_BX + 2 * S13_R];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = S13_R + blockIdx.x * S13_BX + tx;
    const int y = S13_R + blockIdx.y * S13_BY + ty;
    const int z0 = S13_R + blockIdx.z * cz;
    const int z1 = min(z0 + cz, nz - S13_R); // one past the last output plane
    const long long plane = (long long)ny * nx;
    const bool inGrid = x < nx && y < ny;
    const bool output = x < nx - S13_R && y < ny - S13_R;
    const long long col = (long long)y * nx + x;
    // The halo this thread loads besides its own point: x−2 and x+2 … for
    // the threads at the tile's edges.
    const bool hxLo = tx < S13_R, hxHi = tx >= S13_BX - S13_R;
    const bool hyLo = ty < S13_R, hyHi = ty >= S13_BY - S13_R;
    const int xlo = x - S13_R, xhi = x + S13_R;
    const int ylo = y - S13_R, yhi = y + S13_R;

    float zm2 = 0.f, zm1 = 0.f, ce = 0.f, zp1 = 0.f, zp2 = 0.f;
    if (inGrid && z0 < z1) {
        zm2 = in[(long long)(z0 - 2) * plane + col];
        zm1 = in[(long long)(z0 - 1) * plane + col];
        ce = in[(long long)z0 * plane + col];
        zp1 = in[(long long)(z0 + 1) * plane + col];
    }
    for (int z = z0; z < z1; z++) {
        const long long base = (long long)z * plane;
        if (inGrid) {
            zp2 = in[base + 2 * plane + col];
        }
        tile[ty + S13_R][tx + S13_R] = ce;
        if (hxLo && y < ny) {
            tile[ty + S13_R][tx] = in[base + (long long)y * nx + xlo];
        }
        if (hxHi && y < ny && xhi < nx) {
            tile[ty + S13_R][tx + 2 * S13_R] = in[base + (long long)y * nx + xhi];
        }
        if (hyLo && x < nx) {
            tile[ty][tx + S13_R] = in[base + (long long)ylo * nx + x];
        }
        if (hyHi && x < nx && yhi < ny) {
            tile[ty + 2 * S13_R][tx + S13_R] = in[base + (long long)yhi * nx + x];
        }
        __syncthreads();
        if (output) {
            const int r = ty + S13_R, c = tx + S13_R;
            float sum = c0 * ce;
            sum += c1 * tile[r][c - 1];
            sum += c2 * tile[r][c + 1];
            sum += c3 * tile[r - 1][c];
            sum += c4 * tile[r + 1][c];
            sum += c5 * zm1;
            sum += c6 * zp1;
            sum += c7 * tile[r][c - 2];
            sum += c8 * tile[r][c + 2];
            sum += c9 * tile[r - 2][c];
            sum += c10 * tile[r + 2][c];
            sum += c11 * zm2;
            sum += c12 * zp2;
            out[base + col] = sum;
        }
        __syncthreads();
        zm2 = zm1;
        zm1 = ce;
        ce = zp1;
        zp1 = zp2;
    }
}
