/* runtime_stub against the real driver (libcuda.so.1, or $TKRT_LIBCUDA).
 *
 *   driver_test KERNELS.PTX [CUBIN [OTHER_ARCH_CUBIN]]
 *
 * Without a driver or a device it checks that tkrt_launch says so cleanly
 * (TK_ERROR_NO_DRIVER / TK_ERROR_NO_DEVICE with a message), prints
 * "ok (skipped: ...)" and exits 0. With a GPU it runs the kernels of
 * KERNELS.PTX (test/runtime/kernels.ptx) through tkrt_launch and checks
 * their results: PTX JIT, CUBIN (built by ptxas for this GPU), the fallback
 * from a cubin of another architecture to the PTX, load errors, the opt-in
 * to 100 KB of dynamic shared memory, 3-D grids, empty grids (nothing runs), concurrent
 * first launches from several threads, many contexts, and a primary
 * context reset. Memory comes from the driver, looked up here with dlsym
 * as well, so this test needs no CUDA header or library to build.
 * Prints "ok" and exits 0, or a FAIL line for each failure and exits 1. */
#include "tkrt.h"
/* kernels/vector_add.tk, built by the Makefile for sm_80,sm_90a and for sm_80 */
#define TKC_IMPLEMENTATION
#include "va_multi.h"
#include "va_sm80.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;

static struct {
    CUresult (*cuCtxGetCurrent)(void **ctx);
    CUresult (*cuCtxSetCurrent)(void *ctx);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuMemAlloc)(CUdeviceptr *p, size_t size);
    CUresult (*cuMemFree)(CUdeviceptr p);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t size);
    CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t size);
    CUresult (*cuDevicePrimaryCtxReset)(int device);
    CUresult (*cuDevicePrimaryCtxRetain)(void **ctx, int device);
    CUresult (*cuCtxCreate)(void **ctx, unsigned flags, int device); /* cuCtxCreate_v2 */
    CUresult (*cuCtxDestroy)(void *ctx);
    CUresult (*cuLaunchKernel)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned smem, void *stream,
                               void **params, void **extra);
    CUresult (*cuCtxGetDevice)(CUdevice *device);
    CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
} d;

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL driver_test:%d: ", __LINE__);                                             \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define CU(call) CHECK((call) == 0, "%s", #call)

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *data;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)n + 1);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    data[n] = '\0';
    *size = (size_t)n;
    return data;
}

static int load_driver(void)
{
    const char *path = getenv("TKRT_LIBCUDA");
    void *h = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    struct { const char *name; void *slot; } syms[] = {
        { "cuCtxGetCurrent", &d.cuCtxGetCurrent }, { "cuCtxSetCurrent", &d.cuCtxSetCurrent },
        { "cuCtxSynchronize", &d.cuCtxSynchronize }, { "cuMemAlloc_v2", &d.cuMemAlloc },
        { "cuMemFree_v2", &d.cuMemFree }, { "cuMemcpyHtoD_v2", &d.cuMemcpyHtoD },
        { "cuMemcpyDtoH_v2", &d.cuMemcpyDtoH },
        { "cuDevicePrimaryCtxReset_v2", &d.cuDevicePrimaryCtxReset },
        { "cuDevicePrimaryCtxRetain", &d.cuDevicePrimaryCtxRetain },
        { "cuCtxCreate_v2", &d.cuCtxCreate }, { "cuCtxDestroy_v2", &d.cuCtxDestroy },
        { "cuLaunchKernel", &d.cuLaunchKernel }, { "cuCtxGetDevice", &d.cuCtxGetDevice },
        { "cuDeviceGetAttribute", &d.cuDeviceGetAttribute },
    };
    size_t i;
    if (!h)
        return 0;
    for (i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *a = dlsym(h, syms[i].name);
        memcpy(syms[i].slot, &a, sizeof a);
        if (!a && strcmp(syms[i].name, "cuCtxCreate_v2") != 0)
            return 0;
    }
    return 1;
}

/* A kernel of its own module: a cubin for `arch` ("sm_90a": the cubin
 * given as this GPU's; "sm_80": the other one) or none, and the PTX. From a
 * pool that outlives the test. */
