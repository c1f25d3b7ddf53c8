/* runtime_stub: the C runtime that generated launch headers call (prefix
 * tkrt_). It loads the CUDA driver (libcuda.so.1) with dlopen, so a host
 * program links and starts on a machine without a GPU and gets
 * TK_ERROR_NO_DRIVER, with a message saying why, instead of a crash.
 *
 * This header compiles as C99 without any CUDA header, and in C or C++ after
 * <cuda.h> / <cuda_runtime.h>: a CUstream or cudaStream_t converts to
 * tk_stream and a device pointer (CUdeviceptr cast to void *, or the pointer
 * cudaMalloc gives) to tk_ptr.
 *
 * A generated header defines one `static tkrt_kernel` a kernel with the first
 * six fields set (TKRT_KERNEL_INIT below) and the rest zero, and calls
 * tkrt_launch. Nothing is printed (but what TKC_TUNE_VERBOSE asks for) and
 * nothing exits: every failure is returned as a tk_status, and
 * tkrt_status_string() explains it. */
#ifndef TKRT_H
#define TKRT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The vocabulary of every generated launcher's signature. Several generated
 * headers (and tkrt.h) may each carry it; the first one wins. */
#ifndef TK_STATUS_DEFINED
#define TK_STATUS_DEFINED
typedef enum tk_status {
    TK_SUCCESS = 0,
    TK_ERROR_NO_DRIVER,         /* libcuda.so.1 missing, incomplete, or cuInit failed */
    TK_ERROR_NO_DEVICE,         /* the driver sees no CUDA device */
    TK_ERROR_NO_CONTEXT,        /* no current context and none could be made */
    TK_ERROR_MODULE_LOAD,       /* neither the cubin nor the PTX loads on this GPU */
    TK_ERROR_LAUNCH,            /* cuLaunchKernel (or the shared-memory opt-in) failed */
    TK_ERROR_MISALIGNED,        /* a pointer breaks its `% 16` promise */
    TK_ERROR_NOT_DIVISIBLE,     /* an integer breaks its `% 16` promise */
    TK_ERROR_NOT_ONE,           /* an integer breaks its `== 1` promise */
    TK_ERROR_INVALID_VALUE,     /* a bad argument to the runtime (grid too large, ...) */
    TK_ERROR_TOO_MANY_CONTEXTS, /* one kernel used in more than 16 contexts */
    TK_ERROR_CUDA,              /* any other driver call failed */
    TK_ERROR_REQUIREMENT        /* an argument breaks the kernel's `requires=` */
} tk_status;
typedef void *tk_stream; /* CUstream / cudaStream_t; NULL is the default stream */
typedef void *tk_ptr;    /* a device pointer */
#endif

/* A tensor, as a launcher's descriptor parameter (tensor_descriptor[...]
 * in the kernel's signature) takes it: its data (a device pointer) and,
 * outermost dimension first, each dimension's size and stride in
 * elements, as torch's shape and stride(). Dimensions past the
 * descriptor's rank are not read. In C: (tk_tensor){a, {M, K}, {K, 1}}. */
#ifndef TK_TENSOR_DEFINED
#define TK_TENSOR_DEFINED
typedef struct tk_tensor {
    const void *data;
    long long shape[5];
    long long strides[5];
} tk_tensor;
#endif

#define TKRT_MAX_CONTEXTS 16

/* A descriptor parameter as the kernel receives it (codegen/descriptor.c
 * reads it at these offsets; the header checks them): a CUtensorMap for
 * the kernel's TMA copies, then the tensor. 64-byte aligned, as
 * CUtensorMap must be. */
#if defined(_MSC_VER)
#define TKRT_ALIGN64 __declspec(align(64))
#else
#define TKRT_ALIGN64 __attribute__((aligned(64)))
#endif
typedef struct TKRT_ALIGN64 tkrt_tensor_arg {
    unsigned long long tensor_map[16];
    unsigned long long data;      /* at 128 */
    long long shape[5];           /* at 136 */
    long long strides[5];         /* at 176 */
    unsigned long long unused[5]; /* to 256 bytes */
} tkrt_tensor_arg;
typedef char tkrt_tensor_arg_layout[offsetof(tkrt_tensor_arg, data) == 128 && offsetof(tkrt_tensor_arg, shape) == 136 &&
                                    offsetof(tkrt_tensor_arg, strides) == 176 && sizeof(tkrt_tensor_arg) == 256 ? 1 : -1];

/* One cubin of a module. It runs on GPUs of compute capability
 * major.minor and on later minors of the same major; an arch-specific
 * cubin (sm_90a) only on exactly major.minor. */
