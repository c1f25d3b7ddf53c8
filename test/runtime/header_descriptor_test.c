/* Descriptor parameters (header_descriptor.tk) on the fake driver: the
 * launcher takes a tk_tensor for each, refuses a tensor a descriptor
 * cannot describe (with TK_ERROR_MISALIGNED or TK_ERROR_REQUIREMENT and a
 * message naming the argument and the rule) and otherwise passes a
 * 256-byte tkrt_tensor_arg: the tensor map of a descriptor its variant
 * copies by TMA (zero for the others), then the data, shape and strides,
 * directly and through the tuner.
 *
 *   header_descriptor_test FAKE_LIBCUDA.so      (header_descriptor.h on the include path)
 *
 * Prints "ok" and exits 0, or FAIL lines and exits 1. */
#define TKC_IMPLEMENTATION /* this file holds the module */
#include "header_descriptor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures < 20) {                                                                   \
                printf("FAIL header_descriptor_test:%d: ", __LINE__);                              \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static unsigned char (*arg_bytes)[256];

enum { ANY_MAP = 99 }; /* check_map's dtype where the map is not checked */

/* argument i of the last launch was the block of tensor t of `rank`
 * dimensions, with no tensor map (map_box NULL) or the fake driver's
 * record of one for `bytes`-byte elements of cuda.h's type `dtype`, of
 * boxes map_box[0] x map_box[1] swizzled by `swizzle` bytes */
static void check_map(int line, unsigned i, const tk_tensor *t, unsigned rank, const unsigned *map_box,
                      unsigned swizzle, unsigned dtype, unsigned bytes) {
    tkrt_tensor_arg got;
    memcpy(&got, arg_bytes[i], sizeof got);
    unsigned long long want[16] = {0};
    if (dtype == ANY_MAP) {
        for (unsigned w = 0; w < 16; w++) want[w] = got.tensor_map[w];
    } else if (map_box) {
        want[0] = 0x50414d54ull | (unsigned long long)dtype << 32;
        want[1] = rank | (swizzle == 128 ? 3u : swizzle == 64 ? 2u : 1u) << 8 | 2ull << 32;
        want[2] = (unsigned long long)(uintptr_t)t->data;
        for (unsigned d = 0; d < rank; d++) {
            want[3 + d] = (unsigned long long)t->shape[rank - 1 - d];
            if (d + 1 < rank) want[8 + d] = (unsigned long long)t->strides[rank - 2 - d] * bytes;
            want[12] |= (unsigned long long)map_box[rank - 1 - d] << (16 * d);
        }
    }
    for (unsigned w = 0; w < 16; w++)
        CHECK(got.tensor_map[w] == want[w], "(line %d) argument %u: tensor map word %u is %llx, not %llx", line, i, w,
              got.tensor_map[w], want[w]);
    CHECK(got.data == (unsigned long long)(uintptr_t)t->data, "(line %d) argument %u: data %llx, not %llx", line, i,
          got.data, (unsigned long long)(uintptr_t)t->data);
    for (unsigned d = 0; d < 5; d++) {
        long long shape = d < rank ? t->shape[d] : 0, stride = d < rank ? t->strides[d] : 0;
        CHECK(got.shape[d] == shape && got.strides[d] == stride,
              "(line %d) argument %u: dimension %u is %lld/%lld, not %lld/%lld", line, i, d, got.shape[d],
              got.strides[d], shape, stride);
    }
}

static void check_block(int line, unsigned i, const tk_tensor *t, unsigned rank) {
    check_map(line, i, t, rank, NULL, 0, 0, 0);
}

