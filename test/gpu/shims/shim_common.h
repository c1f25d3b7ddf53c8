/* What every shim library exports besides its kernel: the runtime's status
 * codes and their text, so the Python side never hard-codes an enum value.
 * Included by exactly one translation unit per library (it defines
 * functions). The library is linked with -fvisibility=hidden, so only what
 * is marked TKSHIM_EXPORT is visible to ctypes; the runtime's own symbols
 * stay private to each library and copies in different libraries cannot
 * interpose on one another. */
#ifndef TKSHIM_COMMON_H
#define TKSHIM_COMMON_H

#include <stdint.h>
#include "tkrt.h"

#define TKSHIM_EXPORT __attribute__((visibility("default")))

TKSHIM_EXPORT int tkshim_success(void) { return (int)TK_SUCCESS; }

TKSHIM_EXPORT int tkshim_error_misaligned(void) { return (int)TK_ERROR_MISALIGNED; }

TKSHIM_EXPORT int tkshim_error_not_divisible(void) { return (int)TK_ERROR_NOT_DIVISIBLE; }

TKSHIM_EXPORT int tkshim_error_invalid_value(void) { return (int)TK_ERROR_INVALID_VALUE; }

TKSHIM_EXPORT int tkshim_error_requirement(void) { return (int)TK_ERROR_REQUIREMENT; }

TKSHIM_EXPORT const char *tkshim_status_string(int status) {
    return tkrt_status_string((tk_status)status);
}

#endif
