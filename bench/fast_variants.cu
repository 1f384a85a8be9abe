// fast_variants.cu: the experiments behind the fast sweep, kept beside
// their measurements (docs/gpu.md, "The fast kernel"). This is the file
// that was measured, cuda/fast.cu as it was with every mode and x-face
// variant: the product keeps modes 0 and 3 with FAST_EDGE = 5, split into
// cuda/fast_common.cu, cuda/fast_registers.cu and cuda/fast_bulk.cu, whose
// preprocessed text equals this file's for those settings. The losing
// variants are here only: modes 1 (y neighbours through a shared plane)
// and 2 (a cp.async ring), and FAST_EDGE 0, 1, 3, 4 and 6; FAST_EDGE = 2
// writes the x faces, which breaks the boundary contract, and was for
// measurement only. To time one again, check out the parent of the commit
// that moved this file here (git log --follow bench/fast_variants.cu),
// where the gpu package still accepts these defines, and run
// stencil bench -variant "fast:FAST_MODE=…,FAST_EDGE=…" as docs/gpu.md
// gives.
//
// The original description follows.
//
// The chapter's kernels leave most of a modern GPU's bandwidth unused. On a
// memory-bound stencil the goal is to move each input from DRAM once and
// each output to DRAM once, at the speed of a plain copy. This file does
// that with a 2.5D z-march:
//
//   - a warp owns a segment of 32·V consecutive points of a row, V = 4
//     (16-byte float4 loads and stores, entry fast4, rows of a multiple of
//     4 points) or V = 1 (entry fast1, any row length);
//   - x neighbours come from the neighbouring lanes by warp shuffles, and
//     the two points beyond the segment's ends from two scalar loads;
//   - each block marches in z through cz planes (a kernel argument, which
//     the host chooses so that the grid fills the GPU in whole waves),
//     keeping the previous, current and next planes of its points in
//     registers, and with FAST_PREFETCH the plane after that too, so that
//     loads are in flight while it computes; FAST_L2PF > 0 also asks L2 to
//     fetch the thread's own rows FAST_L2PF planes ahead, which puts DRAM
//     bytes in flight without holding registers;
//   - FAST_MODE chooses how planes reach the threads:
//       0  registers: each thread holds FAST_RY rows plus their two y
//          neighbour rows in registers and relies on L1 for the overlap
//          between threads; no shared memory, no barrier; FAST_WX warps
//          side by side cover 128·FAST_WX points of a row;
//       1  shared y: one row per thread in registers; the block publishes
//          its FAST_BY rows and two halo rows in a double-buffered shared
//          plane, one barrier per plane;
//       2  async ring (float4 rows only): the block streams tiles of
//          FAST_BY+2 rows × 128·FAST_WX points (plus the two x halo points)
//          into a ring of FAST_DEPTH+3 shared-memory planes with cp.async,
//          FAST_DEPTH planes ahead of the one it computes. The bytes in
//          flight no longer depend on registers, which is what a
//          memory-bound kernel needs to reach copy bandwidth;
//       3  bulk ring (float4 rows only): as 2, but a block spans whole rows
//          (32·FAST_WX threads, FAST_BY rows) and one thread moves each
//          plane's tile, FAST_BY+2 consecutive rows and so one contiguous
//          piece of memory, with a single bulk copy (the Hopper copy
//          engine, cp.async.bulk) that completes on an mbarrier; the ring
//          lives in dynamic shared memory, (FAST_DEPTH+3)·(FAST_BY+2)·nx
//          floats. FAST_EDGE chooses how the x faces, which must not be
//          written, meet the 32-byte sectors of the output: a sector
//          written in part costs L2 a read from DRAM when it evicts it (ECC
//          memory), late, in the middle of the write stream. FAST_EDGE = 0
//          leaves it at that. FAST_EDGE = 5 (the default) has a few threads
//          ask L2 for the first and last sector of each of the block's
//          output rows with a 16-byte bulk prefetch (cp.async.bulk.prefetch
//          .L2) at the start of the plane's iteration, FAST_PFD planes
//          earlier if FAST_PFD > 0 or −FAST_PFD planes after its stores if
//          FAST_PFD < 0: the sector is then valid in L2 when it is evicted.
//          FAST_EDGE = 6 does the same with an atomic OR of 0 on the
//          interior point next to the face (red.global.or, which changes no
//          value). FAST_EDGE = 3 writes whole float4s only: each plane's
//          copies also bring the output's x-face points of the block's rows
//          (a 32-byte window across each row boundary), which the row's
//          first and last float4 then write back unchanged. FAST_EDGE = 1
//          prefetches those sectors into L2 one plane ahead from the storing
//          threads (prefetch.global.L2); FAST_EDGE = 2 is for measurement
//          only: it writes the x faces from the input, which breaks the
//          contract that boundary points are not touched; FAST_EDGE = 4 is
//          as 3, but a few threads read the x-face points with plain loads
//          (one 32-byte sector each) two planes ahead and leave them in the
//          plane's slot;
//   - outputs are written with streaming (evict-first) stores when
//     FAST_STREAM is set, so that they do not push inputs out of L2;
//   - FAST_MINB is the minimum of resident blocks per multiprocessor the
//     compiler must allow (__launch_bounds__), which caps registers.
//
// Launch: blockDim = (32·wx, FAST_BY, 1); gridDim = (ceil((nx−1)/(32·wx·V)),
// ceil((ny−2)/rows), ceil((nz−2)/cz)), with wx = FAST_WX in modes 0 and 2
// and 1 in mode 1 (modes 2 and 3 on rows of any length run mode 0's code
// with wx = 1), rows = FAST_BY·FAST_RY in mode 0 and FAST_BY otherwise;
// mode 3 launches gridDim.x = 1 (a block spans the row). Coefficients follow the lab's mapping (c1/c2 x∓1, c3/c4 y∓1,
// c5/c6 z∓1); indices are 64-bit.

