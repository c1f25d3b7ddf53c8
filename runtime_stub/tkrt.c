/* runtime_stub: what generated launch headers call (see tkrt.h).
 *
 * The driver is found with dlopen("libcuda.so.1") (or $TKRT_LIBCUDA) once a
 * process, under pthread_once; no CUDA header is included: the few types and
 * functions used are declared below with the driver's ABI, under the symbol
 * names libcuda.so.1 exports for the CUDA 12/13 API (none of those used has
 * a _v2 name there; cuLaunchKernel is the legacy-default-stream entry, so a
 * NULL stream means the legacy default stream, as for cudaLaunchKernel).
 *
 * A header's kernels share one tkrt_module: it is loaded once per context
 * (under the module's lock, keyed by the context's id as below), from the
 * cubin that suits the device's compute capability (choose_image), else
 * from the PTX, which the driver JIT-compiles.
 *
 * Per kernel, loaded[0..count) caches one (context, id, function) a
 * context, keyed by the context's unique id (cuCtxGetId), not its address:
 * a context destroyed and made again at the same address (cudaDeviceReset,
 * cuDevicePrimaryCtxReset, cuCtxDestroy + cuCtxCreate) gets a new id, so a
 * module that died with the old one is never launched (the driver does not
 * reliably reject such a stale CUfunction: it may crash). Its entry, found
 * by the address, is then reused for the new context.
 *
 * A launch finds its context's entry with an acquire load of count and of
 * each entry's id, and no lock: an entry is filled (or refilled) first and
 * its id and count are stored last, with release stores. Only a miss takes
 * the kernel's `lock` (a spin lock with __atomic builtins that yields, then
 * sleeps, since a PTX JIT can take a while), looks again, and loads. After
 * that first load a launch is cuCtxGetId(NULL) (the current context's id) +
 * cuLaunchKernel: no allocation, no synchronisation, so launches can be
 * captured into CUDA graphs.
 *
 * An autotuned launch (tkrt_tuned_launch) looks its key up in the tuner's
 * table (per context, under the tuner's spin lock); a miss looks in the
 * choices saved by device name (made in this process, tkrt_tune_load,
 * TKC_TUNE_CACHE), then times the configs under one process-wide mutex,
 * with the driver's event and memory calls, which are looked up apart:
 * a driver without them launches the first config.
 *
 * Errors are recorded per thread (status, last CUresult, message) for
 * tkrt_status_string; nothing is printed (but TKC_TUNE_VERBOSE's report)
 * and nothing exits. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep, dlopen, pthreads under -std=c99/c11 */
#endif
#include "tkrt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- The driver's ABI (cuda.h, CUDA 12/13) --------------------------- */

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr; /* not used by name; documents tk_ptr */

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

static struct {
    CUresult (*cuInit)(unsigned flags);
    CUresult (*cuGetErrorName)(CUresult error, const char **str);
    CUresult (*cuGetErrorString)(CUresult error, const char **str);
    CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
    CUresult (*cuDeviceGetAttribute)(int *value, int attrib, CUdevice device);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device);
    CUresult (*cuCtxGetCurrent)(CUcontext *ctx);
    CUresult (*cuCtxSetCurrent)(CUcontext ctx);
    CUresult (*cuCtxGetDevice)(CUdevice *device);
    CUresult (*cuCtxGetId)(CUcontext ctx, unsigned long long *id); /* CUDA 12.0 */
    CUresult (*cuModuleLoadData)(CUmodule *module, const void *image);
    CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image, unsigned num_options,
                                   int *options, void **option_values);
    CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module, const char *name);
    CUresult (*cuModuleUnload)(CUmodule module);
    CUresult (*cuFuncSetAttribute)(CUfunction function, int attrib, int value);
    CUresult (*cuLaunchKernel)(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                               unsigned block_x, unsigned block_y, unsigned block_z,
                               unsigned shared_bytes, CUstream stream, void **params,
                               void **extra);
} cu;

/* Each entry: the exported symbol name, and where its address goes. */
#define SYM(name) { #name, (void *)&cu.name }
static const struct { const char *name; void *slot; } symbols[] = {
    SYM(cuInit), SYM(cuGetErrorName), SYM(cuGetErrorString), SYM(cuDeviceGet),
    SYM(cuDeviceGetAttribute), SYM(cuDevicePrimaryCtxRetain), SYM(cuCtxGetCurrent),
    SYM(cuCtxSetCurrent), SYM(cuCtxGetDevice), SYM(cuModuleLoadData), SYM(cuModuleLoadDataEx),
    SYM(cuModuleGetFunction), SYM(cuModuleUnload), SYM(cuFuncSetAttribute), SYM(cuLaunchKernel),
    SYM(cuCtxGetId),
};
#undef SYM

/* What tuning (tkrt_tuned_launch) needs besides: looked up apart, so that a
 * driver without them still launches (it then takes the first config). */
typedef void *CUevent;
static struct {
    CUresult (*cuEventCreate)(CUevent *event, unsigned flags);
    CUresult (*cuEventDestroy)(CUevent event);
    CUresult (*cuEventRecord)(CUevent event, CUstream stream);
    CUresult (*cuEventSynchronize)(CUevent event);
    CUresult (*cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
    CUresult (*cuStreamSynchronize)(CUstream stream);
    CUresult (*cuStreamIsCapturing)(CUstream stream, int *status);
    CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes);
    CUresult (*cuMemFree)(CUdeviceptr ptr);
    CUresult (*cuMemsetD32Async)(CUdeviceptr ptr, unsigned value, size_t n, CUstream stream);
    CUresult (*cuMemsetD8Async)(CUdeviceptr ptr, unsigned char value, size_t n, CUstream stream);
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream);
    CUresult (*cuDeviceGetName)(char *name, int len, CUdevice device);
} cut;
static int tuning_symbols; /* 1 when every one of cut was found */

/* Programmatic dependent launch (TKRT_KERNEL_PDL): cuLaunchKernelEx (CUDA
 * 12.0 on) with one attribute, laid out as cuda.h's CUlaunchConfig and
 * CUlaunchAttribute; looked up apart, so that a driver without it still
 * launches such a kernel, ordinarily. */
enum { CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct {
    int id;
    char pad[4];
    union { char bytes[64]; int allowed; } value;
} CUlaunchAttribute;
typedef struct {
    unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
    CUstream stream;
    CUlaunchAttribute *attrs;
    unsigned num_attrs;
} CUlaunchConfig;
static CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *config, CUfunction f, void **params, void **extra);

/* TMA tensor maps (CUDA 12.0 on): cuTensorMapEncodeTiled, looked up apart,
 * so that a driver without it still runs every kernel that copies
 * without TMA. The enums' values are cuda.h's. */
static CUresult (*cuTensorMapEncodeTiled)(void *map, int dtype, unsigned rank, void *address,
                                          const unsigned long long *dims, const unsigned long long *strides,
                                          const unsigned *box, const unsigned *element_strides, int interleave,
                                          int swizzle, int l2_promotion, int oob_fill);
enum { CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1 };

/* The compute capability major the PTX target `arch` ("sm_90a") needs. */
static unsigned arch_major(const char *arch)
{
    unsigned v = 0;
    if (!arch || strncmp(arch, "sm_", 3) != 0)
        return 0;
    for (arch += 3; *arch >= '0' && *arch <= '9'; arch++)
        v = v * 10 + (unsigned)(*arch - '0');
    return v / 10;
}

/* Each entry: the names to try in order (the newest ABI first), and the slot. */
static const struct { const char *names[2]; void *slot; } tune_symbols[] = {
    { { "cuEventCreate", NULL }, (void *)&cut.cuEventCreate },
    { { "cuEventDestroy_v2", "cuEventDestroy" }, (void *)&cut.cuEventDestroy },
    { { "cuEventRecord", NULL }, (void *)&cut.cuEventRecord },
    { { "cuEventSynchronize", NULL }, (void *)&cut.cuEventSynchronize },
    { { "cuEventElapsedTime_v2", "cuEventElapsedTime" }, (void *)&cut.cuEventElapsedTime },
    { { "cuStreamSynchronize", NULL }, (void *)&cut.cuStreamSynchronize },
    { { "cuStreamIsCapturing", NULL }, (void *)&cut.cuStreamIsCapturing },
    { { "cuMemAlloc_v2", NULL }, (void *)&cut.cuMemAlloc },
    { { "cuMemFree_v2", NULL }, (void *)&cut.cuMemFree },
    { { "cuMemsetD32Async", NULL }, (void *)&cut.cuMemsetD32Async },
    { { "cuMemsetD8Async", NULL }, (void *)&cut.cuMemsetD8Async },
    { { "cuMemcpyDtoDAsync_v2", NULL }, (void *)&cut.cuMemcpyDtoDAsync },
    { { "cuDeviceGetName", NULL }, (void *)&cut.cuDeviceGetName },
};

