// sediment_baseline.cu: the Baseline of Su et al. (ICCS 2013, Section 3.2).
// One thread per point, 32×4 blocks, no shared memory, plain pointers: each
// thread loads all five points of its stencil from global memory and
// computes αs and β(1−s) for each of them itself, so neighbouring threads
// load and compute the same values again. Needs sediment_common.cu in
// front.

// sed_h writes h' = eq. 3 at every interior point.
extern "C" __global__ void sed_h(const double* alpha, const double* beta, const double* s,
                                 const double* h, double* hn)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i > NX || j > NY) return;
    const sed_idx c = (sed_idx)j * PITCH + i;
    const sed_idx e = c + 1, w = c - 1, n = c + PITCH, so = c - PITCH;
    const double ac = alpha[c] * s[c], bc = beta[c] * (1.0 - s[c]);
    const double ae = alpha[e] * s[e], be = beta[e] * (1.0 - s[e]);
    const double aw = alpha[w] * s[w], bw = beta[w] * (1.0 - s[w]);
    const double an = alpha[n] * s[n], bn = beta[n] * (1.0 - s[n]);
    const double as = alpha[so] * s[so], bs = beta[so] * (1.0 - s[so]);
    hn[c] = sed_h_new(h[c], h[e], h[w], h[n], h[so],
                      sed_face(ac, bc, ae, be), sed_face(ac, bc, aw, bw),
                      sed_face(ac, bc, an, bn), sed_face(ac, bc, as, bs));
}

// sed_s writes s' = eq. 4 in upwind flux form at every interior point.
extern "C" __global__ void sed_s(const double* alpha, const double* beta, const double* s,
                                 const double* h, double* sn)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i > NX || j > NY) return;
    const sed_idx c = (sed_idx)j * PITCH + i;
    const sed_idx e = c + 1, w = c - 1, n = c + PITCH, so = c - PITCH;
    const double ac = alpha[c] * s[c], bc = beta[c] * (1.0 - s[c]);
    const double ae = alpha[e] * s[e], be = beta[e] * (1.0 - s[e]);
    const double aw = alpha[w] * s[w], bw = beta[w] * (1.0 - s[w]);
    const double an = alpha[n] * s[n], bn = beta[n] * (1.0 - s[n]);
    const double as = alpha[so] * s[so], bs = beta[so] * (1.0 - s[so]);
    const double hc = h[c];
    const double fe = sed_face(ac, bc, ae, be) * (h[e] - hc) * SED_RX;
    const double fw = sed_face(ac, bc, aw, bw) * (h[w] - hc) * SED_RX;
    const double fn = sed_face(ac, bc, an, bn) * (h[n] - hc) * SED_RY;
    const double fs = sed_face(ac, bc, as, bs) * (h[so] - hc) * SED_RY;
    sn[c] = sed_s_new(s[c], sed_share(ac, bc), fe, fw, fn, fs,
                      sed_share(ae, be), sed_share(aw, bw), sed_share(an, bn), sed_share(as, bs));
}
