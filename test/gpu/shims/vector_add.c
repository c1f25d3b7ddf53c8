/* ctypes entry for kernels/vector_add.tk: a plain C function (no tk_ types in
 * the signature) that returns the launcher's status as an int. */
#define TKC_IMPLEMENTATION
#include "vector_add.h"
#include "shim_common.h"

TKSHIM_EXPORT int tkshim_vector_add(void *stream, void *x, void *y, void *out, int32_t n) {
    return (int)vector_add((tk_stream)stream, x, y, out, n);
}
