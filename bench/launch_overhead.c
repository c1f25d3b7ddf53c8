/* The host time of a launch through a generated header against a bare
 * cuLaunchKernel of the same kernel (bench/launch_overhead.tk):
 *
 *   tkc bench/launch_overhead.tk -o build/lo/
 *   cc -O2 -Ibuild/lo -Iruntime_stub -I$CUDA_HOME/include bench/launch_overhead.c \
 *      runtime_stub/tkrt.c -o build/lo/launch_overhead -lcuda -ldl -lpthread
 *   build/lo/launch_overhead
 *
 * 10^5 launches of each, timed with the host clock in batches of 256 (the
 * clock stops before each batch's synchronisation, so that a full launch
 * queue is not what is measured); the median batch, per launch. */
#include <cuda.h>

#define TKC_IMPLEMENTATION /* this file holds the module */
#include "launch_overhead.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCH 256
#define BATCHES 391 /* 100096 launches */

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define CU(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s: CUDA error %d\n", #call, (int)r_);                                \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { BARE, HEADER, TUNED };

static double per_launch(int how, CUfunction f, CUdeviceptr x, int n)
{
    static double batch[BATCHES];
    void *args[2];
    int b, i;
    args[0] = &x;
    args[1] = &n;
    for (b = 0; b < BATCHES; b++) {
        double t0 = now_us();
        for (i = 0; i < BATCH; i++) {
            tk_status s = TK_SUCCESS;
            if (how == BARE)
                CU(cuLaunchKernel(f, (unsigned)((n + 127) / 128), 1, 1, 128, 1, 1, 0, NULL, args, NULL));
            else if (how == HEADER)
                s = tiny(NULL, (tk_ptr)x, n);
            else
                s = tiny_tuned(NULL, (tk_ptr)x, n);
            if (s != TK_SUCCESS) {
                fprintf(stderr, "launch: %s\n", tkrt_status_string(s));
                exit(1);
            }
        }
        batch[b] = (now_us() - t0) / BATCH;
        CU(cuCtxSynchronize());
    }
    qsort(batch, BATCHES, sizeof batch[0], compare);
    return batch[BATCHES / 2];
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    CUdeviceptr x;
    int n = 1000, round;
    CU(cuInit(0));
    CU(cuDeviceGet(&dev, 0));
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CU(cuMemAlloc(&x, 4 * (size_t)n));
    CU(cuModuleLoadData(&mod, tk_launch_overhead__cubin_sm_90a)); /* the header's own cubin */
    CU(cuModuleGetFunction(&f, mod, "tiny"));
    /* first launches: module loads, and the tuned one tunes */
    if (tiny(NULL, (tk_ptr)x, n) != TK_SUCCESS || tiny_tuned(NULL, (tk_ptr)x, n) != TK_SUCCESS) {
        fprintf(stderr, "first launch: %s\n", tkrt_status_string(tkrt_status()));
        return 1;
    }
    CU(cuCtxSynchronize());
    for (round = 0; round < 3; round++) {
        double bare = per_launch(BARE, f, x, n), header = per_launch(HEADER, f, x, n);
        double tuned = per_launch(TUNED, f, x, n);
        printf("round %d: cuLaunchKernel %.3f us, header launcher %.3f us (+%.3f), autotuned launcher %.3f us "
               "(+%.3f) a launch\n",
               round, bare, header, header - bare, tuned, tuned - bare);
    }
    return 0;
}
