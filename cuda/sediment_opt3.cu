// sediment_opt3.cu: OPT-3 of Su et al. (ICCS 2013, Section 3.5 and the
// appendix). OPT-2 with halo threads: the block has (BX+2)×(BY+2) threads,
// 34×6 for the paper's 32×4 tile, and every thread loads one point of the
// tile with its halo and computes its αs and β(1−s), so no thread works
// longer than another before the barrier. After it the first BX·BY threads,
// renumbered row by row over the tile, compute the outputs; the others
// (the number of halo threads) idle. Needs sediment_common.cu in front.

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 4
#endif
#define TW (BX + 2)

// opt3_fill stores αs and β(1−s) of the thread's point of the tile in
// shared memory, then waits at the barrier. Thread (x, y) holds padded
// point (blockIdx.x·BX + x, blockIdx.y·BY + y): thread 0 of a row holds the
// left neighbour of the tile.
__device__ __forceinline__ void opt3_fill(const double* __restrict__ alpha, const double* __restrict__ beta,
                                          const double* __restrict__ s, double* sa, double* sb)
{
    const int gi = blockIdx.x * BX + threadIdx.x;
    const int gj = blockIdx.y * BY + threadIdx.y;
    if (gi <= NX + 1 && gj <= NY + 1) {
        const sed_idx g = (sed_idx)gj * PITCH + gi;
        const double sv = s[g];
        sa[threadIdx.y * TW + threadIdx.x] = alpha[g] * sv;
        sb[threadIdx.y * TW + threadIdx.x] = beta[g] * (1.0 - sv);
    }
    __syncthreads();
}

// sed_h writes h' = eq. 3 at every interior point. Launch (BX+2)×(BY+2)
// blocks on a grid of ceil(NX/BX)×ceil(NY/BY).
extern "C" __global__ void __launch_bounds__((BX + 2) * (BY + 2))
sed_h(const double* __restrict__ alpha, const double* __restrict__ beta, const double* __restrict__ s,
      const double* __restrict__ h, double* __restrict__ hn)
{
    __shared__ double sa[(BX + 2) * (BY + 2)], sb[(BX + 2) * (BY + 2)];
    opt3_fill(alpha, beta, s, sa, sb);
    const int tid = threadIdx.y * TW + threadIdx.x;
    if (tid >= BX * BY) return;
    const int lx = tid % BX, ly = tid / BX;
    const int i = blockIdx.x * BX + lx + 1, j = blockIdx.y * BY + ly + 1;
    if (i > NX || j > NY) return;
    const int k = (ly + 1) * TW + lx + 1;
    const sed_idx c = (sed_idx)j * PITCH + i;
    const double ac = sa[k], bc = sb[k];
    hn[c] = sed_h_new(h[c], h[c + 1], h[c - 1], h[c + PITCH], h[c - PITCH],
                      sed_face(ac, bc, sa[k + 1], sb[k + 1]), sed_face(ac, bc, sa[k - 1], sb[k - 1]),
                      sed_face(ac, bc, sa[k + TW], sb[k + TW]), sed_face(ac, bc, sa[k - TW], sb[k - TW]));
}

// sed_s writes s' = eq. 4 in upwind flux form at every interior point.
// Launch as sed_h.
extern "C" __global__ void __launch_bounds__((BX + 2) * (BY + 2))
sed_s(const double* __restrict__ alpha, const double* __restrict__ beta, const double* __restrict__ s,
      const double* __restrict__ h, double* __restrict__ sn)
{
    __shared__ double sa[(BX + 2) * (BY + 2)], sb[(BX + 2) * (BY + 2)];
    opt3_fill(alpha, beta, s, sa, sb);
    const int tid = threadIdx.y * TW + threadIdx.x;
    if (tid >= BX * BY) return;
    const int lx = tid % BX, ly = tid / BX;
    const int i = blockIdx.x * BX + lx + 1, j = blockIdx.y * BY + ly + 1;
    if (i > NX || j > NY) return;
    const int k = (ly + 1) * TW + lx + 1;
    const sed_idx c = (sed_idx)j * PITCH + i;
    const double ac = sa[k], bc = sb[k], hc = h[c];
    const double fe = sed_face(ac, bc, sa[k + 1], sb[k + 1]) * (h[c + 1] - hc) * SED_RX;
    const double fw = sed_face(ac, bc, sa[k - 1], sb[k - 1]) * (h[c - 1] - hc) * SED_RX;
    const double fn = sed_face(ac, bc, sa[k + TW], sb[k + TW]) * (h[c + PITCH] - hc) * SED_RY;
    const double fs = sed_face(ac, bc, sa[k - TW], sb[k - TW]) * (h[c - PITCH] - hc) * SED_RY;
    sn[c] = sed_s_new(s[c], sed_share(ac, bc), fe, fw, fn, fs,
                      sed_share(sa[k + 1], sb[k + 1]), sed_share(sa[k - 1], sb[k - 1]),
                      sed_share(sa[k + TW], sb[k + TW]), sed_share(sa[k - TW], sb[k - TW]));
}
