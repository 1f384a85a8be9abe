// sediment_best.cu: our fastest sediment kernels for Hopper, beyond the
// paper. Three ideas:
//
//  1. Fusion. h' and s' need the same inputs (α, β, s, h at time ℓ), so
//     sed_hs computes both in one pass: 48 bytes a point instead of the
//     80 that the two kernels of the paper move between them.
//  2. Coalesced 16-byte loads. A lane owns two neighbouring points and
//     loads them as one double2 (rows of an even PITCH start 16-byte
//     aligned); a warp covers 64 columns and writes the 62 inside them,
//     overlapping the next warp by two columns, and trades its left and
//     right neighbours with warp shuffles.
//  3. Marching in y. Each warp walks `rows` rows down its columns and
//     keeps three rows of derived values (h, D = αs/Cs + β(1−s)/Cm, s and
//     the shares σ, μ) in registers: every input is loaded once, αs,
//     β(1−s) and the division for σ, μ are done once a point, and the
//     loads of the row after next are started before the current row is
//     computed. The launcher picks `rows` near the RY it was given so that
//     the warps come in whole waves of what the GPU holds at once.
//
// Two knobs trade registers for latency: SED_MINB > 0 asks the compiler
// for at least that many resident blocks of 32×WARPS threads a
// multiprocessor (__launch_bounds__), and SED_FASTDIV=1 replaces the
// IEEE divisions by the hardware's approximate reciprocal refined by three
// Newton steps (a few units in the last place, no slow path).
//
// sed_h and sed_s are the same kernel computing one of the two. Launch
// blocks of 32×WARPS threads on a grid of ceil(NX/62) × ceil(ceil(NY/rows)/
// WARPS). Needs sediment_common.cu in front.

#ifndef WARPS
#define WARPS 4
#endif
#ifndef SED_MINB
#define SED_MINB 0
#endif
#if SED_MINB > 0
#define BEST_BOUNDS __launch_bounds__(32 * WARPS, SED_MINB)
#else
#define BEST_BOUNDS __launch_bounds__(32 * WARPS)
#endif
#ifndef SED_FASTDIV
#define SED_FASTDIV 0
#endif
#define CHUNK 62
#if (NX % 2) == 0
#define SED_VEC2 1
#else
#define SED_VEC2 0
#endif

#define WANT_H 1
#define WANT_S 2

// BestPt holds the derived values of one point.
struct BestPt {
    double h, d, s;
    SedShare p;
};

// BestRaw holds the loaded inputs of a lane's two points of one row.
struct BestRaw {
    double al0, al1, be0, be1, s0, s1, h0, h1;
};

// BestRow holds the derived values of a lane's two points of one row.
struct BestRow {
    BestPt q0, q1;
};

// best_load loads padded columns x0 and x0+1 of row j; points outside the
// padded mesh get harmless values that no output uses.
__device__ __forceinline__ BestRaw best_load(const double* __restrict__ alpha, const double* __restrict__ beta,
                                             const double* __restrict__ s, const double* __restrict__ h,
                                             int x0, int j)
{
    BestRaw r;
    r.al0 = r.al1 = r.be0 = r.be1 = 1.0;
    r.s0 = r.s1 = 0.5;
    r.h0 = r.h1 = 0.0;
    if (j > NY + 1 || x0 > NX + 1) return r;
    const sed_idx c = (sed_idx)j * PITCH + x0;
#if SED_VEC2
    const double2 a = *reinterpret_cast<const double2*>(alpha + c);
    const double2 b = *reinterpret_cast<const double2*>(beta + c);
    const double2 sv = *reinterpret_cast<const double2*>(s + c);
    const double2 hv = *reinterpret_cast<const double2*>(h + c);
    r.al0 = a.x; r.al1 = a.y; r.be0 = b.x; r.be1 = b.y;
    r.s0 = sv.x; r.s1 = sv.y; r.h0 = hv.x; r.h1 = hv.y;
#else
    r.al0 = alpha[c]; r.be0 = beta[c]; r.s0 = s[c]; r.h0 = h[c];
    if (x0 + 1 <= NX + 1) {
        r.al1 = alpha[c + 1]; r.be1 = beta[c + 1]; r.s1 = s[c + 1]; r.h1 = h[c + 1];
    }
#endif
    return r;
}