typedef struct tkrt_image {
    const char *arch;             /* "sm_90a", for messages */
    unsigned major, minor;
    int arch_specific;
    const unsigned char *cubin;
    size_t size;
} tkrt_image;

/* A module: its cubins (one per target it was built for) and the PTX of
 * the newest target, which the driver JIT-compiles where no cubin suits
 * the GPU. Loaded once per context, for all of its kernels. */
typedef struct tkrt_module {
    const tkrt_image *images;
    unsigned num_images;
    const char *ptx;              /* NUL-terminated; may be NULL */
    const char *ptx_arch;         /* the target the PTX is for */
    /* runtime state, zero-initialized by the header: */
    volatile int lock;
    unsigned count;
    struct {
        void *context;                 /* the CUcontext */
        unsigned long long context_id; /* its unique id (cuCtxGetId) */
        void *module;                  /* the CUmodule (it lives as long as the context) */
        unsigned image;                /* which image it is (num_images: the PTX) */
    } loaded[TKRT_MAX_CONTEXTS];
} tkrt_module;

#define TKRT_MODULE_INIT(images, num_images, ptx, ptx_arch) \
    { (images), (num_images), (ptx), (ptx_arch), 0, 0, { { NULL, 0, NULL, 0 } } }

typedef struct tkrt_kernel {
    const char *name;             /* the kernel's symbol in the module */
    tkrt_module *module;
    unsigned num_threads;         /* block size: num_warps * 32 */
    /* dynamic shared memory a block needs, for each image of the module
     * and then for its PTX (num_images + 1 values) */
    const unsigned *shared_bytes;
    unsigned flags;               /* TKRT_KERNEL_PDL */
    /* runtime state, zero-initialized by the header: */
    volatile int lock;
    unsigned count;
    struct {
        void *context;                 /* the CUcontext */
        unsigned long long context_id; /* its unique id (cuCtxGetId): what a launch looks up */
        void *function;                /* the CUfunction (its module lives as long as the context) */
        unsigned shared_bytes;         /* for the image loaded in this context */
        unsigned pdl;                  /* launched with programmatic stream serialization here */
    } loaded[TKRT_MAX_CONTEXTS];
} tkrt_kernel;

/* A kernel launched with programmatic dependent launch (@kernel(...,
 * launch_pdl=True)): cuLaunchKernelEx with programmatic stream
 * serialization allowed, where the code loaded is for sm_90 or newer and
 * the driver has cuLaunchKernelEx; elsewhere an ordinary launch. The
 * kernel may then start before the one before it in the stream ends, and
 * waits for it where it calls gdc_wait. */
#define TKRT_KERNEL_PDL 1u

/* Initializers that set every field, so the definitions compile without
 * warnings under -Wextra (-Wmissing-field-initializers) in C and C++:
 *   static const tkrt_image images[] = {{"sm_90a", 9, 0, 1, cubin, sizeof cubin}};
 *   static tkrt_module module = TKRT_MODULE_INIT(images, 1, ptx, "sm_90a");
 *   static const unsigned smem[] = {0, 0};
 *   static tkrt_kernel vector_add = TKRT_KERNEL_INIT("vector_add", &module, 128, smem); */
#define TKRT_KERNEL_INIT(name, module, num_threads, shared_bytes) \
    TKRT_KERNEL_INIT_FLAGS(name, module, num_threads, shared_bytes, 0u)
#define TKRT_KERNEL_INIT_FLAGS(name, module, num_threads, shared_bytes, flags) \
    { (name), (module), (num_threads), (shared_bytes), (flags), 0, 0, { { NULL, 0, NULL, 0, 0 } } }

/* Launches `kernel` on `stream` with a grid of grid_x * grid_y * grid_z
 * blocks of num_threads threads and shared_bytes of dynamic shared memory.
 * args[i] points at the i-th argument's value (the cuLaunchKernel
 * convention). Uses the calling thread's current CUDA context; where there
 * is none, makes the primary context of device 0 current. The module is
 * loaded once per context, thread-safely; later launches neither allocate
 * nor synchronise. A grid with a zero dimension launches nothing and returns
 * TK_SUCCESS (once the driver has been found). */
tk_status tkrt_launch(tkrt_kernel *kernel, tk_stream stream, unsigned grid_x,
                      unsigned grid_y, unsigned grid_z, void **args);

/* The target whose code `kernel` runs in the current context: the arch of
 * the cubin loaded there ("sm_90a"), or the PTX's ("sm_80"), with
 * *from_ptx (when not NULL) set to 1 where the driver JIT-compiled the PTX.
 * NULL where the kernel has not been launched in this context. */
const char *tkrt_kernel_code(tkrt_kernel *kernel, int *from_ptx);

