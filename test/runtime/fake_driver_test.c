/* runtime_stub against a fake driver (fake_libcuda.c), so its caching,
 * locking, fallbacks and error mapping are tested without a GPU:
 *
 *   fake_driver_test FAKE_LIBCUDA.so
 *
 * Prints "ok" and exits 0, or a FAIL line for each failure and exits 1. */
#include "tkrt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL fake_driver_test:%d: ", __LINE__);                                        \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* The fake driver's hooks and counters. */
static int *module_loads, *ptx_loads, *launches, *primary_retains, *stale_launches;
static unsigned *last_grid, *last_block, *last_smem;
static void **last_stream;
static void *(*context_create)(void);
static void (*reset)(void *ctx);
static int (*set_current)(void *ctx);
static int (*get_current)(void **ctx);

static void *hook(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        printf("FAIL fake_driver_test: the fake driver lacks %s\n", name);
        exit(1);
    }
    return p;
}

static const char ptx[] = ".version 8.0\n.target sm_90a\n.visible .entry add(...)\n"
                          ".visible .entry smem(...)\n";
static const char cubin_ok[] = "CUBIN-OK add smem";
static const char cubin_other[] = "CUBIN-OTHER add";

/* A kernel of its own module (one sm_90a cubin, or none, and the PTX),
 * from a pool that outlives the test. */
enum { POOL = 128 };
static tkrt_module modules[POOL];
static tkrt_image images[POOL];
static unsigned shared[POOL][2];
static int pool_used;

static tkrt_kernel make(const char *name, const char *cubin, const char *text, unsigned threads,
                        unsigned smem)
{
    tkrt_kernel k;
    int m = pool_used++;
    if (m >= POOL) {
        printf("FAIL fake_driver_test: the module pool is too small\n");
        exit(1);
    }
    memset(&k, 0, sizeof k);
    images[m].arch = "sm_90a";
    images[m].major = 9;
    images[m].minor = 0;
    images[m].arch_specific = 1;
    images[m].cubin = (const unsigned char *)cubin;
    images[m].size = cubin ? strlen(cubin) + 1 : 0;
    memset(&modules[m], 0, sizeof modules[m]);
    modules[m].images = cubin ? &images[m] : NULL;
    modules[m].num_images = cubin ? 1 : 0;
    modules[m].ptx = text;
    modules[m].ptx_arch = "sm_90a";
    shared[m][0] = shared[m][1] = smem;
    k.name = name;
    k.module = &modules[m];
    k.num_threads = threads;
    k.shared_bytes = shared[m];
    return k;
}

static int arg;
static void *args[1] = { &arg };

static tk_status go(tkrt_kernel *k)
{
    return tkrt_launch(k, NULL, 3, 2, 1, args);
}

static int one_line(const char *s)
{
    return s && s[0] && !strchr(s, '\n');
}

/* ---- threads --------------------------------------------------------- */

enum { THREADS = 16, LAUNCHES = 500 };
static tkrt_kernel shared_kernel;
static void *second_context;
static int thread_failures;
static pthread_barrier_t barrier;

