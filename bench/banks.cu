// banks.cu: the transposing kernel of exercises/10_warps
// (checks.TransposeKernel) in CUDA, for bench/ncu-banks.sh: thread (tx, ty)
// of a T×T block stores tile[ty][tx] of a shared tile with rows of P
// floats, then reads the column element tile[tx][ty]. ncu counts the bank
// conflicts of those reads, which the simulator predicts.
//
// Build: nvcc -O2 -arch=sm_90 -o banks bench/banks.cu
// Run:   ./banks          (launches every (T, P) of kConfigs once, in order)
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void transpose_tile(const float* in, float* out, int n, int T, int P)
{
    extern __shared__ float tile[];
    const int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
    if (x < n && y < n) {
        tile[ty * P + tx] = in[y * n + x];
    }
    __syncthreads();
    x = blockIdx.y * T + tx;
    y = blockIdx.x * T + ty;
    if (x < n && y < n) {
        out[y * n + x] = tile[tx * P + ty];
    }
}

// The (T, P) launches, in the order bench/ncu-banks.sh records them.
static const int kConfigs[][2] = {
    {32, 32}, {32, 33}, {16, 16}, {16, 17}, {16, 18}, {8, 8}, {8, 9}, {8, 12}, {4, 4},
};

int main()
{
    const int n = 256;
    float *in, *out;
    if (cudaMalloc(&in, n * n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * n * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "banks: cudaMalloc failed\n");
        return 1;
    }
    cudaMemset(in, 0, n * n * sizeof(float));
    for (const auto& c : kConfigs) {
        const int T = c[0], P = c[1];
        dim3 block(T, T), grid((n + T - 1) / T, (n + T - 1) / T);
        transpose_tile<<<grid, block, T * P * sizeof(float)>>>(in, out, n, T, P);
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
            fprintf(stderr, "banks: T = %d, P = %d: %s\n", T, P, cudaGetErrorString(err));
            return 1;
        }
        printf("T = %d, P = %d\n", T, P);
    }
    cudaFree(in);
    cudaFree(out);
    return 0;
}
