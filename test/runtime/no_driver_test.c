/* runtime_stub without a driver: TKRT_LIBCUDA names a library that does not
 * exist, so every launch must return TK_ERROR_NO_DRIVER with a message that
 * names libcuda, and nothing may crash, print or exit. No GPU needed.
 *
 *   no_driver_test [LIBRARY]
 *
 * LIBRARY (default /nonexistent/libcuda.so.1) is what TKRT_LIBCUDA names:
 * one that is not there, or one that is but is no CUDA driver (libm.so.6:
 * "undefined symbol: cuInit"). Prints "ok" and exits 0, or prints each
 * failure and exits 1. */
#include "tkrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what, const char *detail)
{
    if (!ok) {
        printf("FAIL no_driver_test: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
        failures++;
    }
}

static const unsigned char dummy_cubin[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33 };
static const tkrt_image dummy_images[] = {{"sm_80", 8, 0, 0, dummy_cubin, sizeof dummy_cubin}};
static tkrt_module dummy_module = TKRT_MODULE_INIT(dummy_images, 1, ".version 8.0\n.target sm_80\n", "sm_80");
static const unsigned dummy_shared[] = {0, 0};
static tkrt_kernel dummy = TKRT_KERNEL_INIT("dummy", &dummy_module, 128, dummy_shared);

int main(int argc, char **argv)
{
    const char *library = argc > 1 ? argv[1] : "/nonexistent/libcuda.so.1";
    int x = 0, i;
    void *args[1];
    tk_status s;
    const char *text;

    args[0] = &x;
    if (setenv("TKRT_LIBCUDA", library, 1) != 0) {
        printf("FAIL no_driver_test: setenv\n");
        return 1;
    }

    check(tkrt_last_cuda_error() == -1, "no CUresult before the first call", NULL);
    s = tkrt_launch(&dummy, NULL, 1, 1, 1, args);
    check(s == TK_ERROR_NO_DRIVER, "tkrt_launch returns TK_ERROR_NO_DRIVER", tkrt_status_string(s));
    text = tkrt_status_string(s);
    check(text && (strstr(text, "libcuda") != NULL || !strstr(library, "libcuda")),
          "the message names libcuda", text);
    check(text && strstr(text, library) != NULL, "the message names the library", text);
    check(text && strstr(text, "CUDA driver") != NULL, "the message says CUDA driver", text);
    check(text && strstr(text, "NVIDIA driver") != NULL, "the message says what to install", text);
    check(tkrt_status() == TK_ERROR_NO_DRIVER, "tkrt_status() is the last status", NULL);
    check(tkrt_last_cuda_error() == -1, "no CUresult without a driver", NULL);

    /* Again, with another grid and a zero grid: the same answer, every time. */
    s = tkrt_launch(&dummy, NULL, 7, 2, 3, args);
    check(s == TK_ERROR_NO_DRIVER, "a second launch returns TK_ERROR_NO_DRIVER", NULL);
    s = tkrt_launch(&dummy, NULL, 0, 1, 1, args);
    check(s == TK_ERROR_NO_DRIVER, "an empty grid needs the driver too", NULL);
    check(dummy.count == 0 && dummy.lock == 0, "the kernel's cache stays empty", NULL);

    /* Invalid values are caught before the driver is needed. */
    s = tkrt_launch(NULL, NULL, 1, 1, 1, args);
    check(s == TK_ERROR_INVALID_VALUE, "a NULL kernel is TK_ERROR_INVALID_VALUE", NULL);
    s = tkrt_launch(&dummy, NULL, 1, 65536, 1, args);
    check(s == TK_ERROR_INVALID_VALUE, "grid_y > 65535 is TK_ERROR_INVALID_VALUE", NULL);
    text = tkrt_status_string(s);
    check(strstr(text, "65536") != NULL, "the grid message shows the grid", text);

    /* A promise failure, as a generated launcher records it. */
    s = tkrt_promise_failed(TK_ERROR_MISALIGNED, "vector_add", "x", 0x1004, 16);
    check(s == TK_ERROR_MISALIGNED, "tkrt_promise_failed returns its status", NULL);
    text = tkrt_status_string(s);
    check(strstr(text, "vector_add") && strstr(text, "'x'") && strstr(text, "0x1004") &&
              strstr(text, "% 16"),
          "the promise message names kernel, argument, value and promise", text);
    s = tkrt_promise_failed(TK_ERROR_NOT_DIVISIBLE, "vector_add", "n", (unsigned long long)-5, 16);
    text = tkrt_status_string(s);
    check(strstr(text, "-5") != NULL, "a negative integer prints as such", text);

    /* The driver's message outlives other failures of the thread. */
    text = tkrt_status_string(TK_ERROR_NO_DRIVER);
    check(strstr(text, library) != NULL,
          "TK_ERROR_NO_DRIVER keeps the dlopen detail after other failures", text);

    for (i = TK_SUCCESS; i <= TK_ERROR_CUDA; i++) {
        char what[64];
        text = tkrt_status_string((tk_status)i);
        snprintf(what, sizeof what, "status %d has a non-empty one-line string", i);
        check(text && text[0] && !strchr(text, '\n'), what, text);
    }
    text = tkrt_status_string((tk_status)99);
    check(text && text[0], "an unknown status has a string", text);

    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
