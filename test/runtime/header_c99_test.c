/* tkrt.h in C99 without any CUDA header, used the way a generated launch
 * header uses it (twice, as two generated headers would). Only compiled:
 *   cc -std=c99 -Wall -Wextra -Werror -pedantic -Iruntime_stub -c */
#include "tkrt.h"
#include "tkrt.h"

#include <stdint.h>

/* What a generated header holds for one kernel. */
static const unsigned char tk_vector_add_cubin[] = { 0x7f, 'E', 'L', 'F' };
static const char tk_vector_add_ptx[] = ".version 8.0\n.target sm_90a\n";
static const tkrt_image tk_vector_add_images[] = {{"sm_90a", 9, 0, 1, tk_vector_add_cubin, sizeof tk_vector_add_cubin}};
static tkrt_module tk_vector_add_module = TKRT_MODULE_INIT(tk_vector_add_images, 1, tk_vector_add_ptx, "sm_90a");
static const unsigned tk_vector_add_shared[] = {0, 0};
static tkrt_kernel tk_vector_add_kernel =
    TKRT_KERNEL_INIT("vector_add", &tk_vector_add_module, 128, tk_vector_add_shared);

static inline tk_status vector_add(tk_stream stream, tk_ptr x, tk_ptr y, tk_ptr out, int32_t n)
{
    void *args[4];
    if ((uintptr_t)x % 16 != 0)
        return tkrt_promise_failed(TK_ERROR_MISALIGNED, "vector_add", "x", (uintptr_t)x, 16);
    args[0] = &x;
    args[1] = &y;
    args[2] = &out;
    args[3] = &n;
    return tkrt_launch(&tk_vector_add_kernel, stream, (unsigned)((n + 1023) / 1024), 1, 1, args);
}

int header_c99_test(void);
int header_c99_test(void)
{
    tk_status s = vector_add((tk_stream)0, (tk_ptr)0, (tk_ptr)0, (tk_ptr)0, 0);
    return s == TK_SUCCESS ? 0 : (tkrt_status_string(s)[0] != '\0') + tkrt_last_cuda_error() +
                                     (int)tkrt_status();
}
