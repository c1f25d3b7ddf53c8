/* ctypes entry for kernels/matmul.tk (a header built without -D tunes its
 * autotune configs at the first launch for each shape). */
#define TKC_IMPLEMENTATION
#include "matmul.h"
#include "shim_common.h"

TKSHIM_EXPORT int tkshim_matmul(void *stream, void *a, void *b, void *c, int32_t m, int32_t n, int32_t k,
                                int32_t stride_am, int32_t stride_ak, int32_t stride_bk, int32_t stride_bn,
                                int32_t stride_cm, int32_t stride_cn) {
    return (int)matmul((tk_stream)stream, a, b, c, m, n, k, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                       stride_cn);
}
