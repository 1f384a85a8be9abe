// temporal.cu: temporal blocking, TB_K time steps of the 3D seven-point
// stencil in one pass over the grid.
//
// A single sweep must read and write every point once, so it can never beat
// a copy. This kernel reads each input plane once per TB_K time steps: a
// 2.5D z-march in which each block owns an xy tile with a halo wide enough
// for TB_K steps and streams the planes of its column of the grid through a
// pipeline of TB_K stages, one per time level:
//
//   - the input tile is TB_BX points (a multiple of 4) × TB_BY rows; each
//     thread owns 4 consecutive points of one row (float4 loads), so a block
//     is (TB_BX/4) × TB_BY threads and a row of the tile lies inside one
//     warp (TB_BX/4 divides 32): the x neighbours come from the neighbouring
//     lanes by warp shuffles, the y neighbours from shared memory;
//   - the outputs of a block are the tile less a halo of TB_K rows above and
//     below and TB_HX points left and right (TB_K rounded up to whole
//     float4s, which keeps every float4 aligned); each time level's valid
//     region shrinks by one point per side, so level TB_K is valid on them;
//   - at iteration i the block loads input plane i (time level 0) and stage
//     s = 1 … TB_K computes time level s of plane i − s from level s − 1's
//     planes i − s − 1, i − s and i − s + 1: the thread keeps the first two
//     in registers (z neighbours and centre) and gets the third from the
//     stage before, in the same iteration. Level s − 1's plane i − s is
//     also in shared memory, written in iteration i − 1, for the x and y
//     neighbours. Each level has two shared planes used alternately, so one
//     barrier per iteration separates writes from reads;
//   - the boundary stays fixed at every time step: a point on a face of the
//     grid keeps its value at every level (the stage passes its centre on),
//     so the interior points next to a face always see the original
//     boundary values;
//   - each block covers cz output planes (a kernel argument, which the host
//     chooses so that the grid fills the GPU): it starts TB_K planes early
//     (or at plane 0) and runs TB_K iterations past its last plane;
//   - TB_L2PF > 0 (sm_90) has one thread per row ask L2 for the row's tile
//     segment TB_L2PF planes ahead with a bulk prefetch, which puts DRAM
//     bytes in flight without holding registers;
//   - TB_STREAM = 1 writes the outputs with streaming (evict-first) stores,
//     so that they do not push the inputs of neighbouring tiles out of L2.
//
// Launch: blockDim = (TB_BX/4, TB_BY, 1); gridDim = (ceil((nx−1)/TB_OX),
// ceil((ny−2)/TB_OY), ceil((nz−2)/cz)); dynamic shared memory
// 2·TB_K·TB_BY·TB_BX floats. Coefficients follow the lab's mapping (c1/c2
// x∓1, c3/c4 y∓1, c5/c6 z∓1); indices are 64-bit. Points outside the grid
// are read as 0 and never written; they only feed points that are not
// outputs.

#ifndef TB_K
#define TB_K 4
#endif
#ifndef TB_BX
#define TB_BX 64
#endif
#ifndef TB_BY
#define TB_BY 32
#endif
#ifndef TB_L2PF
#define TB_L2PF 0
#endif
#ifndef TB_MINB
#define TB_MINB 1 // the gpu backend passes 2 for k ≤ 4 (gpu/temporal.go)
#endif
#ifndef TB_STREAM
#define TB_STREAM 0
#endif
#ifndef TB_V
#define TB_V 0
#endif

#if TB_V == 3
#define TB_RY 2                           // rows of the tile a thread owns (march 3)
#else
#define TB_RY 1
#endif
#define TB_TX (TB_BX / 4)                 // threads per row of the tile
#define TB_THREADS (TB_TX * (TB_BY / TB_RY)) // threads per block
#define TB_HX ((TB_K + 3) / 4 * 4)        // x halo: TB_K rounded up to whole float4s
#define TB_OX (TB_BX - 2 * TB_HX)         // output points per row
#define TB_OY (TB_BY - 2 * TB_K)          // output rows
#if TB_V == 0
#define TB_PLANE (TB_BX * TB_BY)          // floats of one shared plane
#else
#define TB_PLANE (TB_BX * (TB_BY + 2))    // floats of one shared plane: a row of padding above and below
#endif
#if TB_V == 1 || TB_V == 3
#define TB_NBUF 3                         // shared planes per level (TB_V = 1, 3: one per phase of three)
#else
#define TB_NBUF 2                         // shared planes per level, used alternately
#endif
#define TB_SLOTS ((TB_V == 1 || TB_V == 3) ? 3 : 2) // register slots per level of marches 1, 2 and 3