// best_rcp returns 1/x for a positive, normal x.
__device__ __forceinline__ double best_rcp(double x)
{
#if SED_FASTDIV && defined(__CUDA_ARCH__)
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    r = fma(r, fma(-x, r, 1.0), r);
    r = fma(r, fma(-x, r, 1.0), r);
    r = fma(r, fma(-x, r, 1.0), r);
    return r;
#else
    return 1.0 / x;
#endif
}

// best_frac returns n/d for 0 ≤ n ≤ d, d > 0: a quotient in [0, 1].
__device__ __forceinline__ double best_frac(double n, double d)
{
#if SED_FASTDIV
    const double r = best_rcp(d);
    double q = n * r;
    q = fma(r, fma(-d, q, n), q);
    return fmin(q, 1.0); // n ≤ d, so only rounding can pass 1
#else
    return n / d;
#endif
}

// best_s_new is sed_s_new with best_frac for the last division.
__device__ __forceinline__ double best_s_new(double sc, SedShare c, double fe, double fw, double fn,
                                             double fs, SedShare e, SedShare w, SedShare n, SedShare s)
{
    double sand = 0.0, mud = 0.0, out = 0.0;
    if (fe > 0.0) { sand += fe * e.sig; mud += fe * e.mu; } else { out -= fe; }
    if (fw > 0.0) { sand += fw * w.sig; mud += fw * w.mu; } else { out -= fw; }
    if (fn > 0.0) { sand += fn * n.sig; mud += fn * n.mu; } else { out -= fn; }
    if (fs > 0.0) { sand += fs * s.sig; mud += fs * s.mu; } else { out -= fs; }
    const double nn = SED_A * sc + SED_DT * (sand - c.sig * out);
    const double mm = SED_A * (1.0 - sc) + SED_DT * (mud - c.mu * out);
    return best_frac(nn, nn + mm);
}

template <int WHAT>
__device__ __forceinline__ BestPt best_pt(double al, double be, double s, double h)
{
    BestPt q;
    const double as = al * s * SED_ICS, bm = be * (1.0 - s) * SED_ICM;
    q.h = h;
    q.s = s;
    q.d = as + bm;
    if (WHAT & WANT_S) {
        const double r = best_rcp(q.d);
        q.p.sig = as * r;
        q.p.mu = bm * r;
    } else {
        q.p.sig = q.p.mu = 0.0;
    }
    return q;
}

template <int WHAT>
__device__ __forceinline__ BestRow best_row(const BestRaw& r)
{
    BestRow w;
    w.q0 = best_pt<WHAT>(r.al0, r.be0, r.s0, r.h0);
    w.q1 = best_pt<WHAT>(r.al1, r.be1, r.s1, r.h1);
    return w;
}

// best_shfl returns the point of the lane delta places to the left
// (delta = +1, from lane−1) or right (delta = −1, from lane+1); the lanes
// at the ends get their own value back, which no output uses.
template <int WHAT>
__device__ __forceinline__ BestPt best_shfl(const BestPt& q, int delta)
{
    BestPt o;
    if (delta > 0) {
        o.h = __shfl_up_sync(0xffffffffu, q.h, 1);
        o.d = __shfl_up_sync(0xffffffffu, q.d, 1);
        if (WHAT & WANT_S) {
            o.p.sig = __shfl_up_sync(0xffffffffu, q.p.sig, 1);
            o.p.mu = __shfl_up_sync(0xffffffffu, q.p.mu, 1);
        }
    } else {
        o.h = __shfl_down_sync(0xffffffffu, q.h, 1);
        o.d = __shfl_down_sync(0xffffffffu, q.d, 1);
        if (WHAT & WANT_S) {
            o.p.sig = __shfl_down_sync(0xffffffffu, q.p.sig, 1);
            o.p.mu = __shfl_down_sync(0xffffffffu, q.p.mu, 1);
        }
    }
    if (!(WHAT & WANT_S)) o.p.sig = o.p.mu = 0.0;
    o.s = 0.0;
    return o;
}