/* ---- Autotuning: the launcher of an @autotune kernel ------------------
 *
 * The header defines one candidate function per autotune config (it picks
 * the config's @heuristics / divisibility variant and computes its grid from
 * args, which holds pointers to the arguments as for tkrt_launch) and one
 * tkrt_tuner. The first launch for a new value of the key (the `key=[...]`
 * parameters) in a context times every config on the caller's stream, on
 * its arguments, and keeps the fastest; later launches with that key look
 * it up and launch it. See tkrt_tuned_launch. */
#define TKRT_MAX_KEYS 8

typedef tk_status (*tkrt_config_fn)(tk_stream stream, void **args);

/* A pointer argument that the trials would otherwise clobber: zeroed before
 * each trial and before the real launch (reset_to_zero), or copied before
 * the trials and copied back after each (restore_value). `bytes` gives its
 * size from the arguments. */
typedef struct tkrt_tuned_buffer {
    unsigned arg;                            /* index into args */
    int reset;                               /* 1: reset_to_zero, 0: restore_value */
    unsigned long long (*bytes)(void **args);
} tkrt_tuned_buffer;

/* A choice compiled into the header (tkc --tune-table): on a device of
 * this name, this key takes this config. */
typedef struct tkrt_tune_choice {
    const char *device;                      /* as cuDeviceGetName says it */
    long long key[TKRT_MAX_KEYS];
    int config;
} tkrt_tune_choice;

typedef struct tkrt_tuner {
    const char *name;                 /* the kernel's name */
    const char *source_hash;          /* identifies the source and the options it was built with */
    unsigned num_configs;
    const tkrt_config_fn *configs;
    const char *const *config_text;   /* each config as the source writes it */
    unsigned num_keys;                /* at most TKRT_MAX_KEYS */
    const char *const *key_names;
    unsigned num_buffers;
    const tkrt_tuned_buffer *buffers;
    unsigned num_choices;             /* compiled in with tkc --tune-table */
    const tkrt_tune_choice *choices;
    /* prune_configs_by: config c is a candidate for these arguments where
     * keep(args, c) is 1 (NULL: every config is); of the candidates, the
     * top_k with the lowest estimate(args, c) are timed (NULL: all) */
    int (*keep)(void **args, unsigned config);
    double (*estimate)(void **args, unsigned config);
    unsigned top_k;
    /* milliseconds of warm-up before each round of a config's timed runs,
     * and of timed runs in all (@autotune's warmup= and rep=; negative: 60
     * and 100) */
    double warmup_ms, rep_ms;
    int tune;                         /* 0: never time (tkc --tune=off, or writes no list names) */
    /* runtime state, zero-initialized by the header: */
    volatile int lock;
    void *table;
} tkrt_tuner;

#define TKRT_TUNER_INIT(name, hash, num_configs, configs, config_text, num_keys, key_names, \
                        num_buffers, buffers, num_choices, choices, keep, estimate, top_k,  \
                        warmup_ms, rep_ms, tune)                                            \
    { (name), (hash), (num_configs), (configs), (config_text), (num_keys), (key_names),   \
      (num_buffers), (buffers), (num_choices), (choices), (keep), (estimate), (top_k),     \
      (warmup_ms), (rep_ms), (tune), 0, NULL }

/* Launches the config of `tuner` chosen for `key` (num_keys values) in the
 * current context, choosing it first where this context has not seen that
 * key: each config that launches is timed as Triton's do_bench times (CUDA
 * events on `stream` after a warm-up, the L2 cache flushed before each run,
 * about 100 ms of runs unless rep_ms says otherwise, the median), but in 3
 * interleaved rounds against clock drift, each config's share of a round
 * after about 60 ms of its own warm-up (warmup_ms) so that the clock has
 * settled to what it draws; the fastest is
 * kept, and then it runs on the arguments, whose pointers then hold what
 * that one launch gives (buffers named reset_to_zero or restore_value are
 * zeroed or restored first). Configs that do not launch on this device (too
 * much shared memory) are skipped. Thread-safe: one thread tunes at a time,
 * the others wait and then use its choice. Only the candidates that
 * prune_configs_by keeps (keep, estimate and top_k) are timed, or launched
 * at all; where it keeps none the launch fails with TK_ERROR_INVALID_VALUE,
 * and where it keeps one that one runs untimed. Before timing, a key looks
 * in the choices compiled into the header for this device, then in those
 * saved (below). While `stream` is capturing a CUDA graph, or where the
 * tuner may not time (tune 0), the launch takes the choice for the nearest
 * key (the header's for this device, or this context's), or else the first
 * candidate that launches.
 * TKC_TUNE_VERBOSE=1 in the environment prints each choice with the times
 * to stderr (the one output of this runtime). */
