/* The one shim every op-family test kernel uses: each kernel is named `op`
 * and takes (x, y, out, n), so one C signature serves them all. The
 * kernel's header comes in with -include. */
#include <stdint.h>

__attribute__((visibility("default"))) int tkshim_op(void *stream, void *x, void *y, void *out, int32_t n) {
    return (int)op(stream, x, y, out, n);
}

__attribute__((visibility("default"))) const char *tkshim_status_string(int status) {
    return tkrt_status_string((tk_status)status);
}
