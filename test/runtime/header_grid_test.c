/* The grids a generated header computes (header_grid.tk), launched on the
 * fake driver: each must match the same expression written in C; an empty
 * grid returns TK_SUCCESS and launches nothing (an empty input); a negative
 * grid or a division by zero must be refused with TK_ERROR_INVALID_VALUE,
 * and nothing may launch then. A `num_sms()` parameter is the fake
 * device's multiprocessor count, in the grid and in the kernel's arguments.
 *
 *   header_grid_test FAKE_LIBCUDA.so      (header_grid.h on the include path)
 *
 * Prints "ok" and exits 0, or a FAIL line for each failure and exits 1. */
#define TKC_IMPLEMENTATION /* this file holds the module */
#include "header_grid.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static unsigned *last_grid;
static int *launches;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL header_grid_test:%d: ", __LINE__);                                        \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* a launch status against the grid expected (0 in any dimension: success,
 * nothing launched; negative: refused) */
static void expect(const char *what, long long n, tk_status s, long long gx, long long gy, long long gz,
                   int before)
{
    int valid = gx >= 0 && gy >= 0 && gz >= 0 && gx <= 2147483647 && gy <= 65535 && gz <= 65535;
    if (!valid) {
        CHECK(s == TK_ERROR_INVALID_VALUE, "%s n=%lld: grid (%lld, %lld, %lld) gave status %d (%s)", what, n,
              gx, gy, gz, (int)s, tkrt_status_string(s));
        CHECK(*launches == before, "%s n=%lld: a refused grid launched", what, n);
        return;
    }
    CHECK(s == TK_SUCCESS, "%s n=%lld: status %d (%s)", what, n, (int)s, tkrt_status_string(s));
    if (gx == 0 || gy == 0 || gz == 0) {
        CHECK(*launches == before, "%s n=%lld: an empty grid launched", what, n);
        return;
    }
    CHECK(*launches == before + 1, "%s n=%lld: no launch", what, n);
    CHECK(last_grid[0] == (unsigned)gx && last_grid[1] == (unsigned)gy && last_grid[2] == (unsigned)gz,
          "%s n=%lld: launched (%u, %u, %u), expected (%lld, %lld, %lld)", what, n, last_grid[0],
          last_grid[1], last_grid[2], gx, gy, gz);
}

