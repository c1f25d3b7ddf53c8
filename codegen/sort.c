/* tl.sort and tl.topk: a bitonic sorting network over each row (the last
 * dimension), log n (log n + 1) / 2 compare-and-swap steps for rows of n.
 * The pair (lo, lo + j) is swapped where (a[lo] > a[hi]) differs from
 * the block's direction, the comparison Triton's network makes, so NaNs
 * end where its network puts them only by that rule.
 *
 * Where the layout holds every column bit of a row in one register or
 * lane bit (no warp holds one, none shares its bit with another
 * coordinate: rows of a tile spread over warps), the network runs in
 * registers: a register bit's step compares two registers of the thread,
 * a lane bit's compares with the lane across it (a warp shuffle), as
 * Triton's sort does. tl.sort keeps the result there (its result takes
 * its operand's layout, and the op has no scratch: lower/scratch.c's
 * tk_tir_sorted_in_place, so barriers.c counts no barrier of its own).
 * tl.topk there is Triton's: the network sorts blocks of k, alternately
 * up and down; then, once for each column bit above k, each block is
 * replaced by the elementwise max (min for the smallest) of it and its
 * neighbour across that bit, which holds the larger k of the two as a
 * bitonic sequence, and a merge of k sorts it. That is log(n / k) merges
 * of k instead of sorting all n. The k of each row are written to the
 * op's scratch once, by the threads and registers that hold them, and
 * read back in the result's layout after a barrier.
 *
 * Otherwise the input is written to the op's scratch row-major, a
 * barrier, and every step is a pass over shared memory with a barrier
 * after it; every thread compares and swaps pairs of the whole tile,
 * pairs spread over the threads; where there are fewer pairs than
 * threads the others branch around (module.c counts the kernel
 * thread-divergent). Needs: scratch sized by lower/scratch.c; the reads
 * are left pending for barriers.c. */
#include "internal.h"

static unsigned log2_exact(int64_t v) {
    unsigned b = 0;
    while ((int64_t)1 << b < v) b++;
    return b;
}

/* One compare-and-swap of step (size, j) for pair p (i32). */
static void compare_swap(cg *c, LLVMValueRef p, int64_t size, int64_t j, int64_t n, bool descending,
                         LLVMTypeRef et, bool is_float, bool sgn, unsigned slot) {
    LLVMTypeRef st = cg_scratch_type(c, et);
    unsigned lj = log2_exact(j);
    LLVMValueRef low = LLVMBuildAnd(c->b, p, cg_i32(c, j - 1), "");
    LLVMValueRef lo = LLVMBuildOr(c->b, LLVMBuildShl(c->b, LLVMBuildLShr(c->b, p, cg_i32(c, lj), ""), cg_i32(c, lj + 1), ""),
                                  low, "");
    LLVMValueRef hi = LLVMBuildOr(c->b, lo, cg_i32(c, j), "");
    /* a block of `size` runs ascending where its bit of the position in the
     * row is 0; the last step (size = n) sorts the whole row one way */
    LLVMValueRef flip = size < n ? LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, lo, cg_i32(c, size), ""), cg_i32(c, 0), "")
                                 : LLVMConstInt(c->t_i1, 0, 0);
    if (descending) flip = LLVMBuildNot(c->b, flip, "");
    LLVMValueRef at_lo = cg_smem_addr(c, LLVMBuildMul(c->b, lo, cg_i32(c, slot), ""));
    LLVMValueRef at_hi = cg_smem_addr(c, LLVMBuildMul(c->b, hi, cg_i32(c, slot), ""));
    /* compared in the element type (a narrow integer travels zero-extended) */
    LLVMValueRef a = cg_from_scratch(c, LLVMBuildLoad2(c->b, st, at_lo, ""), et);
    LLVMValueRef b = cg_from_scratch(c, LLVMBuildLoad2(c->b, st, at_hi, ""), et);
    LLVMValueRef greater = is_float ? LLVMBuildFCmp(c->b, LLVMRealOGT, a, b, "")
                                    : LLVMBuildICmp(c->b, sgn ? LLVMIntSGT : LLVMIntUGT, a, b, "");
    LLVMValueRef swap = LLVMBuildXor(c->b, greater, flip, "");
    LLVMBuildStore(c->b, cg_to_scratch(c, LLVMBuildSelect(c->b, swap, b, a, "")), at_lo);
    LLVMBuildStore(c->b, cg_to_scratch(c, LLVMBuildSelect(c->b, swap, a, b, "")), at_hi);
}

/* The registers and lane bits a row's columns no longer need once topk's
 * reductions dropped column bits: live registers have none of `regs`. */
typedef struct dropped_bits {
    uint32_t regs;
    uint32_t lanes;
} dropped_bits;

/* One step of the network on registers v of layout l: pairs across column
 * bit j; a block runs ascending where its column bit `direction` is 0
 * (direction 0: the whole row one way), the other way where descending. */
