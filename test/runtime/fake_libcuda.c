/* A fake libcuda.so.1 for testing runtime_stub without a GPU: the driver
 * entry points tkrt.c looks up, with just enough behaviour to exercise its
 * caching, locking, fallbacks and error paths. Built as a shared object and
 * named by TKRT_LIBCUDA; fake_driver_test reaches its fake_* hooks with
 * dlsym on the same library.
 *
 *   cubin images: "CUBIN-OK <names>" loads, "CUBIN-OTHER" gives
 *     CUDA_ERROR_NO_BINARY_FOR_GPU, anything else CUDA_ERROR_INVALID_IMAGE;
 *   PTX: loads when it holds ".entry", else CUDA_ERROR_INVALID_PTX with a log;
 *   a function exists when its name occurs in the image;
 *   fake_reset(ctx) destroys and remakes a context at the same address: it
 *     gets a new cuCtxGetId, and its old modules' functions become stale;
 *     launching one is counted in fake_stale_launches (a real driver may
 *     crash on it);
 *   cuDeviceGetAttribute reports compute capability fake_cc_major.minor
 *     and fake_num_sms multiprocessors (132; 0 makes the query fail)
 *     (9.0 unless a test sets it); cuModuleLoadData keeps the last cubin
 *     it loaded in fake_last_cubin;
 *   cuLaunchKernel counts launches and checks the shared-memory opt-in;
 *     cuLaunchKernelEx takes programmatic stream serialization alone and
 *     says in fake_last_pdl that the launch allowed it;
 *     keeps the entry's name in fake_last_kernel,
 *     and copies the arguments whose sizes a test put in fake_arg_sizes
 *     (the first 8 bytes into fake_last_args, up to 256 into fake_last_arg_bytes);
 *   tuning: a fake clock that each launch advances by its kernel's time
 *     (fake_set_kernel_ms; 0.01 ms by default), events that read it,
 *     "device" memory that is host memory (cuMemAlloc is malloc, memset
 *     and memcpy act at once), and a kernel whose name starts with
 *     "clobber" adding 1 to the int its first argument points at, so
 *     that restoring and zeroing can be seen, and one starting "skipfirst"
 *     failing to launch its first config (__v0) as one too big for the
 *     GPU would (allocations past 16 MB have
 *     no memory behind them: the tuner's L2 flush); a kernel given a
 *     fresh time (fake_set_kernel_fresh_ms) takes it instead for its
 *     first settle_ms of runs after another kernel ran, as a GPU at its
 *     power cap runs a kernel at the clock the one before left it;
 *     fake_set_capturing(s)
 *     makes stream s report an active graph capture. */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

#define MAX_CONTEXTS 64
#define MAX_FUNCTIONS 4096
#define SMEM_OPTIN 232448

struct context { int generation; };
struct function { struct context *ctx; int generation; unsigned smem_optin; char name[64]; };

static struct context contexts[MAX_CONTEXTS];
static int ncontexts = 1; /* contexts[0] is the primary context */
static struct function functions[MAX_FUNCTIONS];
static int nfunctions;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static __thread struct context *current;

/* Counters for the test. */
int fake_module_loads, fake_ptx_loads, fake_launches, fake_primary_retains, fake_stale_launches;
unsigned fake_last_grid[3], fake_last_block, fake_last_smem;
char fake_last_kernel[64]; /* the entry the last launch ran */
/* set by a test: the byte sizes of the next launches' arguments (0 ends),
 * whose values each launch copies into fake_last_args */
unsigned fake_arg_sizes[16];
unsigned char fake_last_args[16][8];
/* all of each such argument, up to 256 bytes (a descriptor's block) */
unsigned char fake_last_arg_bytes[16][256];
void *fake_last_stream;

CUresult cuInit(unsigned flags);
CUresult cuGetErrorName(CUresult error, const char **str);
CUresult cuGetErrorString(CUresult error, const char **str);
CUresult cuDeviceGet(int *device, int ordinal);
CUresult cuDeviceGetAttribute(int *value, int attrib, int device);
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device);
CUresult cuCtxGetCurrent(void **ctx);
CUresult cuCtxSetCurrent(void *ctx);
CUresult cuCtxGetDevice(int *device);
CUresult cuCtxGetId(void *ctx, unsigned long long *id);
CUresult cuModuleLoadData(void **module, const void *image);
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options,
                            void **values);
