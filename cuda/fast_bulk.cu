// fast_bulk.cu: FAST_MODE 3 of the fast sweep, the default: a ring of
// whole-row plane tiles moved by bulk copies. Needs fast_common.cu in
// front.
//
// For float4 rows (fast4) a block spans whole rows (32·FAST_WX threads,
// FAST_BY rows) and one thread moves each plane's tile, FAST_BY+2
// consecutive rows and so one contiguous piece of memory, with a single
// bulk copy (the Hopper copy engine, cp.async.bulk) that completes on an
// mbarrier, FAST_DEPTH planes ahead of the one the block computes; the
// ring lives in dynamic shared memory, (FAST_DEPTH+3)·(FAST_BY+2)·nx
// floats. The x faces must not be written, and a 32-byte sector of the
// output written in part costs L2 a read from DRAM when it evicts it (ECC
// memory), late, in the middle of the write stream. So a few threads ask
// L2 for the first and last sector of each of the block's output rows with
// a 16-byte bulk prefetch (cp.async.bulk.prefetch.L2) at the start of the
// plane's iteration, FAST_PFD planes earlier if FAST_PFD > 0 or −FAST_PFD
// planes after its stores if FAST_PFD < 0: the sector is then valid in L2
// when it is evicted.
//
// Rows of any length (fast1) run mode 0's march_columns with one warp per
// row segment: blockDim = (32, FAST_BY, 1). Launch of fast4: blockDim =
// (32·FAST_WX, 1, 1); gridDim = (1, ceil((ny−2)/FAST_BY), ceil((nz−2)/cz)),
// (FAST_DEPTH+3)·(FAST_BY+2)·nx·4 bytes of dynamic shared memory.

#ifndef FAST_DEPTH
#define FAST_DEPTH 1
#endif
#ifndef FAST_PFD
#define FAST_PFD 0
#endif

// The mode this file is: the gpu package passes FAST_MODE with the other
// parameters, so that the define it records names the file that ran.
#ifndef FAST_MODE
#define FAST_MODE 3
#endif
#if FAST_MODE != 3
#error "fast_bulk.cu is FAST_MODE 3"
#endif

// Threads per block of fast4 and fast1, for __launch_bounds__.
#define FAST4_THREADS (32 * FAST_WX)
#define FAST1_THREADS (32 * FAST_BY)

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

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    }
}

// edge_touch makes L2 hold the output's x-face sector that contains p, an
// interior point next to an x face, around the time of its write: then
// the row's stores, which write that sector in part, find it valid, and L2
// need not read it back from DRAM when it evicts it.
__device__ __forceinline__ void edge_touch(float* p)
{
    // A prefetch to L2 of the aligned 16 bytes that hold p (the copy
    // engine's bulk prefetch; it changes nothing in memory).
    const float* a = reinterpret_cast<const float*>(reinterpret_cast<unsigned long long>(p) & ~15ull);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" ::"l"(a) : "memory");
}

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
    const int slotFloats = (FAST_BY + 2) * nx;
    const unsigned bytes = (unsigned)rows * nx * 4;
    const float* tileBase = in + (long long)(jb - 1) * nx;     // plane 0 of the tile
    const unsigned ringAddr = shared_address(ring);
    const unsigned barAddr = shared_address(bars);
    // fill starts the copies of plane p into the slot of fill f.
    auto fill = [&](int f, int p) {
        const unsigned slot = ringAddr + 4u * (unsigned)(f % RING) * slotFloats;
        const unsigned bar = barAddr + 8 * (f % RING);
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
#if FAST_PFD == 0
        edges(z);
#endif
        bar_wait(barAddr + 8 * (fNext % RING), (fNext / RING) & 1); // plane z+1
        __syncthreads(); // every thread is past plane z−1, so the slot of plane z−2 is free
        const int fNew = f + FAST_DEPTH + 1; // plane z+FAST_DEPTH+1 goes where plane z−2 was
        if (tid == 0 && z + FAST_DEPTH + 1 <= z1) {
            fill(fNew, z + FAST_DEPTH + 1);
        }
#if FAST_PFD != 0
        if (z + FAST_PFD < z1 && z + FAST_PFD >= z0) {
            edges(z + FAST_PFD);
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
            store_row<4>(out + z * sz + (long long)j * nx, x0, nx, res);
            cc += threads;
            while (cc >= nx4) {
                cc -= nx4;
                ++r;
            }
        }
    }
#if FAST_PFD < 0
    __syncthreads();
    for (int p = max(z0, z1 + FAST_PFD); p < z1; ++p) {
        edges(p);
    }
#endif
}

extern "C" __global__ void __launch_bounds__(FAST4_THREADS, FAST_MINB)
fast4(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
      float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    const Coeffs7 c = {c0, c1, c2, c3, c4, c5, c6};
    extern __shared__ __align__(128) float dynamicRing[];
    __shared__ __align__(8) unsigned long long bars[RING];
    march_bulk(in, out, nz, ny, nx, cz, c, dynamicRing, bars);
}

// fast1 runs rows of any length one point per thread; the ring needs
// float4 rows, so it runs mode 0's march (blockDim = (32, FAST_BY, 1)).
extern "C" __global__ void __launch_bounds__(FAST1_THREADS, FAST_MINB)
fast1(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx,
      float c0, float c1, float c2, float c3, float c4, float c5, float c6, int cz)
{
    const Coeffs7 c = {c0, c1, c2, c3, c4, c5, c6};
    march_columns<1>(in, out, nz, ny, nx, cz, c);
}