enum { POOL = 64 };
static tkrt_module modules[POOL];
static tkrt_image images[POOL];
static unsigned shared[POOL][2];
static int pool_used;

static tkrt_kernel make_for(const char *name, const void *cubin, size_t cubin_size, const char *arch,
                            const char *ptx, unsigned threads, unsigned smem)
{
    tkrt_kernel k;
    int m = pool_used++ % POOL;
    memset(&k, 0, sizeof k);
    memset(&modules[m], 0, sizeof modules[m]);
    images[m].arch = arch;
    images[m].major = strcmp(arch, "sm_80") == 0 ? 8 : 9;
    images[m].minor = 0;
    images[m].arch_specific = strcmp(arch, "sm_90a") == 0;
    images[m].cubin = (const unsigned char *)cubin;
    images[m].size = cubin_size;
    modules[m].images = cubin ? &images[m] : NULL;
    modules[m].num_images = cubin ? 1 : 0;
    modules[m].ptx = ptx;
    modules[m].ptx_arch = "sm_80";
    shared[m][0] = shared[m][1] = smem;
    k.name = name;
    k.module = &modules[m];
    k.num_threads = threads;
    k.shared_bytes = shared[m];
    return k;
}

static tkrt_kernel make(const char *name, const void *cubin, size_t cubin_size, const char *ptx,
                        unsigned threads, unsigned smem)
{
    return make_for(name, cubin, cubin_size, "sm_90a", ptx, threads, smem);
}

enum { N = 1000003 };
static float hx[N], hy[N], hout[N];

/* Adds x and y of n elements through `launch` and checks out = x + y. */
typedef tk_status (*add_launch)(void *with, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, int n);

static void check_sums(add_launch launch, void *with, const char *what)
{
    CUdeviceptr x, y, out;
    int i, bad = 0;
    tk_status s;
    for (i = 0; i < N; i++) {
        hx[i] = (float)i;
        hy[i] = (float)(2 * i) + 0.5f;
        hout[i] = -1.0f;
    }
    CU(d.cuMemAlloc(&x, sizeof hx));
    CU(d.cuMemAlloc(&y, sizeof hy));
    CU(d.cuMemAlloc(&out, sizeof hout));
    CU(d.cuMemcpyHtoD(x, hx, sizeof hx));
    CU(d.cuMemcpyHtoD(y, hy, sizeof hy));
    CU(d.cuMemcpyHtoD(out, hout, sizeof hout));
    s = launch(with, x, y, out, N);
    CHECK(s == TK_SUCCESS, "%s: launch: %s", what, tkrt_status_string(s));
    CU(d.cuCtxSynchronize());
    CU(d.cuMemcpyDtoH(hout, out, sizeof hout));
    for (i = 0; i < N; i++)
        bad += hout[i] != hx[i] + hy[i];
    CHECK(bad == 0, "%s: %d wrong sums (out[0] = %g)", what, bad, (double)hout[0]);
    CU(d.cuMemFree(x));
    CU(d.cuMemFree(y));
    CU(d.cuMemFree(out));
}

static tk_status launch_raw(void *with, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, int n)
{
    void *args[4];
    args[0] = &x;
    args[1] = &y;
    args[2] = &out;
    args[3] = &n;
    return tkrt_launch((tkrt_kernel *)with, NULL, (unsigned)(n + 127) / 128, 1, 1, args);
}

/* Runs tk_add through `k` on N elements and checks out = x + y. */
static void add_test(tkrt_kernel *k, const char *what)
{
    check_sums(launch_raw, k, what);
}

/* kernels/vector_add.tk's launchers from two generated headers: one of
 * cubins for sm_80 and sm_90a (the Makefile builds it with --arch), one of
 * sm_80 alone */
static tk_status launch_multi(void *with, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, int n)
{
    (void)with;
    return va_multi_vector_add(NULL, TK_DEVICE_PTR(const float, x), TK_DEVICE_PTR(const float, y),
                               TK_DEVICE_PTR(float, out), n);
}

