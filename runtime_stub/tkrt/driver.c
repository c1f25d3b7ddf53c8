/* Part of runtime_stub/tkrt.c, compiled only through it (after the parts
 * before it, whose static functions and state it uses): the driver's ABI
 * (the types and entry points used, looked up with dlsym), the process's
 * driver (found once), the per-thread error record. */

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
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
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