#if TB_K < 1
#error "TB_K must be at least 1"
#endif
#if TB_BX % 4 != 0 || TB_TX < 1 || 32 % TB_TX != 0
#error "TB_BX must be 4, 8, 16, 32, 64 or 128: a row of the tile lies inside one warp"
#endif
#if TB_THREADS % 32 != 0
#error "TB_BX/4 × TB_BY must be a multiple of 32 threads (whole warps)"
#endif
#if TB_V < 0 || TB_V > 3
#error "TB_V must be 0, 1, 2 or 3"
#endif
#if TB_BY % TB_RY != 0
#error "march 3 needs an even TB_BY: two rows a thread"
#endif
#if TB_OX < 4 || TB_OY < 1
#error "the tile leaves no output: TB_BX > 2·TB_HX and TB_BY > 2·TB_K are needed"
#endif

#define TB_FULL 0xffffffffu

// tb_load returns the 4 points of row y of plane q that start at x0 (a
// multiple of 4), 0 for points outside the grid; vec: rows of a multiple of
// 4 points, whose float4s are aligned.
__device__ __forceinline__ float4 tb_load(const float* __restrict__ in, int q, int y, int x0,
                                          int nz, int ny, int nx, bool vec)
{
    float4 r = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (q < 0 || q >= nz || y < 0 || y >= ny) {
        return r;
    }
    const float* row = in + ((long long)q * ny + y) * nx;
    if (vec && x0 >= 0 && x0 + 3 < nx) {
        return __ldg(reinterpret_cast<const float4*>(row + x0));
    }
    if (x0 >= 0 && x0 < nx) {
        r.x = __ldg(row + x0);
    }
    if (x0 + 1 >= 0 && x0 + 1 < nx) {
        r.y = __ldg(row + x0 + 1);
    }
    if (x0 + 2 >= 0 && x0 + 2 < nx) {
        r.z = __ldg(row + x0 + 2);
    }
    if (x0 + 3 >= 0 && x0 + 3 < nx) {
        r.w = __ldg(row + x0 + 3);
    }
    return r;
}

#if TB_V == 0
extern "C" __global__ void __launch_bounds__(TB_THREADS, TB_MINB)
temporal(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
         float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    // S[buf][level][row][point]: level 0 … TB_K−1, two planes each.
    extern __shared__ __align__(16) float S[];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int ix0 = blockIdx.x * TB_OX - TB_HX;     // the tile's first point; a multiple of 4
    const int x0 = ix0 + 4 * tx;                    // this thread's first point
    const int y = 1 + blockIdx.y * TB_OY - TB_K + ty; // this thread's row
    const int z0 = 1 + blockIdx.z * cz;             // the block's output planes z0 … z1−1
    const int z1 = min(z0 + cz, nz - 1);
    const bool vec = (nx & 3) == 0;
    const int tyU = ty > 0 ? ty - 1 : ty;           // rows outside the tile only feed non-outputs
    const int tyD = ty < TB_BY - 1 ? ty + 1 : ty;
    const bool rowInterior = y >= 1 && y <= ny - 2;
    // This thread's points are outputs of the block in x and y (whole
    // float4s: the output region starts and ends at multiples of 4).
    const bool outThread = tx * 4 >= TB_HX && tx * 4 < TB_HX + TB_OX && ty >= TB_K && ty < TB_K + TB_OY && rowInterior;
    bool xin[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        xin[e] = x0 + e >= 1 && x0 + e <= nx - 2;
    }

    // Shared memory starts defined, so that no garbage reaches even the
    // points whose values are discarded.
    for (int t = ty * TB_TX + tx; t < 2 * TB_K * TB_BY * TB_BX; t += TB_THREADS) {
        S[t] = 0.0f;
    }
    __syncthreads();

    // zm[s], ce[s]: time level s at planes p−1 and p of stage s+1's plane p.
    float zm[TB_K][4];
    float ce[TB_K][4];
#pragma unroll
    for (int s = 0; s < TB_K; ++s) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            zm[s][e] = 0.0f;
            ce[s][e] = 0.0f;
        }
    }

    const int zs = max(z0 - TB_K, 0);
    const int iEnd = z1 - 1 + TB_K; // stage TB_K computes plane z1−1 at iteration iEnd
    float4 next = tb_load(in, zs, y, x0, nz, ny, nx, vec);
    for (int i = zs; i <= iEnd; ++i) {
        const float4 cur = next;
        if (i + 1 <= iEnd) {
            next = tb_load(in, i + 1, y, x0, nz, ny, nx, vec);
        }
#if TB_L2PF > 0 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (tx == 0 && vec) {
            const int q = i + TB_L2PF;
            const int xa = max(ix0, 0);
            const int xb = min(ix0 + TB_BX, nx);
            if (q <= iEnd && q < nz && y >= 0 && y < ny && xb > xa) {
                const float* p = in + ((long long)q * ny + y) * nx + xa;
                asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"((unsigned)(xb - xa) * 4u) : "memory");
            }
        }
