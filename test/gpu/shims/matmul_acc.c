/* ctypes entry for test/gpu/kernels/matmul_acc.tk (an autotuned launcher
 * that restores C around its trials). */
#define TKC_IMPLEMENTATION
#include "matmul_acc.h"
#include "shim_common.h"

TKSHIM_EXPORT int tkshim_matmul_acc(void *stream, void *a, void *b, void *c, int32_t m, int32_t n, int32_t k,
                                    int32_t stride_am, int32_t stride_bk, int32_t stride_cm) {
    return (int)matmul_acc((tk_stream)stream, a, b, c, m, n, k, stride_am, stride_bk, stride_cm);
}