tk_status tkrt_tuned_launch(tkrt_tuner *tuner, tk_stream stream, const long long *key, void **args);

/* Choices that outlive the process: tkrt_tune_save writes every choice
 * made (or loaded) so far to `path`, a text file of one line a choice
 * (kernel, source hash, device name, key values, config); tkrt_tune_load
 * reads such a file, and a later first launch whose kernel, source hash,
 * device and key match a line takes its config without timing. With
 * TKC_TUNE_CACHE=path in the environment, the first tuned launch loads
 * path if it exists and each new choice is appended to it. Both return
 * TK_SUCCESS, or TK_ERROR_INVALID_VALUE when the file cannot be written or
 * read (tkrt_status_string says why). */
tk_status tkrt_tune_save(const char *path);
tk_status tkrt_tune_load(const char *path);

/* A one-line explanation of `status`. When `status` is the last one this
 * thread got from tkrt_launch / tkrt_promise_failed, the line carries the
 * details (kernel, argument, driver error name and text); otherwise it is
 * the general explanation. The text stays valid until this thread's next
 * tkrt_ call. Never NULL. */
const char *tkrt_status_string(tk_status status);

/* The status of this thread's last tkrt_launch / tkrt_promise_failed. */
tk_status tkrt_status(void);

/* The last CUresult this thread saw (0, CUDA_SUCCESS, after a launch that
 * worked); -1 before any, or when the driver could not be loaded. */
int tkrt_last_cuda_error(void);

/* For generated launchers: records that argument `arg` of `kernel` breaks
 * its promise, and returns `status` (TK_ERROR_MISALIGNED, ..._NOT_DIVISIBLE
 * or ..._NOT_ONE) so a launcher can `return tkrt_promise_failed(...)`.
 * `value` is the argument (a pointer as an integer), `divisor` the promised
 * divisor (ignored for TK_ERROR_NOT_ONE). */
tk_status tkrt_promise_failed(tk_status status, const char *kernel, const char *arg,
                              unsigned long long value, unsigned divisor);

/* For generated launchers: the number of streaming multiprocessors of the
 * current context's device (made current as tkrt_launch does where there
 * is none), for a kernel parameter declared `NAME: i32 = num_sms()`.
 * TK_SUCCESS and *out set, or the driver's or context's error. */
tk_status tkrt_num_sms(const char *kernel, int *out);

/* For generated launchers: *arg from *t, for the descriptor parameter
 * `arg_name` of `kernel`, of `rank` dimensions of `elem_bytes`-byte
 * elements. Checks what a tensor descriptor needs (Triton's
 * TensorDescriptor rules, which are TMA's): data not NULL and 16-byte
 * aligned (else TK_ERROR_MISALIGNED), sizes in [0, 2^31), the last
 * stride 1, the others in [0, 2^40) and multiples of 16 bytes (else
 * TK_ERROR_REQUIREMENT), each failure recorded with a message saying
 * which. The tensor map is left zero. */
tk_status tkrt_tensor_arg_init(tkrt_tensor_arg *arg, const tk_tensor *t, unsigned rank, unsigned elem_bytes,
                               const char *kernel, const char *arg_name);

/* For generated launchers of a variant that copies the descriptor
 * argument `arg_name` by TMA: the tensor map in *arg (filled by
 * tkrt_tensor_arg_init) for `rank` dimensions of `elem_bytes`-byte
 * elements of CUtensorMapDataType `dtype`, boxes of box[] (outermost
 * first), swizzle_bytes 0, 32, 64 or 128, and out-of-bounds elements NaN
 * where nan_fill, else zero. TK_ERROR_REQUIREMENT for an empty tensor
 * (a tensor map cannot describe one), TK_ERROR_CUDA where the driver
 * has no cuTensorMapEncodeTiled or refuses. */
tk_status tkrt_tensor_map_encode(tkrt_tensor_arg *arg, unsigned rank, int dtype, unsigned elem_bytes,
                                 const unsigned *box, unsigned swizzle_bytes, int nan_fill, const char *kernel,
                                 const char *arg_name);

/* For generated launchers: records that the grid of `kernel` came out as
 * (x, y, z), which CUDA cannot launch (a negative dimension or one above its
 * limit), or that computing it divided by zero or shifted out of range
 * (`bad`), and returns TK_ERROR_INVALID_VALUE. */
tk_status tkrt_grid_invalid(const char *kernel, long long x, long long y, long long z, int bad);

/* For generated launchers: records that the condition `condition` (as
 * written in the kernel's `requires=`) does not hold, with the values
 * `values_format` and the arguments after it print (the arguments the
 * condition reads), and returns TK_ERROR_REQUIREMENT. */
tk_status tkrt_requirement_failed(const char *kernel, const char *condition, const char *values_format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif
