// temporal13.cu: temporal blocking of the 3D thirteen-point star of radius
// 2, T13_K time steps in one pass over the grid.
//
// release: instructor only — it is the technique CUDA exercises 21–25 ask for, on their stencil
//
// The design of temporal.cu with a halo twice as deep: a block owns an xy
// input tile of T13_BX × T13_BY points, one a thread, and streams the
// planes of its column of the grid through a pipeline of T13_K stages, one
// per time level.
//
//   - each time level's valid region shrinks by two points per side, so the
//     block's outputs are its tile less 2·T13_K points on each side, where
//     level T13_K is still valid;
//   - at iteration i the block loads input plane i (time level 0) and stage
//     s = 1 … T13_K computes level s of plane p = i − 2s from level s − 1's
//     planes p − 2 … p + 2: the thread keeps p − 2, p − 1, p and p + 1 of
//     its own point in registers and gets p + 2 from the stage before, in
//     the same iteration. Level s − 1's plane p is also in shared memory,
//     written two iterations before, for the x and y neighbours. Each
//     level has three shared planes used in turn (iteration i writes slot
//     i mod 3 and reads slot (i + 1) mod 3, which iteration i − 2 wrote),
//     so one barrier per iteration separates writes from reads;
//   - the boundary stays fixed at every time step: a point within two of a
//     face of the grid keeps its value at every level (the stage passes its
//     centre on), so the points next to the boundary shell always see its
//     original values;
//   - each block covers cz output planes (a kernel argument, which the host
//     chooses so that the grid fills the GPU): it starts 2·T13_K planes
//     early (or at plane 0) and runs 2·T13_K iterations past its last plane.
//
// Launch: blockDim = (T13_BX, T13_BY, 1); gridDim = (ceil((nx−4)/OX),
// ceil((ny−4)/OY), ceil((nz−4)/cz)) with OX = T13_BX − 4·T13_K and OY =
// T13_BY − 4·T13_K; dynamic shared memory 3·T13_K·T13_BY·T13_BX floats.
// Coefficients follow lab.Coeffs13; indices are 64-bit. Points outside the
// grid are read as 0 and never written; they only feed points that are not
// outputs.

#ifndef T13_K
#define T13_K 2
#endif
#ifndef T13_BX
#define T13_BX 32
#endif
#ifndef T13_BY
#define T13_BY 32
#endif
#ifndef T13_MINB
#define T13_MINB 1
#endif

#define T13_R 2
#define T13_OX (T13_BX - 2 * T13_R * T13_K)
#define T13_OY (T13_BY - 2 * T13_R * T13_K)

extern "C" __global__ void __launch_bounds__(T13_BX * T13_BY, T13_MINB)
temporal13(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
           float c0, float c1, float c2, float c3, float c4, float c5, float c6,
           float c7, float c8, float c9, float c10, float c11, float c12, int cz)
{
    // S[(level·3 + slot)·T13_BY·T13_BX + row·T13_BX + point]: levels 0 … K−1.
    extern __shared__ float S[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x = T13_R + blockIdx.x * T13_OX - T13_R * T13_K + tx;
    const int y = T13_R + blockIdx.y * T13_OY - T13_R * T13_K + ty;
    const int z0 = T13_R + blockIdx.z * cz;
    const int z1 = min(z0 + cz, nz - T13_R); // one past the last output plane
    const int first = max(z0 - T13_R * T13_K, 0);
    const int last = z1 - 1 + T13_R * T13_K; // the last iteration
    const long long plane = (long long)ny * nx;
    const bool inGrid = x >= 0 && x < nx && y >= 0 && y < ny;
    const bool xyInterior = x >= T13_R && x < nx - T13_R && y >= T13_R && y < ny - T13_R;
    const bool inTile = tx >= T13_R && tx < T13_BX - T13_R && ty >= T13_R && ty < T13_BY - T13_R;
    const bool compute = xyInterior && inTile;
    const bool isOutput = xyInterior && tx >= T13_R * T13_K && tx < T13_R * T13_K + T13_OX &&
                          ty >= T13_R * T13_K && ty < T13_R * T13_K + T13_OY;
    const long long col = (long long)(inGrid ? y : 0) * nx + (inGrid ? x : 0);
    const int at = ty * T13_BX + tx;
    const int P = T13_BX * T13_BY;

    for (int l = 0; l < 3 * T13_K; l++) {
        S[l * P + at] = 0.f;
    }
    // Level s−1's planes p−2, p−1, p and p+1 of the stage s = 1 … K.
    float m2[T13_K], m1[T13_K], ce[T13_K], p1[T13_K];
#pragma unroll
    for (int s = 0; s < T13_K; s++) {
        m2[s] = m1[s] = ce[s] = p1[s] = 0.f;
    }
    __syncthreads();
    for (int i = first; i <= last; i++) {
        const int wslot = i % 3, rslot = (i + 1) % 3;
        float c = 0.f; // level s−1 at plane p+2: the input first
        if (inGrid && i < nz) {
            c = in[(long long)i * plane + col];
        }
        S[wslot * P + at] = c;
#pragma unroll
        for (int s = 1; s <= T13_K; s++) {
            const int p = i - T13_R * s;
            const float* L = S + ((s - 1) * 3 + rslot) * P + at;
            float r = ce[s - 1];
            if (compute && p >= T13_R && p < nz - T13_R) {
                float sum = c0 * ce[s - 1];
                sum += c1 * L[-1];
                sum += c2 * L[1];
                sum += c3 * L[-T13_BX];
                sum += c4 * L[T13_BX];
                sum += c5 * m1[s - 1];
                sum += c6 * p1[s - 1];
                sum += c7 * L[-2];
                sum += c8 * L[2];
                sum += c9 * L[-2 * T13_BX];
                sum += c10 * L[2 * T13_BX];
                sum += c11 * m2[s - 1];
                sum += c12 * c;
                r = sum;
            }
            m2[s - 1] = m1[s - 1];
            m1[s - 1] = ce[s - 1];
            ce[s - 1] = p1[s - 1];
            p1[s - 1] = c;
            c = r;
            if (s < T13_K) {
                S[(s * 3 + wslot) * P + at] = r;
            } else if (isOutput && p >= z0 && p < z1) {
                out[(long long)p * plane + col] = r;
            }
        }
        __syncthreads();
    }
}
