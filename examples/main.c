/* A host program of two tkc kernels (kernels/add.tk, kernels/row_softmax.tk),
 * as the CMake and the plain-Makefile projects beside this file build it.
 * It adds two vectors and takes a row softmax on the GPU, checks both
 * against the CPU on random inputs of sizes that are not multiples of the
 * blocks, checks that a row wider than the block is refused with the
 * kernel's requirement, and prints "example: ok" (exit 0) or what failed. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "add.h"
#include "row_softmax.h"

#define CUDA(call)                                                                        \
    do {                                                                                  \
        cudaError_t e = (call);                                                           \
        if (e != cudaSuccess) {                                                           \
            printf("example: %s: %s\n", #call, cudaGetErrorString(e));                    \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

static float uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f * 2.0f - 1.0f;
}

int main(void) {
    enum { N = 100003, ROWS = 37, COLS = 1000 };
    static float x[N], y[N], out[N], m[ROWS * COLS], sm[ROWS * COLS];
    float *dx, *dy, *dout, *dm, *dsm;
    unsigned seed = 7;
    int count = 0, bad = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("example: no CUDA device\n");
        return 1;
    }
    for (int i = 0; i < N; i++) {
        x[i] = uniform(&seed);
        y[i] = uniform(&seed);
    }
    for (int i = 0; i < ROWS * COLS; i++) m[i] = 4.0f * uniform(&seed);
    CUDA(cudaMalloc((void **)&dx, sizeof x));
    CUDA(cudaMalloc((void **)&dy, sizeof y));
    CUDA(cudaMalloc((void **)&dout, sizeof out));
    CUDA(cudaMalloc((void **)&dm, sizeof m));
    CUDA(cudaMalloc((void **)&dsm, sizeof sm));
    CUDA(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    CUDA(cudaMemcpy(dy, y, sizeof y, cudaMemcpyHostToDevice));
    CUDA(cudaMemset(dout, 0xff, sizeof out)); /* NaN: an element not written shows */
    CUDA(cudaMemset(dsm, 0xff, sizeof sm));
    CUDA(cudaMemcpy(dm, m, sizeof m, cudaMemcpyHostToDevice));

    tk_status s = add(NULL, dx, dy, dout, N);
    if (s != TK_SUCCESS) {
        printf("example: add: %s\n", tkrt_status_string(s));
        return 1;
    }
    s = row_softmax(NULL, dm, dsm, ROWS, COLS);
    if (s != TK_SUCCESS) {
        printf("example: row_softmax: %s\n", tkrt_status_string(s));
        return 1;
    }
    CUDA(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    CUDA(cudaMemcpy(sm, dsm, sizeof sm, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) bad += !(out[i] == x[i] + y[i]);
    for (int r = 0; r < ROWS; r++) {
        double most = -INFINITY, sum = 0;
        for (int c = 0; c < COLS; c++) most = fmax(most, m[r * COLS + c]);
        for (int c = 0; c < COLS; c++) sum += exp(m[r * COLS + c] - most);
        for (int c = 0; c < COLS; c++)
            bad += !(fabs(sm[r * COLS + c] - exp(m[r * COLS + c] - most) / sum) <= 1e-6);
    }
    /* a row wider than the kernel's block: refused, nothing launched */
    s = row_softmax(NULL, dm, dsm, 1, 2000);
    if (s != TK_ERROR_REQUIREMENT) {
        printf("example: a 2000-column row gave %s\n", tkrt_status_string(s));
        bad++;
    }
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
    cudaFree(dm);
    cudaFree(dsm);
    if (bad) {
        printf("example: %d wrong results\n", bad);
        return 1;
    }
    printf("example: ok\n");
    return 0;
}