static void find_tuning_symbols(void *handle)
{
    size_t i, j;
    for (i = 0; i < sizeof tune_symbols / sizeof tune_symbols[0]; i++) {
        void *address = NULL;
        for (j = 0; j < 2 && !address && tune_symbols[i].names[j]; j++)
            address = dlsym(handle, tune_symbols[i].names[j]);
        if (!address) {
            memset(&cut, 0, sizeof cut);
            return;
        }
        memcpy(tune_symbols[i].slot, &address, sizeof address);
    }
    tuning_symbols = 1;
}

/* ---- Process state: the driver, found once --------------------------- */

static pthread_once_t driver_once = PTHREAD_ONCE_INIT;
static int driver_done;            /* 1 once driver_init has finished (atomic) */
static tk_status driver_status;    /* TK_SUCCESS, TK_ERROR_NO_DRIVER or TK_ERROR_NO_DEVICE */
static CUresult driver_result = -1; /* cuInit's result; -1 when it was never called */
static char driver_message[512];

/* ---- Thread state: the last status, CUresult and message ------------- */

#define NO_RESULT (-2) /* "no driver call involved": leaves the last CUresult as it is */

/* C11's keyword, C++11's, or GNU C's for -std=c99 */
#if defined(__cplusplus)
#define TKRT_THREAD_LOCAL thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define TKRT_THREAD_LOCAL _Thread_local
#else
#define TKRT_THREAD_LOCAL __thread
#endif
static TKRT_THREAD_LOCAL tk_status last_status = TK_SUCCESS;
static TKRT_THREAD_LOCAL int last_result = -1;
static TKRT_THREAD_LOCAL char last_message[1024];

static void cuda_error_text(CUresult r, char *buf, size_t size)
{
    const char *name = NULL, *text = NULL;
    if (cu.cuGetErrorName && cu.cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = NULL;
    if (cu.cuGetErrorString && cu.cuGetErrorString(r, &text) != CUDA_SUCCESS)
        text = NULL;
    if (name && text)
        snprintf(buf, size, "%s (%s)", name, text);
    else if (r == CUDA_ERROR_STUB_LIBRARY)
        snprintf(buf, size, "CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's stub libcuda, not a driver)");
    else
        snprintf(buf, size, "CUDA error %d", r);
}

/* Records a failure for this thread and returns `status`. With a CUresult
 * (not NO_RESULT), the message ends with ": NAME (explanation)". */
static tk_status record(tk_status status, CUresult r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static tk_status record(tk_status status, CUresult r, const char *fmt, ...)
{
    va_list ap;
    int n;
    last_status = status;
    if (r != NO_RESULT)
        last_result = r;
    va_start(ap, fmt);
    n = vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if (r != NO_RESULT && (size_t)n < sizeof last_message - 1) {
        char err[256];
        cuda_error_text(r, err, sizeof err);
        snprintf(last_message + n, sizeof last_message - (size_t)n, ": %s", err);
    }
    return status;
}

static void driver_init(void)
{
    const char *path = getenv("TKRT_LIBCUDA");
    void *handle;
    size_t i;
    CUresult r;
    char err[256];

    if (!path || !*path)
        path = "libcuda.so.1";
    driver_status = TK_ERROR_NO_DRIVER;
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(driver_message, sizeof driver_message,
                 "the CUDA driver (%s) could not be loaded: %s; is an NVIDIA driver installed?",
                 path, why ? why : "unknown dlopen error");
        goto done;
    }
    for (i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *address;
        dlerror();
        address = dlsym(handle, symbols[i].name);
        if (!address) {
            const char *why = dlerror();
            snprintf(driver_message, sizeof driver_message,
                     "the CUDA driver (%s) could not be loaded: %s; is an NVIDIA driver "
                     "for CUDA 12 or newer installed?",
                     path, why ? why : symbols[i].name);
            memset(&cu, 0, sizeof cu);
            dlclose(handle);
            goto done;
        }
        /* Object pointer to function pointer, the way POSIX allows. */
        memcpy(symbols[i].slot, &address, sizeof address);
    }
    find_tuning_symbols(handle);
    {
        void *ex = dlsym(handle, "cuLaunchKernelEx");
        void *encode = dlsym(handle, "cuTensorMapEncodeTiled");
        memcpy(&cuLaunchKernelEx, &ex, sizeof ex);
        memcpy(&cuTensorMapEncodeTiled, &encode, sizeof encode);
    }
    r = cu.cuInit(0);
    driver_result = r;
    if (r == CUDA_ERROR_NO_DEVICE) {
        cuda_error_text(r, err, sizeof err);
        driver_status = TK_ERROR_NO_DEVICE;
        snprintf(driver_message, sizeof driver_message,
                 "the CUDA driver (%s) found no CUDA device: cuInit: %s", path, err);
    } else if (r == CUDA_ERROR_STUB_LIBRARY) {
        snprintf(driver_message, sizeof driver_message,
                 "the CUDA driver (%s) could not be loaded: it is the CUDA toolkit's stub "
                 "library, not a driver (CUDA_ERROR_STUB_LIBRARY); is an NVIDIA driver installed?",
                 path);
    } else if (r != CUDA_SUCCESS) {
        cuda_error_text(r, err, sizeof err);
        snprintf(driver_message, sizeof driver_message,
                 "the CUDA driver (%s) was loaded but cuInit failed: %s; is the NVIDIA driver "
                 "installed and working (nvidia-smi)?",
                 path, err);
    } else {
        driver_status = TK_SUCCESS;
    }
done:
    __atomic_store_n(&driver_done, 1, __ATOMIC_RELEASE);
}

static tk_status driver(void)
{
    pthread_once(&driver_once, driver_init);
    if (driver_status == TK_SUCCESS)
        return TK_SUCCESS;
    /* driver_message already says which CUresult cuInit gave. */
    record(driver_status, NO_RESULT, "%s", driver_message);
    last_result = driver_result;
    return driver_status;
}

/* ---- Context --------------------------------------------------------- */

/* The calling thread's current context and its id. Where there is none,
 * retains device 0's primary context (again: a retain also brings back a
 * primary context that was reset) and makes it current: the runtime API
 * does the same, so both then share it. */
static tk_status current_context(const char *kernel, CUcontext *out, unsigned long long *id)
{
    CUcontext ctx = NULL;
    CUdevice device;
    CUresult r = cu.cuCtxGetCurrent(&ctx);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_CUDA, r, "%s: cuCtxGetCurrent failed", kernel);
    if (!ctx) {
        r = cu.cuDeviceGet(&device, 0);
        if (r != CUDA_SUCCESS)
            return record(TK_ERROR_NO_DEVICE, r,
                          "%s: no current CUDA context and no device 0 to make one on", kernel);
        r = cu.cuDevicePrimaryCtxRetain(&ctx, device);
        if (r != CUDA_SUCCESS)
            return record(TK_ERROR_NO_CONTEXT, r,
                          "%s: no current CUDA context, and the primary context of device 0 "
                          "could not be retained",
                          kernel);
        r = cu.cuCtxSetCurrent(ctx);
        if (r != CUDA_SUCCESS)
            return record(TK_ERROR_NO_CONTEXT, r,
                          "%s: no current CUDA context, and the primary context of device 0 "
                          "could not be made current",
                          kernel);
    }
    r = cu.cuCtxGetId(ctx, id);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_NO_CONTEXT, r,
                      "%s: the current CUDA context cannot be used (destroyed?)", kernel);
    *out = ctx;
    return TK_SUCCESS;
}

/* ---- Module cache ---------------------------------------------------- */

/* A spin lock that yields, then sleeps (a PTX JIT can take a while). */
static void lock_spin(volatile int *lock)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
            if (++spins < 64) {
                sched_yield();
            } else {
                struct timespec pause = { 0, 100000 }; /* 0.1 ms */
                nanosleep(&pause, NULL);
            }
        }
    }
}

