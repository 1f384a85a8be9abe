// temporal_emu.cpp: cuda/temporal.cu run on the CPU, to check its algorithm
// and indexing without a GPU. Every CUDA thread of a block is a std::thread;
// __syncthreads is a std::barrier of the block and each warp shuffle two
// barriers of the warp around a shared slot; blocks run one after the other.
// The output, poisoned with NaN, is compared with passes·TB_K reference
// sweeps with the boundary fixed, and guard zones around the output catch
// writes just outside it.
//
//   make -C bench emu            (builds and runs a set of tiles, grids and chunks)
//   g++ -std=c++20 -O1 -pthread -DTB_K=4 -DTB_BX=64 -DTB_BY=32 -I../cuda temporal_emu.cpp
//   ./a.out NZ NY NX CZ PASSES   (CZ = 0: one chunk of planes)
#include <barrier>
#include <thread>
#include <vector>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <random>
#include <functional>
#include <memory>

struct float4 { float x, y, z, w; };
static inline float4 make_float4(float a, float b, float c, float d) { return {a, b, c, d}; }
struct dim3 { int x = 0, y = 0, z = 0; };
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
static std::barrier<>* blockBar;
static std::vector<std::unique_ptr<std::barrier<>>> warpBars;
static float warpVals[1024];
static float S_store[1 << 18];
static long long smemFloats;
thread_local int linTid;

template <class T> T __ldg(const T* p) { return *p; }
template <class T> void __stcs(T* p, T v) { *p = v; }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static void __syncthreads() { blockBar->arrive_and_wait(); }
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static float shfl(float v, int delta) {
    int w = linTid / 32, lane = linTid % 32;
    warpBars[w]->arrive_and_wait();
    warpVals[linTid] = v;
    warpBars[w]->arrive_and_wait();
    int src = lane + delta;
    float r = (src < 0 || src > 31) ? v : warpVals[w * 32 + src];
    warpBars[w]->arrive_and_wait();
    return r;
}
static float __shfl_up_sync(unsigned, float v, int d) { return shfl(v, -d); }
static float __shfl_down_sync(unsigned, float v, int d) { return shfl(v, d); }
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
#define __launch_bounds__(a, b)
#define __shared__
#define __align__(n)
// The kernel's `extern float S[]` refers to this array.
float S[1 << 18];
#include "temporal.cu" // from cuda/, on the include path


int main(int argc, char** argv) {
    int nz = atoi(argv[1]), ny = atoi(argv[2]), nx = atoi(argv[3]), cz = atoi(argv[4]), passes = argc > 5 ? atoi(argv[5]) : 1;
    long long n = (long long)nz * ny * nx;
    std::mt19937 rng(nz * 1000 + ny * 10 + nx);
    std::uniform_real_distribution<float> U(-1, 1);
    std::vector<float> src(n);
    for (auto& v : src) v = U(rng);
    float c[7] = {0.5f, 0.11f, 0.13f, 0.17f, 0.19f, 0.23f, 0.29f};
    // reference: passes*TB_K sweeps with fixed boundary
    std::vector<float> a = src, b = src;
    auto at = [&](int i, int j, int k) { return ((long long)i * ny + j) * nx + k; };
    for (int s = 0; s < passes * TB_K; ++s) {
        for (int i = 1; i < nz - 1; ++i) for (int j = 1; j < ny - 1; ++j) for (int k = 1; k < nx - 1; ++k)
            b[at(i, j, k)] = c[0] * a[at(i, j, k)] + c[1] * a[at(i, j, k - 1)] + c[2] * a[at(i, j, k + 1)] + c[3] * a[at(i, j - 1, k)] +
                             c[4] * a[at(i, j + 1, k)] + c[5] * a[at(i - 1, j, k)] + c[6] * a[at(i + 1, j, k)];
        std::swap(a, b);
    }
    // gpu emulation: ping-pong with the boundary of src in both, interior poisoned
    const int hx = (TB_K + 3) / 4 * 4, ox = TB_BX - 2 * hx, oy = TB_BY - 2 * TB_K;
    if (cz <= 0) cz = nz - 2;
    blockDim = {TB_BX / 4, TB_BY, 1};
    gridDim = {(nx - 1 + ox - 1) / ox, (ny - 2 + oy - 1) / oy, (nz - 2 + cz - 1) / cz};
    int threads = blockDim.x * blockDim.y;
    std::vector<float> g0 = src, g1 = src;
    for (int i = 1; i < nz - 1; ++i) for (int j = 1; j < ny - 1; ++j) for (int k = 1; k < nx - 1; ++k) g1[at(i, j, k)] = NAN;
    for (int p = 0; p < passes; ++p) {
        std::vector<float>& in = p % 2 == 0 ? g0 : g1;
        std::vector<float>& out = p % 2 == 0 ? g1 : g0;
        std::vector<float> inPad(n + 64, 7.0f), outPad(n + 64, 7.0f);
        std::copy(in.begin(), in.end(), inPad.begin() + 32);
        std::copy(out.begin(), out.end(), outPad.begin() + 32);
        for (int bz = 0; bz < gridDim.z; ++bz) for (int by = 0; by < gridDim.y; ++by) for (int bx = 0; bx < gridDim.x; ++bx) {
            std::barrier<> bar(threads);
            blockBar = &bar;
            warpBars.clear();
            for (int w = 0; w < threads / 32; ++w) warpBars.emplace_back(new std::barrier<>(32));
            memset(S, 0xff, sizeof(S)); // garbage (NaN) before the kernel zeroes it
            std::vector<std::thread> ts;
            for (int t = 0; t < threads; ++t) {
                ts.emplace_back([&, t] {
                    linTid = t;
                    threadIdx = {t % blockDim.x, t / blockDim.x, 0};
                    blockIdx = {bx, by, bz};
                    temporal(inPad.data() + 32, outPad.data() + 32, nz, ny, nx, c[0], c[1], c[2], c[3], c[4], c[5], c[6], cz);
                });
            }
            for (auto& t : ts) t.join();
        }
        // The guard zones (32 floats of 7 on each side) must be untouched.
        for (int i = 0; i < 32; ++i) if (outPad[i] != 7.0f || outPad[n + 32 + i] != 7.0f) { printf("FAIL: write outside the grid\n"); return 1; }
        std::copy(outPad.begin() + 32, outPad.begin() + 32 + n, out.begin());
    }
    std::vector<float>& res = passes % 2 == 1 ? g1 : g0;
    double worst = 0; long long wi = -1;
    for (long long i = 0; i < n; ++i) {
        double e = std::isnan(res[i]) ? INFINITY : fabs(res[i] - a[i]);
        if (!(e <= worst)) { worst = e; wi = i; }
    }
    printf("K=%d BX=%d BY=%d grid %dx%dx%d cz=%d passes=%d blocks %dx%dx%d: max err %g", TB_K, TB_BX, TB_BY, nz, ny, nx, cz, passes, gridDim.x, gridDim.y, gridDim.z, worst);
    if (wi >= 0) printf(" at (%lld,%lld,%lld) got %g want %g", wi / (ny * nx), wi / nx % ny, wi % nx, res[wi], a[wi]);
    printf("\n");
    return worst <= 1e-5 * passes * TB_K ? 0 : 1;
}