static void register_step(cg *c, const tk_ll *l, LLVMValueRef *v, uint32_t nregs, dropped_bits dropped,
                          int64_t direction, int64_t j, int64_t n, bool descending, bool is_float, bool sgn) {
    int rb, lb;
    tk_ll_row_bit(l, j, &rb, &lb);
    LLVMValueRef *next = TK_NEW_ARRAY(c->arena, LLVMValueRef, nregs);
    for (uint32_t r = 0; r < nregs; r++) {
        if (r & dropped.regs) continue;
        LLVMValueRef mine = v[r];
        LLVMValueRef other = rb >= 0 ? v[r ^ (1u << rb)] : cg_shuffle(c, mine, "bfly", cg_i32(c, 1 << lb));
        LLVMValueRef col = LLVMBuildAnd(c->b, cg_reg_flat(c, l, r), cg_i32(c, n - 1), "");
        LLVMValueRef hi = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, col, cg_i32(c, j), ""), cg_i32(c, 0), "");
        LLVMValueRef flip = direction ? LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, col, cg_i32(c, direction), ""),
                                                      cg_i32(c, 0), "")
                                      : LLVMConstInt(c->t_i1, 0, 0);
        if (descending) flip = LLVMBuildNot(c->b, flip, "");
        LLVMValueRef a = LLVMBuildSelect(c->b, hi, other, mine, ""), b = LLVMBuildSelect(c->b, hi, mine, other, "");
        LLVMValueRef greater = is_float ? LLVMBuildFCmp(c->b, LLVMRealOGT, a, b, "")
                                        : LLVMBuildICmp(c->b, sgn ? LLVMIntSGT : LLVMIntUGT, a, b, "");
        next[r] = LLVMBuildSelect(c->b, LLVMBuildXor(c->b, greater, flip, ""), other, mine, "");
    }
    for (uint32_t r = 0; r < nregs; r++)
        if (!(r & dropped.regs)) v[r] = next[r];
}

/* Column bit `bit` dropped: each block becomes the max (min) of it and
 * its neighbour across the bit (Triton's tl.max, NaN-ignoring). */
static void register_halve(cg *c, const tk_ll *l, const tk_type *t, LLVMValueRef *v, uint32_t nregs,
                           dropped_bits *dropped, int64_t bit, bool largest) {
    int rb, lb;
    tk_ll_row_bit(l, bit, &rb, &lb);
    for (uint32_t r = 0; r < nregs; r++) {
        if (r & dropped->regs) continue;
        if (rb >= 0 && (r >> rb & 1)) continue;
        LLVMValueRef other = rb >= 0 ? v[r | 1u << rb] : cg_shuffle(c, v[r], "bfly", cg_i32(c, 1 << lb));
        v[r] = cg_minmax(c, largest, t, v[r], other);
    }
    if (rb >= 0) dropped->regs |= 1u << rb;
    else dropped->lanes |= 1u << lb;
}

/* tl.topk in registers (Triton's algorithm): blocks of k sorted, then
 * halved and merged until k are left. */
static void register_topk(cg *c, const tk_ll *l, const tk_type *t, LLVMValueRef *v, uint32_t nregs,
                          dropped_bits *dropped, int64_t k, int64_t n, bool descending, bool is_float, bool sgn) {
    for (int64_t size = 2; size <= k; size *= 2)
        for (int64_t j = size / 2; j >= 1; j /= 2)
            register_step(c, l, v, nregs, *dropped, size < n ? size : 0, j, n, descending, is_float, sgn);
    for (int64_t bit = k; bit < n; bit *= 2) {
        register_halve(c, l, t, v, nregs, dropped, bit, descending);
        /* the next halving pairs blocks across the next bit: they run opposite ways */
        int64_t direction = bit * 2 < n ? bit * 2 : 0;
        for (int64_t j = k / 2; j >= 1; j /= 2)
            register_step(c, l, v, nregs, *dropped, direction, j, n, descending, is_float, sgn);
    }
}

/* The first k of each row from registers v (the ones holding them) to the
 * scratch, row-major with rows of k. */
static void write_first_k(cg *c, const tk_ll *l, LLVMValueRef *v, uint32_t nregs, dropped_bits dropped, int64_t k,
                          int64_t n, unsigned slot) {
    LLVMBasicBlockRef join = NULL;
    if (dropped.lanes) {
        /* lanes across a dropped bit hold copies */
        LLVMBasicBlockRef holds = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "topk.holds");
        join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "topk.written");
        LLVMValueRef mine = LLVMBuildICmp(c->b, LLVMIntEQ, LLVMBuildAnd(c->b, c->lane, cg_i32(c, dropped.lanes), ""),
                                          cg_i32(c, 0), "");
        LLVMBuildCondBr(c->b, mine, holds, join);
        LLVMPositionBuilderAtEnd(c->b, holds);
    }
    for (uint32_t r = 0; r < nregs; r++) {
        if (r & dropped.regs) continue;
        LLVMValueRef flat = cg_reg_flat(c, l, r);
        LLVMValueRef at = LLVMBuildOr(c->b, LLVMBuildShl(c->b, LLVMBuildLShr(c->b, flat, cg_i32(c, log2_exact(n)), ""),
                                                         cg_i32(c, log2_exact(k)), ""),
                                      LLVMBuildAnd(c->b, flat, cg_i32(c, k - 1), ""), "");
        LLVMBuildStore(c->b, cg_to_scratch(c, v[r]), cg_smem_addr(c, LLVMBuildMul(c->b, at, cg_i32(c, slot), "")));
    }
    if (join) {
        LLVMBuildBr(c->b, join);
        LLVMPositionBuilderAtEnd(c->b, join);
    }
}