static void unlock_spin(volatile int *lock)
{
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

/* The function of the entry for context `id` (and its shared memory), or
 * NULL. Lock-free: see the comment at the top. */
static CUfunction lookup(tkrt_kernel *k, unsigned long long id, unsigned *shared_bytes, unsigned *pdl)
{
    unsigned n = __atomic_load_n(&k->count, __ATOMIC_ACQUIRE), i;
    if (n > TKRT_MAX_CONTEXTS)
        n = TKRT_MAX_CONTEXTS;
    for (i = 0; i < n; i++)
        if (__atomic_load_n(&k->loaded[i].context_id, __ATOMIC_ACQUIRE) == id) {
            *shared_bytes = __atomic_load_n(&k->loaded[i].shared_bytes, __ATOMIC_RELAXED);
            *pdl = __atomic_load_n(&k->loaded[i].pdl, __ATOMIC_RELAXED);
            return __atomic_load_n(&k->loaded[i].function, __ATOMIC_RELAXED);
        }
    return NULL;
}

/* The cubin for a GPU of compute capability major.minor: of those that run
 * there, the one for the newest minor, arch-specific before generic; -1
 * for none. */
static int choose_image(const tkrt_module *m, int major, int minor)
{
    int best = -1;
    unsigned i;
    for (i = 0; i < m->num_images; i++) {
        const tkrt_image *img = &m->images[i];
        int fits = img->cubin && img->size && (int)img->major == major &&
                   (img->arch_specific ? (int)img->minor == minor : (int)img->minor <= minor);
        if (fits && (best < 0 || img->minor > m->images[best].minor ||
                     (img->minor == m->images[best].minor && img->arch_specific)))
            best = (int)i;
    }
    return best;
}

/* "sm_80, sm_90a" */
static void image_list(const tkrt_module *m, char *out, size_t size)
{
    unsigned i;
    size_t at = 0;
    out[0] = '\0';
    for (i = 0; i < m->num_images && at < size; i++) {
        int n = snprintf(out + at, size - at, "%s%s", i ? ", " : "", m->images[i].arch ? m->images[i].arch : "?");
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

/* Loads module m into the current context: the cubin that suits the GPU,
 * else its PTX. `name` (a kernel's) is for messages. */
static tk_status load_module(tkrt_module *m, const char *name, CUmodule *module_out, unsigned *image_out)
{
    CUmodule module = NULL;
    CUresult r = CUDA_ERROR_NO_BINARY_FOR_GPU, cubin_result = CUDA_SUCCESS;
    char cubin_error[256] = "", cubins[128];
    CUdevice device;
    int major = -1, minor = -1, image;

    if (cu.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
        cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
        cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
        major = minor = -1;
    image_list(m, cubins, sizeof cubins);
    image = choose_image(m, major, minor);
    if (image >= 0) {
        r = cu.cuModuleLoadData(&module, m->images[image].cubin);
        if (r != CUDA_SUCCESS) {
            cubin_result = r;
            cuda_error_text(r, cubin_error, sizeof cubin_error);
            module = NULL;
            if (!(m->ptx && (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE)))
                return record(TK_ERROR_MODULE_LOAD, r, "%s: loading its %s cubin failed%s", name,
                              m->images[image].arch ? m->images[image].arch : "?",
                              m->ptx ? "" : " (and it has no PTX to JIT)");
        }
    } else if (!m->ptx) {
        return record(TK_ERROR_MODULE_LOAD, NO_RESULT,
                      "%s: no cubin of its module suits this GPU (compute capability %d.%d; cubins for %s), "
                      "and it has no PTX to JIT-compile: build it with --arch for this GPU",
                      name, major, minor, m->num_images ? cubins : "no target");
    }
    if (!module) {
        char log[512] = "";
        int options[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
        void *values[2];
        values[0] = log;
        values[1] = (void *)(uintptr_t)sizeof log;
        r = cu.cuModuleLoadDataEx(&module, m->ptx, 2, options, values);
        if (r != CUDA_SUCCESS) {
            size_t len;
            log[sizeof log - 1] = '\0';
            for (len = strlen(log); len && (log[len - 1] == '\n' || log[len - 1] == ' ');)
                log[--len] = '\0';
            for (char *c = log; *c; c++) /* one line */
                if (*c == '\n' || *c == '\r' || *c == '\t')
                    *c = ' ';
            if (cubin_result != CUDA_SUCCESS)
                return record(TK_ERROR_MODULE_LOAD, r,
                              "%s: its cubin does not suit this GPU (%s) and JIT-compiling its "
                              "PTX failed%s%s",
                              name, cubin_error, log[0] ? " with: " : "", log);
            if (m->num_images)
                return record(TK_ERROR_MODULE_LOAD, r,
                              "%s: no cubin of its module suits this GPU (compute capability %d.%d; cubins "
                              "for %s), and its PTX (for %s) cannot be JIT-compiled for it%s%s",
                              name, major, minor, cubins, m->ptx_arch ? m->ptx_arch : "?",
                              log[0] ? ": " : "", log);
            return record(TK_ERROR_MODULE_LOAD, r, "%s: JIT-compiling its PTX failed%s%s",
                          name, log[0] ? " with: " : "", log);
        }
        image = (int)m->num_images;
    }
    *module_out = module;
    *image_out = (unsigned)image;
    return TK_SUCCESS;
}

/* The module m in context (`ctx`, `id`): loaded already, or now into the
 * entry of a dead context that had the same address, or a new one. */
static tk_status module_in_context(tkrt_module *m, const char *name, CUcontext ctx, unsigned long long id,
                                   CUmodule *module, unsigned *image)
{
    unsigned n, i;
    tk_status s = TK_SUCCESS;
    lock_spin(&m->lock);
    n = m->count;
    for (i = 0; i < n; i++)
        if (m->loaded[i].context_id == id)
            break;
    if (i < n) {
        *module = m->loaded[i].module;
        *image = m->loaded[i].image;
        unlock_spin(&m->lock);
        return TK_SUCCESS;
    }
    for (i = 0; i < n && m->loaded[i].context != ctx; i++)
        ;
    if (i == TKRT_MAX_CONTEXTS)
        s = record(TK_ERROR_TOO_MANY_CONTEXTS, NO_RESULT,
                   "%s: used in more than %d CUDA contexts, the most tkrt keeps a module loaded in", name,
                   TKRT_MAX_CONTEXTS);
    if (s == TK_SUCCESS)
        s = load_module(m, name, module, image);
    if (s == TK_SUCCESS) {
        /* entry i, if not new, belonged to a context that is gone, and its
         * module went with it */
        m->loaded[i].context = ctx;
        m->loaded[i].module = *module;
        m->loaded[i].image = *image;
        m->loaded[i].context_id = id;
        if (i == n)
            m->count = n + 1;
    }
    unlock_spin(&m->lock);
    return s;
}

/* k's function in the current context (`ctx`, `id`), its module loaded if
 * need be, filling an entry (a dead context's of the same address, or a new
 * one). The kernel is locked. */
static tk_status load(tkrt_kernel *k, CUcontext ctx, unsigned long long id, CUfunction *out, unsigned *shared_out,
                      unsigned *pdl_out)
{
    unsigned pdl;
    CUmodule module = NULL;
    CUfunction function = NULL;
    unsigned n = k->count, i, image = 0, shared;
    CUresult r;
    tk_status s;

    for (i = 0; i < n && k->loaded[i].context != ctx; i++)
        ;
    if (i == TKRT_MAX_CONTEXTS)
        return record(TK_ERROR_TOO_MANY_CONTEXTS, NO_RESULT,
                      "%s: used in more than %d CUDA contexts, the most tkrt keeps a module "
                      "loaded in",
                      k->name, TKRT_MAX_CONTEXTS);
    s = module_in_context(k->module, k->name, ctx, id, &module, &image);
    if (s != TK_SUCCESS)
        return s;
    shared = k->shared_bytes ? k->shared_bytes[image] : 0;
    /* the code loaded is for sm_90 or newer: it may wait with griddepcontrol */
    pdl = (k->flags & TKRT_KERNEL_PDL) && cuLaunchKernelEx &&
          (image < k->module->num_images ? k->module->images[image].major : arch_major(k->module->ptx_arch)) >= 9;
    r = cu.cuModuleGetFunction(&function, module, k->name);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_MODULE_LOAD, r, "%s: the module has no kernel of that name", k->name);
    if (shared > 48 * 1024) {
        r = cu.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
        if (r != CUDA_SUCCESS) {
            CUdevice device;
            int most = 0;
            if (cu.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
                cu.cuDeviceGetAttribute(&most, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                        device) != CUDA_SUCCESS)
                most = 0;
            if (most > 0 && (unsigned)most < shared)
                return record(TK_ERROR_LAUNCH, r,
                              "%s: needs %u bytes of shared memory a block, more than this GPU's "
                              "%d; use smaller tiles or fewer stages",
                              k->name, shared, most);
            return record(TK_ERROR_LAUNCH, r,
                          "%s: opting into %u bytes of dynamic shared memory a block failed",
                          k->name, shared);
        }
    }
    /* Readers match an entry by its id, stored last. */
    k->loaded[i].context = ctx;
    __atomic_store_n(&k->loaded[i].function, function, __ATOMIC_RELAXED);
    __atomic_store_n(&k->loaded[i].shared_bytes, shared, __ATOMIC_RELAXED);
    __atomic_store_n(&k->loaded[i].pdl, pdl, __ATOMIC_RELAXED);
    __atomic_store_n(&k->loaded[i].context_id, id, __ATOMIC_RELEASE);
    if (i == n)
        __atomic_store_n(&k->count, n + 1, __ATOMIC_RELEASE);
    *out = function;
    *shared_out = shared;
    *pdl_out = pdl;
    return TK_SUCCESS;
}

/* ---- Autotuning ------------------------------------------------------ */

/* tkc compiles at most 64 variants of a kernel */
enum { MAX_CONFIGS = 64 };

/* One key's choice in one context. */
struct tune_entry {
    int used;
    int config;
    unsigned long long context_id;
    long long key[TKRT_MAX_KEYS];
};

/* A tuner's choices: open addressing, at most half full, its capacity a
 * power of two. Read and written under the tuner's lock. */
struct tune_table {
    unsigned count, capacity;
    struct tune_entry *entries;
};

/* One tuning at a time in the process: another thread wanting the same key
 * waits here, then finds it chosen. */
static pthread_mutex_t tuning_mutex = PTHREAD_MUTEX_INITIALIZER;

static void lock_tuner(tkrt_tuner *t)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(&t->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&t->lock, __ATOMIC_RELAXED))
            if (++spins > 64)
                sched_yield();
}

static void unlock_tuner(tkrt_tuner *t)
{
    __atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
}

static unsigned long long key_hash(unsigned long long id, const long long *key, unsigned n)
{
    unsigned long long h = 1469598103934665603ull ^ id;
    unsigned i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned long long)key[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

/* The slot of (id, key) in the table, or of the free slot it would take;
 * NULL for an empty table. The tuner is locked. */
static struct tune_entry *table_slot(struct tune_table *tab, unsigned long long id,
                                     const long long *key, unsigned n)
{
    unsigned i;
    if (!tab || !tab->capacity)
        return NULL;
    i = (unsigned)key_hash(id, key, n) & (tab->capacity - 1);
    for (;;) {
        struct tune_entry *e = &tab->entries[i];
        if (!e->used || (e->context_id == id && !memcmp(e->key, key, sizeof *key * n)))
            return e;
        i = (i + 1) & (tab->capacity - 1);
    }
}

/* Records config for (id, key); the tuner is locked. 0 when out of memory
 * (the choice is then made again next time). */
static int table_put(tkrt_tuner *t, unsigned long long id, const long long *key, int config)
{
    struct tune_table *tab = (struct tune_table *)t->table;
    struct tune_entry *e;
    if (!tab) {
        tab = (struct tune_table *)calloc(1, sizeof *tab);
        if (!tab)
            return 0;
        t->table = tab;
    }
    if (2 * (tab->count + 1) > tab->capacity) {
        unsigned capacity = tab->capacity ? 2 * tab->capacity : 16, i;
        struct tune_table grown = { 0, capacity, (struct tune_entry *)calloc(capacity, sizeof(struct tune_entry)) };
        if (!grown.entries)
            return 0;
        for (i = 0; i < tab->capacity; i++)
            if (tab->entries[i].used) {
                *table_slot(&grown, tab->entries[i].context_id, tab->entries[i].key, t->num_keys) =
                    tab->entries[i];
                grown.count++;
            }
        free(tab->entries);
        *tab = grown;
    }
    e = table_slot(tab, id, key, t->num_keys);
    if (!e->used) {
        e->used = 1;
        e->context_id = id;
        memcpy(e->key, key, sizeof *key * t->num_keys);
        tab->count++;
    }
    e->config = config;
    return 1;
}

/* The config chosen for (id, key), or -1. */
static int table_get(tkrt_tuner *t, unsigned long long id, const long long *key)
{
    struct tune_entry *e;
    int config = -1;
    lock_tuner(t);
    e = table_slot((struct tune_table *)t->table, id, key, t->num_keys);
    if (e && e->used)
        config = e->config;
    unlock_tuner(t);
    return config;
}

/* How far apart two keys are: the sum over their values of about
 * |log2(a / b)| (of |a| + 1 and |b| + 1). */
static double key_distance(const tkrt_tuner *t, const long long *x, const long long *y)
{
    double d = 0;
    unsigned k;
    for (k = 0; k < t->num_keys; k++) {
        double a = (double)(x[k] < 0 ? -x[k] : x[k]) + 1;
        double b = (double)(y[k] < 0 ? -y[k] : y[k]) + 1;
        double r = a > b ? a / b : b / a;
        for (; r >= 2; r /= 2)
            d += 1;
        d += r - 1;
    }
    return d;
}

/* The config chosen for the key nearest to `key` among the header's
 * choices for this device, then (none there) this context's; -1 where
 * neither has one. */
static int nearest_choice(tkrt_tuner *t, unsigned long long id, const char *device, const long long *key,
                          const unsigned char *keep)
{
    struct tune_table *tab;
    double best = 0;
    int config = -1;
    unsigned i;
    for (i = 0; i < t->num_choices; i++) {
        double d = key_distance(t, key, t->choices[i].key);
        if (strcmp(t->choices[i].device, device) != 0 || t->choices[i].config < 0 ||
            t->choices[i].config >= (int)t->num_configs || !keep[t->choices[i].config])
            continue;
        if (config < 0 || d < best) {
            best = d;
            config = t->choices[i].config;
        }
    }
    if (config >= 0)
        return config;
    lock_tuner(t);
    tab = (struct tune_table *)t->table;
    for (i = 0; tab && i < tab->capacity; i++) {
        const struct tune_entry *e = &tab->entries[i];
        double d;
        if (!e->used || e->context_id != id || !keep[e->config])
            continue;
        d = key_distance(t, key, e->key);
        if (config < 0 || d < best) {
            best = d;
            config = e->config;
        }
    }
    unlock_tuner(t);
    return config;
}

/* The header's choice for exactly this key on this device, or -1. */
static int compiled_choice(const tkrt_tuner *t, const char *device, const long long *key)
{
    unsigned i;
    for (i = 0; i < t->num_choices; i++)
        if (!strcmp(t->choices[i].device, device) &&
            !memcmp(t->choices[i].key, key, sizeof *key * t->num_keys) && t->choices[i].config >= 0 &&
            t->choices[i].config < (int)t->num_configs)
            return t->choices[i].config;
    return -1;
}

static int tune_verbose(void)
{
    const char *v = getenv("TKC_TUNE_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

static void print_key(FILE *out, const tkrt_tuner *t, const long long *key)
{
    unsigned k;
    for (k = 0; k < t->num_keys; k++)
        fprintf(out, "%s%s=%lld", k ? ", " : "", t->key_names ? t->key_names[k] : "?", key[k]);
}

/* The first candidate, in order, that launches on these arguments; -1
 * (with the first one's failure recorded) when none does. */
static int launch_first(tkrt_tuner *t, CUstream stream, void **args, const unsigned char *keep)
{
    tk_status first = TK_SUCCESS;
    char message[sizeof last_message];
    int first_result = 0, tried = 0;
    unsigned c;
    for (c = 0; c < t->num_configs; c++) {
        tk_status s;
        if (!keep[c])
            continue;
        s = t->configs[c]((tk_stream)stream, args);
        if (s == TK_SUCCESS)
            return (int)c;
        if (!tried++) {
            first = s;
            first_result = last_result;
            memcpy(message, last_message, sizeof message);
        }
    }
    last_status = first;
    last_result = first_result;
    memcpy(last_message, message, sizeof message);
    return -1;
}

/* What the trials of one tuning share. */
struct trial_state {
    tkrt_tuner *t;
    CUstream stream;
    void **args;
    CUdeviceptr flush;     /* Triton's 256 MB, zeroed before each timed run to empty the L2; 0: none */
    CUdeviceptr *saved;    /* a copy of each restore_value buffer (0 for reset_to_zero ones) */
    CUevent events[128];   /* 64 (start, end) pairs */
};

static CUdeviceptr arg_pointer(void **args, unsigned i)
{
    CUdeviceptr p;
    memcpy(&p, args[i], sizeof p);
    return p;
}

/* Before a trial (and before the real launch): reset_to_zero buffers zeroed. */
static CUresult reset_buffers(struct trial_state *x)
{
    unsigned b;
    for (b = 0; b < x->t->num_buffers; b++) {
        const tkrt_tuned_buffer *buf = &x->t->buffers[b];
        CUresult r;
        if (!buf->reset || !arg_pointer(x->args, buf->arg)) /* an optional pointer passed as NULL */
            continue;
        r = cut.cuMemsetD8Async(arg_pointer(x->args, buf->arg), 0, (size_t)buf->bytes(x->args),
                                x->stream);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

/* After a trial: restore_value buffers copied back. */
static CUresult restore_buffers(struct trial_state *x)
{
    unsigned b;
    for (b = 0; b < x->t->num_buffers; b++) {
        const tkrt_tuned_buffer *buf = &x->t->buffers[b];
        CUresult r;
        if (buf->reset || !x->saved[b])
            continue;
        r = cut.cuMemcpyDtoDAsync(arg_pointer(x->args, buf->arg), x->saved[b],
                                  (size_t)buf->bytes(x->args), x->stream);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

/* One untimed run of config c, buffers reset before and restored after. */
static int run_once(struct trial_state *x, unsigned c)
{
    return reset_buffers(x) == CUDA_SUCCESS && x->t->configs[c]((tk_stream)x->stream, x->args) == TK_SUCCESS &&
           restore_buffers(x) == CUDA_SUCCESS;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* One config's timing: its repetitions and their times so far. */
struct config_timing {
    unsigned n_warmup, n_rep, done;
    float *times; /* NULL: the config does not launch (or timing it failed) */
};

/* The configs' timed runs go in TUNE_ROUNDS interleaved rounds (each
 * config a share of its runs a round), so that clocks drifting while the
 * configs are timed, one after another, do not decide between configs a
 * few percent apart: timed one block each, matmul.tk's choice at 8192^3
 * flipped between runs (0.95x the best config in one).
 *
 * Each share starts with warm-up runs of that config (about 60 ms unless
 * @autotune's warmup= says otherwise; Triton's do_bench warms up for 25
 * ms, once): the GPU's power controller sets the clock from the power
 * drawn over the last tens of milliseconds, so runs timed straight after
 * another config's run at a power cap go at the clock that config left.
 * Measured on an H100 at its 700 W cap, the clock took 40-80 ms to settle
 * after a switch, and an attention config drawing more power than the
 * others was timed 5% faster than it sustains (one run a share at 42 ms a
 * run), and picked. */
enum { TUNE_ROUNDS = 3, TUNE_WARMUP_MS = 60 };

/* How many runs of `estimate` ms fill about `ms` (at least one). */
static unsigned runs_for(double ms, float estimate)
{
    unsigned n = estimate > 0 && ms / estimate < 1e6 ? (unsigned)(ms / estimate) : 1000000;
    return n < 1 ? 1 : n;
}

/* Readies config c for timing as Triton's do_bench does: one run, an
 * estimate over 5; then counts the warm-up runs that start each round's
 * share (about warmup_ms, at least one) and the timed runs (about 100 ms,
 * rep_ms, at least one) into ct. 0 where it does not launch. */
static int prepare_config(struct trial_state *x, unsigned c, struct config_timing *ct)
{
    float estimate = 0;
    double warmup_ms = x->t->warmup_ms >= 0 ? x->t->warmup_ms : (double)TUNE_WARMUP_MS;
    double rep_ms = x->t->rep_ms >= 0 ? x->t->rep_ms : 100;
    unsigned i;
    memset(ct, 0, sizeof *ct);
    if (!run_once(x, c) || cut.cuStreamSynchronize(x->stream) != CUDA_SUCCESS)
        return 0;
    if (cut.cuEventRecord(x->events[0], x->stream) != CUDA_SUCCESS)
        return 0;
    for (i = 0; i < 5; i++) {
        if (x->flush && cut.cuMemsetD32Async(x->flush, 0, 64u << 20, x->stream) != CUDA_SUCCESS)
            return 0;
        if (!run_once(x, c))
            return 0;
    }
    if (cut.cuEventRecord(x->events[1], x->stream) != CUDA_SUCCESS ||
        cut.cuEventSynchronize(x->events[1]) != CUDA_SUCCESS ||
        cut.cuEventElapsedTime(&estimate, x->events[0], x->events[1]) != CUDA_SUCCESS)
        return 0;
    estimate /= 5;
    ct->n_warmup = runs_for(warmup_ms, estimate);
    ct->n_rep = runs_for(rep_ms, estimate);
    ct->times = (float *)malloc(sizeof *ct->times * ct->n_rep);
    return ct->times != NULL;
}

/* `count` untimed runs of config c, the L2 flushed before each as before a
 * timed one, so that they draw the power the timed ones will. */
static int warm_up(struct trial_state *x, unsigned c, unsigned count)
{
    unsigned i;
    for (i = 0; i < count; i++)
        if ((x->flush && cut.cuMemsetD32Async(x->flush, 0, 64u << 20, x->stream) != CUDA_SUCCESS) ||
            !run_once(x, c))
            return 0;
    return 1;
}

/* Times up to `count` more runs of config c (the L2 flushed before each,
 * buffers reset before and restored after, outside the events). 0 on a
 * failure. */
static int time_runs(struct trial_state *x, unsigned c, struct config_timing *ct, unsigned count)
{
    unsigned end = ct->done + count < ct->n_rep ? ct->done + count : ct->n_rep;
    while (ct->done < end) {
        unsigned batch = end - ct->done < 64 ? end - ct->done : 64, j;
        for (j = 0; j < batch; j++)
            if (reset_buffers(x) != CUDA_SUCCESS ||
                (x->flush && cut.cuMemsetD32Async(x->flush, 0, 64u << 20, x->stream) != CUDA_SUCCESS) ||
                cut.cuEventRecord(x->events[2 * j], x->stream) != CUDA_SUCCESS ||
                x->t->configs[c]((tk_stream)x->stream, x->args) != TK_SUCCESS ||
                cut.cuEventRecord(x->events[2 * j + 1], x->stream) != CUDA_SUCCESS ||
                restore_buffers(x) != CUDA_SUCCESS)
                return 0;
        if (cut.cuEventSynchronize(x->events[2 * batch - 1]) != CUDA_SUCCESS)
            return 0;
        for (j = 0; j < batch; j++)
            if (cut.cuEventElapsedTime(&ct->times[ct->done + j], x->events[2 * j], x->events[2 * j + 1]) !=
                CUDA_SUCCESS)
                return 0;
        ct->done += batch;
    }
    return 1;
}

static double median_time(struct config_timing *ct)
{
    unsigned n = ct->done;
    if (!ct->times || !n)
        return -1;
    qsort(ct->times, n, sizeof *ct->times, compare_float);
    return n % 2 ? ct->times[n / 2] : (ct->times[n / 2 - 1] + ct->times[n / 2]) / 2.0;
}

/* Times every candidate (keep) on these arguments and returns the fastest
 * (-1 where none launches, or the tools to time are missing: the caller
 * falls back). */
static int tune(tkrt_tuner *t, CUstream stream, const long long *key, void **args, const unsigned char *keep)
{
    struct trial_state x;
    struct config_timing *timing = NULL;
    double *ms, best = -1;
    int choice = -1;
    unsigned c, b, round, nevents = 0;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.stream = stream;
    x.args = args;
    ms = (double *)calloc(t->num_configs ? t->num_configs : 1, sizeof *ms);
    x.saved = (CUdeviceptr *)calloc(t->num_buffers ? t->num_buffers : 1, sizeof *x.saved);
    if (!ms || !x.saved)
        goto done;
    for (nevents = 0; nevents < 128; nevents++)
        if (cut.cuEventCreate(&x.events[nevents], 0) != CUDA_SUCCESS)
            goto done;
    if (cut.cuMemAlloc(&x.flush, 256u << 20) != CUDA_SUCCESS)
        x.flush = 0; /* no room: timed with a warm L2 */
    for (b = 0; b < t->num_buffers; b++) {
        size_t bytes = (size_t)t->buffers[b].bytes(args);
        if (t->buffers[b].reset || !bytes || !arg_pointer(args, t->buffers[b].arg))
            continue;
        if (cut.cuMemAlloc(&x.saved[b], bytes) != CUDA_SUCCESS ||
            cut.cuMemcpyDtoDAsync(x.saved[b], arg_pointer(args, t->buffers[b].arg), bytes, stream) !=
                CUDA_SUCCESS)
            goto done;
    }
    timing = (struct config_timing *)calloc(t->num_configs, sizeof *timing);
    if (!timing)
        goto done;
    for (c = 0; c < t->num_configs; c++)
        if (keep[c] && !prepare_config(&x, c, &timing[c])) {
            free(timing[c].times);
            timing[c].times = NULL;
        }
    for (round = 0; round < TUNE_ROUNDS; round++)
        for (c = 0; c < t->num_configs; c++) {
            unsigned share = (timing[c].n_rep + TUNE_ROUNDS - 1) / TUNE_ROUNDS;
            if (timing[c].times && timing[c].done < timing[c].n_rep &&
                (!warm_up(&x, c, timing[c].n_warmup) ||
                 !time_runs(&x, c, &timing[c], share))) {
                free(timing[c].times);
                timing[c].times = NULL;
            }
        }
    for (c = 0; c < t->num_configs; c++) {
        ms[c] = median_time(&timing[c]);
        free(timing[c].times);
        if (ms[c] >= 0 && (choice < 0 || ms[c] < best)) {
            best = ms[c];
            choice = (int)c;
        }
    }
    if (choice >= 0 && reset_buffers(&x) != CUDA_SUCCESS)
        choice = -1;
    if (tune_verbose()) {
        CUdevice device;
        char name[256] = "?";
        if (cu.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
            cut.cuDeviceGetName(name, (int)sizeof name, device) != CUDA_SUCCESS)
            strcpy(name, "?");
        fprintf(stderr, "tkc tune: %s (", t->name);
        print_key(stderr, t, key);
        fprintf(stderr, ") on %s: ", name);
        if (choice >= 0)
            fprintf(stderr, "%s, %.4f ms\n", t->config_text ? t->config_text[choice] : "?", best);
        else
            fprintf(stderr, "no config launched\n");
        for (c = 0; c < t->num_configs; c++) {
            if (ms[c] >= 0)
                fprintf(stderr, "tkc tune:   %.4f ms  %s\n", ms[c], t->config_text ? t->config_text[c] : "?");
            else if (!keep[c])
                fprintf(stderr, "tkc tune:   (pruned)  %s\n", t->config_text ? t->config_text[c] : "?");
            else
                fprintf(stderr, "tkc tune:   (does not launch)  %s\n", t->config_text ? t->config_text[c] : "?");
        }
    }
done:
    if (cut.cuStreamSynchronize)
        cut.cuStreamSynchronize(stream); /* before the copies go */
    for (b = 0; x.saved && b < t->num_buffers; b++)
        if (x.saved[b])
            cut.cuMemFree(x.saved[b]);
    if (x.flush)
        cut.cuMemFree(x.flush);
    for (c = 0; c < nevents; c++)
        cut.cuEventDestroy(x.events[c]);
    free(x.saved);
    free(timing);
    free(ms);
    return choice;
}

/* ---- Saved choices ---------------------------------------------------- */

/* Every choice this process made or loaded, by kernel name, source hash,
 * device name and key: what tkrt_tune_save writes and what a first launch
 * looks for before timing. */
struct saved_choice {
    char kernel[128], hash[32], device[128];
    unsigned num_keys;
    long long key[TKRT_MAX_KEYS];
    int config;
};
static pthread_mutex_t saved_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct saved_choice *saved;
static size_t saved_count, saved_capacity;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void copy_text(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

/* Adds (or updates) a choice; saved_mutex is held. 0 when out of memory. */
static int remember(const struct saved_choice *c)
{
    size_t i;
    for (i = 0; i < saved_count; i++)
        if (!strcmp(saved[i].kernel, c->kernel) && !strcmp(saved[i].hash, c->hash) &&
            !strcmp(saved[i].device, c->device) && saved[i].num_keys == c->num_keys &&
            !memcmp(saved[i].key, c->key, sizeof *c->key * c->num_keys)) {
            saved[i].config = c->config;
            return 1;
        }
    if (saved_count == saved_capacity) {
        size_t capacity = saved_capacity ? 2 * saved_capacity : 64;
        struct saved_choice *grown = (struct saved_choice *)realloc(saved, capacity * sizeof *grown);
        if (!grown)
            return 0;
        saved = grown;
        saved_capacity = capacity;
    }
    saved[saved_count++] = *c;
    return 1;
}

/* The current context's device name ("?" where the driver cannot say). */
static void device_name(char *name, size_t size)
{
    CUdevice device;
    copy_text(name, size, "?");
    if (cut.cuDeviceGetName && cu.cuCtxGetDevice(&device) == CUDA_SUCCESS &&
        cut.cuDeviceGetName(name, (int)size, device) != CUDA_SUCCESS)
        copy_text(name, size, "?");
    name[size - 1] = '\0';
    for (char *p = name; *p; p++) /* the file's fields are tab-separated lines */
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
}

static void describe_choice(const tkrt_tuner *t, const long long *key, int config, const char *device,
                            struct saved_choice *c)
{
    memset(c, 0, sizeof *c);
    copy_text(c->kernel, sizeof c->kernel, t->name);
    copy_text(c->hash, sizeof c->hash, t->source_hash);
    copy_text(c->device, sizeof c->device, device);
    c->num_keys = t->num_keys;
    memcpy(c->key, key, sizeof *key * t->num_keys);
    c->config = config;
}

/* One line of the file: kernel, hash, device, keys (comma-separated) and
 * config, tab-separated, then the config's text for the reader. */
static int write_choice(FILE *f, const struct saved_choice *c, const char *text)
{
    unsigned k;
    fprintf(f, "%s\t%s\t%s\t", c->kernel, c->hash, c->device);
    for (k = 0; k < c->num_keys; k++)
        fprintf(f, "%s%lld", k ? "," : "", c->key[k]);
    return fprintf(f, "\t%d\t%s\n", c->config, text ? text : "") > 0;
}

static tk_status load_file(const char *path, int missing_ok)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f) {
        if (missing_ok)
            return TK_SUCCESS;
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_load: cannot read '%s'", path);
    }
    pthread_mutex_lock(&saved_mutex);
    while (fgets(line, sizeof line, f)) {
        struct saved_choice c;
        char *field[6], *p = line, *keys, *end;
        int n = 0;
        memset(&c, 0, sizeof c);
        while (n < 6 && (field[n] = p) != NULL) {
            p = strchr(p, n < 5 ? '\t' : '\n');
            n++;
            if (!p)
                break;
            *p++ = '\0';
        }
        if (n < 5 || line[0] == '#')
            continue; /* a comment or a line cut short */
        copy_text(c.kernel, sizeof c.kernel, field[0]);
        copy_text(c.hash, sizeof c.hash, field[1]);
        copy_text(c.device, sizeof c.device, field[2]);
        for (keys = field[3]; *keys && c.num_keys < TKRT_MAX_KEYS; c.num_keys++) {
            c.key[c.num_keys] = strtoll(keys, &end, 10);
            if (end == keys)
                break;
            keys = *end == ',' ? end + 1 : end;
        }
        c.config = (int)strtol(field[4], &end, 10);
        if (end != field[4] && c.config >= 0)
            remember(&c);
    }
    pthread_mutex_unlock(&saved_mutex);
    fclose(f);
    return TK_SUCCESS;
}

static void load_cache(void)
{
    const char *path = getenv("TKC_TUNE_CACHE");
    if (path && *path)
        load_file(path, 1);
}

/* The saved config for this tuner, key and device, or -1. */
static int saved_config(const tkrt_tuner *t, const long long *key, const char *device)
{
    struct saved_choice want;
    size_t i;
    int config = -1;
    describe_choice(t, key, -1, device, &want);
    pthread_mutex_lock(&saved_mutex);
    for (i = 0; i < saved_count && config < 0; i++)
        if (!strcmp(saved[i].kernel, want.kernel) && !strcmp(saved[i].hash, want.hash) &&
            !strcmp(saved[i].device, want.device) && saved[i].num_keys == want.num_keys &&
            !memcmp(saved[i].key, want.key, sizeof *want.key * want.num_keys) &&
            saved[i].config < (int)t->num_configs)
            config = saved[i].config;
    pthread_mutex_unlock(&saved_mutex);
    return config;
}

/* A new choice: kept for tkrt_tune_save, and appended to TKC_TUNE_CACHE. */
static void save_choice(const tkrt_tuner *t, const long long *key, int config, const char *device)
{
    struct saved_choice c;
    const char *path = getenv("TKC_TUNE_CACHE");
    describe_choice(t, key, config, device, &c);
    pthread_mutex_lock(&saved_mutex);
    remember(&c);
    if (path && *path) {
        FILE *f = fopen(path, "a");
        if (f) {
            write_choice(f, &c, t->config_text ? t->config_text[config] : "");
            fclose(f);
        }
    }
    pthread_mutex_unlock(&saved_mutex);
}

tk_status tkrt_tune_save(const char *path)
{
    FILE *f;
    size_t i;
    int ok = 1;
    if (!path)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_save: no path");
    f = fopen(path, "w");
    if (!f)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_save: cannot write '%s'", path);
    pthread_mutex_lock(&saved_mutex);
    ok &= fprintf(f, "# tkc autotuning choices: kernel, source hash, device, key, config\n") > 0;
    for (i = 0; i < saved_count; i++)
        ok &= write_choice(f, &saved[i], "");
    pthread_mutex_unlock(&saved_mutex);
    ok &= fclose(f) == 0;
    if (!ok)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_save: writing '%s' failed", path);
    last_status = TK_SUCCESS;
    return TK_SUCCESS;
}

tk_status tkrt_tune_load(const char *path)
{
    tk_status s;
    if (!path)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_load: no path");
    s = load_file(path, 0);
    if (s == TK_SUCCESS)
        last_status = TK_SUCCESS;
    return s;
}

/* Which configs prune_configs_by keeps for these arguments (keep[c] 1 or
 * 0); how many. As Triton prunes: the condition first, then of the
 * configs it keeps the top_k with the lowest estimates (ties to the
 * earlier config; an estimate that is not a number ranks last). */
static unsigned kept_configs(const tkrt_tuner *t, void **args, unsigned char *keep)
{
    double estimate[MAX_CONFIGS];
    unsigned char kept[MAX_CONFIGS];
    unsigned c, d, n = 0;
    for (c = 0; c < t->num_configs; c++) {
        kept[c] = keep[c] = !t->keep || t->keep(args, c);
        n += keep[c];
    }
    if (!t->estimate || !t->top_k || n <= t->top_k)
        return n;
    for (c = 0; c < t->num_configs; c++) {
        estimate[c] = kept[c] ? t->estimate(args, c) : 0;
        if (estimate[c] != estimate[c])
            estimate[c] = 1e308;
    }
    /* each kept config's rank among the kept ones (ties by order): the
     * first top_k ranks stay */
    for (c = 0; c < t->num_configs; c++) {
        unsigned rank = 0;
        for (d = 0; kept[c] && d < t->num_configs; d++)
            rank += kept[d] && (estimate[d] < estimate[c] || (estimate[d] == estimate[c] && d < c));
        keep[c] = kept[c] && rank < t->top_k;
    }
    return t->top_k;
}

/* Records that prune_configs_by keeps no config of t for this key. */
static tk_status none_kept(const tkrt_tuner *t, const long long *key)
{
    char text[512];
    size_t used = 0;
    unsigned k;
    text[0] = '\0';
    for (k = 0; k < t->num_keys && used < sizeof text; k++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s=%lld", k ? ", " : "",
                                 t->key_names ? t->key_names[k] : "?", key[k]);
    return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                  "%s: prune_configs_by keeps none of its %u configs for (%s): nothing to launch", t->name,
                  t->num_configs, text);
}

static int capturing(CUstream stream)
{
    int status = 0;
    return cut.cuStreamIsCapturing && cut.cuStreamIsCapturing(stream, &status) == CUDA_SUCCESS &&
           status != 0;
}

tk_status tkrt_tuned_launch(tkrt_tuner *t, tk_stream stream, const long long *key, void **args)
{
    unsigned long long id = 0;
    CUcontext ctx = NULL;
    char device[128];
    tk_status s;
    int config, timed = 0;
    unsigned char keep[MAX_CONFIGS];
    unsigned candidates;

    if (!t || !t->configs || !t->num_configs || t->num_configs > MAX_CONFIGS || t->num_keys > TKRT_MAX_KEYS ||
        (t->num_keys && !key))
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tuned_launch: an invalid tuner");
    s = driver();
    if (s != TK_SUCCESS)
        return s;
    if (cu.cuCtxGetId(NULL, &id) != CUDA_SUCCESS) {
        s = current_context(t->name, &ctx, &id);
        if (s != TK_SUCCESS)
            return s;
    }
    config = table_get(t, id, key);
    if (config >= 0)
        return t->configs[config](stream, args);
    candidates = kept_configs(t, args, keep);
    if (!candidates)
        return none_kept(t, key);
    pthread_once(&cache_once, load_cache);
    device_name(device, sizeof device);
    config = compiled_choice(t, device, key);
    if (config < 0 || !keep[config])
        config = saved_config(t, key, device);
    if (config >= 0 && keep[config]) {
        lock_tuner(t);
        table_put(t, id, key, config);
        unlock_tuner(t);
        return t->configs[config](stream, args);
    }
    if (capturing((CUstream)stream)) {
        /* no timing inside a graph: a choice already made for a key near
         * it, or the first config (neither kept: the next launch outside
         * a graph times) */
        config = nearest_choice(t, id, device, key, keep);
        if (config >= 0)
            return t->configs[config](stream, args);
        return launch_first(t, (CUstream)stream, args, keep) >= 0 ? TK_SUCCESS : last_status;
    }
    pthread_mutex_lock(&tuning_mutex);
    config = table_get(t, id, key);
    if (config < 0 && !t->tune)
        config = nearest_choice(t, id, device, key, keep); /* a tuner that may not time */
    if (config < 0 && t->tune && candidates > 1 && tuning_symbols) {
        config = tune(t, (CUstream)stream, key, args, keep);
        timed = config >= 0;
    }
    if (config >= 0) {
        s = t->configs[config](stream, args);
    } else {
        config = launch_first(t, (CUstream)stream, args, keep);
        s = config >= 0 ? TK_SUCCESS : last_status;
    }
    if (config >= 0) {
        lock_tuner(t);
        table_put(t, id, key, config);
        unlock_tuner(t);
    }
    if (timed)
        save_choice(t, key, config, device);
    pthread_mutex_unlock(&tuning_mutex);
    return s;
}

/* ---- Public ---------------------------------------------------------- */

tk_status tkrt_launch(tkrt_kernel *kernel, tk_stream stream, unsigned grid_x, unsigned grid_y,
                      unsigned grid_z, void **args)
{
    CUcontext ctx = NULL;
    CUfunction function = NULL;
    unsigned long long id = 0;
    unsigned shared = 0, pdl = 0;
    CUresult r;
    tk_status s;

    if (!kernel || !kernel->name)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "tkrt_launch: called with no kernel (or a kernel without a name)");
    if (!kernel->module || (!kernel->module->num_images && !kernel->module->ptx))
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "%s: the kernel has neither cubin nor PTX",
                      kernel->name);
    if (kernel->num_threads == 0 || kernel->num_threads > 1024)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "%s: a block of %u threads; CUDA allows 1 to 1024", kernel->name,
                      kernel->num_threads);
    if (grid_x > 0x7fffffffu || grid_y > 65535 || grid_z > 65535)
        return tkrt_grid_invalid(kernel->name, grid_x, grid_y, grid_z, 0);

    s = driver();
    if (s != TK_SUCCESS)
        return s;
    if (grid_x == 0 || grid_y == 0 || grid_z == 0) {
        /* an empty input (no rows, a sequence of length 0): nothing to do,
         * as in Triton and cuBLAS */
        last_status = TK_SUCCESS;
        last_result = CUDA_SUCCESS;
        return TK_SUCCESS;
    }
    /* The usual case: a current context whose module is loaded. */
    if (cu.cuCtxGetId(NULL, &id) == CUDA_SUCCESS)
        function = lookup(kernel, id, &shared, &pdl);
    if (!function) {
        s = current_context(kernel->name, &ctx, &id);
        if (s != TK_SUCCESS)
            return s;
        lock_spin(&kernel->lock);
        function = lookup(kernel, id, &shared, &pdl);
        s = function ? TK_SUCCESS : load(kernel, ctx, id, &function, &shared, &pdl);
        unlock_spin(&kernel->lock);
        if (s != TK_SUCCESS)
            return s;
    }

    if (pdl) {
        CUlaunchAttribute attr;
        CUlaunchConfig config;
        memset(&attr, 0, sizeof attr);
        attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.allowed = 1;
        memset(&config, 0, sizeof config);
        config.grid_x = grid_x;
        config.grid_y = grid_y;
        config.grid_z = grid_z;
        config.block_x = kernel->num_threads;
        config.block_y = config.block_z = 1;
        config.shared_bytes = shared;
        config.stream = (CUstream)stream;
        config.attrs = &attr;
        config.num_attrs = 1;
        r = cuLaunchKernelEx(&config, function, args, NULL);
    } else {
        r = cu.cuLaunchKernel(function, grid_x, grid_y, grid_z, kernel->num_threads, 1, 1,
                              shared, (CUstream)stream, args, NULL);
    }
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_LAUNCH, r,
                      "%s: launching a grid of (%u, %u, %u) blocks of %u threads failed",
                      kernel->name, grid_x, grid_y, grid_z, kernel->num_threads);
    last_status = TK_SUCCESS;
    last_result = CUDA_SUCCESS;
    return TK_SUCCESS;
}

const char *tkrt_kernel_code(tkrt_kernel *kernel, int *from_ptx)
{
    unsigned long long id;
    const char *arch = NULL;
    unsigned i;
    tkrt_module *m = kernel ? kernel->module : NULL;
    if (!m || driver() != TK_SUCCESS || cu.cuCtxGetId(NULL, &id) != CUDA_SUCCESS)
        return NULL;
    lock_spin(&m->lock);
    for (i = 0; i < m->count; i++)
        if (m->loaded[i].context_id == id) {
            unsigned image = m->loaded[i].image;
            arch = image < m->num_images ? m->images[image].arch : m->ptx_arch;
            if (from_ptx)
                *from_ptx = image >= m->num_images;
            break;
        }
    unlock_spin(&m->lock);
    return arch;
}

tk_status tkrt_grid_invalid(const char *kernel, long long x, long long y, long long z, int bad)
{
    if (!kernel)
        kernel = "kernel";
    if (bad)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "%s: computing the grid or a heuristic divided by zero or shifted by a negative amount or "
                      "by 64 or more",
                      kernel);
    if (x < 0 || y < 0 || z < 0)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "%s: a grid of (%lld, %lld, %lld) programs; a dimension cannot be negative",
                      kernel, x, y, z);
    return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                  "%s: a grid of (%lld, %lld, %lld) programs; CUDA allows at most (2147483647, "
                  "65535, 65535)",
                  kernel, x, y, z);
}

tk_status tkrt_requirement_failed(const char *kernel, const char *condition, const char *values_format, ...)
{
    char values[512];
    va_list ap;
    va_start(ap, values_format);
    vsnprintf(values, sizeof values, values_format ? values_format : "", ap);
    va_end(ap);
    return record(TK_ERROR_REQUIREMENT, NO_RESULT, "%s: the requirement %s does not hold%s%s",
                  kernel ? kernel : "kernel", condition ? condition : "?", values[0] ? " with " : "", values);
}

tk_status tkrt_promise_failed(tk_status status, const char *kernel, const char *arg,
                              unsigned long long value, unsigned divisor)
{
    if (!kernel)
        kernel = "kernel";
    if (!arg)
        arg = "?";
    switch (status) {
    case TK_ERROR_MISALIGNED:
        return record(status, NO_RESULT,
                      "%s: pointer argument '%s' (0x%llx) is not %u-byte aligned, as its `%% %u` "
                      "promise says",
                      kernel, arg, value, divisor, divisor);
    case TK_ERROR_NOT_DIVISIBLE:
        return record(status, NO_RESULT,
                      "%s: argument '%s' = %lld is not a multiple of %u, as its `%% %u` promise "
                      "says",
                      kernel, arg, (long long)value, divisor, divisor);
    case TK_ERROR_NOT_ONE:
        return record(status, NO_RESULT,
                      "%s: argument '%s' = %lld is not 1, as its `== 1` promise says", kernel, arg,
                      (long long)value);
    default:
        return record(status, NO_RESULT, "%s: argument '%s' = %lld breaks its promise", kernel, arg,
                      (long long)value);
    }
}

tk_status tkrt_tensor_arg_init(tkrt_tensor_arg *arg, const tk_tensor *t, unsigned rank, unsigned elem_bytes,
                               const char *kernel, const char *arg_name)
{
    unsigned d;
    if (!kernel)
        kernel = "kernel";
    if (!arg_name)
        arg_name = "?";
    memset(arg, 0, sizeof *arg);
    if (!t || rank < 1 || rank > 5 || !elem_bytes)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "%s: no tensor for descriptor argument '%s'", kernel,
                      arg_name);
    if (!t->data || (unsigned long long)(uintptr_t)t->data % 16 != 0)
        return record(TK_ERROR_MISALIGNED, NO_RESULT,
                      "%s: descriptor argument '%s': its data (0x%llx) is not 16-byte aligned, as a tensor "
                      "descriptor needs",
                      kernel, arg_name, (unsigned long long)(uintptr_t)t->data);
    for (d = 0; d < rank; d++) {
        long long size = t->shape[d], stride = t->strides[d];
        if (size < 0 || size > 2147483647LL)
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s': shape[%u] = %lld is not in [0, 2^31)", kernel, arg_name,
                          d, size);
        if (d == rank - 1 && stride != 1)
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s': its last stride (strides[%u]) is %lld, not 1, as a "
                          "tensor descriptor needs",
                          kernel, arg_name, d, stride);
        if (d < rank - 1 && (stride < 0 || stride >= (1LL << 40) / (long long)elem_bytes ||
                             stride * (long long)elem_bytes % 16 != 0))
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s': strides[%u] = %lld (x %u bytes) is not a multiple "
                          "of 16 bytes in [0, 2^40), as a tensor descriptor needs",
                          kernel, arg_name, d, stride, elem_bytes);
        arg->shape[d] = size;
        arg->strides[d] = stride;
    }
    arg->data = (unsigned long long)(uintptr_t)t->data;
    return TK_SUCCESS;
}

