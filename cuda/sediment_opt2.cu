// sediment_opt2.cu: OPT-2 of Su et al. (ICCS 2013, Section 3.4). OPT-1 plus
// shared memory for the intermediate products: each thread of a BX×BY
// block computes αs and β(1−s) for its own point once and puts them in
// shared memory, where its four neighbours find them. The threads on the
// edges of the block also compute the values of the point just outside
// their edge (the if-tests of the paper), so they work longer than the
// others before the barrier. Two shared arrays of (BX+2)×(BY+2) doubles:
// 3264 bytes for 32×4, the paper's figure. Needs sediment_common.cu in
// front.

#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 4
#endif
#define SW (BX + 2)

// opt2_put stores αs and β(1−s) of padded point (i, j) in slot k of the
// shared arrays, if the point exists.
__device__ __forceinline__ void opt2_put(const double* __restrict__ alpha, const double* __restrict__ beta,
                                         const double* __restrict__ s, double* sa, double* sb,
                                         int k, int i, int j)
{
    if (i <= NX + 1 && j <= NY + 1) {
        const sed_idx c = (sed_idx)j * PITCH + i;
        const double sv = s[c];
        sa[k] = alpha[c] * sv;
        sb[k] = beta[c] * (1.0 - sv);
    }
}

// opt2_fill fills the block's shared tile: every thread its own point,
// the edge threads one halo point more. It ends with the barrier.
__device__ __forceinline__ void opt2_fill(const double* __restrict__ alpha, const double* __restrict__ beta,
                                          const double* __restrict__ s, double* sa, double* sb,
                                          int k, int i, int j)
{
    opt2_put(alpha, beta, s, sa, sb, k, i, j);
    if (threadIdx.x == 0) opt2_put(alpha, beta, s, sa, sb, k - 1, i - 1, j);
    if (threadIdx.x == BX - 1) opt2_put(alpha, beta, s, sa, sb, k + 1, i + 1, j);
    if (threadIdx.y == 0) opt2_put(alpha, beta, s, sa, sb, k - SW, i, j - 1);
    if (threadIdx.y == BY - 1) opt2_put(alpha, beta, s, sa, sb, k + SW, i, j + 1);
    __syncthreads();
}

// sed_h writes h' = eq. 3 at every interior point. Launch BX×BY blocks.
extern "C" __global__ void __launch_bounds__(BX * BY)
sed_h(const double* __restrict__ alpha, const double* __restrict__ beta, const double* __restrict__ s,
      const double* __restrict__ h, double* __restrict__ hn)
{
    __shared__ double sa[(BY + 2) * SW], sb[(BY + 2) * SW];
    const int i = blockIdx.x * BX + threadIdx.x + 1;
    const int j = blockIdx.y * BY + threadIdx.y + 1;
    const int k = (threadIdx.y + 1) * SW + threadIdx.x + 1;
    opt2_fill(alpha, beta, s, sa, sb, k, i, j);
    if (i > NX || j > NY) return;
    const sed_idx c = (sed_idx)j * PITCH + i;
    const double ac = sa[k], bc = sb[k];
    hn[c] = sed_h_new(h[c], h[c + 1], h[c - 1], h[c + PITCH], h[c - PITCH],
                      sed_face(ac, bc, sa[k + 1], sb[k + 1]), sed_face(ac, bc, sa[k - 1], sb[k - 1]),
                      sed_face(ac, bc, sa[k + SW], sb[k + SW]), sed_face(ac, bc, sa[k - SW], sb[k - SW]));
}

// sed_s writes s' = eq. 4 in upwind flux form at every interior point.
// Launch BX×BY blocks.
extern "C" __global__ void __launch_bounds__(BX * BY)
sed_s(const double* __restrict__ alpha, const double* __restrict__ beta, const double* __restrict__ s,
      const double* __restrict__ h, double* __restrict__ sn)
{
    __shared__ double sa[(BY + 2) * SW], sb[(BY + 2) * SW];
    const int i = blockIdx.x * BX + threadIdx.x + 1;
    const int j = blockIdx.y * BY + threadIdx.y + 1;
    const int k = (threadIdx.y + 1) * SW + threadIdx.x + 1;
    opt2_fill(alpha, beta, s, sa, sb, k, i, j);
    if (i > NX || j > NY) return;
    const sed_idx c = (sed_idx)j * PITCH + i;
    const double ac = sa[k], bc = sb[k], hc = h[c];
    const double fe = sed_face(ac, bc, sa[k + 1], sb[k + 1]) * (h[c + 1] - hc) * SED_RX;
    const double fw = sed_face(ac, bc, sa[k - 1], sb[k - 1]) * (h[c - 1] - hc) * SED_RX;
    const double fn = sed_face(ac, bc, sa[k + SW], sb[k + SW]) * (h[c + PITCH] - hc) * SED_RY;
    const double fs = sed_face(ac, bc, sa[k - SW], sb[k - SW]) * (h[c - PITCH] - hc) * SED_RY;
    sn[c] = sed_s_new(s[c], sed_share(ac, bc), fe, fw, fn, fs,
                      sed_share(sa[k + 1], sb[k + 1]), sed_share(sa[k - 1], sb[k - 1]),
                      sed_share(sa[k + SW], sb[k + SW]), sed_share(sa[k - SW], sb[k - SW]));
}
