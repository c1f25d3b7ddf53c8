/* The tensor-core layouts as constructors of tk_ll, after Triton's
 * definitions (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp:
 * nvidiaMmaTile, warpsNvidiaDot, the NVMMA shared layout), for rank-2
 * tiles [rows, cols], and batched [batch, rows, cols] from them. Each is
 * built as Triton builds it: identity pieces over registers, lanes and
 * warps, the tile then repeated over the shape
 * as more registers (the minor dimension first: Triton's
 * ensureLayoutNotSmallerThan), and any piece that reaches past the shape
 * made a copy (basis 0: ensureLayoutNotLargerThan).
 * Needs: shape dimensions powers of two. Guarantees: a layout tk_ll's
 * other functions take (unit-tested in test/unit/layout_test.c). */
#include "internal.h"

#include <string.h>

enum { ROW, COL };
enum { REG, LANE, WARP };

typedef struct builder {
    tk_ll *l;
    int64_t extent[2];   /* how far each dimension's bases reach so far */
} builder;

static void start(builder *b, tk_ll *out, const int64_t *shape, bool shared) {
    memset(out, 0, sizeof *out);
    out->rank = 2;
    out->shape[0] = shape[0];
    out->shape[1] = shape[1];
    out->shared = shared;
    b->l = out;
    b->extent[ROW] = b->extent[COL] = 1;
}

static void push(builder *b, int kind, uint64_t basis) {
    tk_ll *l = b->l;
    if (kind == REG && l->reg_bits < TK_LL_MAX_REG_BITS) l->reg[l->reg_bits++] = basis;
    else if (kind == WARP && l->warp_bits < TK_LL_MAX_WARP_BITS) l->warp[l->warp_bits++] = basis;
    else if (kind == LANE)
        for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
            if (l->lane[i] == UINT64_MAX) {
                l->lane[i] = basis;
                break;
            }
}

/* `size` more of dimension dim on `kind` (Triton's identity1D); the part
 * past the shape becomes copies */
static void identity(builder *b, int kind, int dim, int64_t size) {
    for (int64_t s = 1; s < size; s *= 2) {
        int64_t c = b->extent[dim];
        uint64_t basis = c >= b->l->shape[dim] ? 0 : dim == ROW ? (uint64_t)(c * b->l->shape[1]) : (uint64_t)c;
        push(b, kind, basis);
        b->extent[dim] *= 2;
    }
}

/* `size` copies on `kind` (Triton's zeros1D) */
static void copies(builder *b, int kind, int64_t size) {
    for (int64_t s = 1; s < size; s *= 2) push(b, kind, 0);
}

/* the tile repeated over the shape, the minor dimension first */
static void repeat(builder *b, int minor, int major) {
    identity(b, REG, minor, b->l->shape[minor] / b->extent[minor]);
    identity(b, REG, major, b->l->shape[major] / b->extent[major]);
}

/* Triton's nvidiaMmaTile: k_width registers along the inner dimension, 4
 * lanes along it, 8 lanes along the outer one, the tile's outer size / 8
 * registers along it, inner size / (4 k_width) along the inner one. */
static void mma_tile(builder *b, int inner, int outer, int64_t tile_inner, int64_t tile_outer, int64_t k_width) {
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) b->l->lane[i] = UINT64_MAX;
    identity(b, REG, inner, k_width);
    identity(b, LANE, inner, 4);
    identity(b, LANE, outer, 8);
    identity(b, REG, outer, tile_outer / 8);
    identity(b, REG, inner, tile_inner / (k_width * 4));
}

void tk_ll_mma_acc(tk_ll *out, const int64_t *shape, uint32_t instr_n, const uint32_t *warps, bool warps_rows_first) {
    builder b;
    start(&b, out, shape, false);
    mma_tile(&b, COL, ROW, instr_n, 16, 2);
    if (warps_rows_first) {
        identity(&b, WARP, ROW, warps[0]);
        identity(&b, WARP, COL, warps[1]);
    } else {
        identity(&b, WARP, COL, warps[1]);
        identity(&b, WARP, ROW, warps[0]);
    }
    repeat(&b, COL, ROW);
}

