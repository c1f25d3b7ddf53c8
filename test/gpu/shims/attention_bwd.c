/* ctypes entries for kernels/attention_bwd.tk's three kernels (any HEAD_DIM /
 * CAUSAL / element type variant: the launchers keep their names, and void *
 * converts to the header's f16 or bf16 pointers). */
#define TKC_IMPLEMENTATION
#include "attention_bwd.h"
#include "shim_common.h"

TKSHIM_EXPORT int tkshim_attention_bwd_preprocess(void *stream, void *o, void *d_o, void *delta, int32_t sz,
                                                  int32_t sh, int32_t ss, int32_t z, int32_t h, int32_t n_ctx) {
    return (int)attention_bwd_preprocess((tk_stream)stream, o, d_o, delta, sz, sh, ss, z, h, n_ctx);
}

TKSHIM_EXPORT int tkshim_attention_bwd_dkdv(void *stream, void *q, void *k, void *v, float sm_scale, void *d_o,
                                            void *m, void *delta, void *dk, void *dv, int32_t sz, int32_t sh,
                                            int32_t ss, int32_t z, int32_t h, int32_t n_ctx) {
    return (int)attention_bwd_dkdv((tk_stream)stream, q, k, v, sm_scale, d_o, m, delta, dk, dv, sz, sh, ss, z, h,
                                   n_ctx);
}

TKSHIM_EXPORT int tkshim_attention_bwd_dq(void *stream, void *q, void *k, void *v, float sm_scale, void *d_o,
                                          void *m, void *delta, void *dq, int32_t sz, int32_t sh, int32_t ss,
                                          int32_t z, int32_t h, int32_t n_ctx) {
    return (int)attention_bwd_dq((tk_stream)stream, q, k, v, sm_scale, d_o, m, delta, dq, sz, sh, ss, z, h, n_ctx);
}