/* s failed with `status` and a message holding `text` */
static void check_refused(int line, tk_status s, tk_status status, const char *text) {
    const char *msg = tkrt_status_string(s);
    CHECK(s == status && strstr(msg, text) != NULL, "(line %d) status %d, message \"%s\": expected %d with \"%s\"",
          line, (int)s, msg, (int)status, text);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        printf("FAIL header_descriptor_test: usage: header_descriptor_test FAKE_LIBCUDA.so\n");
        return 1;
    }
    setenv("TKRT_LIBCUDA", argv[1], 1);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        printf("FAIL header_descriptor_test: %s\n", dlerror());
        return 1;
    }
    unsigned *sizes = (unsigned *)dlsym(lib, "fake_arg_sizes");
    arg_bytes = (unsigned char (*)[256])dlsym(lib, "fake_last_arg_bytes");
    const int *launches = (const int *)dlsym(lib, "fake_launches");
    if (!sizes || !arg_bytes || !launches) {
        printf("FAIL header_descriptor_test: the fake driver lacks fake_last_arg_bytes\n");
        return 1;
    }
    sizes[0] = sizes[1] = sizes[2] = 256;
    sizes[3] = sizes[4] = sizes[5] = 4;

    /* a 300 x 200 f16 A (row stride 208), a 200 x 100 f16 B, a 300 x 100 f32 C */
    tk_tensor a = {(const void *)0x100000, {300, 200}, {208, 1}};
    tk_tensor b = {(const void *)0x200000, {200, 100}, {104, 1}};
    tk_tensor c = {(const void *)0x300000, {300, 100}, {100, 1}};
    int before = *launches;
    tk_status s = matmul(NULL, a, b, c, 300, 100, 200);
    CHECK(s == TK_SUCCESS && *launches == before + 1, "matmul: %s", tkrt_status_string(s));
    /* A and B copied in by TMA (sm_90a): maps of A's 64 x 32 tiles (64-byte
     * rows, swizzled by 64) and B's 32 x 64 (by 128), f16 (cuda.h's 6);
     * C's 64 x 64 f32 tiles (7) stored by TMA in two boxes of 64 x 32 */
    static const unsigned a_box[2] = {64, 32}, b_box[2] = {32, 64}, c_box[2] = {64, 32};
    check_map(__LINE__, 0, &a, 2, a_box, 64, 6, 2);
    check_map(__LINE__, 1, &b, 2, b_box, 128, 6, 2);
    check_map(__LINE__, 2, &c, 2, c_box, 128, 7, 4);
    int32_t k;
    memcpy(&k, arg_bytes[5], 4);
    CHECK(k == 200, "matmul passed K = %d", (int)k);

    /* what a descriptor cannot describe, refused before any launch */
    before = *launches;
    tk_tensor bad = a;
    bad.data = (const void *)0x100008;
    check_refused(__LINE__, matmul(NULL, bad, b, c, 300, 100, 200), TK_ERROR_MISALIGNED,
                  "matmul: descriptor argument 'a': its data (0x100008) is not 16-byte aligned");
    bad.data = NULL;
    check_refused(__LINE__, matmul(NULL, bad, b, c, 300, 100, 200), TK_ERROR_MISALIGNED, "'a'");
    bad = b;
    bad.strides[1] = 2;
    check_refused(__LINE__, matmul(NULL, a, bad, c, 300, 100, 200), TK_ERROR_REQUIREMENT,
                  "matmul: descriptor argument 'b': its last stride (strides[1]) is 2, not 1");
    bad = b;
    bad.strides[0] = 100; /* 200 bytes */
    check_refused(__LINE__, matmul(NULL, a, bad, c, 300, 100, 200), TK_ERROR_REQUIREMENT,
                  "descriptor argument 'b': strides[0] = 100 (x 2 bytes) is not a multiple of 16 bytes in [0, 2^40)");
    bad.strides[0] = -104;
    check_refused(__LINE__, matmul(NULL, a, bad, c, 300, 100, 200), TK_ERROR_REQUIREMENT, "strides[0] = -104");
    bad = c;
    bad.strides[0] = 102; /* f32: 408 bytes */
    check_refused(__LINE__, matmul(NULL, a, b, bad, 300, 100, 200), TK_ERROR_REQUIREMENT, "'c': strides[0] = 102");
    bad = c;
    bad.shape[0] = -1;
    check_refused(__LINE__, matmul(NULL, a, b, bad, 300, 100, 200), TK_ERROR_REQUIREMENT,
                  "'c': shape[0] = -1 is not in [0, 2^31)");
    bad.shape[0] = 1LL << 31;
    check_refused(__LINE__, matmul(NULL, a, b, bad, 300, 100, 200), TK_ERROR_REQUIREMENT, "shape[0] = 2147483648");
    CHECK(*launches == before, "a refused tensor launched");
    /* an empty tensor a TMA map cannot describe: refused where the grid
     * launches programs, launched (as nothing) where it is empty */
    bad = a;
    bad.shape[1] = 0;
    check_refused(__LINE__, matmul(NULL, bad, b, c, 300, 100, 0), TK_ERROR_REQUIREMENT,
                  "matmul: descriptor argument 'a' is copied by TMA, which cannot describe an empty tensor: shape[1] = 0");
    bad = c;
    bad.shape[0] = 0;
    tk_tensor empty_a = a;
    empty_a.shape[0] = 0;
    s = matmul(NULL, empty_a, b, bad, 0, 100, 200);
    CHECK(s == TK_SUCCESS && *launches == before, "matmul with M = 0: %s, %d launches", tkrt_status_string(s),
          *launches - before);

    /* through the tuner: every config gets the same tensors */
    sizes[0] = sizes[1] = 256;
    sizes[2] = sizes[3] = 4;
    sizes[4] = sizes[5] = 0;
    tk_tensor x = {(const void *)0x400000, {70, 90}, {96, 1}};
    tk_tensor y = {(const void *)0x500000, {70, 90}, {92, 1}};
    before = *launches;
    s = add_one(NULL, x, y, 70, 90);
    CHECK(s == TK_SUCCESS && *launches > before + 1, "add_one: %s after %d launches", tkrt_status_string(s),
          *launches - before);
    check_block(__LINE__, 0, &x, 2);
    check_map(__LINE__, 1, &y, 2, NULL, 0, ANY_MAP, 0); /* stored by TMA: each config its own boxes */
    y.strides[0] = 91;
    check_refused(__LINE__, add_one(NULL, x, y, 70, 90), TK_ERROR_REQUIREMENT, "add_one: descriptor argument 'y'");

    /* rank 1 and 3; dimensions past the rank are not read */
    sizes[0] = sizes[1] = 256;
    sizes[2] = 0;
    tk_tensor v = {(const void *)0x600000, {16, -7, -7, -7, -7}, {1, 3, 3, 3, 3}};
    tk_tensor w = {(const void *)0x700000, {2, 4, 16, -7, -7}, {64, 16, 1, 5, 5}};
    s = ranks(NULL, v, w);
    CHECK(s == TK_SUCCESS, "ranks: %s", tkrt_status_string(s));
    check_block(__LINE__, 0, &v, 1);
    check_block(__LINE__, 1, &w, 3);
    w.strides[1] = 8; /* one-byte elements: 8 bytes */
    check_refused(__LINE__, ranks(NULL, v, w), TK_ERROR_REQUIREMENT, "strides[1] = 8 (x 1 bytes)");

    if (failures) return 1;
    printf("ok\n");
    return 0;
}