void tk_ll_mma_operand(tk_ll *out, const int64_t *shape, uint32_t op_idx, uint32_t k_width, const uint32_t *warps,
                       bool warps_rows_first) {
    builder b;
    start(&b, out, shape, false);
    /* A: [M, K], K inner; B: [K, N], K inner too (rows) */
    int k_dim = op_idx == 0 ? COL : ROW, other = op_idx == 0 ? ROW : COL;
    if (op_idx == 0) mma_tile(&b, COL, ROW, 8 * k_width, 16, k_width);
    else mma_tile(&b, ROW, COL, 8 * k_width, 8, k_width);
    /* the accumulator's warps, each K-slice copied (Triton's warpsNvidiaDot) */
    int order[2] = {warps_rows_first ? ROW : COL, warps_rows_first ? COL : ROW};
    for (int i = 0; i < 2; i++) {
        int d = order[i];
        uint32_t n = warps[d == ROW ? 0 : 1];
        if (d == k_dim) copies(&b, WARP, n);
        else identity(&b, WARP, other, n);
    }
    repeat(&b, k_dim, other);
}

void tk_ll_mma_batched(tk_ll *l, int64_t batch, uint32_t num_warps) {
    /* the slice's flat indices stay those of batch element 0 */
    int64_t slice = l->shape[0] * l->shape[1], extent = 1;
    l->shape[2] = l->shape[1];
    l->shape[1] = l->shape[0];
    l->shape[0] = batch;
    l->rank = 3;
    for (uint32_t w = 1; w < num_warps && l->warp_bits < TK_LL_MAX_WARP_BITS; w *= 2, extent *= 2)
        l->warp[l->warp_bits++] = extent < batch ? (uint64_t)(extent * slice) : 0;
    /* a tile has at most 2^20 elements (sema): the bits fit */
    for (; extent < batch && l->reg_bits < TK_LL_MAX_REG_BITS; extent *= 2)
        l->reg[l->reg_bits++] = (uint64_t)(extent * slice);
}

bool tk_ll_nvmma_shared(tk_ll *out, const int64_t *shape, uint32_t elem_bits, uint32_t swizzle_bytes,
                        bool transposed) {
    if (transposed) {
        int64_t t_shape[2] = {shape[1], shape[0]};
        tk_ll t;
        const uint32_t swap[2] = {1, 0};
        if (!tk_ll_nvmma_shared(&t, t_shape, elem_bits, swizzle_bytes, false)) return false;
        tk_ll_permute(out, &t, swap);
        return true;
    }
    uint32_t per_phase, max_phase;
    switch (swizzle_bytes) {
    case 128: per_phase = 1, max_phase = 8; break;
    case 64: per_phase = 2, max_phase = 4; break;
    case 32: per_phase = 4, max_phase = 2; break;
    default: return false;
    }
    int64_t tile_cols = 8 * (int64_t)swizzle_bytes / elem_bits, vec = 128 / elem_bits;
    if (shape[1] < tile_cols || shape[0] < 8) return false;
    builder b;
    start(&b, out, shape, true);
    identity(&b, REG, COL, tile_cols);
    /* row r's 16-byte vectors XORed with (r / per_phase) % max_phase */
    for (int64_t r = 1; r < 8; r *= 2) {
        push(&b, REG, (uint64_t)(r * shape[1] + vec * ((r / per_phase) % max_phase)));
        b.extent[ROW] *= 2;
    }
    repeat(&b, ROW, COL); /* Triton's out dims (rows, cols): rows first */
    return true;
}

/* The NVMMA swizzle XORs 16-byte vectors with the row mod 8, so a warp
 * reading 8 consecutive 4-byte elements of 4 rows (an mma fragment down
 * the contiguous dimension) meets rows r and r ^ 1 in the same banks: two
 * wavefronts a read. 8-element vectors XORed with the row mod 4 make it
 * one. */
void tk_ll_fragment_shared(tk_ll *out, const int64_t *shape, bool transposed) {
    if (!transposed) {
        tk_ll_shared(out, 2, shape, 8, 1, 4);
        return;
    }
    int64_t t_shape[2] = {shape[1], shape[0]};
    const uint32_t swap[2] = {1, 0};
    tk_ll t;
    tk_ll_shared(&t, 2, t_shape, 8, 1, 4);
    tk_ll_permute(out, &t, swap);
}