CUresult cuModuleGetFunction(void **function, void *module, const char *name);
CUresult cuModuleUnload(void *module);
CUresult cuFuncSetAttribute(void *function, int attrib, int value);
CUresult cuFuncGetAttribute(int *value, int attrib, void *function);
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void *stream, void **params, void **extra);
void *fake_context_create(void);
void fake_set_kernel_ms(const char *name, double ms);
void fake_set_kernel_fresh_ms(const char *name, double fresh_ms, double settle_ms);
void fake_set_capturing(void *stream);
CUresult cuEventCreate(void **event, unsigned flags);
CUresult cuEventDestroy_v2(void *event);
CUresult cuEventRecord(void *event, void *stream);
CUresult cuEventSynchronize(void *event);
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end);
CUresult cuStreamSynchronize(void *stream);
CUresult cuStreamIsCapturing(void *stream, int *status);
CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes);
CUresult cuMemFree_v2(unsigned long long ptr);
CUresult cuMemsetD32Async(unsigned long long ptr, unsigned value, size_t n, void *stream);
CUresult cuMemsetD8Async(unsigned long long ptr, unsigned char value, size_t n, void *stream);
CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src, size_t n, void *stream);
CUresult cuDeviceGetName(char *name, int len, int device);
void fake_reset(void *ctx);

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }

CUresult cuGetErrorName(CUresult error, const char **str)
{
    switch (error) {
    case 0: *str = "CUDA_SUCCESS"; return 0;
    case 1: *str = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 200: *str = "CUDA_ERROR_INVALID_IMAGE"; return 0;
    case 201: *str = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 209: *str = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return 0;
    case 218: *str = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 400: *str = "CUDA_ERROR_INVALID_HANDLE"; return 0;
    case 500: *str = "CUDA_ERROR_NOT_FOUND"; return 0;
    }
    *str = NULL;
    return 1;
}

CUresult cuGetErrorString(CUresult error, const char **str)
{
    const char *name;
    if (cuGetErrorName(error, &name))
        return 1;
    *str = "fake explanation";
    return 0;
}

CUresult cuDeviceGet(int *device, int ordinal)
{
    if (ordinal != 0)
        return 101;
    *device = 0;
    return 0;
}

/* the device's compute capability (a test may change it) */
int fake_cc_major = 9, fake_cc_minor = 0;
int fake_num_sms = 132;
/* the image of the last cubin loaded */
const void *fake_last_cubin;

CUresult cuDeviceGetAttribute(int *value, int attrib, int device)
{
    (void)device;
    if (attrib == 16 && fake_num_sms == 0)
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    *value = attrib == 97   ? SMEM_OPTIN
             : attrib == 75 ? fake_cc_major
             : attrib == 76 ? fake_cc_minor
             : attrib == 16 ? fake_num_sms
                            : 0;
    return 0;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int device)
{
    if (device != 0)
        return 101;
    __atomic_add_fetch(&fake_primary_retains, 1, __ATOMIC_RELAXED);
    *ctx = &contexts[0];
    return 0;
}

CUresult cuCtxGetCurrent(void **ctx) { *ctx = current; return 0; }
CUresult cuCtxSetCurrent(void *ctx) { current = ctx; return 0; }
CUresult cuCtxGetDevice(int *device) { *device = 0; return current ? 0 : 201; }

CUresult cuCtxGetId(void *ctx, unsigned long long *id)
{
    struct context *c = ctx ? ctx : current;
    if (!c)
        return 201;
    *id = ((unsigned long long)(c - contexts) << 32) + 1 +
          (unsigned long long)__atomic_load_n(&c->generation, __ATOMIC_ACQUIRE);
    return 0;
}

static CUresult new_module(void **module, const void *image)
{
    /* A module is its image: names are looked up in it. Remember the
     * context generation in a function record at GetFunction time. */
    *module = (void *)image;
    __atomic_add_fetch(&fake_module_loads, 1, __ATOMIC_RELAXED);
    return 0;
}