int main(int argc, char **argv)
{
    static const long long ns[] = {-7, -2, -1, 0, 1, 2, 3, 4, 5, 6, 17, 100, 1023};
    tk_ptr x = (tk_ptr)(uintptr_t)4096;
    void *lib;
    size_t i;
    if (argc != 2) {
        printf("FAIL header_grid_test: usage: header_grid_test FAKE_LIBCUDA.so\n");
        return 1;
    }
    setenv("TKRT_LIBCUDA", argv[1], 1);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        printf("FAIL header_grid_test: %s\n", dlerror());
        return 1;
    }
    last_grid = (unsigned *)dlsym(lib, "fake_last_grid");
    launches = (int *)dlsym(lib, "fake_launches");
    if (!last_grid || !launches) {
        printf("FAIL header_grid_test: the fake driver lacks its counters\n");
        return 1;
    }
    for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        long long n = ns[i], m, d;
        int before = *launches;
        for (m = -3; m <= 9; m += 2) { /* m = -1: grid_y 0, an empty grid */
            before = *launches;
            /* `and` does not divide when n is 0 */
            /* n % 3 < 0 shifts by a negative amount: refused (z = -1 here) */
            expect("cond_grid", n, cond_grid(NULL, x, (int32_t)n, m), n > 0 ? n : 1, (m + 1) / 2,
                   n % 3 < 0 ? -1 : 1LL << (n % 3), before);
        }
        for (d = -2; d <= 3; d++) {
            long long gy;
            before = *launches;
            if (n >= 0 && d == 0) {
                /* n // 0: refused, never a trap */
                tk_status s = arith_grid(NULL, x, (int32_t)n, (int32_t)d);
                CHECK(s == TK_ERROR_INVALID_VALUE, "arith_grid n=%lld d=0: status %d", n, (int)s);
                CHECK(*launches == before, "arith_grid n=%lld d=0 launched", n);
                continue;
            }
            gy = n < 0 ? -n + 100 : n / d;
            expect("arith_grid", n, arith_grid(NULL, x, (int32_t)n, (int32_t)d),
                   (n > 1 ? n : 1) * 2 - (n < 3 ? n : 3), gy, (n >> 1) % 5 + 1, before);
        }
        before = *launches;
        expect("bool_grid", n, bool_grid(NULL, x, (int32_t)n),
               ((double)(float)((float)n * 1.5f) > 3.0) + 1 + (~n & 1) + !(n > 3), n * 3, 1, before);
    }
    /* requires=: refused before the launch, with the condition and values */
    {
        int before = *launches;
        tk_status s = required(NULL, x, 48, 16, 1.0f);
        CHECK(s == TK_SUCCESS && *launches == before + 1, "required(48, 16, 1.0): status %d", (int)s);
        s = required(NULL, x, 8, 4, 0.25f);
        CHECK(s == TK_ERROR_REQUIREMENT && *launches == before + 1, "required scale 0.25 narrow: status %d", (int)s);
        CHECK(strstr(tkrt_status_string(s), "required: the requirement scale > 0.5 or WIDE does not hold with "
                                            "scale = 0.25, WIDE = False") != NULL,
              "required: message '%s'", tkrt_status_string(s));
        s = required(NULL, x, 40, 4, 0.25f);
        CHECK(s == TK_SUCCESS && *launches == before + 2, "required scale 0.25 wide: status %d", (int)s);
        s = required(NULL, x, 65, 5, 1.0f);
        CHECK(s == TK_ERROR_REQUIREMENT && *launches == before + 2, "required n 65: status %d", (int)s);
        CHECK(strstr(tkrt_status_string(s), "the requirement n <= BLOCK does not hold with n = 65, BLOCK = 64") !=
                  NULL, "required: message '%s'", tkrt_status_string(s));
        s = required(NULL, x, 10, 0, 1.0f);
        CHECK(s == TK_ERROR_REQUIREMENT && *launches == before + 2, "required m 0: status %d", (int)s);
        CHECK(strstr(tkrt_status_string(s), "n % m == 0 and m > 0 does not hold with n = 10, m = 0") != NULL,
              "required: message '%s'", tkrt_status_string(s));
        s = required(NULL, x, 10, 3, 1.0f);
        CHECK(s == TK_ERROR_REQUIREMENT && *launches == before + 2, "required 10 %% 3: status %d", (int)s);
        CHECK(strcmp(tkrt_status_string(TK_ERROR_MISALIGNED), tkrt_status_string(TK_ERROR_REQUIREMENT)) != 0,
              "status texts");
    }
    /* optional pointers: variant 0 has both, 1 b only, 2 w only, 3 neither */
    {
        const char *kernel = (const char *)dlsym(lib, "fake_last_kernel");
        static const char *const want[] = {"optional_ptr__v0", "optional_ptr__v1", "optional_ptr__v2",
                                           "optional_ptr__v3"};
        int v;
        CHECK(kernel != NULL, "the fake driver lacks fake_last_kernel");
        for (v = 0; kernel && v < 4; v++) {
            tk_ptr b = v < 2 ? x : NULL, w = v % 2 == 0 ? x : NULL;
            int before = *launches;
            tk_status s = optional_ptr(NULL, x, b, w);
            CHECK(s == TK_SUCCESS && *launches == before + 1, "optional_ptr b=%p w=%p: status %d", b, w, (int)s);
            CHECK(strstr(kernel, want[v]) != NULL && strlen(strstr(kernel, want[v])) == strlen(want[v]),
                  "optional_ptr b=%p w=%p launched %s, expected %s", b, w, kernel, want[v]);
        }
    }
    /* specializations: the first whose assumptions the arguments meet */
    {
        const char *kernel = (const char *)dlsym(lib, "fake_last_kernel");
        static const struct { long long offset, n, stride; const char *entry; } picks[] = {
            {0, 1024, 1, "strided_u_d16"}, {0, 1000, 1, "strided_u_a"}, {0, 1024, 2, "strided_d16"},
            {0, 1000, 2, "strided"},       {4, 1024, 1, "strided"},     {0, 1024, 0, "strided_d16"},
            {0, 16, -1, "strided_d16"},    {8, 1000, 3, "strided"},
        };
        size_t p;
        for (p = 0; kernel && p < sizeof picks / sizeof picks[0]; p++) {
            tk_ptr shifted = (tk_ptr)((uintptr_t)x + (uintptr_t)picks[p].offset);
            int before = *launches;
            tk_status s = strided(NULL, shifted, x, (int32_t)picks[p].n, (int32_t)picks[p].stride);
            CHECK(s == TK_SUCCESS && *launches == before + 1, "strided n=%lld stride=%lld: status %d", picks[p].n,
                  picks[p].stride, (int)s);
            CHECK(strcmp(kernel, picks[p].entry) == 0, "strided x+%lld n=%lld stride=%lld launched %s, expected %s",
                  picks[p].offset, picks[p].n, picks[p].stride, kernel, picks[p].entry);
        }
    }
    /* num_sms(): read from the device at each launch, never an argument */
    {
        int *num_sms = (int *)dlsym(lib, "fake_num_sms");
        unsigned *arg_sizes = (unsigned *)dlsym(lib, "fake_arg_sizes");
        unsigned char(*args)[8] = (unsigned char(*)[8])dlsym(lib, "fake_last_args");
        const char *kernel = (const char *)dlsym(lib, "fake_last_kernel");
        static const int counts[] = {132, 7, 1};
        static const long long lens[] = {0, 1, 64, 65, 1000, 100000};
        size_t c, l;
        CHECK(num_sms && arg_sizes && args && kernel, "the fake driver lacks fake_num_sms or its argument copies");
        for (c = 0; num_sms && arg_sizes && args && kernel && c < sizeof counts / sizeof counts[0]; c++) {
            *num_sms = counts[c];
            arg_sizes[0] = 8, arg_sizes[1] = 4, arg_sizes[2] = 4;
            for (l = 0; l < sizeof lens / sizeof lens[0]; l++) {
                long long n = lens[l], tiles = (n + 63) / 64, gx = tiles < counts[c] ? tiles : counts[c];
                int32_t passed = -1;
                int before = *launches;
                tk_status s;
                expect("persistent", n, persistent(NULL, x, (int32_t)n), gx, 1, 1, before);
                memcpy(&passed, args[2], 4);
                CHECK(n == 0 || passed == counts[c], "persistent n=%lld: NUM_SMS %d passed, the device has %d", n,
                      (int)passed, counts[c]);
                /* tuned: the grid of the config it launched */
                before = *launches;
                s = persistent_tuned(NULL, x, (int32_t)n);
                CHECK(s == TK_SUCCESS, "persistent_tuned n=%lld: status %d (%s)", n, (int)s, tkrt_status_string(s));
                if (n > 0 && s == TK_SUCCESS) {
                    long long block = strstr(kernel, "__v1") ? 128 : 64;
                    long long want = (n + block - 1) / block < 2LL * counts[c] ? (n + block - 1) / block
                                                                                : 2LL * counts[c];
                    memcpy(&passed, args[2], 4);
                    CHECK(last_grid[0] == (unsigned)want && passed == counts[c],
                          "persistent_tuned n=%lld (%s): grid %u NUM_SMS %d, expected %lld and %d", n, kernel,
                          last_grid[0], (int)passed, want, counts[c]);
                } else if (s == TK_SUCCESS) {
                    CHECK(*launches == before, "persistent_tuned n=0 launched");
                }
            }
        }
        if (num_sms && arg_sizes) {
            /* a device that cannot say: refused, nothing launched */
            int before = *launches;
            tk_status s;
            *num_sms = 0;
            s = persistent(NULL, x, 100);
            CHECK(s == TK_ERROR_CUDA && *launches == before, "persistent on a failing query: status %d", (int)s);
            CHECK(strstr(tkrt_status_string(s), "persistent: the device's number of multiprocessors (num_sms()) "
                                                "cannot be read") != NULL,
                  "persistent: message '%s'", tkrt_status_string(s));
            *num_sms = 132;
            arg_sizes[0] = arg_sizes[1] = arg_sizes[2] = 0;
        }
    }
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