#ifndef FAST_BY
#define FAST_BY 4
#endif
#ifndef FAST_RY
#define FAST_RY 1
#endif
#ifndef FAST_MODE
#define FAST_MODE 3
#endif
#ifndef FAST_WX
#define FAST_WX 8
#endif
#ifndef FAST_DEPTH
#define FAST_DEPTH 1
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
#ifndef FAST_EDGE
#define FAST_EDGE 5
#endif
#ifndef FAST_PFD
#define FAST_PFD 0
#endif

#define FULL_MASK 0xffffffffu

// Threads per block of fast4 and fast1, for __launch_bounds__.
#if FAST_MODE == 3
#define FAST4_THREADS (32 * FAST_WX)
#else
#define FAST4_THREADS (32 * FAST_WX * FAST_BY)
#endif
#if FAST_MODE == 0
#define FAST1_THREADS (32 * FAST_WX * FAST_BY)
#else
#define FAST1_THREADS (32 * FAST_BY)
#endif

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

#if FAST_MODE == 1

// march_shared: one row per thread; the block publishes the current plane
// of its FAST_BY rows and two halo rows in shared memory, double-buffered.
template <int V>
__device__ __forceinline__ void march_shared(const float* __restrict__ in, float* __restrict__ out,
                                             int nz, int ny, int nx, int cz, const Coeffs7 c,
                                             float (*S)[FAST_BY + 2][32 * V])
{
    const int lane = threadIdx.x;
    const int ty = threadIdx.y;
    const int x0 = (blockIdx.x * 32 + lane) * V;
    const int jb = 1 + blockIdx.y * FAST_BY;                   // first output row of the block
    const int j = jb + ty;                                     // this thread's row
    const int z0 = 1 + blockIdx.z * cz;
    const int z1 = min(z0 + cz, nz - 1);
    const long long sy = nx;
    const long long sz = (long long)ny * nx;
    const int xl = min(x0, nx - V);                            // a valid column for lanes past the end
    const int xh = (lane == 0) ? min(max(x0 - 1, 0), nx - 1) : min(x0 + V, nx - 1); // whole warps may lie past the row end
    const bool halo = (lane == 0 || lane == 31);
    const bool top = (ty == 0);
    const bool bottom = (ty == FAST_BY - 1);
    const float* own = in + (long long)min(j, ny - 1) * sy;    // own row, plane 0
    const float* rowTop = in + (long long)(jb - 1) * sy;
    const float* rowBottom = in + (long long)min(jb + FAST_BY, ny - 1) * sy;

    Row<V> P, C, N, T = {}, B = {};
    float hc = 0.0f, hn = 0.0f;
    load_row<V>(P, own + (z0 - 1) * sz + xl);
    load_row<V>(C, own + z0 * sz + xl);
    load_row<V>(N, own + (z0 + 1) * sz + xl);
    if (halo) {
        hc = __ldg(own + z0 * sz + xh);
        hn = __ldg(own + (z0 + 1) * sz + xh);
    }
    if (top) {
        load_row<V>(T, rowTop + z0 * sz + xl);
    }
    if (bottom) {
        load_row<V>(B, rowBottom + z0 * sz + xl);
    }
    for (int z = z0; z < z1; ++z) {
        const int b = (z - z0) & 1;
        Row<V> T2 = {}, B2 = {};
#if FAST_L2PF > 0
        l2_prefetch(own + (long long)min(z + FAST_L2PF, nz - 1) * sz + xl);
#endif
#if FAST_PREFETCH
        const long long zn = (long long)min(z + 2, nz - 1) * sz;
        Row<V> NN;
        float hnn = 0.0f;
        load_row<V>(NN, own + zn + xl);
        if (halo) {
            hnn = __ldg(own + zn + xh);
        }
#endif
        if (top) {
            load_row<V>(T2, rowTop + (z + 1) * sz + xl);
        }
        if (bottom) {
            load_row<V>(B2, rowBottom + (z + 1) * sz + xl);
        }
        // Publish the current plane.
        if constexpr (V == 4) {
            *reinterpret_cast<float4*>(&S[b][ty + 1][lane * 4]) = make_float4(C.v[0], C.v[1], C.v[2], C.v[3]);
            if (top) {
                *reinterpret_cast<float4*>(&S[b][0][lane * 4]) = make_float4(T.v[0], T.v[1], T.v[2], T.v[3]);
            }
            if (bottom) {
                *reinterpret_cast<float4*>(&S[b][FAST_BY + 1][lane * 4]) = make_float4(B.v[0], B.v[1], B.v[2], B.v[3]);
            }
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) {
                S[b][ty + 1][lane * V + e] = C.v[e];
                if (top) {
                    S[b][0][lane * V + e] = T.v[e];
                }
                if (bottom) {
                    S[b][FAST_BY + 1][lane * V + e] = B.v[e];
                }
            }
        }
        __syncthreads();
        Row<V> U, D;
        if constexpr (V == 4) {
            const float4 u = *reinterpret_cast<const float4*>(&S[b][ty][lane * 4]);
            const float4 d = *reinterpret_cast<const float4*>(&S[b][ty + 2][lane * 4]);
            U.v[0] = u.x; U.v[1] = u.y; U.v[2] = u.z; U.v[3] = u.w;
            D.v[0] = d.x; D.v[1] = d.y; D.v[2] = d.z; D.v[3] = d.w;
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) {
                U.v[e] = S[b][ty][lane * V + e];
                D.v[e] = S[b][ty + 2][lane * V + e];
            }
        }
        float left, right;
        neighbours<V>(C, hc, lane, left, right);
        const Row<V> o = seven<V>(C, U, D, P, N, left, right, c);
        if (j <= ny - 2 && x0 < nx) {
            store_row<V>(out + z * sz + (long long)j * sy, x0, nx, o);
        }
        P = C;
        C = N;
        hc = hn;
        T = T2;
        B = B2;
