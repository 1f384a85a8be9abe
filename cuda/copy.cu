// copy.cu: the float4 copy kernel that stencil bandwidth is measured
// against.
//
// Each thread copies one 16-byte float4; thread t < n%4 of block 0 also
// copies one of the trailing floats when n is not a multiple of 4. Launch
// with gridDim = ceil(n/4 / blockDim). The pointers must be 16-byte aligned
// (cuMemAlloc gives 256).

extern "C" __global__ void copy_float4(const float4* __restrict__ in,
                                       float4* __restrict__ out, long long n)
{
    const long long n4 = n / 4;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n4) {
        out[t] = in[t];
    }
    if (blockIdx.x == 0 && t < n - 4 * n4) {
        const float* fin = reinterpret_cast<const float*>(in);
        float* fout = reinterpret_cast<float*>(out);
        fout[4 * n4 + t] = fin[4 * n4 + t];
    }
}