CUresult cuModuleLoadData(void **module, const void *image)
{
    if (!current)
        return 201;
    if (strncmp(image, "CUBIN-OK", 8) == 0) {
        fake_last_cubin = image;
        return new_module(module, image);
    }
    if (strncmp(image, "CUBIN-OTHER", 11) == 0)
        return 209;
    return 200;
}

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *options,
                            void **values)
{
    unsigned i;
    if (!current)
        return 201;
    if (strstr(image, ".entry")) {
        __atomic_add_fetch(&fake_ptx_loads, 1, __ATOMIC_RELAXED);
        return new_module(module, image);
    }
    for (i = 0; i < n; i++)
        if (options[i] == 5) { /* CU_JIT_ERROR_LOG_BUFFER */
            size_t size = 0;
            unsigned j;
            for (j = 0; j < n; j++)
                if (options[j] == 6)
                    size = (size_t)(uintptr_t)values[j];
            if (size > 0) {
                strncpy(values[i], "fake ptxas: line 1: syntax error\n", size - 1);
                ((char *)values[i])[size - 1] = '\0';
            }
        }
    return 218;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name)
{
    struct function *f;
    if (!strstr(module, name))
        return 500;
    pthread_mutex_lock(&mutex);
    if (nfunctions == MAX_FUNCTIONS) {
        pthread_mutex_unlock(&mutex);
        return 2;
    }
    f = &functions[nfunctions++];
    f->ctx = current;
    f->generation = current->generation;
    f->smem_optin = 48 * 1024;
    strncpy(f->name, name, sizeof f->name - 1);
    f->name[sizeof f->name - 1] = '\0';
    pthread_mutex_unlock(&mutex);
    *function = f;
    return 0;
}

CUresult cuModuleUnload(void *module) { (void)module; return 0; }

static int stale(struct function *f)
{
    return f->generation != __atomic_load_n(&f->ctx->generation, __ATOMIC_ACQUIRE);
}

CUresult cuFuncSetAttribute(void *function, int attrib, int value)
{
    struct function *f = function;
    if (stale(f))
        return 400;
    if (attrib != 8 || value < 0 || value > SMEM_OPTIN)
        return 1;
    f->smem_optin = (unsigned)value;
    return 0;
}

CUresult cuFuncGetAttribute(int *value, int attrib, void *function)
{
    struct function *f = function;
    (void)attrib;
    if (stale(f))
        return 400;
    *value = 1024;
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* ---- tuning: a fake clock, events, memory, capture ---- */
static double fake_clock_ms;
static struct { char name[64]; double ms, fresh_ms, settle_ms; } kernel_times[256];
static int nkernel_times;
static char streak_name[64];  /* the kernel launched last, and since when in a row */
static double streak_start_ms;
static void *capturing_stream;

void fake_set_kernel_ms(const char *name, double ms)
{
    int i;
    pthread_mutex_lock(&mutex);
    for (i = 0; i < nkernel_times && strcmp(kernel_times[i].name, name); i++)
        ;
    if (i < (int)(sizeof kernel_times / sizeof kernel_times[0])) {
        strncpy(kernel_times[i].name, name, sizeof kernel_times[i].name - 1);
        kernel_times[i].ms = ms;
        if (i == nkernel_times)
            nkernel_times++;
    }
    pthread_mutex_unlock(&mutex);
}

/* name (set with fake_set_kernel_ms first) takes fresh_ms a run until it
 * has run settle_ms in a row */
void fake_set_kernel_fresh_ms(const char *name, double fresh_ms, double settle_ms)
{
    int i;
    pthread_mutex_lock(&mutex);
    for (i = 0; i < nkernel_times; i++)
        if (!strcmp(kernel_times[i].name, name)) {
            kernel_times[i].fresh_ms = fresh_ms;
            kernel_times[i].settle_ms = settle_ms;
        }
    pthread_mutex_unlock(&mutex);
}

void fake_set_capturing(void *stream) { capturing_stream = stream; }

/* the mutex is held */
static double kernel_ms(const char *name)
{
    int i;
    if (strcmp(streak_name, name)) {
        snprintf(streak_name, sizeof streak_name, "%s", name);
        streak_start_ms = fake_clock_ms;
    }
    for (i = 0; i < nkernel_times; i++)
        if (!strcmp(kernel_times[i].name, name))
            return kernel_times[i].fresh_ms > 0 && fake_clock_ms - streak_start_ms < kernel_times[i].settle_ms
                       ? kernel_times[i].fresh_ms
                       : kernel_times[i].ms;
    return 0.01;
}

int fake_events_live, fake_allocations_live;

CUresult cuEventCreate(void **event, unsigned flags)
{
    (void)flags;
    *event = calloc(1, sizeof(double));
    if (!*event)
        return 2;
    __atomic_add_fetch(&fake_events_live, 1, __ATOMIC_RELAXED);
    return 0;
}

CUresult cuEventDestroy_v2(void *event)
{
    free(event);
    __atomic_sub_fetch(&fake_events_live, 1, __ATOMIC_RELAXED);
    return 0;
}

CUresult cuEventRecord(void *event, void *stream)
{
    (void)stream;
    pthread_mutex_lock(&mutex);
    *(double *)event = fake_clock_ms;
    pthread_mutex_unlock(&mutex);
    return 0;
}

CUresult cuEventSynchronize(void *event) { (void)event; return 0; }

CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end)
{
    *ms = (float)(*(double *)end - *(double *)start);
    return 0;
}