static void *thread_main(void *p)
{
    int i, id = (int)(size_t)p;
    if (id % 2)
        set_current(second_context);
    pthread_barrier_wait(&barrier);
    for (i = 0; i < LAUNCHES; i++)
        if (tkrt_launch(&shared_kernel, (tk_stream)p, 1, 1, 1, args) != TK_SUCCESS)
            __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
    pthread_barrier_wait(&barrier); /* everyone has launched: main resets the contexts */
    pthread_barrier_wait(&barrier);
    for (i = 0; i < LAUNCHES; i++)
        if (tkrt_launch(&shared_kernel, (tk_stream)p, 1, 1, 1, args) != TK_SUCCESS)
            __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    void *lib, *primary = NULL;
    tkrt_kernel k;
    tk_status s;
    int loads, i;
    const char *text;

    if (argc != 2) {
        printf("FAIL fake_driver_test: usage: fake_driver_test FAKE_LIBCUDA.so\n");
        return 1;
    }
    setenv("TKRT_LIBCUDA", argv[1], 1);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("FAIL fake_driver_test: %s\n", dlerror());
        return 1;
    }
    module_loads = hook(lib, "fake_module_loads");
    ptx_loads = hook(lib, "fake_ptx_loads");
    launches = hook(lib, "fake_launches");
    primary_retains = hook(lib, "fake_primary_retains");
    stale_launches = hook(lib, "fake_stale_launches");
    last_grid = hook(lib, "fake_last_grid");
    last_block = hook(lib, "fake_last_block");
    last_smem = hook(lib, "fake_last_smem");
    last_stream = hook(lib, "fake_last_stream");
    *(void **)&context_create = hook(lib, "fake_context_create");
    *(void **)&reset = hook(lib, "fake_reset");
    *(void **)&set_current = hook(lib, "cuCtxSetCurrent");
    *(void **)&get_current = hook(lib, "cuCtxGetCurrent");

    /* 1. First launch, no current context: the primary context is retained
     *    and made current, the PTX is JIT-compiled once, the grid, block,
     *    shared memory and stream reach cuLaunchKernel. */
    k = make("add", NULL, ptx, 128, 0);
    s = tkrt_launch(&k, (tk_stream)0x1234, 3, 2, 1, args);
    CHECK(s == TK_SUCCESS, "first launch: %s", tkrt_status_string(s));
    get_current(&primary);
    CHECK(primary != NULL && *primary_retains == 1, "primary context made current");
    CHECK(k.count == 1 && k.loaded[0].context == primary && k.loaded[0].function, "one entry");
    CHECK(*ptx_loads == 1 && *launches == 1, "one JIT, one launch");
    CHECK(last_grid[0] == 3 && last_grid[1] == 2 && last_grid[2] == 1 && *last_block == 128 &&
              *last_smem == 0 && *last_stream == (void *)0x1234,
          "launch parameters");
    CHECK(tkrt_status() == TK_SUCCESS && tkrt_last_cuda_error() == 0, "success recorded");
    s = go(&k);
    CHECK(s == TK_SUCCESS && *ptx_loads == 1 && *launches == 2, "second launch: cached");

    /* 2. Cubins: one for this GPU; one for another GPU (falls back to the
     *    PTX, or fails without it); a garbage one (falls back likewise). */
    loads = *module_loads;
    k = make("add", cubin_ok, ptx, 128, 0);
    s = go(&k);
    CHECK(s == TK_SUCCESS && *module_loads == loads + 1 && *ptx_loads == 1, "cubin: %s",
          tkrt_status_string(s));
    k = make("add", cubin_other, ptx, 128, 0);
    s = go(&k);
    CHECK(s == TK_SUCCESS && *ptx_loads == 2, "other-arch cubin + ptx: %s", tkrt_status_string(s));
    k = make("add", "garbage", ptx, 128, 0);
    s = go(&k);
    CHECK(s == TK_SUCCESS && *ptx_loads == 3, "garbage cubin + ptx: %s", tkrt_status_string(s));
    k = make("add", cubin_other, NULL, 128, 0);
    s = go(&k);
    text = tkrt_status_string(s);
    CHECK(s == TK_ERROR_MODULE_LOAD && tkrt_last_cuda_error() == 209 &&
              strstr(text, "add: ") == text && strstr(text, "CUDA_ERROR_NO_BINARY_FOR_GPU"),
          "other-arch cubin alone: %s", text);
    CHECK(k.count == 0, "nothing cached after a failed load");

    /* 3. Bad PTX (its log in the message, on one line), a missing kernel. */
    k = make("add", cubin_other, "not ptx at all", 128, 0);
    s = go(&k);
    text = tkrt_status_string(s);
    CHECK(s == TK_ERROR_MODULE_LOAD && tkrt_last_cuda_error() == 218 &&
              strstr(text, "syntax error") && strstr(text, "CUDA_ERROR_NO_BINARY_FOR_GPU") &&
              strstr(text, "CUDA_ERROR_INVALID_PTX") && one_line(text),
          "bad ptx: %s", text);
    k = make("nonesuch", NULL, ptx, 128, 0);
    s = go(&k);
    text = tkrt_status_string(s);
    CHECK(s == TK_ERROR_MODULE_LOAD && tkrt_last_cuda_error() == 500 && strstr(text, "nonesuch"),
          "missing kernel: %s", text);

    /* 4. Shared memory: 40 KB needs no opt-in, 100 KB does, 300 KB is too much. */
    k = make("smem", NULL, ptx, 256, 40 * 1024);
    s = go(&k);
    CHECK(s == TK_SUCCESS && *last_smem == 40 * 1024, "40 KB: %s", tkrt_status_string(s));
    k = make("smem", cubin_ok, ptx, 256, 100 * 1024);
    s = go(&k);
    CHECK(s == TK_SUCCESS && *last_smem == 100 * 1024, "100 KB: %s", tkrt_status_string(s));
    k = make("smem", NULL, ptx, 256, 300 * 1024);
    s = go(&k);
    text = tkrt_status_string(s);
    CHECK(s == TK_ERROR_LAUNCH && strstr(text, "232448") && strstr(text, "307200"),
          "300 KB: %s", text);

    /* 5. An empty grid (an empty input) is a success that launches and
     * loads nothing, as in Triton and cuBLAS; bad values are refused. */
    k = make("add", NULL, ptx, 128, 0);
    loads = *launches;
    CHECK(tkrt_launch(&k, NULL, 0, 1, 1, args) == TK_SUCCESS, "zero grid_x");
    CHECK(tkrt_launch(&k, NULL, 1, 0, 1, args) == TK_SUCCESS, "zero grid_y");
    CHECK(tkrt_launch(&k, NULL, 1, 1, 0, args) == TK_SUCCESS, "zero grid_z");
    CHECK(tkrt_status() == TK_SUCCESS, "an empty grid's status is recorded");
    CHECK(*launches == loads && k.count == 0, "an empty grid launches and loads nothing");
    CHECK(tkrt_launch(&k, NULL, 0x80000000u, 1, 1, args) == TK_ERROR_INVALID_VALUE, "grid_x");
    CHECK(tkrt_launch(&k, NULL, 1, 1, 65536, args) == TK_ERROR_INVALID_VALUE, "grid_z");
    k.num_threads = 0;
    CHECK(go(&k) == TK_ERROR_INVALID_VALUE, "0 threads");
    k.num_threads = 1025;
    CHECK(go(&k) == TK_ERROR_INVALID_VALUE, "1025 threads");
    k = make("add", NULL, NULL, 128, 0);
    CHECK(go(&k) == TK_ERROR_INVALID_VALUE, "neither cubin nor ptx");
    CHECK(tkrt_launch(NULL, NULL, 1, 1, 1, args) == TK_ERROR_INVALID_VALUE, "NULL kernel");
    CHECK(*launches == loads, "nothing launched");

    /* 6. A failing cuLaunchKernel. */
    k = make("add", NULL, ptx, 128, 0);
    s = tkrt_launch(&k, NULL, 1, 1, 1, NULL);
    text = tkrt_status_string(s);
    CHECK(s == TK_ERROR_LAUNCH && tkrt_last_cuda_error() == 1 &&
              strstr(text, "CUDA_ERROR_INVALID_VALUE"),
          "launch error: %s", text);
    CHECK(strcmp(tkrt_status_string(TK_ERROR_CUDA), "a CUDA driver call failed") == 0,
          "another status gets the general text");

    /* 7. A context destroyed and remade at the same address: it has a new
     *    id, so the stale module is never launched; the module is loaded
     *    again, once, into the same entry. */
    k = make("add", NULL, ptx, 128, 0);
    CHECK(go(&k) == TK_SUCCESS, "before reset");
    loads = *ptx_loads;
    reset(primary);
    s = go(&k);
    CHECK(s == TK_SUCCESS && *ptx_loads == loads + 1 && k.count == 1, "after reset: %s",
          tkrt_status_string(s));
    CHECK(go(&k) == TK_SUCCESS && *ptx_loads == loads + 1, "after reset, again");
    CHECK(*stale_launches == 0, "a stale function was launched");

    /* 8. Sixteen contexts a kernel; the 17th is refused. */
    {
        void *ctx[16];
        k = make("add", NULL, ptx, 128, 0);
        CHECK(go(&k) == TK_SUCCESS, "context 1");
        for (i = 1; i < 16; i++) {
            ctx[i] = context_create();
            set_current(ctx[i]);
            CHECK(go(&k) == TK_SUCCESS, "context %d", i + 1);
        }
        set_current(context_create());
        s = go(&k);
        text = tkrt_status_string(s);
        CHECK(s == TK_ERROR_TOO_MANY_CONTEXTS && strstr(text, "16"), "context 17: %s", text);
        set_current(ctx[7]);
        CHECK(go(&k) == TK_SUCCESS && k.count == 16, "context 8 again");
        reset(ctx[7]);
        loads = *ptx_loads;
        CHECK(go(&k) == TK_SUCCESS && k.count == 16 && *ptx_loads == loads + 1,
              "context 8 reset, with all entries taken: its entry is reused");
        set_current(primary);
    }

    /* 9. Threads in two contexts launch one fresh kernel at once: one load a
     *    context; then both contexts are reset under them: one reload each. */
    {
        pthread_t t[THREADS];
        second_context = context_create();
        shared_kernel = make("add", NULL, ptx, 128, 0);
        loads = *ptx_loads;
        pthread_barrier_init(&barrier, NULL, THREADS + 1);
        for (i = 0; i < THREADS; i++)
            pthread_create(&t[i], NULL, thread_main, (void *)(size_t)i);
        pthread_barrier_wait(&barrier);
        pthread_barrier_wait(&barrier);
        CHECK(shared_kernel.count == 2 && *ptx_loads == loads + 2,
              "threads: %u entries, %d loads", shared_kernel.count, *ptx_loads - loads);
        reset(primary);
        reset(second_context);
        pthread_barrier_wait(&barrier);
        for (i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&barrier);
        CHECK(thread_failures == 0, "threads: %d failed launches", thread_failures);
        CHECK(shared_kernel.count == 2 && *ptx_loads == loads + 4,
              "threads after reset: %u entries, %d loads", shared_kernel.count,
              *ptx_loads - loads);
        CHECK(*primary_retains == 1 + THREADS / 2, "the primary context retained once a thread "
              "without a context (%d)", *primary_retains);
        CHECK(*stale_launches == 0, "threads: %d stale functions launched", *stale_launches);
    }

    /* 11. A module of several cubins (tkc --arch=sm_80,sm_86,sm_90a): the
     *     one for the device's compute capability (sm_90a only on 9.0, sm_86
     *     on 8.6 and 8.9, sm_80 on 8.0), each with its shared memory; the
     *     PTX where none fits; a message naming the cubins where the PTX
     *     cannot serve either. Two kernels of a module load it once. */
    {
        static const char c80[] = "CUBIN-OK add smem sm_80", c86[] = "CUBIN-OK add smem sm_86",
                          c90a[] = "CUBIN-OK add smem sm_90a";
        static const tkrt_image imgs[] = {{"sm_80", 8, 0, 0, (const unsigned char *)c80, sizeof c80},
                                          {"sm_86", 8, 6, 0, (const unsigned char *)c86, sizeof c86},
                                          {"sm_90a", 9, 0, 1, (const unsigned char *)c90a, sizeof c90a}};
        static const unsigned smem_add[] = {1000, 2000, 3000, 4000}, smem_other[] = {0, 0, 0, 0};
        static const struct { int major, minor; const char *cubin; unsigned smem; } cases[] = {
            {9, 0, c90a, 3000}, {8, 6, c86, 2000}, {8, 9, c86, 2000}, {8, 0, c80, 1000}, {7, 5, NULL, 4000},
            {10, 0, NULL, 4000}};
        int *cc_major = (int *)hook(lib, "fake_cc_major"), *cc_minor = (int *)hook(lib, "fake_cc_minor");
        const void **last_cubin = (const void **)hook(lib, "fake_last_cubin");
        const int *last_pdl = (const int *)hook(lib, "fake_last_pdl");
        for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
            tkrt_module m = TKRT_MODULE_INIT(imgs, 3, ptx, "sm_90a");
            tkrt_kernel a = TKRT_KERNEL_INIT("add", &m, 128, smem_add);
            tkrt_kernel b = TKRT_KERNEL_INIT("smem", &m, 128, smem_other);
            int before = *module_loads, ptx_before = *ptx_loads;
            *cc_major = cases[i].major;
            *cc_minor = cases[i].minor;
            *last_cubin = NULL;
            s = go(&a);
            CHECK(s == TK_SUCCESS && *last_smem == cases[i].smem, "images on %d.%d: %s, %u bytes", cases[i].major,
                  cases[i].minor, tkrt_status_string(s), *last_smem);
            CHECK(*last_cubin == (const void *)cases[i].cubin, "images on %d.%d: the cubin loaded is %s",
                  cases[i].major, cases[i].minor, *last_cubin ? (const char *)*last_cubin : "none");
            CHECK(*ptx_loads == ptx_before + (cases[i].cubin == NULL), "images on %d.%d: PTX loads",
                  cases[i].major, cases[i].minor);
            CHECK(go(&b) == TK_SUCCESS && *module_loads == before + 1, "images on %d.%d: one load for two "
                  "kernels (%d)", cases[i].major, cases[i].minor, *module_loads - before);
            CHECK(*last_pdl == 0, "images on %d.%d: an ordinary kernel launched with PDL", cases[i].major,
                  cases[i].minor);
            {
                /* programmatic dependent launch where the code loaded is
                 * for sm_90 or newer (the sm_90a cubin, or the sm_90a PTX) */
                tkrt_kernel p = TKRT_KERNEL_INIT_FLAGS("add", &m, 128, smem_add, TKRT_KERNEL_PDL);
                int want = cases[i].cubin == c90a || cases[i].cubin == NULL;
                s = go(&p);
                CHECK(s == TK_SUCCESS && *last_pdl == want, "images on %d.%d: a launch_pdl kernel: %s, PDL %d",
                      cases[i].major, cases[i].minor, tkrt_status_string(s), *last_pdl);
                s = go(&p);
                CHECK(s == TK_SUCCESS && *last_pdl == want, "images on %d.%d: a launch_pdl kernel again: PDL %d",
                      cases[i].major, cases[i].minor, *last_pdl);
            }
        }
        {
            tkrt_module m = TKRT_MODULE_INIT(imgs, 2, "not ptx at all", "sm_86");
            tkrt_kernel a = TKRT_KERNEL_INIT("add", &m, 128, smem_add);
            *cc_major = 9;
            *cc_minor = 0;
            s = go(&a);
            text = tkrt_status_string(s);
            CHECK(s == TK_ERROR_MODULE_LOAD && strstr(text, "compute capability 9.0") &&
                      strstr(text, "cubins for sm_80, sm_86") && strstr(text, "PTX (for sm_86) cannot be") &&
                      one_line(text),
                  "no cubin fits, bad PTX: %s", text);
            m.ptx = NULL;
            s = go(&a);
            text = tkrt_status_string(s);
            CHECK(s == TK_ERROR_MODULE_LOAD && strstr(text, "no PTX") && strstr(text, "--arch"),
                  "no cubin fits, no PTX: %s", text);
        }
        *cc_major = 9;
        *cc_minor = 0;
    }

    /* 10. Every status has a one-line string. */
    for (i = TK_SUCCESS; i <= TK_ERROR_REQUIREMENT; i++)
        CHECK(one_line(tkrt_status_string((tk_status)i)), "status %d", i);

    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
