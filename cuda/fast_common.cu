// fast_common.cu: the part of our fastest 3D seven-point sweep, beyond the
// chapter, that its modes share; fast_registers.cu (FAST_MODE 0) or
// fast_bulk.cu (FAST_MODE 3, the default) follows it in one compilation.
//
// The chapter's kernels leave most of a modern GPU's bandwidth unused. On a
// memory-bound stencil the goal is to move each input from DRAM once and
// each output to DRAM once, at the speed of a plain copy. Both modes do
// that with a 2.5D z-march:
//
//   - a warp owns a segment of 32·V consecutive points of a row, V = 4
//     (16-byte float4 loads and stores, entry fast4, rows of a multiple of
//     4 points) or V = 1 (entry fast1, any row length);
//   - x neighbours come from the neighbouring lanes by warp shuffles, and
//     the two points beyond the segment's ends from two scalar loads;
//   - each block marches in z through cz planes (a kernel argument, which
//     the host chooses so that the grid fills the GPU in whole waves);
//   - outputs are written with streaming (evict-first) stores when
//     FAST_STREAM is set, so that they do not push inputs out of L2;
//   - FAST_MINB is the minimum of resident blocks per multiprocessor the
//     compiler must allow (__launch_bounds__), which caps registers.
//
// This file holds the rows and the stencil of a thread's points, and
// march_columns, the march of mode 0, which fast1 of every mode runs:
// FAST_RY rows per thread plus their two y neighbour rows in registers,
// the overlap between threads through L1, no shared memory and no barrier;
// FAST_WX warps side by side cover 128·FAST_WX points of a row; with
// FAST_PREFETCH the plane after the next is loaded too, so that loads are
// in flight while the thread computes, and FAST_L2PF > 0 asks L2 to fetch
// the thread's own rows FAST_L2PF planes ahead, which puts DRAM bytes in
// flight without holding registers.
//
// Coefficients follow the lab's mapping (c1/c2 x∓1, c3/c4 y∓1, c5/c6
// z∓1); indices are 64-bit. The variants that lost (modes 1 and 2, the
// other x-face treatments of mode 3) are experiments in the repository's
// bench folder, beside their measurements in docs/gpu.md.

#ifndef FAST_BY
#define FAST_BY 4
#endif
#ifndef FAST_RY
#define FAST_RY 1
#endif
#ifndef FAST_WX
#define FAST_WX 8
#endif
#ifndef FAST_PREFETCH
#define FAST_PREFETCH 1
#endif
#ifndef FAST_STREAM
#define FAST_STREAM 0
#endif
#ifndef FAST_L2PF
#define FAST_L2PF 0
#endif
#ifndef FAST_MINB
#define FAST_MINB 1
#endif

#define FULL_MASK 0xffffffffu

// l2_prefetch asks L2 to fetch the line holding p; nothing is returned, so
// no register waits for it.
__device__ __forceinline__ void l2_prefetch(const float* p)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

struct Coeffs7 {
    float c0, c1, c2, c3, c4, c5, c6;
};

// Row holds the V points a thread owns in one row of one plane.
template <int V>
struct Row {
    float v[V];
};

template <int V>
__device__ __forceinline__ void load_row(Row<V>& r, const float* __restrict__ p)
{
    if constexpr (V == 4) {
        const float4 t = __ldg(reinterpret_cast<const float4*>(p));
        r.v[0] = t.x;
        r.v[1] = t.y;
        r.v[2] = t.z;
        r.v[3] = t.w;
    } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
            r.v[e] = __ldg(p + e);
        }
    }
}

template <int V>
__device__ __forceinline__ void put(float* p, float v)
{
#if FAST_STREAM
    __stcs(p, v);
#else
    *p = v;
#endif
}

// store_row writes the points x0+e of a row that are interior in x,
// 1 ≤ x0+e ≤ nx−2, as one vector store when all of them are.
template <int V>
__device__ __forceinline__ void store_row(float* __restrict__ row, int x0, int nx, const Row<V>& o)
{
    if (x0 >= 1 && x0 + V - 1 <= nx - 2) {
        if constexpr (V == 4) {
            const float4 t = make_float4(o.v[0], o.v[1], o.v[2], o.v[3]);
#if FAST_STREAM
            __stcs(reinterpret_cast<float4*>(row + x0), t);
#else
            *reinterpret_cast<float4*>(row + x0) = t;
#endif
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) {
                put<V>(row + x0 + e, o.v[e]);
            }
        }
    } else {
#pragma unroll
        for (int e = 0; e < V; ++e) {
            const int k = x0 + e;
            if (k >= 1 && k <= nx - 2) {
                put<V>(row + k, o.v[e]);
            }
        }
    }
}

// seven applies the stencil to the V points of cur. left and right are the
// x neighbours beyond the thread's first and last point.
template <int V>
__device__ __forceinline__ Row<V> seven(const Row<V>& cur, const Row<V>& up, const Row<V>& down,
                                        const Row<V>& prev, const Row<V>& next,
                                        float left, float right, const Coeffs7& c)
{
    Row<V> o;
#pragma unroll
    for (int e = 0; e < V; ++e) {
        const float l = (e == 0) ? left : cur.v[e > 0 ? e - 1 : 0];
        const float r = (e == V - 1) ? right : cur.v[e < V - 1 ? e + 1 : 0];
        o.v[e] = c.c0 * cur.v[e] + c.c1 * l + c.c2 * r + c.c3 * up.v[e] + c.c4 * down.v[e]
               + c.c5 * prev.v[e] + c.c6 * next.v[e];
    }
    return o;
}