CUresult cuStreamSynchronize(void *stream) { (void)stream; return 0; }

CUresult cuStreamIsCapturing(void *stream, int *status)
{
    *status = capturing_stream && stream == capturing_stream;
    return 0;
}

/* Allocations past 16 MB (the tuner's L2 flush) are addresses with no
 * memory behind them, far from any malloc: memset and memcpy skip them. */
#define UNBACKED 0x7e0000000000ull
static unsigned long long unbacked_next = UNBACKED;

static int unbacked(unsigned long long ptr) { return ptr >= UNBACKED && ptr < UNBACKED + (1ull << 40); }

CUresult cuMemAlloc_v2(unsigned long long *ptr, size_t bytes)
{
    void *p;
    if (bytes > (16u << 20)) {
        __atomic_add_fetch(&fake_allocations_live, 1, __ATOMIC_RELAXED);
        *ptr = __atomic_fetch_add(&unbacked_next, (unsigned long long)bytes, __ATOMIC_RELAXED);
        return 0;
    }
    p = malloc(bytes);
    if (!p)
        return 2;
    __atomic_add_fetch(&fake_allocations_live, 1, __ATOMIC_RELAXED);
    *ptr = (unsigned long long)(uintptr_t)p;
    return 0;
}

CUresult cuMemFree_v2(unsigned long long ptr)
{
    if (!unbacked(ptr))
        free((void *)(uintptr_t)ptr);
    __atomic_sub_fetch(&fake_allocations_live, 1, __ATOMIC_RELAXED);
    return 0;
}

CUresult cuMemsetD32Async(unsigned long long ptr, unsigned value, size_t n, void *stream)
{
    size_t i;
    (void)stream;
    if (unbacked(ptr))
        return 0;
    for (i = 0; i < n; i++)
        memcpy((char *)(uintptr_t)ptr + 4 * i, &value, 4);
    return 0;
}

CUresult cuMemsetD8Async(unsigned long long ptr, unsigned char value, size_t n, void *stream)
{
    (void)stream;
    if (!unbacked(ptr))
        memset((void *)(uintptr_t)ptr, value, n);
    return 0;
}

CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src, size_t n, void *stream)
{
    (void)stream;
    memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
    return 0;
}

CUresult cuDeviceGetName(char *name, int len, int device)
{
    (void)device;
    strncpy(name, "Fake GPU", (size_t)len);
    return 0;
}

int fake_last_pdl; /* the last launch allowed programmatic stream serialization (cuLaunchKernelEx) */

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, void *stream, void **params,
                        void **extra)
{
    struct function *f = function;
    (void)extra;
    fake_last_pdl = 0;
    if (!current)
        return 201;
    if (stale(f)) {
        __atomic_add_fetch(&fake_stale_launches, 1, __ATOMIC_RELAXED);
        return 400;
    }
    if (f->ctx != current)
        return 400;
    /* a config that cannot launch here (as one past a GPU's resources) */
    if (!strncmp(f->name, "skipfirst", 9) && (ends_with(f->name, "__v0") || ends_with(f->name, "__v0_d16")))
        return 701; /* CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES */
    if (!params || gx == 0 || gy == 0 || gz == 0 || bx == 0 || by != 1 || bz != 1 ||
        smem > f->smem_optin)
        return 1;
    __atomic_add_fetch(&fake_launches, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&mutex);
    fake_clock_ms += kernel_ms(f->name);
    if (!strncmp(f->name, "clobber", 7))
        ++**(int **)params[0];
    fake_last_grid[0] = gx;
    fake_last_grid[1] = gy;
    fake_last_grid[2] = gz;
    fake_last_block = bx;
    fake_last_smem = smem;
    fake_last_stream = stream;
    memcpy(fake_last_kernel, f->name, sizeof fake_last_kernel);
    /* the bytes of each argument, as many as fake_arg_sizes says (the
     * launch's parameter sizes are not known here otherwise) */
    for (unsigned i = 0; i < 16 && fake_arg_sizes[i]; i++) {
        memcpy(fake_last_args[i], params[i], fake_arg_sizes[i] < 8 ? fake_arg_sizes[i] : 8);
        memcpy(fake_last_arg_bytes[i], params[i], fake_arg_sizes[i] < 256 ? fake_arg_sizes[i] : 256);
    }
    pthread_mutex_unlock(&mutex);
    return 0;
}