tk_status tkrt_tensor_map_encode(tkrt_tensor_arg *arg, unsigned rank, int dtype, unsigned elem_bytes,
                                 const unsigned *box, unsigned swizzle_bytes, int nan_fill, const char *kernel,
                                 const char *arg_name)
{
    unsigned long long dims[5], strides[5];
    unsigned boxes[5], ones[5] = {1, 1, 1, 1, 1}, d;
    int swizzle = swizzle_bytes == 128 ? 3 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 32 ? 1 : 0;
    tk_status s;
    CUresult r;
    if (!kernel)
        kernel = "kernel";
    if (!arg_name)
        arg_name = "?";
    if (rank < 1 || rank > 5)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "%s: descriptor argument '%s' has rank %u", kernel,
                      arg_name, rank);
    s = driver();
    if (s != TK_SUCCESS)
        return s;
    if (!cuTensorMapEncodeTiled)
        return record(TK_ERROR_CUDA, NO_RESULT,
                      "%s: descriptor argument '%s' is copied by TMA, and this CUDA driver has no "
                      "cuTensorMapEncodeTiled (CUDA 12.0 or newer has)",
                      kernel, arg_name);
    /* the map's order is innermost first; its strides are in bytes, for
     * every dimension but the innermost */
    for (d = 0; d < rank; d++) {
        unsigned from = rank - 1 - d;
        if (arg->shape[from] == 0)
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s' is copied by TMA, which cannot describe an empty "
                          "tensor: shape[%u] = 0",
                          kernel, arg_name, from);
        dims[d] = (unsigned long long)arg->shape[from];
        strides[d] = (unsigned long long)arg->strides[from];
        boxes[d] = box[from];
    }
    for (d = 1; d < rank; d++)
        strides[d - 1] = strides[d] * elem_bytes;
    r = cuTensorMapEncodeTiled(arg->tensor_map, dtype, rank, (void *)(uintptr_t)arg->data, dims, strides, boxes,
                               ones, 0, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                               nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : 0);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_CUDA, r, "%s: cuTensorMapEncodeTiled for descriptor argument '%s'", kernel, arg_name);
    return TK_SUCCESS;
}