// best_point computes h' and s' of point c from its four neighbours.
template <int WHAT>
__device__ __forceinline__ void best_point(const BestPt& c, const BestPt& e, const BestPt& w, const BestPt& n,
                                           const BestPt& s, double& hnew, double& snew)
{
    const double fe = (c.d + e.d) * (e.h - c.h) * (0.5 * SED_RX);
    const double fw = (c.d + w.d) * (w.h - c.h) * (0.5 * SED_RX);
    const double fn = (c.d + n.d) * (n.h - c.h) * (0.5 * SED_RY);
    const double fs = (c.d + s.d) * (s.h - c.h) * (0.5 * SED_RY);
    if (WHAT & WANT_H) hnew = c.h + SED_DT * ((fe + fw) + (fn + fs));
    if (WHAT & WANT_S) snew = best_s_new(c.s, c.p, fe, fw, fn, fs, e.p, w.p, n.p, s.p);
}

// best_store writes the lane's outputs of row j: lane 0 only its second
// point, lane 31 only its first, the others both (one 16-byte store when
// PITCH is even).
__device__ __forceinline__ void best_store(double* __restrict__ out, int x0, int j, double v0, double v1)
{
    const int lane = threadIdx.x;
    const bool o0 = lane > 0 && x0 <= NX;
    const bool o1 = lane < 31 && x0 + 1 <= NX;
    const sed_idx c = (sed_idx)j * PITCH + x0;
#if SED_VEC2
    if (o0 && o1) {
        double2 v;
        v.x = v0;
        v.y = v1;
        *reinterpret_cast<double2*>(out + c) = v;
        return;
    }
#endif
    if (o0) out[c] = v0;
    if (o1) out[c + 1] = v1;
}

template <int WHAT>
__device__ __forceinline__ void best_body(const double* __restrict__ alpha, const double* __restrict__ beta,
                                          const double* __restrict__ s, const double* __restrict__ h,
                                          double* __restrict__ hn, double* __restrict__ sn, int rows)
{
    const int seg = blockIdx.y * WARPS + threadIdx.y;
    const int j0 = 1 + seg * rows;
    if (j0 > NY) return; // the whole warp: seg depends on the warp only
    const int j1 = min(j0 + rows, NY + 1);
    const int x0 = blockIdx.x * CHUNK + 2 * threadIdx.x;
    BestRow prev = best_row<WHAT>(best_load(alpha, beta, s, h, x0, j0 - 1));
    BestRow cur = best_row<WHAT>(best_load(alpha, beta, s, h, x0, j0));
    BestRaw raw = best_load(alpha, beta, s, h, x0, j0 + 1);
    for (int j = j0; j < j1; ++j) {
        const BestRow next = best_row<WHAT>(raw);
        if (j + 1 < j1) raw = best_load(alpha, beta, s, h, x0, j + 2);
        const BestPt left = best_shfl<WHAT>(cur.q1, 1);
        const BestPt right = best_shfl<WHAT>(cur.q0, -1);
        double h0 = 0.0, s0 = 0.0, h1 = 0.0, s1 = 0.0;
        best_point<WHAT>(cur.q0, cur.q1, left, next.q0, prev.q0, h0, s0);
        best_point<WHAT>(cur.q1, right, cur.q0, next.q1, prev.q1, h1, s1);
        if (WHAT & WANT_H) best_store(hn, x0, j, h0, h1);
        if (WHAT & WANT_S) best_store(sn, x0, j, s0, s1);
        prev = cur;
        cur = next;
    }
}

// sed_h writes h' = eq. 3 at every interior point, each warp walking
// rows rows.
extern "C" __global__ void BEST_BOUNDS
sed_h(const double* __restrict__ alpha, const double* __restrict__ beta, const double* __restrict__ s,
      const double* __restrict__ h, double* __restrict__ hn, int rows)
{
    best_body<WANT_H>(alpha, beta, s, h, hn, nullptr, rows);
}

// sed_s writes s' = eq. 4 in upwind flux form at every interior point.
extern "C" __global__ void BEST_BOUNDS
sed_s(const double* __restrict__ alpha, const double* __restrict__ beta, const double* __restrict__ s,
      const double* __restrict__ h, double* __restrict__ sn, int rows)
{
    best_body<WANT_S>(alpha, beta, s, h, nullptr, sn, rows);
}

// sed_hs writes both h' and s' in one pass.
extern "C" __global__ void BEST_BOUNDS
sed_hs(const double* __restrict__ alpha, const double* __restrict__ beta, const double* __restrict__ s,
       const double* __restrict__ h, double* __restrict__ hn, double* __restrict__ sn, int rows)
{
    best_body<WANT_H | WANT_S>(alpha, beta, s, h, hn, sn, rows);
}