#endif
        const int buf = i & 1;
        // Level 0 of plane i: published for stage 1 of the next iteration.
        float c[4] = {cur.x, cur.y, cur.z, cur.w};
        *reinterpret_cast<float4*>(&S[((buf * TB_K + 0) * TB_BY + ty) * TB_BX + 4 * tx]) = cur;
#pragma unroll
        for (int s = 1; s <= TB_K; ++s) {
            const int p = i - s; // the plane of level s this stage computes
            // Level s−1 of plane p, written in iteration i−1.
            const float* P = &S[(((buf ^ 1) * TB_K + (s - 1)) * TB_BY) * TB_BX + 4 * tx];
            const float4 up = *reinterpret_cast<const float4*>(P + tyU * TB_BX);
            const float4 dn = *reinterpret_cast<const float4*>(P + tyD * TB_BX);
            const float u[4] = {up.x, up.y, up.z, up.w};
            const float d[4] = {dn.x, dn.y, dn.z, dn.w};
            // x neighbours across the thread's float4: the lanes beside it
            // (a lane at the tile's edge gets a value that feeds only
            // points outside the valid region).
            const float left = __shfl_up_sync(TB_FULL, ce[s - 1][3], 1);
            const float right = __shfl_down_sync(TB_FULL, ce[s - 1][0], 1);
            const bool planeInterior = p >= 1 && p <= nz - 2;
            float r[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const float xl = e == 0 ? left : ce[s - 1][e == 0 ? 0 : e - 1];
                const float xr = e == 3 ? right : ce[s - 1][e == 3 ? 3 : e + 1];
                const float v = c0 * ce[s - 1][e] + c1 * xl + c2 * xr + c3 * u[e] + c4 * d[e] + c5 * zm[s - 1][e] + c6 * c[e];
                // A point on a face of the grid keeps its value: the
                // boundary is the same at every time level.
                r[e] = (planeInterior && rowInterior && xin[e]) ? v : ce[s - 1][e];
            }
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                zm[s - 1][e] = ce[s - 1][e];
                ce[s - 1][e] = c[e];
                c[e] = r[e];
            }
            if (s < TB_K) {
                *reinterpret_cast<float4*>(&S[((buf * TB_K + s) * TB_BY + ty) * TB_BX + 4 * tx]) =
                    make_float4(r[0], r[1], r[2], r[3]);
            } else if (outThread && p >= z0 && p < z1) {
                float* o = out + ((long long)p * ny + y) * nx;
                if (vec && xin[0] && xin[3]) {
#if TB_STREAM
                    __stcs(reinterpret_cast<float4*>(o + x0), make_float4(r[0], r[1], r[2], r[3]));
#else
                    *reinterpret_cast<float4*>(o + x0) = make_float4(r[0], r[1], r[2], r[3]);
#endif
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        if (xin[e]) {
#if TB_STREAM
                            __stcs(o + x0 + e, r[e]);
#else
                            o[x0 + e] = r[e];
#endif
                        }
                    }
                }
            }
        }
        __syncthreads();
    }
}
#endif // TB_V == 0

#if TB_V >= 1
// TB_V = 1: the same pipeline with fewer instructions a plane. The march is
// unrolled by three iterations, and each level keeps its last three planes
// in three register slots and three shared planes, slot (q − zs) mod 3 for
// plane q: at phase PH = (i − zs) mod 3 every slot and every shared offset
// is a constant, so no register is copied from one plane to the next and no
// shared address is computed in the loop. The faces of the grid in z are a
// uniform test per stage, those in x and y a select on predicates that hold
// for the whole march, and the input and output rows are found once.
// TB_V = 2 is march 1 with two shared planes a level and two register
// slots, zm and ce as in march 0, copied from plane to plane: unrolled by
// two, so that the shared offsets are constants, in the registers that
// march 0 fits in.

// TB_SL(PH, d): the slot of plane i − d at phase PH, and TB_BUF its shared
// plane.
#define TB_SL(PH, d) ((((PH) - (d)) % TB_SLOTS + TB_SLOTS) % TB_SLOTS)
#define TB_BUF(PH, d) ((((PH) - (d)) % TB_NBUF + TB_NBUF) % TB_NBUF)

