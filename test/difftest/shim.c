/* The one shim of every difftest program (test/difftest/run_gpu.py): each
 * kernel is named `k` and takes (a, b, c, out, out2, n), whatever the
 * pointee types, so one C signature serves all. The header comes in with
 * -include. Returns the launcher's tk_status. */
#include <stdint.h>

__attribute__((visibility("default"))) int tkshim_k(void *stream, void *a, void *b, void *c, void *out, void *out2,
                                                    int32_t n) {
    return (int)k(stream, a, b, c, out, out2, n);
}

__attribute__((visibility("default"))) const char *tkshim_status_string(int status) {
    return tkrt_status_string((tk_status)status);
}
