// tkrt.h in C++, used the way a generated launch header is used from a
// .cpp/.cu file. With the CUDA toolkit's headers (-I$CUDA_HOME/include), it
// comes after <cuda.h> and <cuda_runtime.h>, and a cudaStream_t, a CUstream,
// a CUdeviceptr and the float * of cudaMalloc pass straight in; without
// them (or with -DTKRT_TEST_NO_CUDA), the header is checked in C++ alone.
// Only compiled:
//   c++ -Wall -Wextra -Werror -pedantic [-I$CUDA_HOME/include] -Iruntime_stub -c
#if defined(__has_include) && !defined(TKRT_TEST_NO_CUDA)
#if __has_include(<cuda_runtime.h>) && __has_include(<cuda.h>)
#define WITH_CUDA 1
#include <cuda.h>
#include <cuda_runtime.h>
#endif
#endif

#include "tkrt.h"
#include "tkrt.h"

#include <stdint.h>

static const unsigned char tk_vector_add_cubin[] = { 0x7f, 'E', 'L', 'F' };
static const char tk_vector_add_ptx[] = ".version 8.0\n.target sm_90a\n";
static const tkrt_image tk_vector_add_images[] = {{"sm_90a", 9, 0, 1, tk_vector_add_cubin, sizeof tk_vector_add_cubin}};
static tkrt_module tk_vector_add_module = TKRT_MODULE_INIT(tk_vector_add_images, 1, tk_vector_add_ptx, "sm_90a");
static const unsigned tk_vector_add_shared[] = {0, 0};
static tkrt_kernel tk_vector_add_kernel =
    TKRT_KERNEL_INIT("vector_add", &tk_vector_add_module, 128, tk_vector_add_shared);

static inline tk_status vector_add(tk_stream stream, tk_ptr x, tk_ptr y, tk_ptr out, int32_t n)
{
    void *args[4] = { &x, &y, &out, &n };
    if ((uintptr_t)x % 16 != 0)
        return tkrt_promise_failed(TK_ERROR_MISALIGNED, "vector_add", "x", (uintptr_t)x, 16);
    return tkrt_launch(&tk_vector_add_kernel, stream, (unsigned)((n + 1023) / 1024), 1, 1, args);
}

#ifdef WITH_CUDA
int header_cxx_test(cudaStream_t stream, CUstream custream, CUdeviceptr dptr, int n);
int header_cxx_test(cudaStream_t stream, CUstream custream, CUdeviceptr dptr, int n)
{
    float *x = 0, *y = 0, *out = 0;
    if (cudaMalloc(&x, sizeof(float) * n) != cudaSuccess) // only compiled, never run
        return 1;
    tk_status s = vector_add(stream, x, y, out, n);
    if (s != TK_SUCCESS)
        return (int)s;
    s = vector_add(custream, reinterpret_cast<void *>(dptr), y, out, n);
    s = vector_add(cudaStreamPerThread, x, nullptr, out, n);
    const char *text = tkrt_status_string(s);
    return text[0] + tkrt_last_cuda_error() + (int)tkrt_status();
}
#else
int header_cxx_test(void *stream, int n);
int header_cxx_test(void *stream, int n)
{
    float *x = nullptr;
    tk_status s = vector_add(stream, x, x, x, n);
    return (int)s + tkrt_status_string(s)[0];
}
#endif
