/* ctypes entry for kernels/softmax.tk (any BLOCK variant: the header's
 * launcher is always named softmax). */
#define TKC_IMPLEMENTATION
#include "softmax.h"
#include "shim_common.h"

TKSHIM_EXPORT int tkshim_softmax(void *stream, void *out, void *x, int32_t out_row_stride,
                                 int32_t x_row_stride, int32_t n_rows, int32_t n_cols) {
    return (int)softmax((tk_stream)stream, out, x, out_row_stride, x_row_stride, n_rows, n_cols);
}