// neighbours returns the x neighbours of a thread's segment: from the
// adjacent lanes, or from the halo scalar h in lanes 0 (left) and 31
// (right). Every lane of the warp must call it.
template <int V>
__device__ __forceinline__ void neighbours(const Row<V>& cur, float h, int lane, float& left, float& right)
{
    left = __shfl_up_sync(FULL_MASK, cur.v[V - 1], 1);
    right = __shfl_down_sync(FULL_MASK, cur.v[0], 1);
    if (lane == 0) {
        left = h;
    }
    if (lane == 31) {
        right = h;
    }
}

// march_columns: FAST_RY rows per thread, with the two y-neighbour rows
// also in registers; no shared memory and no barrier.
template <int V>
__device__ __forceinline__ void load_plane(Row<V> (&R)[FAST_RY + 2], float (&H)[FAST_RY],
                                           const float* __restrict__ plane,
                                           const long long (&roff)[FAST_RY + 2],
                                           int xl, int xh, bool halo)
{
#pragma unroll
    for (int r = 0; r < FAST_RY + 2; ++r) {
        load_row<V>(R[r], plane + roff[r] + xl);
    }
    if (halo) {
#pragma unroll
        for (int r = 0; r < FAST_RY; ++r) {
            H[r] = __ldg(plane + roff[r + 1] + xh);
        }
    }
}

template <int V>
__device__ __forceinline__ void march_columns(const float* __restrict__ in, float* __restrict__ out,
                                              int nz, int ny, int nx, int cz, const Coeffs7 c)
{
    const int lane = threadIdx.x & 31;
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * V;        // blockDim.x = 32·FAST_WX
    const int jt = 1 + (blockIdx.y * FAST_BY + threadIdx.y) * FAST_RY;   // first output row
    if (jt > ny - 2) {
        return; // a warp lies in one threadIdx.y: all its lanes leave together
    }
    const int z0 = 1 + blockIdx.z * cz;
    const int z1 = min(z0 + cz, nz - 1);
    const long long sy = nx;
    const long long sz = (long long)ny * nx;
    const int xl = min(x0, nx - V);
    const int xh = (lane == 0) ? min(max(x0 - 1, 0), nx - 1) : min(x0 + V, nx - 1); // whole warps may lie past the row end
    const bool halo = (lane == 0 || lane == 31);
    long long roff[FAST_RY + 2]; // rows jt−1 … jt+FAST_RY, clamped to the grid
#pragma unroll
    for (int r = 0; r < FAST_RY + 2; ++r) {
        roff[r] = (long long)min(jt - 1 + r, ny - 1) * sy;
    }

    Row<V> P[FAST_RY], C[FAST_RY + 2], N[FAST_RY + 2];
    float HC[FAST_RY] = {}, HN[FAST_RY] = {};
#pragma unroll
    for (int r = 0; r < FAST_RY; ++r) {
        load_row<V>(P[r], in + (z0 - 1) * sz + roff[r + 1] + xl);
    }
    load_plane<V>(C, HC, in + z0 * sz, roff, xl, xh, halo);
#if FAST_PREFETCH
    load_plane<V>(N, HN, in + (z0 + 1) * sz, roff, xl, xh, halo);
#endif
    for (int z = z0; z < z1; ++z) {
#if FAST_L2PF > 0
        {
            const float* ahead = in + (long long)min(z + FAST_L2PF, nz - 1) * sz + xl;
#pragma unroll
            for (int r = 0; r < FAST_RY; ++r) {
                l2_prefetch(ahead + roff[r + 1]);
            }
        }
#endif
#if FAST_PREFETCH
        Row<V> NN[FAST_RY + 2];
        float HNN[FAST_RY] = {};
        load_plane<V>(NN, HNN, in + (long long)min(z + 2, nz - 1) * sz, roff, xl, xh, halo);
#else
        load_plane<V>(N, HN, in + (z + 1) * sz, roff, xl, xh, halo);
#endif
#pragma unroll
        for (int r = 0; r < FAST_RY; ++r) {
            float left, right;
            neighbours<V>(C[r + 1], HC[r], lane, left, right);
            const Row<V> o = seven<V>(C[r + 1], C[r], C[r + 2], P[r], N[r + 1], left, right, c);
            const int j = jt + r;
            if (j <= ny - 2 && x0 < nx) {
                store_row<V>(out + z * sz + (long long)j * sy, x0, nx, o);
            }
        }
#pragma unroll
        for (int r = 0; r < FAST_RY; ++r) {
            P[r] = C[r + 1];
            HC[r] = HN[r];
        }
#pragma unroll
        for (int r = 0; r < FAST_RY + 2; ++r) {
            C[r] = N[r];
        }
#if FAST_PREFETCH
#pragma unroll
        for (int r = 0; r < FAST_RY + 2; ++r) {
            N[r] = NN[r];
        }
#pragma unroll
        for (int r = 0; r < FAST_RY; ++r) {
            HN[r] = HNN[r];
        }
#endif
    }
}
