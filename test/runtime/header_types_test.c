/* Launcher signatures (header_types.tk) on the fake driver: f16 and bf16
 * scalars are taken as float and rounded to nearest even by the header,
 * checked against a reference that searches every half and bfloat16 value
 * for the nearest; the rounded bits are what the launch passes; typed
 * pointers pass as the device addresses they hold.
 *
 *   header_types_test FAKE_LIBCUDA.so      (header_types.h on the include path)
 *
 * Prints "ok" and exits 0, or FAIL lines and exits 1. */
#define TKC_IMPLEMENTATION /* this file holds the module */
#include "header_types.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures < 20) {                                                                   \
                printf("FAIL header_types_test:%d: ", __LINE__);                                   \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static float from_bits(uint32_t x) {
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* the value of a positive half's bits (0x7c00, infinity, as 65536: the
 * next step, so that the halfway point 65520 rounds to it) */
static double half_value(uint32_t h) {
    uint32_t e = h >> 10, m = h & 0x3ffu;
    if (e == 31) return 65536.0;
    return e ? ldexp(1024.0 + m, (int)e - 25) : ldexp((double)m, -24);
}

/* bfloat16: the top half of a float (0x7f80, infinity, as 2^128) */
static double bf16_value(uint32_t b) {
    return b == 0x7f80u ? ldexp(1.0, 128) : (double)from_bits(b << 16);
}

/* the nearest of the positive patterns 0..top (values increasing with the
 * pattern), ties to the even pattern */
static uint32_t nearest(double v, uint32_t top, double (*value)(uint32_t)) {
    uint32_t lo = 0, hi = top;
    if (v >= value(top)) return top;
    while (hi - lo > 1) { /* value(lo) <= v < value(hi) */
        uint32_t mid = lo + (hi - lo) / 2;
        if (value(mid) <= v) lo = mid;
        else hi = mid;
    }
    double dl = v - value(lo), dh = value(hi) - v;
    if (dl < dh) return lo;
    if (dh < dl) return hi;
    return lo % 2 == 0 ? lo : hi;
}

static uint16_t reference(float f, int bf16) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint32_t sign = x >> 31;
    double v = fabs((double)f);
    uint32_t bits = bf16 ? nearest(v, 0x7f80u, bf16_value) : nearest(v, 0x7c00u, half_value);
    return (uint16_t)(bits | (bf16 ? sign << 15 : sign << 15));
}