const char *tkrt_status_string(tk_status status)
{
    if (status == last_status && status != TK_SUCCESS && last_message[0])
        return last_message;
    if ((status == TK_ERROR_NO_DRIVER || status == TK_ERROR_NO_DEVICE) &&
        __atomic_load_n(&driver_done, __ATOMIC_ACQUIRE) && status == driver_status)
        return driver_message;
    switch (status) {
    case TK_SUCCESS:
        return "success";
    case TK_ERROR_NO_DRIVER:
        return "the CUDA driver (libcuda.so.1) could not be loaded; is an NVIDIA driver installed?";
    case TK_ERROR_NO_DEVICE:
        return "the CUDA driver found no CUDA device";
    case TK_ERROR_NO_CONTEXT:
        return "there is no current CUDA context, and the primary context of device 0 could not "
               "be made current";
    case TK_ERROR_MODULE_LOAD:
        return "the kernel's module could not be loaded: neither its cubin nor its PTX suits this "
               "GPU and driver";
    case TK_ERROR_LAUNCH:
        return "launching the kernel failed (cuLaunchKernel, or opting into its shared memory)";
    case TK_ERROR_MISALIGNED:
        return "a pointer argument is not aligned as its `% 16` promise says";
    case TK_ERROR_NOT_DIVISIBLE:
        return "an integer argument is not a multiple of 16 as its `% 16` promise says";
    case TK_ERROR_NOT_ONE:
        return "an integer argument is not 1 as its `== 1` promise says";
    case TK_ERROR_INVALID_VALUE:
        return "an invalid value was passed to the tkc runtime (no kernel, a block of 0 or more "
               "than 1024 threads, or a grid larger than CUDA allows)";
    case TK_ERROR_TOO_MANY_CONTEXTS:
        return "a kernel was used in more than 16 CUDA contexts, the most the tkc runtime keeps "
               "a module loaded in";
    case TK_ERROR_CUDA:
        return "a CUDA driver call failed";
    case TK_ERROR_REQUIREMENT:
        return "an argument breaks a condition the kernel requires (its `requires=`)";
    }
    return "unknown tk_status value";
}

tk_status tkrt_status(void)
{
    return last_status;
}

int tkrt_last_cuda_error(void)
{
    return last_result;
}
