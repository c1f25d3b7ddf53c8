// runtime_stub with the CUDA runtime API, as a .cpp/.cu user calls a
// generated launcher: cudaMalloc'd float * and a cudaStream_t pass straight
// in as tk_ptr / tk_stream, tkrt uses the context the runtime made current,
// and a launch works inside CUDA-graph stream capture.
//
//   cudart_test KERNELS.PTX        (test/runtime/kernels.ptx)
//
// Built with c++ -I$CUDA_HOME/include and linked with libcudart_static.a.
// Without a GPU: prints "ok (skipped: ...)" and exits 0. Otherwise "ok" and
// 0, or FAIL lines and 1.
#include <cuda_runtime.h>

#include "tkrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL cudart_test:%d: ", __LINE__);                                             \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)
#define CUDART(call) CHECK((call) == cudaSuccess, "%s", #call)

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = (char *)malloc((size_t)n + 1);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    data[n] = '\0';
    return data;
}

static const char *ptx;

// What a generated header would give: a launcher of C types.
static tk_status tk_add(tkrt_kernel *k, tk_stream stream, tk_ptr x, tk_ptr y, tk_ptr out, int n)
{
    void *args[4] = { &x, &y, &out, &n };
    return tkrt_launch(k, stream, (unsigned)((n + 127) / 128), 1, 1, args);
}

/* each kernel of its own module (PTX only), as separate headers would have */
static tkrt_module modules[8];
static int modules_used;
static const unsigned no_shared[] = {0};

static tkrt_kernel fresh(void)
{
    tkrt_module *m = &modules[modules_used++ % 8];
    tkrt_module blank = TKRT_MODULE_INIT(NULL, 0, ptx, "sm_80");
    *m = blank;
    tkrt_kernel k = TKRT_KERNEL_INIT("tk_add", m, 128, no_shared);
    return k;
}

enum { N = 1 << 20 };
static float hx[N], hy[N], hout[N];

static int wrong(float *out, float scale)
{
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != scale * (hx[i] + hy[i]);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !(ptx = read_file(argv[1]))) {
        printf("FAIL cudart_test: usage: cudart_test KERNELS.PTX\n");
        return 1;
    }
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        printf("ok (skipped: %s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        free((void *)ptx);
        return 0;
    }
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = 0.25f;
    }
    float *x, *y, *out, *out2;
    cudaStream_t stream;
    CUDART(cudaSetDevice(0));
    CUDART(cudaMalloc(&x, sizeof hx));
    CUDART(cudaMalloc(&y, sizeof hy));
    CUDART(cudaMalloc(&out, sizeof hout));
    CUDART(cudaMalloc(&out2, sizeof hout));
    CUDART(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDART(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CUDART(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));

    // 1. cudaMalloc pointers, a cudaStream_t, the runtime's context.
    static tkrt_kernel k1 = fresh();
    CUDART(cudaMemset(out, 0, sizeof hout));
    tk_status s = tk_add(&k1, stream, x, y, out, N);
    CHECK(s == TK_SUCCESS, "runtime API launch: %s", tkrt_status_string(s));
    CUDART(cudaStreamSynchronize(stream));
    CUDART(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    CHECK(wrong(hout, 1) == 0, "runtime API launch: %d wrong", wrong(hout, 1));
    // The default stream, as nullptr and as cudaStreamPerThread.
    s = tk_add(&k1, nullptr, x, y, out, N);
    CHECK(s == TK_SUCCESS, "default stream: %s", tkrt_status_string(s));
    s = tk_add(&k1, cudaStreamPerThread, x, y, out, N);
    CHECK(s == TK_SUCCESS, "cudaStreamPerThread: %s", tkrt_status_string(s));
    CUDART(cudaDeviceSynchronize());
    CHECK(k1.count == 1, "one context: %u entries", k1.count);

    // 2. Inside stream capture, a kernel already loaded: captured, then replayed.
    for (int mode = 0; mode < 3; mode++) {
        cudaStreamCaptureMode m = mode == 0   ? cudaStreamCaptureModeGlobal
                                  : mode == 1 ? cudaStreamCaptureModeThreadLocal
                                              : cudaStreamCaptureModeRelaxed;
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDART(cudaMemset(out2, 0, sizeof hout));
        CUDART(cudaStreamBeginCapture(stream, m));
        s = tk_add(&k1, stream, x, y, out2, N);
        CHECK(s == TK_SUCCESS, "capture mode %d, loaded kernel: %s", mode, tkrt_status_string(s));
        CUDART(cudaStreamEndCapture(stream, &graph));
        CUDART(cudaGraphInstantiate(&exec, graph, 0));
        CUDART(cudaGraphLaunch(exec, stream));
        CUDART(cudaStreamSynchronize(stream));
        CUDART(cudaMemcpy(hout, out2, sizeof hout, cudaMemcpyDeviceToHost));
        CHECK(wrong(hout, 1) == 0, "graph replay, mode %d: %d wrong", mode, wrong(hout, 1));
        CUDART(cudaGraphExecDestroy(exec));
        CUDART(cudaGraphDestroy(graph));
    }

    // 3. Inside stream capture, a kernel's first launch (its module loads
    //    during the capture). Reported for each capture mode.
    for (int mode = 0; mode < 3; mode++) {
        cudaStreamCaptureMode m = mode == 0   ? cudaStreamCaptureModeGlobal
                                  : mode == 1 ? cudaStreamCaptureModeThreadLocal
                                              : cudaStreamCaptureModeRelaxed;
        static tkrt_kernel k[3] = { fresh(), fresh(), fresh() };
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDART(cudaMemset(out2, 0, sizeof hout));
        CUDART(cudaStreamBeginCapture(stream, m));
        s = tk_add(&k[mode], stream, x, y, out2, N);
        cudaError_t end = cudaStreamEndCapture(stream, &graph);
        int ok = s == TK_SUCCESS && end == cudaSuccess;
        if (ok && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess) {
            CUDART(cudaGraphLaunch(exec, stream));
            CUDART(cudaStreamSynchronize(stream));
            CUDART(cudaMemcpy(hout, out2, sizeof hout, cudaMemcpyDeviceToHost));
            ok = wrong(hout, 1) == 0;
            CUDART(cudaGraphExecDestroy(exec));
        }
        if (end == cudaSuccess)
            CUDART(cudaGraphDestroy(graph));
        printf("  (capture) first load inside capture mode %d: %s; status %d (%s), end capture: "
               "%s\n",
               mode, ok ? "works" : "FAILS", (int)s, tkrt_status_string(s),
               cudaGetErrorString(end));
        cudaGetLastError();
    }
    CUDART(cudaDeviceSynchronize());

    // 4. After cudaDeviceReset, a kernel loaded before the reset: its stale
    //    module is loaded again.
    CUDART(cudaDeviceReset());
    CUDART(cudaMalloc(&x, sizeof hx));
    CUDART(cudaMalloc(&y, sizeof hy));
    CUDART(cudaMalloc(&out, sizeof hout));
    CUDART(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CUDART(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    CUDART(cudaMemset(out, 0, sizeof hout));
    s = tk_add(&k1, nullptr, x, y, out, N);
    cudaError_t sync = cudaDeviceSynchronize();
    CUDART(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    CHECK(s == TK_SUCCESS && sync == cudaSuccess && wrong(hout, 1) == 0 && k1.count == 1,
          "after cudaDeviceReset: status %d (%s), sync %s, %d wrong, %u entries", (int)s,
          tkrt_status_string(s), cudaGetErrorString(sync), wrong(hout, 1), k1.count);

    free((void *)ptx);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