/* The network over the tile in scratch: every step a pass, a barrier after it. */
static void sort_in_shared(cg *c, const tk_tir_value *x, int64_t n, int64_t total, bool descending, LLVMTypeRef et,
                           bool is_float, bool sgn, unsigned slot) {
    cg_scratch_write(c, x, slot);
    cg_barrier(c);
    int64_t pairs = total / 2, threads = 32 * c->k->sema->num_warps;
    int64_t per_thread = pairs > threads ? pairs / threads : 1;
    for (int64_t size = 2; size <= n; size *= 2)
        for (int64_t j = size / 2; j >= 1; j /= 2) {
            LLVMBasicBlockRef join = NULL;
            if (pairs < threads) {
                LLVMBasicBlockRef act = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "sort.pair");
                join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "sort.step");
                LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, c->tid, cg_i32(c, pairs), ""), act, join);
                LLVMPositionBuilderAtEnd(c->b, act);
            }
            for (int64_t m = 0; m < per_thread; m++) {
                LLVMValueRef p = LLVMBuildAdd(c->b, c->tid, cg_i32(c, m * threads), "");
                compare_swap(c, p, size, j, n, descending, et, is_float, sgn, slot);
            }
            if (join) {
                LLVMBuildBr(c->b, join);
                LLVMPositionBuilderAtEnd(c->b, join);
            }
            cg_barrier(c);
        }
}

void cg_emit_sort(cg *c, const tk_tir_op *op) {
    const tk_tir_value *x = op->operands.data[0], *res = op->results.data[0];
    uint32_t rank = x->type->rank;
    int64_t n = x->type->shape[rank - 1], k = res->type->shape[rank - 1], total = 1;
    for (uint32_t d = 0; d < rank; d++) total *= x->type->shape[d];
    bool descending = tk_tir_attr_int(op, "descending", 0) != 0;
    unsigned slot = cg_scratch_slot(c);
    LLVMTypeRef et = cg_elem_type(c, x->type), st = cg_scratch_type(c, et);
    bool is_float = cg_is_float(x->type), sgn = cg_is_signed(x->type);
    bool compact = false; /* the scratch holds rows of k (else rows of n) */
    if (x->layout && tk_ll_rows_in_warps(x->layout, n)) {
        cgval *in = cg_get(c, x);
        LLVMValueRef *v = TK_NEW_ARRAY(c->arena, LLVMValueRef, in->n + 1);
        for (uint32_t r = 0; r < in->n; r++) v[r] = in->r[r];
        dropped_bits dropped = {0, 0};
        /* tl.sort is topk's network with k = n: no block is halved */
        register_topk(c, x->layout, x->type, v, in->n, &dropped, k, n, descending, is_float, sgn);
        if (tk_tir_sorted_in_place(op)) { /* tl.sort: no scratch (lower/scratch.c) */
            cgval out = cg_newval(c, in->n);
            for (uint32_t r = 0; r < in->n; r++) out.r[r] = v[r];
            *cg_get(c, res) = out;
            return;
        }
        write_first_k(c, x->layout, v, in->n, dropped, k, n, slot);
        cg_barrier(c);
        compact = true;
    } else {
        sort_in_shared(c, x, n, total, descending, et, is_float, sgn, slot);
    }
    /* element (row, col) of the result is the row's col-th */
    cgval out = cg_newval(c, cg_nregs(res));
    for (uint32_t r = 0; r < out.n; r++) {
        LLVMValueRef flat = cg_reg_flat(c, res->layout, r);
        LLVMValueRef row = LLVMBuildLShr(c->b, flat, cg_i32(c, log2_exact(k)), "");
        LLVMValueRef at = compact ? flat
                                  : LLVMBuildOr(c->b, LLVMBuildShl(c->b, row, cg_i32(c, log2_exact(n)), ""),
                                                LLVMBuildAnd(c->b, flat, cg_i32(c, k - 1), ""), "");
        out.r[r] = cg_from_scratch(c, LLVMBuildLoad2(c->b, st, cg_smem_addr(c, LLVMBuildMul(c->b, at, cg_i32(c, slot), "")), ""), et);
    }
    *cg_get(c, res) = out;
}