void *fake_context_create(void)
{
    void *ctx = NULL;
    pthread_mutex_lock(&mutex);
    if (ncontexts < MAX_CONTEXTS)
        ctx = &contexts[ncontexts++];
    pthread_mutex_unlock(&mutex);
    return ctx;
}

void fake_reset(void *ctx)
{
    __atomic_add_fetch(&((struct context *)ctx)->generation, 1, __ATOMIC_RELEASE);
}

/* cuda.h's CUlaunchConfig and CUlaunchAttribute, as tkrt.c lays them out;
 * the one attribute a launch may carry is programmatic stream serialization
 * (6), allowed; then an ordinary launch. */
struct fake_attr { int id; char pad[4]; union { char bytes[64]; int allowed; } value; };
struct fake_config {
    unsigned gx, gy, gz, bx, by, bz, smem;
    void *stream;
    struct fake_attr *attrs;
    unsigned num_attrs;
};

CUresult cuLaunchKernelEx(const struct fake_config *config, void *function, void **params, void **extra);
CUresult cuLaunchKernelEx(const struct fake_config *config, void *function, void **params, void **extra)
{
    CUresult r;
    int pdl = 0;
    for (unsigned i = 0; i < config->num_attrs; i++) {
        if (config->attrs[i].id != 6)
            return 1;
        pdl = config->attrs[i].value.allowed != 0;
    }
    r = cuLaunchKernel(function, config->gx, config->gy, config->gz, config->bx, config->by, config->bz,
                       config->smem, config->stream, params, extra);
    if (r == 0)
        fake_last_pdl = pdl;
    return r;
}

/* cuTensorMapEncodeTiled: checks what the driver checks of a tiled map
 * (rank 1-5, a 16-byte aligned address, strides multiples of 16 bytes,
 * boxes of 1-256, the inner box a multiple of 16 bytes and within the
 * swizzle's span) and writes what it was given into the 128 bytes, for a
 * test to read: word 0 "TMAP" and the dtype, word 1 rank, swizzle, oob
 * fill, interleave and l2 promotion a byte each, word 2 the address,
 * words 3-7 the sizes and 8-11 the byte strides (innermost first), word
 * 12 the boxes 16 bits each. */
int fake_tensor_maps; /* how many were encoded */
CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *address, const unsigned long long *dims,
                                const unsigned long long *strides, const unsigned *box, const unsigned *element_strides,
                                int interleave, int swizzle, int l2, int oob);
CUresult cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *address, const unsigned long long *dims,
                                const unsigned long long *strides, const unsigned *box, const unsigned *element_strides,
                                int interleave, int swizzle, int l2, int oob) {
    static const unsigned sizes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2};
    unsigned long long w[16] = {0};
    if (!map || rank < 1 || rank > 5 || (unsigned long long)(uintptr_t)address % 16 || dtype < 0 || dtype > 9)
        return 1;
    unsigned span = swizzle == 3 ? 128 : swizzle == 2 ? 64 : swizzle == 1 ? 32 : 0;
    if (box[0] * sizes[dtype] % 16 || (span && box[0] * sizes[dtype] > span)) return 1;
    for (unsigned d = 0; d < rank; d++) {
        if (!dims[d] || box[d] < 1 || box[d] > 256 || element_strides[d] != 1) return 1;
        if (d + 1 < rank && strides[d] % 16) return 1;
    }
    w[0] = 0x50414d54ull | (unsigned long long)dtype << 32;
    w[1] = rank | (unsigned)swizzle << 8 | (unsigned)oob << 16 | (unsigned)interleave << 24 | (unsigned long long)l2 << 32;
    w[2] = (unsigned long long)(uintptr_t)address;
    for (unsigned d = 0; d < rank; d++) {
        w[3 + d] = dims[d];
        if (d + 1 < rank) w[8 + d] = strides[d];
        w[12] |= (unsigned long long)box[d] << (16 * (d < 4 ? d : 3));
    }
    memcpy(map, w, sizeof w);
    pthread_mutex_lock(&mutex);
    fake_tensor_maps++;
    pthread_mutex_unlock(&mutex);
    return 0;
}
