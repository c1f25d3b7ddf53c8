/* ctypes entry for kernels/layernorm.tk (any BLOCK / ROW_FITS variant). eps
 * stays a float all the way: ctypes passes c_float, and the launcher must hand
 * the kernel 4 bytes, never a double. */
#define TKC_IMPLEMENTATION
#include "layernorm.h"
#include "shim_common.h"

TKSHIM_EXPORT int tkshim_layer_norm_fwd(void *stream, void *X, void *Y, void *W, void *B,
                                        void *Mean, void *Rstd, int32_t stride, int32_t M,
                                        int32_t N, float eps) {
    return (int)layer_norm_fwd((tk_stream)stream, X, Y, W, B, Mean, Rstd, stride, M, N, eps);
}
