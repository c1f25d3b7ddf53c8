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
 * tkrt_launch. Nothing is ever printed and nothing exits: every failure is
 * returned as a tk_status, and tkrt_status_string() explains it. */
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
    TK_ERROR_CUDA               /* any other driver call failed */
} tk_status;
typedef void *tk_stream; /* CUstream / cudaStream_t; NULL is the default stream */
typedef void *tk_ptr;    /* a device pointer */
#endif

#define TKRT_MAX_CONTEXTS 16

typedef struct tkrt_kernel {
    const char *name;             /* the kernel's symbol in the module */
    const unsigned char *cubin;   /* may be NULL: then only the PTX is used */
    size_t cubin_size;
    const char *ptx;              /* NUL-terminated; may be NULL */
    unsigned num_threads;         /* block size: num_warps * 32 */
    unsigned shared_bytes;        /* dynamic shared memory a block needs */
    /* runtime state, zero-initialized by the header: */
    volatile int lock;
    unsigned count;
    struct {
        void *context;                 /* the CUcontext */
        unsigned long long context_id; /* its unique id (cuCtxGetId): what a launch looks up */
        void *function;                /* the CUfunction (its module lives as long as the context) */
    } loaded[TKRT_MAX_CONTEXTS];
} tkrt_kernel;

/* An initializer that sets every field, so the definition compiles without
 * warnings under -Wextra (-Wmissing-field-initializers) in C and C++ (as
 * does spelling the tail out: `..., shared_bytes, 0, 0, {{0, 0, 0}}}`):
 *   static tkrt_kernel tk_vector_add_kernel =
 *       TKRT_KERNEL_INIT("vector_add", tk_vector_add_cubin,
 *                        sizeof tk_vector_add_cubin, tk_vector_add_ptx, 128, 0); */
#define TKRT_KERNEL_INIT(name, cubin, cubin_size, ptx, num_threads, shared_bytes) \
    { (name), (cubin), (cubin_size), (ptx), (num_threads), (shared_bytes), 0, 0, { { NULL, 0, NULL } } }

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

/* For generated launchers: records that the grid of `kernel` came out as
 * (x, y, z), which CUDA cannot launch (a dimension below 1 or above its
 * limit), or that computing it divided by zero or shifted out of range
 * (`bad`), and returns TK_ERROR_INVALID_VALUE. */
tk_status tkrt_grid_invalid(const char *kernel, long long x, long long y, long long z, int bad);

#ifdef __cplusplus
}
#endif

#endif
