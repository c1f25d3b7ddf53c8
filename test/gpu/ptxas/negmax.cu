// A ptxas miscompile, without tkc: the max of four negated i32 (neg.s32 or
// sub.s32 0, x feeding a tree of max.s32) becomes a VIMNMX3 that drops one
// operand's negation (CUDA 13.0.88, sm_90a: 85 of 256 blocks wrong). A
// compare and select (setp + selp), which codegen/elementwise.c writes for
// integer min/max, is not fused. Found by test/difftest (seed 13, program
// 1221). On the GPU machine:
//   nvcc -O3 -arch=sm_90a -o /tmp/negmax test/gpu/ptxas/negmax.cu && /tmp/negmax
//   cuobjdump -sass /tmp/negmax | grep VIMNMX3
#include <cstdio>
#include <cstdlib>
__device__ __forceinline__ int neg_a(int x) { int r; asm("neg.s32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ __forceinline__ int neg_b(int x) { int r; asm("sub.s32 %0, 0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ __forceinline__ int neg_c(int x) { int r; asm("{ .reg .b32 t; not.b32 t, %1; add.s32 %0, t, 1; }" : "=r"(r) : "r"(x)); return r; }
__device__ __forceinline__ int max_a(int a, int b) { int r; asm("max.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ int max_b(int a, int b) { int r; asm("{ .reg .pred p; setp.gt.s32 p, %1, %2; selp.b32 %0, %1, %2, p; }" : "=r"(r) : "r"(a), "r"(b)); return r; }
template <int NEG, int MAX>
__global__ void k(const int *x, int *out) {
    int t = threadIdx.x;
    int off = ((t & 1) << 2) | (((t >> 1) & 1) << 3) | (((t >> 2) & 1) << 4) | (((t >> 3) & 1) << 5);
    int4 v = *reinterpret_cast<const int4 *>(x + blockIdx.x * 1024 + off);
    auto ng = [](int q) { return NEG == 0 ? neg_a(q) : NEG == 1 ? neg_b(q) : neg_c(q); };
    auto mx = [](int a, int b) { return MAX == 0 ? max_a(a, b) : max_b(a, b); };
    int a = ng(v.x), b = ng(v.y), c = ng(v.z), d = ng(v.w);
    int m = mx(mx(a, c), mx(b, d));
    for (int s = 1; s < 16; s <<= 1) m = mx(m, __shfl_xor_sync(0xffffffff, m, s));
    if (t == 0) out[blockIdx.x] = m;
}
int main() {
    const int B = 256;
    int *h = (int *)malloc(B * 1024 * 4), *hx, *d_out, *res = (int *)malloc(B * 4);
    srand(7);
    for (int i = 0; i < B * 1024; i++) h[i] = rand() % 201 - 100;
    cudaMalloc(&hx, B * 1024 * 4); cudaMalloc(&d_out, B * 4);
    cudaMemcpy(hx, h, B * 1024 * 4, cudaMemcpyHostToDevice);
    void (*ks[6])(const int *, int *) = {k<0,0>, k<1,0>, k<2,0>, k<0,1>, k<1,1>, k<2,1>};
    const char *names[6] = {"neg.s32+max.s32", "sub0+max.s32", "not+add+max.s32", "neg.s32+setp/selp", "sub0+setp/selp", "not+add+setp/selp"};
    for (int v = 0; v < 6; v++) {
        ks[v]<<<B, 32>>>(hx, d_out);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(res, d_out, B * 4, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int b = 0; b < B; b++) {
            int m = -1000;
            for (int j = 0; j < 64; j++) m = -h[b * 1024 + j] > m ? -h[b * 1024 + j] : m;
            bad += res[b] != m;
        }
        printf("%-20s %s: %d of %d blocks wrong\n", names[v], cudaGetErrorString(e), bad, B);
    }
    return 0;
}