// TbLane is what a thread of the march keeps from plane to plane besides its
// register slots.
struct TbLane {
    int row;            // its first point in a plane, y·nx + x0
    bool load, store;   // it loads float4s (vec and inside the grid); it stores (an output thread)
    int sw;             // its own point in a shared plane (row ty + 1; the pad rows only feed non-outputs)
    long long sz;       // floats per plane
    int z0, iEnd;
    bool vec, m0, m1, m2, m3, whole; // x and y masks; whole: one float4 store
};

// tb_stencil applies the stencil to the 4 points of b, level s − 1 of plane
// p, with the planes a (p − 1) and c (p + 1), the rows up and dn and the x
// neighbours left and right.
__device__ __forceinline__ float4 tb_stencil(float4 a, float4 b, float4 c, float4 up, float4 dn, float left, float right,
                                             float c0, float c1, float c2, float c3, float c4, float c5, float c6)
{
    // One multiply and six fused multiply-adds a point, in the order of
    // march 0's expression, the plane just computed last.
    float4 v;
    v.x = __fmaf_rn(c6, c.x, __fmaf_rn(c5, a.x, __fmaf_rn(c4, dn.x, __fmaf_rn(c3, up.x, __fmaf_rn(c2, b.y, __fmaf_rn(c1, left, c0 * b.x))))));
    v.y = __fmaf_rn(c6, c.y, __fmaf_rn(c5, a.y, __fmaf_rn(c4, dn.y, __fmaf_rn(c3, up.y, __fmaf_rn(c2, b.z, __fmaf_rn(c1, b.x, c0 * b.y))))));
    v.z = __fmaf_rn(c6, c.z, __fmaf_rn(c5, a.z, __fmaf_rn(c4, dn.z, __fmaf_rn(c3, up.z, __fmaf_rn(c2, b.w, __fmaf_rn(c1, b.y, c0 * b.z))))));
    v.w = __fmaf_rn(c6, c.w, __fmaf_rn(c5, a.w, __fmaf_rn(c4, dn.w, __fmaf_rn(c3, up.w, __fmaf_rn(c2, right, __fmaf_rn(c1, b.z, c0 * b.w))))));
    return v;
}

// tb_y and tb_x0 are the thread's row and first point.
__device__ __forceinline__ int tb_y() { return 1 + (int)blockIdx.y * TB_OY - TB_K + (int)threadIdx.y; }
__device__ __forceinline__ int tb_x0() { return (int)blockIdx.x * TB_OX - TB_HX + 4 * (int)threadIdx.x; }

#if TB_V == 1 || TB_V == 2
// tb_iteration is iteration i of the march at phase PH. CAREFUL: the tile or
// a stage's plane may touch a face of the grid, whose points keep their
// values; without it every point of the tile is updated.
template <int PH, bool CAREFUL>
__device__ __forceinline__ void tb_iteration(float* S, float4 (&R)[TB_K][TB_SLOTS], float4& next, int i, const TbLane& L,
                                             const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
                                             float c0, float c1, float c2, float c3, float c4, float c5, float c6)
{
    // Level 0 of plane i, loaded an iteration ago, and the load of plane i + 1.
#if TB_V == 1
    R[0][TB_SL(PH, 0)] = next;
#else
    float4 newest = next; // level s − 1 of plane p + 1 for stage s
#endif
    *reinterpret_cast<float4*>(S + L.sw + (TB_BUF(PH, 0) * TB_K) * TB_PLANE) = next;
    const int q = i + 1;
    if (L.vec) {
        next = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (L.load && q < nz && q <= L.iEnd) {
            next = __ldg(reinterpret_cast<const float4*>(in + q * L.sz + L.row));
        }
    } else if (q <= L.iEnd) {
        next = tb_load(in, q, tb_y(), tb_x0(), nz, ny, nx, false);
    }
#if TB_L2PF > 0 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0 && L.vec) {
        // One thread per row asks L2 for the row's tile segment TB_L2PF
        // planes ahead, as march 0 does.
        const int qa = i + TB_L2PF;
        const int ya = tb_y();
        const int xa = max((int)blockIdx.x * TB_OX - TB_HX, 0);
        const int xb = min((int)blockIdx.x * TB_OX - TB_HX + TB_BX, nx);
        if (qa <= L.iEnd && qa < nz && ya >= 0 && ya < ny && xb > xa) {
            const float* pa = in + ((long long)qa * ny + ya) * nx + xa;
            asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(pa), "r"((unsigned)(xb - xa) * 4u) : "memory");
        }
    }