static int is_nan16(uint16_t h, int bf16) {
    return bf16 ? (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) : (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
}

static void check_conversion(uint32_t x) {
    float f = from_bits(x);
    uint16_t h = tk__f32_to_f16(f), b = tk__f32_to_bf16(f);
    if (isnan(f)) {
        CHECK(is_nan16(h, 0) && (h >> 15) == (x >> 31), "f16(NaN %08x) = %04x", x, h);
        CHECK(is_nan16(b, 1) && (b >> 15) == (x >> 31), "bf16(NaN %08x) = %04x", x, b);
        return;
    }
    uint16_t rh = reference(f, 0), rb = reference(f, 1);
    CHECK(h == rh, "f16(%a = %08x) = %04x, nearest even is %04x", (double)f, x, h, rh);
    CHECK(b == rb, "bf16(%a = %08x) = %04x, nearest even is %04x", (double)f, x, b, rb);
    /* and back: every half and bfloat16 value is a float */
    if (h == rh && !is_nan16(h, 0)) {
        float back = tk__f16_to_f32(h);
        double want = (h & 0x7fffu) == 0x7c00u ? INFINITY : half_value(h & 0x7fffu);
        CHECK(fabs((double)back) == want, "f16 %04x read back as %a", h, (double)back);
    }
    if (b == rb && !is_nan16(b, 1))
        CHECK(tk__bf16_to_f32(b) == from_bits((uint32_t)b << 16), "bf16 %04x read back", b);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        printf("FAIL header_types_test: usage: header_types_test FAKE_LIBCUDA.so\n");
        return 1;
    }
    /* every float whose low 13 bits are one of these (the rounding cases
     * of f16: below, at and above the halfway point; those of bf16 where
     * the low 16 bits are), and a spread of others */
    static const uint32_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x0800, 0x1800};
    for (uint32_t hi = 0; hi < (1u << 19); hi++)
        for (size_t l = 0; l < sizeof lows / sizeof lows[0]; l++) check_conversion(hi << 13 | lows[l]);
    static const uint32_t bf_lows[] = {0x7fff, 0x8000, 0x8001, 0xffff, 0x4000, 0xc000};
    for (uint32_t hi = 0; hi < (1u << 16); hi++)
        for (size_t l = 0; l < sizeof bf_lows / sizeof bf_lows[0]; l++) check_conversion(hi << 16 | bf_lows[l]);
    uint32_t seed = 12345;
    for (int i = 0; i < 2000000; i++) {
        seed = seed * 1664525u + 1013904223u;
        check_conversion(seed);
    }

    setenv("TKRT_LIBCUDA", argv[1], 1);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        printf("FAIL header_types_test: %s\n", dlerror());
        return 1;
    }
    unsigned *sizes = (unsigned *)dlsym(lib, "fake_arg_sizes");
    unsigned char(*args)[8] = (unsigned char(*)[8])dlsym(lib, "fake_last_args");
    if (!sizes || !args) {
        printf("FAIL header_types_test: the fake driver lacks fake_arg_sizes\n");
        return 1;
    }
    /* what a launch passes: the pointers' addresses, the rounded bits */
    sizes[0] = 8;
    sizes[1] = 8;
    sizes[2] = 2;
    sizes[3] = 4;
    const tk_f16 *x = TK_DEVICE_PTR(const tk_f16, 0x10000ull);
    tk_f16 *out = TK_DEVICE_PTR(tk_f16, 0x20000ull);
    static const float scales[] = {1.0f, 0.1f, -2.5f, 65519.0f, 65520.0f, 1e-7f, 3.0e-8f, 2.9802322e-08f};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        for (int bf = 0; bf < 2; bf++) {
            tk_status s = bf ? scale_bf16(NULL, (const tk_bf16 *)x, (tk_bf16 *)out, scales[i], 1000)
                             : scale_half(NULL, x, out, scales[i], 1000);
            CHECK(s == TK_SUCCESS, "scale_%s(%g): %s", bf ? "bf16" : "f16", (double)scales[i], tkrt_status_string(s));
            uint64_t px, po;
            uint16_t bits;
            int32_t n;
            memcpy(&px, args[0], 8);
            memcpy(&po, args[1], 8);
            memcpy(&bits, args[2], 2);
            memcpy(&n, args[3], 4);
            CHECK(px == 0x10000u && po == 0x20000u && n == 1000, "scale: pointers %llx %llx, n %d",
                  (unsigned long long)px, (unsigned long long)po, (int)n);
            CHECK(bits == reference(scales[i], bf), "scale_%s(%a) passed %04x, not %04x", bf ? "bf16" : "f16",
                  (double)scales[i], bits, reference(scales[i], bf));
        }
    }
    /* one launcher per dtype of a generic kernel: the scalar in its type */
    {
        sizes[2] = 2;
        tk_status s = scale_any_f16(NULL, x, out, 0.1f, 7);
        uint16_t bits;
        memcpy(&bits, args[2], 2);
        CHECK(s == TK_SUCCESS && bits == reference(0.1f, 0), "scale_any_f16: %s, passed %04x",
              tkrt_status_string(s), bits);
        s = scale_any_bf16(NULL, (const tk_bf16 *)x, (tk_bf16 *)out, 0.1f, 7);
        memcpy(&bits, args[2], 2);
        CHECK(s == TK_SUCCESS && bits == reference(0.1f, 1), "scale_any_bf16: %s, passed %04x",
              tkrt_status_string(s), bits);
        sizes[2] = 4;
        float f32 = 0;
        s = scale_any_f32(NULL, (const float *)x, (float *)out, 0.1f, 7);
        memcpy(&f32, args[2], 4);
        CHECK(s == TK_SUCCESS && f32 == 0.1f, "scale_any_f32: %s, passed %g", tkrt_status_string(s), (double)f32);
        sizes[2] = 8;
        double f64 = 0;
        s = scale_any_f64(NULL, (const double *)x, (double *)out, 0.1, 7);
        memcpy(&f64, args[2], 8);
        CHECK(s == TK_SUCCESS && f64 == 0.1, "scale_any_f64: %s, passed %g", tkrt_status_string(s), f64);
        int32_t n;
        memcpy(&n, args[3], 4);
        CHECK(n == 7, "scale_any_f64 passed n %d", (int)n);
    }
    /* launch_pdl=True: cuLaunchKernelEx with programmatic stream
     * serialization (the header's code is for sm_90a); others: plain */
    {
        const int *last_pdl = (const int *)dlsym(lib, "fake_last_pdl");
        tk_status s;
        sizes[0] = 8; /* (x, out, n): the bytes the fake driver copies of each */
        sizes[1] = 8;
        sizes[2] = 4;
        sizes[3] = 0;
        s = after_previous(NULL, (const float *)x, (float *)out, 1000);
        CHECK(s == TK_SUCCESS && last_pdl && *last_pdl == 1, "after_previous: %s, PDL %d", tkrt_status_string(s),
              last_pdl ? *last_pdl : -1);
        s = scale_any_f32(NULL, (const float *)x, (float *)out, 0.5f, 7);
        CHECK(s == TK_SUCCESS && last_pdl && *last_pdl == 0, "scale_any_f32 launched with PDL");
        sizes[0] = 0;
    }
    /* heuristics computed by the launcher: (x, n, m, ITERS, ROWS, Q) */
    {
        static const struct { int32_t n, m, iters, rows, q; } cases[] = {
            {1000, 5, 16, 8, 200}, {64, 1, 1, 1, 64}, {65, 64, 2, 64, 1}, {7, 3, 1, 4, 2}, {0, 1000, 0, 1024, 0},
        };
        float *xp = TK_DEVICE_PTR(float, 0x30000ull);
        for (int i = 0; i < 6; i++) sizes[i] = i ? 4 : 8;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            tk_status s = computed(NULL, xp, cases[i].n, cases[i].m);
            int32_t got[3];
            for (int j = 0; j < 3; j++) memcpy(&got[j], args[3 + j], 4);
            CHECK(s == TK_SUCCESS, "computed(%d, %d): %s", (int)cases[i].n, (int)cases[i].m, tkrt_status_string(s));
            CHECK(got[0] == cases[i].iters && got[1] == cases[i].rows && got[2] == cases[i].q,
                  "computed(%d, %d) passed ITERS %d ROWS %d Q %d, not %d %d %d", (int)cases[i].n, (int)cases[i].m,
                  (int)got[0], (int)got[1], (int)got[2], (int)cases[i].iters, (int)cases[i].rows, (int)cases[i].q);
        }
        tk_status s = computed(NULL, xp, 10, 0);
        CHECK(s == TK_ERROR_INVALID_VALUE && strstr(tkrt_status_string(s), "heuristic") != NULL,
              "computed(10, 0) divides by zero: %d (%s)", (int)s, tkrt_status_string(s));
        sizes[0] = 0;
    }
    /* int: i32 in the kernel, checked by the launcher */
    {
        float *xp = TK_DEVICE_PTR(float, 0x40000ull);
        int32_t n32 = 0;
        float s32 = 0;
        sizes[0] = 8;
        sizes[1] = 4;
        sizes[2] = 4;
        sizes[3] = 0;
        tk_status s = python_scalars(NULL, xp, -2147483648ll, 0.5f);
        memcpy(&n32, args[1], 4);
        memcpy(&s32, args[2], 4);
        CHECK(s == TK_SUCCESS && n32 == INT32_MIN && s32 == 0.5f, "python_scalars(INT32_MIN): %s, passed %d %g",
              tkrt_status_string(s), (int)n32, (double)s32);
        s = python_scalars(NULL, xp, 3000000000ll, 0.5f);
        CHECK(s == TK_ERROR_REQUIREMENT && strstr(tkrt_status_string(s), "n fits in i32 (annotated int)") &&
                  strstr(tkrt_status_string(s), "n = 3000000000"),
              "python_scalars(3e9): %d (%s)", (int)s, tkrt_status_string(s));
        s = python_scalars(NULL, xp, -2147483649ll, 0.5f);
        CHECK(s == TK_ERROR_REQUIREMENT, "python_scalars(INT32_MIN - 1): %d", (int)s);
        sizes[0] = 0;
    }
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}
