/* ctypes entry for kernels/attention.tk (any HEAD_DIM / CAUSAL variant: the
 * header's launcher is always named attention_fwd). */
#define TKC_IMPLEMENTATION
#include "attention.h"
#include "shim_common.h"

TKSHIM_EXPORT int tkshim_attention_fwd(void *stream, void *q, void *k, void *v, float sm_scale, void *m,
                                       void *out, int32_t sqz, int32_t sqh, int32_t sqs, int32_t sqd, int32_t skz,
                                       int32_t skh, int32_t sks, int32_t skd, int32_t svz, int32_t svh,
                                       int32_t svs, int32_t svd, int32_t soz, int32_t soh, int32_t sos,
                                       int32_t sod, int32_t z, int32_t h, int32_t n_ctx) {
    return (int)attention_fwd((tk_stream)stream, q, k, v, sm_scale, m, out, sqz, sqh, sqs, sqd, skz, skh, sks, skd,
                              svz, svh, svs, svd, soz, soh, sos, sod, z, h, n_ctx);
}
