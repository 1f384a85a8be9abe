// copy_interior.cu: the copy that keeps a stencil's boundary contract, the
// second ceiling stencil bandwidth is measured against.
//
// It copies every interior point of an nz×ny×nx grid (1 ≤ i,j,k ≤ n−2)
// and leaves the boundary points of out untouched, exactly the bytes a
// seven-point sweep must move at the least. Because k = 0 and k = nx−1 are
// not written, the first and the last 32-byte sector of every output row
// are written in part, and with ECC memory L2 must read such a sector from
// DRAM before it can write it back; the float4 copy of the whole grid
// (copy.cu) never pays that. What the interior copy reaches is therefore
// the most any kernel that leaves the x faces untouched can expect.
//
// copy_interior4 (nx a multiple of 4): one thread per float4 of a row,
// blockDim = (128, 2), gridDim = (ceil(nx/4 / 128), ceil((ny−2)/2), nz−2),
// so that blocks follow memory order. The float4s that hold an x-face
// point are stored in part. The thread that stores the last float4 of a
// row first asks L2 for the 64 bytes around the end of the row (the row's
// last sector and the next row's first one) with a bulk prefetch, which
// changes nothing in memory: L2 then holds those sectors when the partial
// stores reach it. On the H200 that made the copy about 2 % faster.
//
// copy_interior1 (any nx): one thread per interior point, blockDim =
// (128, 2), gridDim = (ceil((nx−2)/128), ceil((ny−2)/2), nz−2).
//
// The arguments follow the sweeps': in, out, nz, ny, nx. Indices are
// 64-bit. The pointers must be 16-byte aligned (cuMemAlloc gives 256).

// prefetch_l2 asks L2 to fetch the 16-byte-aligned bytes [p, p+bytes).
__device__ __forceinline__ void prefetch_l2(const float* p, int bytes)
{
#if __CUDA_ARCH__ >= 900
    if (bytes == 64) {
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 64;" ::"l"(p) : "memory");
    } else {
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 16;" ::"l"(p) : "memory");
    }
#else
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
#endif
}

extern "C" __global__ void __launch_bounds__(256)
copy_interior4(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx)
{
    const int n4 = nx / 4;
    const int k4 = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    const long long i = 1 + (long long)blockIdx.z;
    if (k4 >= n4 || j > ny - 2 || i > nz - 2) {
        return;
    }
    const long long at = (i * ny + j) * (long long)nx + 4LL * k4;
    const bool first = k4 == 0, last = k4 == n4 - 1;
    if (last && n4 >= 2) {
        prefetch_l2(out + at - 4, 64);
    } else if (first && j == 1) {
        prefetch_l2(out + at, 16);
    }
    const float4 v = *reinterpret_cast<const float4*>(in + at);
    float* o = out + at;
    if (!first && !last) {
        *reinterpret_cast<float4*>(o) = v;
    } else if (first && last) {
        // nx = 4: points 1 and 2 only.
        o[1] = v.y;
        o[2] = v.z;
    } else if (first) {
        o[1] = v.y;
        *reinterpret_cast<float2*>(o + 2) = make_float2(v.z, v.w);
    } else {
        *reinterpret_cast<float2*>(o) = make_float2(v.x, v.y);
        o[2] = v.z;
    }
}

extern "C" __global__ void __launch_bounds__(256)
copy_interior1(const float* __restrict__ in, float* __restrict__ out, int nz, int ny, int nx)
{
    const int k = 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int j = 1 + blockIdx.y * blockDim.y + threadIdx.y;
    const long long i = 1 + (long long)blockIdx.z;
    if (k > nx - 2 || j > ny - 2 || i > nz - 2) {
        return;
    }
    const long long at = (i * ny + j) * (long long)nx + k;
    out[at] = in[at];
}