#if FAST_PREFETCH
        N = NN;
        hn = hnn;
#else
        if (z + 2 <= nz - 1) {
            load_row<V>(N, own + (z + 2) * sz + xl);
            if (halo) {
                hn = __ldg(own + (z + 2) * sz + xh);
            }
        }
#endif
    }
}

#endif

#if FAST_MODE != 1

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

#endif

#if FAST_MODE == 2

#define ROW_FLOATS (128 * FAST_WX + 8) // a tile row: x halo at 3, points at 4…, x halo after
#define RING (FAST_DEPTH + 3)          // planes z−1, z, z+1 and FAST_DEPTH in flight

__device__ __forceinline__ unsigned shared_address(const void* p)
{
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

__device__ __forceinline__ void copy16(float* dst, const float* src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void copy4(float* dst, const float* src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared_address(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void wait_copies() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

typedef float Tile[FAST_BY + 2][ROW_FLOATS];

// load_tile starts the copies of one plane's tile: rows jb−1 … jb+FAST_BY
// and points xb−1 … xb+128·FAST_WX, clamped to the grid (clamped copies
// land in slots nobody reads).
__device__ __forceinline__ void load_tile(Tile& t, const float* __restrict__ plane,
                                          int jb, int xb, int ny, int nx, int tid)
{
    const int threads = 32 * FAST_WX * FAST_BY;
    const int perRow = 32 * FAST_WX;
    for (int idx = tid; idx < perRow * (FAST_BY + 2); idx += threads) {
        const int row = idx / perRow;
        const int c = idx - row * perRow;
        const int j = min(jb - 1 + row, ny - 1);
        const int x = min(xb + 4 * c, nx - 4);
        copy16(&t[row][4 + 4 * c], plane + (long long)j * nx + x);
    }
    if (tid < 2 * (FAST_BY + 2)) {
        const int row = tid >> 1;
        const int j = min(jb - 1 + row, ny - 1);
        if (tid & 1) {
            copy4(&t[row][4 + 128 * FAST_WX], plane + (long long)j * nx + min(xb + 128 * FAST_WX, nx - 1));
        } else {
            copy4(&t[row][3], plane + (long long)j * nx + max(xb - 1, 0));
        }
    }
}

// march_async: mode 2 for rows of a multiple of 4 points.
__device__ __forceinline__ void march_async(const float* __restrict__ in, float* __restrict__ out,
                                            int nz, int ny, int nx, int cz, const Coeffs7 c, Tile* ring)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * 32 * FAST_WX + tx;
    const int xb = blockIdx.x * 128 * FAST_WX;
    const int x0 = xb + 4 * tx;
    const int jb = 1 + blockIdx.y * FAST_BY;
    const int j = jb + ty;
    const int z0 = 1 + blockIdx.z * cz;
    const int z1 = min(z0 + cz, nz - 1);
    const long long sz = (long long)ny * nx;
    const bool active = j <= ny - 2 && x0 < nx;

    // Planes z0−1 … z0+FAST_DEPTH, one copy group each; plane p lives in
    // slot (p − z0 + 1) mod RING.
#pragma unroll
    for (int q = 0; q < FAST_DEPTH + 2; ++q) {
        load_tile(ring[q], in + (long long)min(z0 - 1 + q, nz - 1) * sz, jb, xb, ny, nx, tid);
        commit_copies();
    }
    int sPrev = 0, sCur = 1, sNext = 2, sNew = FAST_DEPTH + 2;
#pragma unroll 1
    for (int z = z0; z < z1; ++z) {
        wait_copies<FAST_DEPTH - 1>(); // plane z+1 has landed (for this thread's copies)
        __syncthreads();               // … for everyone's, and slot sNew (plane z−2) is free
        load_tile(ring[sNew], in + (long long)min(z + FAST_DEPTH + 1, nz - 1) * sz, jb, xb, ny, nx, tid);
        commit_copies();
        if (active) {
            const float* cen = &ring[sCur][ty + 1][4 + 4 * tx];
            const float4 cc = *reinterpret_cast<const float4*>(cen);
            const float4 up = *reinterpret_cast<const float4*>(&ring[sCur][ty][4 + 4 * tx]);
            const float4 dn = *reinterpret_cast<const float4*>(&ring[sCur][ty + 2][4 + 4 * tx]);
            const float4 pv = *reinterpret_cast<const float4*>(&ring[sPrev][ty + 1][4 + 4 * tx]);
            const float4 nt = *reinterpret_cast<const float4*>(&ring[sNext][ty + 1][4 + 4 * tx]);
            const Row<4> C = {{cc.x, cc.y, cc.z, cc.w}};
            const Row<4> U = {{up.x, up.y, up.z, up.w}};
            const Row<4> D = {{dn.x, dn.y, dn.z, dn.w}};
            const Row<4> P = {{pv.x, pv.y, pv.z, pv.w}};
            const Row<4> N = {{nt.x, nt.y, nt.z, nt.w}};
            const Row<4> o = seven<4>(C, U, D, P, N, cen[-1], cen[4], c);
            store_row<4>(out + z * sz + (long long)j * nx, x0, nx, o);
        }
        sPrev = sCur;
        sCur = sNext;
        sNext = (sNext + 1 == RING) ? 0 : sNext + 1;
        sNew = (sNew + 1 == RING) ? 0 : sNew + 1;
    }
    wait_copies<0>();
}

#endif

#if FAST_MODE == 3

#define RING (FAST_DEPTH + 3)

__device__ __forceinline__ unsigned shared_address(const void* p)
{
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

__device__ __forceinline__ void bar_init(unsigned bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
}

// expect announces the bytes the copies of one fill will bring; the
// barrier's phase completes when all of them have landed.
__device__ __forceinline__ void expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// bulk_copy copies bytes (a multiple of 16) from global src to shared dst
// on the copy engine, completing on the barrier.
__device__ __forceinline__ void bulk_copy(unsigned dst, const float* src, unsigned bytes, unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

// Floats of the x-face windows kept with each plane when FAST_EDGE = 3:
// window w holds the last 4 points of row jb−1+w and the first 4 of row
// jb+w of the output.
#if FAST_EDGE == 3
#define EDGE_FLOATS (8 * (FAST_BY + 1))
#elif FAST_EDGE == 4
#define EDGE_FLOATS ((2 * FAST_BY + 3) / 4 * 4) // x-face points of the block's rows: [2r] first, [2r+1] last
#else
#define EDGE_FLOATS 0
#endif

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}

#if FAST_EDGE == 5 || FAST_EDGE == 6
// edge_touch makes L2 hold the output's x-face sector that contains p, an
// interior point next to an x face, around the time of its write: then
// the row's stores, which write that sector in part, find it valid, and L2
// need not read it back from DRAM when it evicts it.
__device__ __forceinline__ void edge_touch(float* p)
{
#if FAST_EDGE == 5
    // A prefetch to L2 of the aligned 16 bytes that hold p (the copy
    // engine's bulk prefetch; it changes nothing in memory).
    const float* a = reinterpret_cast<const float*>(reinterpret_cast<unsigned long long>(p) & ~15ull);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" ::"l"(a) : "memory");
#else
    // An atomic OR with 0 on the interior point: its value does not change,
    // whatever the order with the point's own store, but L2 must hold the
    // sector to apply it (no result is returned, so no thread waits).
    asm volatile("red.relaxed.gpu.global.or.b32 [%0], %1;" ::"l"(p), "r"(0u) : "memory");
#endif
}
#endif

// march_bulk: mode 3 for rows of a multiple of 4 points.
__device__ __forceinline__ void march_bulk(const float* __restrict__ in, float* __restrict__ out,
                                           int nz, int ny, int nx, int cz, const Coeffs7 c,
                                           float* ring, unsigned long long* bars)
{
    const int tid = threadIdx.x;
    const int threads = blockDim.x;
    const int jb = 1 + blockIdx.y * FAST_BY;                  // first output row
    const int z0 = 1 + blockIdx.z * cz;
    const int z1 = min(z0 + cz, nz - 1);                      // planes z0 … z1−1; the last needed input is z1
    const long long sz = (long long)ny * nx;
    const int rows = min(jb + FAST_BY, ny - 1) - (jb - 1) + 1; // tile rows that exist
    const int slotFloats = (FAST_BY + 2) * nx + EDGE_FLOATS;
    const unsigned bytes = (unsigned)rows * nx * 4;
    const float* tileBase = in + (long long)(jb - 1) * nx;     // plane 0 of the tile
    const unsigned ringAddr = shared_address(ring);
    const unsigned barAddr = shared_address(bars);
#if FAST_EDGE == 3
    // Windows jb−1 … last output row: each 32 bytes across a row boundary.
    const int windows = min(jb + FAST_BY - 1, ny - 2) - (jb - 1) + 1;
#endif
    // fill starts the copies of plane p into the slot of fill f.
    auto fill = [&](int f, int p) {
        const unsigned slot = ringAddr + 4u * (unsigned)(f % RING) * slotFloats;
        const unsigned bar = barAddr + 8 * (f % RING);
#if FAST_EDGE == 3
        if (p >= z0 && p < z1) {
            expect(bar, bytes + 32u * windows);
            bulk_copy(slot, tileBase + (long long)p * sz, bytes, bar);
            const float* o = out + (long long)p * sz + (long long)jb * nx - 4;
            for (int w = 0; w < windows; ++w) {
                bulk_copy(slot + 4u * ((FAST_BY + 2) * nx + 8 * w), o + (long long)w * nx, 32u, bar);
            }
            return;
        }
#endif
        expect(bar, bytes);
        bulk_copy(slot, tileBase + (long long)p * sz, bytes, bar);
    };

    if (tid == 0) {
        for (int s = 0; s < RING; ++s) {
            bar_init(barAddr + 8 * s);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        // Fill f holds plane z0−1+f in slot f mod RING.
        for (int f = 0; f < FAST_DEPTH + 2 && z0 - 1 + f <= z1; ++f) {
            fill(f, z0 - 1 + f);
        }
    }
#if FAST_EDGE == 5 || FAST_EDGE == 6
    // Threads 0 … 2·rows−1 each own one x face of the block's output rows
    // and touch its sector (edge_touch) for plane p: FAST_PFD planes before
    // the plane's iteration, or with FAST_PFD = 0 at its start (before its
    // barrier, so about a plane's compute ahead of the stores), or with
    // FAST_PFD < 0 −FAST_PFD planes after.
    const int edgeRows = min(jb + FAST_BY - 1, ny - 2) - jb + 1;
    auto edges = [&](int p) {
        if (tid < 2 * edgeRows) {
            edge_touch(out + (long long)p * sz + (long long)(jb + (tid >> 1)) * nx + ((tid & 1) ? nx - 2 : 1));
        }
    };
    for (int q = 0; q < FAST_PFD && z0 + q < z1; ++q) {
        edges(z0 + q);
    }
#endif
#if FAST_EDGE == 4
    // Threads 0 … 2·rows−1 each own one x-face point of the block's output
    // rows; they read it from the output two planes ahead (one 32-byte
    // sector, early, in the read stream) and leave it in the plane's slot.
    const int edgeRows = min(jb + FAST_BY - 1, ny - 2) - jb + 1;
    const bool edgeThread = tid < 2 * edgeRows;
    const long long edgeOffset = edgeThread ? (long long)(jb + (tid >> 1)) * nx + ((tid & 1) ? nx - 1 : 0) : 0;
    if (edgeThread) {
        for (int q = 0; q < 2 && z0 + q < z1; ++q) {
            ring[(long long)((1 + q) % RING) * slotFloats + (FAST_BY + 2) * nx + tid] =
                __ldcg(out + (long long)(z0 + q) * sz + edgeOffset);
        }
    }
#endif
    __syncthreads();
    bar_wait(barAddr + 0, 0); // plane z0−1
    bar_wait(barAddr + 8, 0); // plane z0

    // Each thread's outputs in the tile: float4 q = tid, tid+threads, …
    // of FAST_BY rows of nx/4; its first (row, column) pair.
    const int nx4 = nx >> 2;
    const int r0 = tid / nx4;
    const int c0i = tid - r0 * nx4;

    int f = 1; // fill of plane z
    for (int z = z0; z < z1; ++z, ++f) {
        const int fNext = f + 1;
#if (FAST_EDGE == 5 || FAST_EDGE == 6) && FAST_PFD == 0
        edges(z);
#endif
        bar_wait(barAddr + 8 * (fNext % RING), (fNext / RING) & 1); // plane z+1
        __syncthreads(); // every thread is past plane z−1, so the slot of plane z−2 is free
        const int fNew = f + FAST_DEPTH + 1; // plane z+FAST_DEPTH+1 goes where plane z−2 was
        if (tid == 0 && z + FAST_DEPTH + 1 <= z1) {
            fill(fNew, z + FAST_DEPTH + 1);
        }
#if (FAST_EDGE == 5 || FAST_EDGE == 6) && FAST_PFD != 0
        if (z + FAST_PFD < z1 && z + FAST_PFD >= z0) {
            edges(z + FAST_PFD);
        }
#endif
#if FAST_EDGE == 4
        float edgeAhead = 0.0f; // the x-face point of plane z+2, for its slot
        if (edgeThread && z + 2 < z1) {
            edgeAhead = __ldcg(out + (long long)(z + 2) * sz + edgeOffset);
        }
#endif
        const float* P = ring + (long long)((f - 1) % RING) * slotFloats;
        const float* C = ring + (long long)(f % RING) * slotFloats;
        const float* N = ring + (long long)(fNext % RING) * slotFloats;
        int r = r0, cc = c0i;
        while (r < FAST_BY) {
            const int j = jb + r;
            if (j > ny - 2) {
                break;
            }
            const int x0 = 4 * cc;
            const int o = (r + 1) * nx + x0;
            const float4 cen = *reinterpret_cast<const float4*>(C + o);
            const float4 up = *reinterpret_cast<const float4*>(C + o - nx);
            const float4 dn = *reinterpret_cast<const float4*>(C + o + nx);
            const float4 pv = *reinterpret_cast<const float4*>(P + o);
            const float4 nt = *reinterpret_cast<const float4*>(N + o);
            const float left = x0 > 0 ? C[o - 1] : 0.0f;
            const float right = x0 + 4 < nx ? C[o + 4] : 0.0f;
            const Row<4> RC = {{cen.x, cen.y, cen.z, cen.w}};
            const Row<4> RU = {{up.x, up.y, up.z, up.w}};
            const Row<4> RD = {{dn.x, dn.y, dn.z, dn.w}};
            const Row<4> RP = {{pv.x, pv.y, pv.z, pv.w}};
            const Row<4> RN = {{nt.x, nt.y, nt.z, nt.w}};
            const Row<4> res = seven<4>(RC, RU, RD, RP, RN, left, right, c);
#if FAST_EDGE == 4
            {
                float4 w = make_float4(res.v[0], res.v[1], res.v[2], res.v[3]);
                const float* edge = C + (FAST_BY + 2) * nx;
                if (x0 == 0) {
                    w.x = edge[2 * r];
                }
                if (x0 + 4 == nx) {
                    w.w = edge[2 * r + 1];
                }
                *reinterpret_cast<float4*>(out + z * sz + (long long)j * nx + x0) = w;
            }
#elif FAST_EDGE == 3
            // Whole float4s only: the x-face point keeps the value it had,
            // read with the plane's copies, so that no 32-byte sector of
            // the output is written in part (a partial sector costs a read
            // from DRAM when L2 evicts it, the memory having ECC).
            {
                float4 w = make_float4(res.v[0], res.v[1], res.v[2], res.v[3]);
                const float* edge = C + (FAST_BY + 2) * nx;
                if (x0 == 0) {
                    w.x = edge[8 * r + 4];
                }
                if (x0 + 4 == nx) {
                    w.w = edge[8 * (r + 1) + 3];
                }
                *reinterpret_cast<float4*>(out + z * sz + (long long)j * nx + x0) = w;
            }
#elif FAST_EDGE == 2
            // Measurement only: write whole rows, the x faces copied from
            // the input, so that no 32-byte sector is written in part. This
            // breaks the contract (boundary points of dst are not touched).
            {
                float4 w = make_float4(res.v[0], res.v[1], res.v[2], res.v[3]);
                if (x0 == 0) {
                    w.x = cen.x;
                }
                if (x0 + 4 == nx) {
                    w.w = cen.w;
                }
                *reinterpret_cast<float4*>(out + z * sz + (long long)j * nx + x0) = w;
            }
#else
#if FAST_EDGE == 1
            // The first and last sector of an output row are written in
            // part (the x faces are boundary); fetch them into L2 one plane
            // ahead so that L2 need not read them back when it evicts them.
            if ((x0 == 0 || x0 + 4 == nx) && z + 1 < z1) {
                l2_prefetch(out + (z + 1) * sz + (long long)j * nx + x0);
            }
#endif
            store_row<4>(out + z * sz + (long long)j * nx, x0, nx, res);
#endif
            cc += threads;
            while (cc >= nx4) {
                cc -= nx4;
                ++r;
            }
        }
#if FAST_EDGE == 4
        // Plane z+2 is fill f+2; its slot is not read before the barrier of
        // iteration z+1, and its copy engine writes leave this area alone.
        if (edgeThread && z + 2 < z1) {
            ring[(long long)((f + 2) % RING) * slotFloats + (FAST_BY + 2) * nx + tid] = edgeAhead;
        }
#endif
    }
#if (FAST_EDGE == 5 || FAST_EDGE == 6) && FAST_PFD < 0
    __syncthreads();
    for (int p = max(z0, z1 + FAST_PFD); p < z1; ++p) {
        edges(p);
    }
#endif
}

#endif

extern "C" __global__ void __launch_bounds__(FAST4_THREADS, FAST_MINB)
fast4(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
      float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    const Coeffs7 c = {c0, c1, c2, c3, c4, c5, c6};
#if FAST_MODE == 3
    extern __shared__ __align__(128) float dynamicRing[];
    __shared__ __align__(8) unsigned long long bars[RING];
    march_bulk(in, out, nz, ny, nx, cz, c, dynamicRing, bars);
#elif FAST_MODE == 2
    __shared__ __align__(16) Tile ring[RING];
    march_async(in, out, nz, ny, nx, cz, c, ring);
#elif FAST_MODE == 1
    __shared__ __align__(16) float S[2][FAST_BY + 2][32 * 4];
    march_shared<4>(in, out, nz, ny, nx, cz, c, S);
#else
    march_columns<4>(in, out, nz, ny, nx, cz, c);
#endif
}

// fast1 runs rows of any length one point per thread; modes 2 and 3 need
// float4 rows and fall back to mode 0 here (blockDim = (32, FAST_BY, 1)).
extern "C" __global__ void __launch_bounds__(FAST1_THREADS, FAST_MINB)
fast1(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
      float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    const Coeffs7 c = {c0, c1, c2, c3, c4, c5, c6};
#if FAST_MODE == 1
    __shared__ float S[2][FAST_BY + 2][32];
    march_shared<1>(in, out, nz, ny, nx, cz, c, S);
#else
    march_columns<1>(in, out, nz, ny, nx, cz, c);
#endif
}
