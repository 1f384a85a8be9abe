// sediment_common.cu: what every sediment variant shares. The launcher
// puts this file in front of the variant's own file (sediment_baseline.cu,
// sediment_opt1.cu, sediment_opt2.cu, sediment_opt3.cu, sediment_best.cu)
// and compiles the two as one program.
//
// The case study is Su et al., "Performance of Sediment Transport
// Simulations on NVIDIA's Kepler Architecture", ICCS 2013. Every field is
// an (NY+2)×(NX+2) array of doubles with a layer of ghost points, row-major
// with x fastest: point (i, j) at j*PITCH + i, the interior 1 ≤ i ≤ NX,
// 1 ≤ j ≤ NY. The scheme is the one of package lab/sediment:
//
//   a = α s, b = β (1−s), D = a/Cs + b/Cm, σ = (a/Cs)/D, μ = (b/Cm)/D
//   K (face)  = (a_c + a_n)/(2Cs) + (b_c + b_n)/(2Cm)        (eq. 3)
//   F (face)  = K (h_n − h_c)/Δ²                             flux into c
//   h'        = h + Δt (F_e + F_w + F_n + F_s)               (eq. 3)
//   sediment entering (F > 0) carries the neighbour's σ, μ; leaving, c's
//   N = A s + Δt (sand_in − σ_c out), M = A (1−s) + Δt (mud_in − μ_c out)
//   s' = N / (N + M)                                         (eq. 4, upwind flux form)
//
// The launcher defines the mesh and the constants of the run, so that the
// kernels take nothing but pointers:
//   NX, NY        interior points
//   SED_DT        Δt
//   SED_RX, SED_RY 1/Δx², 1/Δy²
//   SED_DX, SED_DY Δx, Δy
//   SED_ICS, SED_ICM 1/Cs, 1/Cm
//   SED_HCS, SED_HCM 1/(2Cs), 1/(2Cm)
//   SED_A         thickness of the transport layer

#if !defined(NX) || !defined(NY) || !defined(SED_DT) || !defined(SED_RX) || !defined(SED_RY) || \
    !defined(SED_DX) || !defined(SED_DY) || !defined(SED_ICS) || !defined(SED_ICM) ||            \
    !defined(SED_HCS) || !defined(SED_HCM) || !defined(SED_A)
#error "the sediment kernels need NX, NY and the SED_ constants defined"
#endif

#define PITCH (NX + 2)

typedef long long sed_idx;

// sed_face is the coefficient of eq. 3 on the face between two points,
// from their αs and β(1−s).
__device__ __forceinline__ double sed_face(double ac, double bc, double an, double bn)
{
    return (ac + an) * SED_HCS + (bc + bn) * SED_HCM;
}

// sed_h_new is eq. 3 for one point, from its height, its four neighbours'
// heights and the coefficients of its four faces.
__device__ __forceinline__ double sed_h_new(double hc, double he, double hw, double hn, double hs,
                                            double ke, double kw, double kn, double ks)
{
    const double fe = ke * (he - hc) * SED_RX;
    const double fw = kw * (hw - hc) * SED_RX;
    const double fn = kn * (hn - hc) * SED_RY;
    const double fs = ks * (hs - hc) * SED_RY;
    return hc + SED_DT * ((fe + fw) + (fn + fs));
}

// SedShare holds the sand and mud shares σ and μ of one point.
struct SedShare {
    double sig, mu;
};

// sed_share returns σ and μ of a point from its αs and β(1−s).
__device__ __forceinline__ SedShare sed_share(double a, double b)
{
    const double as = a * SED_ICS, bm = b * SED_ICM;
    const double r = 1.0 / (as + bm);
    SedShare p;
    p.sig = as * r;
    p.mu = bm * r;
    return p;
}

// sed_s_new is eq. 4 in upwind flux form for one point: s and the shares
// of the point, the flux over each face (into the point) and the shares
// of the neighbour behind each face, in the order east, west, north, south.
__device__ __forceinline__ double sed_s_new(double sc, SedShare c, double fe, double fw, double fn,
                                            double fs, SedShare e, SedShare w, SedShare n, SedShare s)
{
    double sand = 0.0, mud = 0.0, out = 0.0;
    if (fe > 0.0) { sand += fe * e.sig; mud += fe * e.mu; } else { out -= fe; }
    if (fw > 0.0) { sand += fw * w.sig; mud += fw * w.mu; } else { out -= fw; }
    if (fn > 0.0) { sand += fn * n.sig; mud += fn * n.mu; } else { out -= fn; }
    if (fs > 0.0) { sand += fs * s.sig; mud += fs * s.mu; } else { out -= fs; }
    const double nn = SED_A * sc + SED_DT * (sand - c.sig * out);
    const double mm = SED_A * (1.0 - sc) + SED_DT * (mud - c.mu * out);
    return nn / (nn + mm);
}

// sed_ghost_h sets the ghost heights before a step so that the flux over
// every boundary face is the prescribed one: h_ghost = h_edge + rate·Δ/K,
// or h_ghost = h_edge where the rate is zero. rate holds one value per
// boundary face: west j = 1..NY, east j = 1..NY, south i = 1..NX, north
// i = 1..NX. One thread per face; launch at least 2·(NX+NY) threads.
extern "C" __global__ void sed_ghost_h(const double* __restrict__ alpha, const double* __restrict__ beta,
                                       const double* __restrict__ s, double* __restrict__ h,
                                       const double* __restrict__ rate)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    sed_idx g, in;
    double d;
    if (t < NY) {
        g = (sed_idx)(t + 1) * PITCH; in = g + 1; d = SED_DX;
    } else if (t < 2 * NY) {
        g = (sed_idx)(t - NY + 1) * PITCH + NX + 1; in = g - 1; d = SED_DX;
    } else if (t < 2 * NY + NX) {
        g = t - 2 * NY + 1; in = g + PITCH; d = SED_DY;
    } else if (t < 2 * NY + 2 * NX) {
        g = (sed_idx)(NY + 1) * PITCH + (t - 2 * NY - NX + 1); in = g - PITCH; d = SED_DY;
    } else {
        return;
    }
    const double q = rate[t];
    if (q == 0.0) {
        h[g] = h[in];
        return;
    }
    const double k = sed_face(alpha[g] * s[g], beta[g] * (1.0 - s[g]), alpha[in] * s[in], beta[in] * (1.0 - s[in]));
    h[g] = h[in] + q * d / k;
}