#endif
#pragma unroll
    for (int s = 1; s <= TB_K; ++s) {
        const int p = i - s; // the plane of level s this stage computes
#if TB_V == 1
        const float4 a = R[s - 1][TB_SL(PH, s + 1)];
        const float4 b = R[s - 1][TB_SL(PH, s)];
        const float4 c = R[s - 1][TB_SL(PH, s - 1)];
#else
        const float4 a = R[s - 1][0]; // zm
        const float4 b = R[s - 1][1]; // ce
        const float4 c = newest;
        R[s - 1][0] = b;
        R[s - 1][1] = c;
#endif
        const int level = (TB_BUF(PH, s) * TB_K + (s - 1)) * TB_PLANE; // level s − 1 of plane p
        const float4 up = *reinterpret_cast<const float4*>(S + L.sw - TB_BX + level);
        const float4 dn = *reinterpret_cast<const float4*>(S + L.sw + TB_BX + level);
        const float left = __shfl_up_sync(TB_FULL, b.w, 1);
        const float right = __shfl_down_sync(TB_FULL, b.x, 1);
        float4 v = tb_stencil(a, b, c, up, dn, left, right, c0, c1, c2, c3, c4, c5, c6);
        // A point on a face of the grid keeps its value at every level.
        if (CAREFUL) {
            if (p <= 0 || p >= nz - 1) {
                v = b;
            } else {
                v.x = L.m0 ? v.x : b.x;
                v.y = L.m1 ? v.y : b.y;
                v.z = L.m2 ? v.z : b.z;
                v.w = L.m3 ? v.w : b.w;
            }
        }
        if (s < TB_K) {
#if TB_V == 1
            R[s][TB_SL(PH, s)] = v;
#else
            newest = v;
#endif
            *reinterpret_cast<float4*>(S + L.sw + (TB_BUF(PH, s) * TB_K + s) * TB_PLANE) = v;
        } else if (L.store && p >= L.z0) {
            float* o = out + p * L.sz + L.row;
            if (!CAREFUL || L.whole) {
#if TB_STREAM
                __stcs(reinterpret_cast<float4*>(o), v);
#else
                *reinterpret_cast<float4*>(o) = v;
#endif
            } else {
                const float r[4] = {v.x, v.y, v.z, v.w};
                const bool m[4] = {L.m0, L.m1, L.m2, L.m3};
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    if (m[e]) {
#if TB_STREAM
                        __stcs(o + e, r[e]);
#else
                        o[e] = r[e];
#endif
                    }
                }
            }
        }
    }
    __syncthreads();
}