static tk_status launch_sm80(void *with, CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, int n)
{
    (void)with;
    return va_sm80_vector_add(NULL, TK_DEVICE_PTR(const float, x), TK_DEVICE_PTR(const float, y),
                              TK_DEVICE_PTR(float, out), n);
}

static tkrt_kernel shared_add; /* launched from several threads at once */
static CUdeviceptr tx, ty, tout;

static void *thread_main(void *unused)
{
    int n = N;
    void *args[4];
    tk_status s;
    (void)unused;
    args[0] = &tx;
    args[1] = &ty;
    args[2] = &tout;
    args[3] = &n;
    s = tkrt_launch(&shared_add, NULL, (N + 127) / 128, 1, 1, args);
    CHECK(s == TK_SUCCESS, "threads: tkrt_launch: %s", tkrt_status_string(s));
    CU(d.cuCtxSynchronize());
    return NULL;
}

int main(int argc, char **argv)
{
    size_t ptx_size = 0, cubin_size = 0, other_size = 0;
    char *ptx, *cubin = NULL, *other = NULL;
    void *ctx = NULL;
    CUdeviceptr out;
    int i, n = 0, bad;
    void *args[4];
    int hint[1024];
    tk_status s;
    tkrt_kernel k;

    if (argc < 2 || !(ptx = read_file(argv[1], &ptx_size))) {
        printf("FAIL driver_test: usage: driver_test KERNELS.PTX [CUBIN [OTHER_ARCH_CUBIN]]\n");
        return 1;
    }
    if (argc > 2 && !(cubin = read_file(argv[2], &cubin_size)))
        printf("FAIL driver_test: cannot read %s\n", argv[2]), failures++;
    if (argc > 3 && !(other = read_file(argv[3], &other_size)))
        printf("FAIL driver_test: cannot read %s\n", argv[3]), failures++;

    /* 1. The first launch: finds the driver and, with no current context,
     *    makes device 0's primary context current. n = 0: nothing to add. */
    k = make("tk_add", NULL, 0, ptx, 128, 0);
    args[0] = args[1] = args[2] = &ctx; /* NULL pointers, never read */
    args[3] = &n;
    s = tkrt_launch(&k, NULL, 1, 1, 1, args);
    if (s == TK_ERROR_NO_DRIVER || s == TK_ERROR_NO_DEVICE) {
        const char *text = tkrt_status_string(s);
        CHECK(text && strstr(text, "libcuda") != NULL, "the message names libcuda: %s", text);
        free(ptx);
        free(cubin);
        free(other);
        if (failures)
            return 1;
        printf("ok (skipped: %s)\n", text);
        return 0;
    }
    CHECK(s == TK_SUCCESS, "first launch: %s", tkrt_status_string(s));
    CHECK(tkrt_last_cuda_error() == 0, "last CUresult after success is %d", tkrt_last_cuda_error());
    if (s != TK_SUCCESS || !load_driver()) {
        printf("FAIL driver_test: cannot go on\n");
        return 1;
    }
    CU(d.cuCtxGetCurrent(&ctx));
    CHECK(ctx != NULL, "tkrt_launch made a context current");
    CHECK(k.count == 1 && k.loaded[0].context == ctx, "one cache entry, for the current context");
    CU(d.cuCtxSynchronize());

    /* 2. PTX JIT, then the same kernel again (cached). */
    add_test(&k, "ptx");
    add_test(&k, "ptx, cached");
    CHECK(k.count == 1, "still one cache entry (%u)", k.count);

    /* 3. The cubin for this GPU, with and without PTX beside it. */
    if (cubin) {
        k = make("tk_add", (const unsigned char *)cubin, cubin_size, NULL, 128, 0);
        add_test(&k, "cubin");
        k = make("tk_add", (const unsigned char *)cubin, cubin_size, ptx, 256, 0);
        add_test(&k, "cubin + ptx");
    }
    /* 4. A cubin for another GPU: falls back to the PTX; without PTX, fails. */
    if (other) {
        k = make_for("tk_add", (const unsigned char *)other, other_size, "sm_80", ptx, 128, 0);
        add_test(&k, "other-arch cubin falls back to ptx");
        k = make_for("tk_add", (const unsigned char *)other, other_size, "sm_80", NULL, 128, 0);
        s = tkrt_launch(&k, NULL, 1, 1, 1, args);
        CHECK(s == TK_ERROR_MODULE_LOAD, "other-arch cubin without ptx: %s", tkrt_status_string(s));
        CHECK(strstr(tkrt_status_string(s), "cubins for sm_80") != NULL &&
                  strstr(tkrt_status_string(s), "compute capability") != NULL, "%s", tkrt_status_string(s));
        printf("  (message) %s\n", tkrt_status_string(s));
        /* the same cubin said to be this GPU's: the driver's refusal, then the PTX */
        k = make("tk_add", (const unsigned char *)other, other_size, NULL, 128, 0);
        s = tkrt_launch(&k, NULL, 1, 1, 1, args);
        CHECK(s == TK_ERROR_MODULE_LOAD && tkrt_last_cuda_error() == 209, "a mislabelled cubin: %s (%d)",
              tkrt_status_string(s), tkrt_last_cuda_error());
        k = make("tk_add", (const unsigned char *)other, other_size, ptx, 128, 0);
        add_test(&k, "a mislabelled cubin falls back to ptx");
    }
    /* 5. Load errors: garbage PTX, a garbage cubin without PTX, a missing name. */
    k = make("tk_add", NULL, 0, ".version 7.8\n.target sm_80\n.address_size 64\nthis is not ptx\n",
             128, 0);
    s = tkrt_launch(&k, NULL, 1, 1, 1, args);
    CHECK(s == TK_ERROR_MODULE_LOAD, "bad ptx: %s", tkrt_status_string(s));
    printf("  (message) %s\n", tkrt_status_string(s));
    k = make("tk_add", (const unsigned char *)"garbage!", 8, NULL, 128, 0);
    s = tkrt_launch(&k, NULL, 1, 1, 1, args);
    CHECK(s == TK_ERROR_MODULE_LOAD, "bad cubin: %s", tkrt_status_string(s));
    printf("  (message) %s\n", tkrt_status_string(s));
    k = make("tk_nonesuch", NULL, 0, ptx, 128, 0);
    s = tkrt_launch(&k, NULL, 1, 1, 1, args);
    CHECK(s == TK_ERROR_MODULE_LOAD && tkrt_last_cuda_error() == 500, "missing name: %s",
          tkrt_status_string(s));
    printf("  (message) %s\n", tkrt_status_string(s));
    CHECK(k.count == 0, "nothing cached after a failed load");

    /* 6. 100 KB of dynamic shared memory (opt-in above 48 KB); too much fails. */
    CU(d.cuMemAlloc(&out, sizeof hint));
    k = make("tk_smem", cubin ? (const unsigned char *)cubin : NULL, cubin_size, ptx, 1024,
             100 * 1024);
    args[0] = &out;
    s = tkrt_launch(&k, NULL, 1, 1, 1, args);
    CHECK(s == TK_SUCCESS, "100 KB smem: %s", tkrt_status_string(s));
    CU(d.cuCtxSynchronize());
    CU(d.cuMemcpyDtoH(hint, out, sizeof hint));
    for (bad = 0, i = 0; i < 1024; i++)
        bad += hint[i] != i + 7;
    CHECK(bad == 0, "smem: %d wrong values", bad);
    k = make("tk_smem", NULL, 0, ptx, 1024, 400 * 1024);
    s = tkrt_launch(&k, NULL, 1, 1, 1, args);
    CHECK(s == TK_ERROR_LAUNCH, "400 KB smem: %s", tkrt_status_string(s));
    printf("  (message) %s\n", tkrt_status_string(s));

    /* 7. A 3-D grid, and an empty grid (success; nothing runs). */
    {
        static int hgrid[5 * 4 * 3 + 1];
        CUdeviceptr g;
        CU(d.cuMemAlloc(&g, sizeof hgrid));
        memset(hgrid, 0, sizeof hgrid);
        CU(d.cuMemcpyHtoD(g, hgrid, sizeof hgrid));
        k = make("tk_grid", NULL, 0, ptx, 32, 0);
        args[0] = &g;
        s = tkrt_launch(&k, NULL, 5, 4, 3, args);
        CHECK(s == TK_SUCCESS, "3-D grid: %s", tkrt_status_string(s));
        s = tkrt_launch(&k, NULL, 0, 4, 3, args);
        CHECK(s == TK_SUCCESS, "empty grid: %s", tkrt_status_string(s));
        CU(d.cuCtxSynchronize());
        CU(d.cuMemcpyDtoH(hgrid, g, sizeof hgrid));
        for (bad = 0, i = 0; i < 5 * 4 * 3; i++)
            bad += hgrid[i] != i + 1;
        CHECK(bad == 0 && hgrid[60] == 0, "3-D grid: %d wrong blocks", bad);
        CU(d.cuMemFree(g));
    }

    /* 8. A launch error: a kernel with parameters launched without them. */
    k = make("tk_add", NULL, 0, ptx, 128, 0);
    s = tkrt_launch(&k, NULL, 1, 1, 1, NULL);
    CHECK(s == TK_ERROR_LAUNCH, "launch without arguments: %s", tkrt_status_string(s));
    printf("  (message) %s\n", tkrt_status_string(s));

    /* 9. Eight threads, none with a current context, launch one fresh kernel
     *    at once: one module load, eight right answers. */
    {
        pthread_t t[8];
        shared_add = make("tk_add", NULL, 0, ptx, 128, 0);
        for (i = 0; i < N; i++) {
            hx[i] = (float)i;
            hy[i] = 1.0f;
        }
        CU(d.cuMemAlloc(&tx, sizeof hx));
        CU(d.cuMemAlloc(&ty, sizeof hy));
        CU(d.cuMemAlloc(&tout, sizeof hout));
        CU(d.cuMemcpyHtoD(tx, hx, sizeof hx));
        CU(d.cuMemcpyHtoD(ty, hy, sizeof hy));
        for (i = 0; i < 8; i++)
            CHECK(pthread_create(&t[i], NULL, thread_main, NULL) == 0, "pthread_create");
        for (i = 0; i < 8; i++)
            pthread_join(t[i], NULL);
        CHECK(shared_add.count == 1, "threads: %u cache entries", shared_add.count);
        CU(d.cuMemcpyDtoH(hout, tout, sizeof hout));
        for (bad = 0, i = 0; i < N; i++)
            bad += hout[i] != (float)i + 1.0f;
        CHECK(bad == 0, "threads: %d wrong sums", bad);
    }

    /* 10. Seventeen contexts: sixteen get a module each, the 17th is refused. */
    if (d.cuCtxCreate) {
        void *ctxs[17];
        int made = 0;
        k = make("tk_add", NULL, 0, ptx, 128, 0);
        n = 0;
        args[0] = args[1] = args[2] = &ctx;
        args[3] = &n;
        for (i = 0; i < 17; i++) {
            if (d.cuCtxCreate(&ctxs[i], 0, 0) != 0)
                break;
            made++;
            s = tkrt_launch(&k, NULL, 1, 1, 1, args);
            if (i < 16)
                CHECK(s == TK_SUCCESS, "context %d: %s", i, tkrt_status_string(s));
            else
                CHECK(s == TK_ERROR_TOO_MANY_CONTEXTS, "context 17: %s", tkrt_status_string(s));
            d.cuCtxSynchronize();
        }
        CHECK(made == 17, "only %d contexts made", made);
        if (s == TK_ERROR_TOO_MANY_CONTEXTS)
            printf("  (message) %s\n", tkrt_status_string(s));
        /* cuCtxCreate pushed each; destroying the current one pops it. */
        for (i = made - 1; i >= 0; i--)
            CU(d.cuCtxDestroy(ctxs[i]));
        CU(d.cuCtxGetCurrent(&ctx));
        CHECK(ctx == shared_add.loaded[0].context, "the primary context is current again");
    }

    /* 11. After cuDevicePrimaryCtxReset and a new retain (what cudaDeviceReset
     *     and the next runtime call do), kernels loaded before still launch:
     *     the same context handle, a stale module, loaded again. */
    {
        void *again = NULL;
        CU(d.cuDevicePrimaryCtxReset(0));
        CU(d.cuDevicePrimaryCtxRetain(&again, 0));
        CU(d.cuCtxSetCurrent(again));
        printf("  (reset) primary context %p, id %llu before the reset; %p after\n",
               shared_add.loaded[0].context, shared_add.loaded[0].context_id, again);
        add_test(&shared_add, "after a primary context reset");
        CHECK(shared_add.count == 1, "after a reset: %u entries", shared_add.count);
        printf("  (reset) id after the reset: %llu\n", shared_add.loaded[0].context_id);
        add_test(&shared_add, "after a primary context reset, again");
    }

    /* 12. What a launch costs on the host: tkrt_launch against a bare
     *     cuLaunchKernel of the same function (printed, not checked). */
    {
        enum { LAUNCHES = 20000 };
        struct timespec t0, t1, t2, t3;
        n = 0;
        args[0] = args[1] = args[2] = &ctx;
        args[3] = &n;
        k = make("tk_add", NULL, 0, ptx, 128, 0);
        CHECK(tkrt_launch(&k, NULL, 1, 1, 1, args) == TK_SUCCESS, "timing warm-up");
        CU(d.cuCtxSynchronize());
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (i = 0; i < LAUNCHES; i++)
            tkrt_launch(&k, NULL, 1, 1, 1, args);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        CU(d.cuCtxSynchronize());
        clock_gettime(CLOCK_MONOTONIC, &t2);
        for (i = 0; i < LAUNCHES; i++)
            d.cuLaunchKernel(k.loaded[0].function, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t3);
        CU(d.cuCtxSynchronize());
        printf("  (timing) host time a launch: tkrt_launch %.0f ns, cuLaunchKernel %.0f ns\n",
               ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / LAUNCHES,
               ((t3.tv_sec - t2.tv_sec) * 1e9 + (t3.tv_nsec - t2.tv_nsec)) / LAUNCHES);
    }

    /* 13. Generated headers: a module of sm_80 and sm_90a cubins loads the
     *     cubin for this GPU (sm_90a on compute capability 9.0, sm_80 on
     *     8.x, else the PTX); one of sm_80 alone runs here too (on 9.0
     *     through its PTX, as no sm_80 cubin runs on sm_90). */
    {
        int major = 0, minor = 0, jit = -1;
        CUdevice device;
        const char *code;
        CU(d.cuCtxGetDevice(&device));
        CU(d.cuDeviceGetAttribute(&major, 75, device));
        CU(d.cuDeviceGetAttribute(&minor, 76, device));
        check_sums(launch_multi, NULL, "header for sm_80,sm_90a");
        code = tkrt_kernel_code(&tk_va_multi__vector_add, &jit);
        if (major == 9 && minor == 0)
            CHECK(code && !strcmp(code, "sm_90a") && jit == 0, "sm_80,sm_90a on 9.0 runs %s (jit %d)",
                  code ? code : "nothing", jit);
        else if (major == 8)
            CHECK(code && !strcmp(code, "sm_80") && jit == 0, "sm_80,sm_90a on 8.x runs %s", code ? code : "nothing");
        printf("  (multi-target) compute capability %d.%d: the sm_80,sm_90a header runs %s%s\n", major, minor,
               code ? code : "nothing", jit == 1 ? " from its PTX" : "'s cubin");
        jit = -1;
        check_sums(launch_sm80, NULL, "header for sm_80");
        code = tkrt_kernel_code(&tk_va_sm80__vector_add, &jit);
        CHECK(code && !strcmp(code, "sm_80") && jit == (major != 8), "sm_80 alone runs %s (jit %d)",
              code ? code : "nothing", jit);
        printf("  (multi-target) the sm_80 header runs sm_80%s\n", jit == 1 ? " from its PTX" : "'s cubin");
    }

    free(ptx);
    free(cubin);
    free(other);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