extern "C" __global__ void __launch_bounds__(TB_THREADS, TB_MINB)
temporal(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
         float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    // S[slot][level][row][point]: TB_NBUF planes of each level 0 … TB_K−1,
    // each with a row of padding above and below the tile.
    extern __shared__ __align__(16) float S[];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    TbLane L;
    const int x0 = tb_x0();
    const int y = tb_y();
    L.z0 = 1 + blockIdx.z * cz;
    const int z1 = min(L.z0 + cz, nz - 1);
    const int zs = max(L.z0 - TB_K, 0);
    L.iEnd = z1 - 1 + TB_K;
    L.sz = (long long)ny * nx;
    L.vec = (nx & 3) == 0;
    const bool rowInterior = y >= 1 && y <= ny - 2;
    L.m0 = rowInterior && x0 >= 1 && x0 <= nx - 2;
    L.m1 = rowInterior && x0 + 1 >= 1 && x0 + 1 <= nx - 2;
    L.m2 = rowInterior && x0 + 2 >= 1 && x0 + 2 <= nx - 2;
    L.m3 = rowInterior && x0 + 3 >= 1 && x0 + 3 <= nx - 2;
    L.whole = L.vec && L.m0 && L.m3;
    const bool outThread = tx * 4 >= TB_HX && tx * 4 < TB_HX + TB_OX && ty >= TB_K && ty < TB_K + TB_OY && rowInterior;
    const bool inside = y >= 0 && y < ny && x0 >= 0 && x0 + 3 < nx;
    L.row = y * nx + x0;
    L.load = L.vec && inside;
    L.store = outThread;
    L.sw = (ty + 1) * TB_BX + 4 * tx;

    for (int t = ty * TB_TX + tx; t < TB_NBUF * TB_K * TB_PLANE; t += TB_THREADS) {
        S[t] = 0.0f;
    }
    __syncthreads();

    float4 R[TB_K][TB_SLOTS];
#pragma unroll
    for (int s = 0; s < TB_K; ++s) {
#pragma unroll
        for (int j = 0; j < TB_SLOTS; ++j) {
            R[s][j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    }
    float4 next = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (L.vec) {
        if (L.load && zs < nz) {
            next = __ldg(reinterpret_cast<const float4*>(in + zs * L.sz + L.row));
        }
    } else {
        next = tb_load(in, zs, y, x0, nz, ny, nx, false);
    }
    // A block whose tile lies inside the grid's interior in x and y (rows of
    // a multiple of 4 points) needs no care in the iterations whose stages
    // all compute interior planes, i from TB_K + 1 to nz − 1.
    const int tileY = 1 + (int)blockIdx.y * TB_OY - TB_K;
    const int tileX = (int)blockIdx.x * TB_OX - TB_HX;
    const bool plain = L.vec && tileX >= 1 && tileX + TB_BX - 1 <= nx - 2 && tileY >= 1 && tileY + TB_BY - 1 <= ny - 2;
    const int plainLo = plain ? TB_K + 1 : 1 << 30, plainHi = nz - 1;
#define TB_ITERATION(PH)                                                                                \
    if (i >= plainLo && i <= plainHi) {                                                                 \
        tb_iteration<PH, false>(S, R, next, i, L, in, out, nz, ny, nx, c0, c1, c2, c3, c4, c5, c6);          \
    } else {                                                                                            \
        tb_iteration<PH, true>(S, R, next, i, L, in, out, nz, ny, nx, c0, c1, c2, c3, c4, c5, c6);           \
    }                                                                                                   \
    if (++i > L.iEnd) {                                                                                 \
        break;                                                                                          \
    }
    for (int i = zs;;) {
        TB_ITERATION(0)
        TB_ITERATION(1)
#if TB_V == 1
        TB_ITERATION(2)
#endif
    }
#undef TB_ITERATION
}
#endif // TB_V == 1 || TB_V == 2

#if TB_V == 3
// TB_V = 3: march 1 with two rows a thread. A block is TB_BX/4 × TB_BY/2
// threads; thread (tx, ty) owns the 4 points at x0 of tile rows 2ty and
// 2ty + 1, each with march 1's three register slots a level. The rows'
// inner y neighbours are in the thread's own registers, so a stage reads
// two float4s from shared memory for 8 points where march 1 reads four,
// and a block of 512 threads covers a 64×64 tile, whose halo is a smaller
// share of the stage work than a 64×32 tile's. The slots hold 24k
// registers: it is meant for one block of 512 threads (or two of 256) a
// multiprocessor, with up to 128 registers each.

// TbLane3 is what a thread of march 3 keeps from plane to plane besides
// its register slots; [r] is its row r (tile row 2ty + r).
struct TbLane3 {
    int row;                  // row 0's first point in a plane, y·nx + x0
    int nx;                   // floats per row: row 1 is row 0 + nx
    bool load0, load1;        // it loads row r with float4s (vec and inside the grid)
    bool store0, store1;      // row r is an output row of the block
    int sw;                   // row 0's own point in a shared plane (padded row 2ty + 1)
    long long sz;             // floats per plane
    int z0, iEnd;
    bool vec;
    bool m00, m01, m02, m03;  // row 0's x and y masks
    bool m10, m11, m12, m13;  // row 1's
    bool whole0, whole1;      // row r is one float4 store
};

// tb_y3 and tb_x03 are the thread's first row and first point.
__device__ __forceinline__ int tb_y3() { return 1 + (int)blockIdx.y * TB_OY - TB_K + 2 * (int)threadIdx.y; }
__device__ __forceinline__ int tb_x03() { return (int)blockIdx.x * TB_OX - TB_HX + 4 * (int)threadIdx.x; }

// tb_select3 keeps the points of v on a face of the grid at their values b.
__device__ __forceinline__ float4 tb_select3(float4 v, float4 b, bool m0, bool m1, bool m2, bool m3)
{
    v.x = m0 ? v.x : b.x;
    v.y = m1 ? v.y : b.y;
    v.z = m2 ? v.z : b.z;
    v.w = m3 ? v.w : b.w;
    return v;
}

// tb_store3 writes the output row o (masks m, whole: one float4).
template <bool CAREFUL>
__device__ __forceinline__ void tb_store3(float* o, float4 v, bool whole, bool m0, bool m1, bool m2, bool m3)
{
    if (!CAREFUL || whole) {
#if TB_STREAM
        __stcs(reinterpret_cast<float4*>(o), v);
#else
        *reinterpret_cast<float4*>(o) = v;
#endif
        return;
    }
    const float r[4] = {v.x, v.y, v.z, v.w};
    const bool m[4] = {m0, m1, m2, m3};
#pragma unroll
    for (int e = 0; e < 4; ++e) {
        if (m[e]) {
#if TB_STREAM
            __stcs(o + e, r[e]);
#else
            o[e] = r[e];
#endif
        }
    }
}

// tb_iteration3 is iteration i of march 3 at phase PH (CAREFUL as in
// march 1).
template <int PH, bool CAREFUL>
__device__ __forceinline__ void tb_iteration3(float* S, float4 (&R)[TB_K][TB_SLOTS][2], float4 (&next)[2], int i, const TbLane3& L,
                                              const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
                                              float c0, float c1, float c2, float c3, float c4, float c5, float c6)
{
    R[0][TB_SL(PH, 0)][0] = next[0];
    R[0][TB_SL(PH, 0)][1] = next[1];
    *reinterpret_cast<float4*>(S + L.sw + (TB_BUF(PH, 0) * TB_K) * TB_PLANE) = next[0];
    *reinterpret_cast<float4*>(S + L.sw + TB_BX + (TB_BUF(PH, 0) * TB_K) * TB_PLANE) = next[1];
    const int q = i + 1;
    if (L.vec) {
        next[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        next[1] = next[0];
        if (q < nz && q <= L.iEnd) {
            const float* src = in + q * L.sz + L.row;
            if (L.load0) {
                next[0] = __ldg(reinterpret_cast<const float4*>(src));
            }
            if (L.load1) {
                next[1] = __ldg(reinterpret_cast<const float4*>(src + L.nx));
            }
        }
    } else if (q <= L.iEnd) {
        next[0] = tb_load(in, q, tb_y3(), tb_x03(), nz, ny, nx, false);
        next[1] = tb_load(in, q, tb_y3() + 1, tb_x03(), nz, ny, nx, false);
    }
#pragma unroll
    for (int s = 1; s <= TB_K; ++s) {
        const int p = i - s; // the plane of level s this stage computes
        const int level = (TB_BUF(PH, s) * TB_K + (s - 1)) * TB_PLANE; // level s − 1 of plane p
        const float4 up = *reinterpret_cast<const float4*>(S + L.sw - TB_BX + level);
        const float4 dn = *reinterpret_cast<const float4*>(S + L.sw + 2 * TB_BX + level);
        const float4 a0 = R[s - 1][TB_SL(PH, s + 1)][0], a1 = R[s - 1][TB_SL(PH, s + 1)][1];
        const float4 b0 = R[s - 1][TB_SL(PH, s)][0], b1 = R[s - 1][TB_SL(PH, s)][1];
        const float4 e0 = R[s - 1][TB_SL(PH, s - 1)][0], e1 = R[s - 1][TB_SL(PH, s - 1)][1];
        const float l0 = __shfl_up_sync(TB_FULL, b0.w, 1);
        const float r0 = __shfl_down_sync(TB_FULL, b0.x, 1);
        const float l1 = __shfl_up_sync(TB_FULL, b1.w, 1);
        const float r1 = __shfl_down_sync(TB_FULL, b1.x, 1);
        float4 v0 = tb_stencil(a0, b0, e0, up, b1, l0, r0, c0, c1, c2, c3, c4, c5, c6);
        float4 v1 = tb_stencil(a1, b1, e1, b0, dn, l1, r1, c0, c1, c2, c3, c4, c5, c6);
        // A point on a face of the grid keeps its value at every level.
        if (CAREFUL) {
            if (p <= 0 || p >= nz - 1) {
                v0 = b0;
                v1 = b1;
            } else {
                v0 = tb_select3(v0, b0, L.m00, L.m01, L.m02, L.m03);
                v1 = tb_select3(v1, b1, L.m10, L.m11, L.m12, L.m13);
            }
        }
        if (s < TB_K) {
            R[s][TB_SL(PH, s)][0] = v0;
            R[s][TB_SL(PH, s)][1] = v1;
            float* W = S + L.sw + (TB_BUF(PH, s) * TB_K + s) * TB_PLANE;
            *reinterpret_cast<float4*>(W) = v0;
            *reinterpret_cast<float4*>(W + TB_BX) = v1;
        } else if (p >= L.z0) {
            float* o = out + p * L.sz + L.row;
            if (L.store0) {
                tb_store3<CAREFUL>(o, v0, L.whole0, L.m00, L.m01, L.m02, L.m03);
            }
            if (L.store1) {
                tb_store3<CAREFUL>(o + L.nx, v1, L.whole1, L.m10, L.m11, L.m12, L.m13);
            }
        }
    }
    __syncthreads();
}

extern "C" __global__ void __launch_bounds__(TB_THREADS, TB_MINB)
temporal(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
         float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    // S[slot][level][row][point]: three planes of each level 0 … TB_K−1,
    // each with a row of padding above and below the tile.
    extern __shared__ __align__(16) float S[];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    TbLane3 L;
    const int x0 = tb_x03();
    const int y = tb_y3(); // rows y and y + 1
    L.z0 = 1 + blockIdx.z * cz;
    const int z1 = min(L.z0 + cz, nz - 1);
    const int zs = max(L.z0 - TB_K, 0);
    L.iEnd = z1 - 1 + TB_K;
    L.sz = (long long)ny * nx;
    L.nx = nx;
    L.vec = (nx & 3) == 0;
    const bool ri0 = y >= 1 && y <= ny - 2;
    const bool ri1 = y + 1 >= 1 && y + 1 <= ny - 2;
    const bool xi0 = x0 >= 1 && x0 <= nx - 2;
    const bool xi1 = x0 + 1 >= 1 && x0 + 1 <= nx - 2;
    const bool xi2 = x0 + 2 >= 1 && x0 + 2 <= nx - 2;
    const bool xi3 = x0 + 3 >= 1 && x0 + 3 <= nx - 2;
    L.m00 = ri0 && xi0, L.m01 = ri0 && xi1, L.m02 = ri0 && xi2, L.m03 = ri0 && xi3;
    L.m10 = ri1 && xi0, L.m11 = ri1 && xi1, L.m12 = ri1 && xi2, L.m13 = ri1 && xi3;
    L.whole0 = L.vec && L.m00 && L.m03;
    L.whole1 = L.vec && L.m10 && L.m13;
    const bool outX = tx * 4 >= TB_HX && tx * 4 < TB_HX + TB_OX;
    L.store0 = outX && 2 * ty >= TB_K && 2 * ty < TB_K + TB_OY && ri0;
    L.store1 = outX && 2 * ty + 1 >= TB_K && 2 * ty + 1 < TB_K + TB_OY && ri1;
    const bool inX = x0 >= 0 && x0 + 3 < nx;
    L.load0 = L.vec && inX && y >= 0 && y < ny;
    L.load1 = L.vec && inX && y + 1 >= 0 && y + 1 < ny;
    L.row = y * nx + x0;
    L.sw = (2 * ty + 1) * TB_BX + 4 * tx;

    for (int t = ty * TB_TX + tx; t < TB_NBUF * TB_K * TB_PLANE; t += TB_THREADS) {
        S[t] = 0.0f;
    }
    __syncthreads();

    float4 R[TB_K][TB_SLOTS][2];
#pragma unroll
    for (int s = 0; s < TB_K; ++s) {
#pragma unroll
        for (int j = 0; j < TB_SLOTS; ++j) {
            R[s][j][0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            R[s][j][1] = R[s][j][0];
        }
    }
    float4 next[2];
    next[0] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    next[1] = next[0];
    if (L.vec) {
        if (zs < nz) {
            if (L.load0) {
                next[0] = __ldg(reinterpret_cast<const float4*>(in + zs * L.sz + L.row));
            }
            if (L.load1) {
                next[1] = __ldg(reinterpret_cast<const float4*>(in + zs * L.sz + L.row + nx));
            }
        }
    } else {
        next[0] = tb_load(in, zs, y, x0, nz, ny, nx, false);
        next[1] = tb_load(in, zs, y + 1, x0, nz, ny, nx, false);
    }
    // As march 1: a tile inside the grid's interior in x and y runs the
    // iterations whose stages all compute interior planes without care.
    const int tileY = 1 + (int)blockIdx.y * TB_OY - TB_K;
    const int tileX = (int)blockIdx.x * TB_OX - TB_HX;
    const bool plain = L.vec && tileX >= 1 && tileX + TB_BX - 1 <= nx - 2 && tileY >= 1 && tileY + TB_BY - 1 <= ny - 2;
    const int plainLo = plain ? TB_K + 1 : 1 << 30, plainHi = nz - 1;
#define TB_ITERATION3(PH)                                                                               \
    if (i >= plainLo && i <= plainHi) {                                                                 \
        tb_iteration3<PH, false>(S, R, next, i, L, in, out, nz, ny, nx, c0, c1, c2, c3, c4, c5, c6);    \
    } else {                                                                                            \
        tb_iteration3<PH, true>(S, R, next, i, L, in, out, nz, ny, nx, c0, c1, c2, c3, c4, c5, c6);     \
    }                                                                                                   \
    if (++i > L.iEnd) {                                                                                 \
        break;                                                                                          \
    }
    for (int i = zs;;) {
        TB_ITERATION3(0)
        TB_ITERATION3(1)
        TB_ITERATION3(2)
    }
#undef TB_ITERATION3
}
#endif // TB_V == 3

#endif // TB_V >= 1
