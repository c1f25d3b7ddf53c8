/* tl.sort and tl.topk: the input written to the op's scratch row-major, a
 * barrier, then a bitonic sorting network over each row (the last
 * dimension), one barrier after each of its log n (log n + 1) / 2 steps;
 * the result is read back (for topk, each row's first k). In a step every
 * thread compares and swaps pairs (lo, lo + j) of the whole tile, pairs
 * spread over the threads; where there are fewer pairs than threads the
 * others branch around (module.c counts the kernel thread-divergent).
 * The pair is swapped where (a[lo] > a[hi]) differs from the block's
 * direction, the comparison Triton's network makes, so NaNs end where its
 * network puts them only by that rule. Needs: scratch sized by
 * lower/scratch.c; the reads are left pending for barriers.c. */
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

void cg_emit_sort(cg *c, const tk_tir_op *op) {
    const tk_tir_value *x = op->operands.data[0], *res = op->results.data[0];
    uint32_t rank = x->type->rank;
    int64_t n = x->type->shape[rank - 1], k = res->type->shape[rank - 1], total = 1;
    for (uint32_t d = 0; d < rank; d++) total *= x->type->shape[d];
    bool descending = tk_tir_attr_int(op, "descending", 0) != 0;
    unsigned slot = cg_scratch_slot(c);
    LLVMTypeRef et = cg_elem_type(c, x->type), st = cg_scratch_type(c, et);
    bool is_float = cg_is_float(x->type), sgn = cg_is_signed(x->type);
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
    /* element (row, col) of the result is the row's col-th */
    cgval out = cg_newval(c, cg_nregs(res));
    for (uint32_t r = 0; r < out.n; r++) {
        LLVMValueRef flat = cg_reg_flat(c, res->layout, r);
        LLVMValueRef row = LLVMBuildLShr(c->b, flat, cg_i32(c, log2_exact(k)), "");
        LLVMValueRef at = LLVMBuildOr(c->b, LLVMBuildShl(c->b, row, cg_i32(c, log2_exact(n)), ""),
                                      LLVMBuildAnd(c->b, flat, cg_i32(c, k - 1), ""), "");
        out.r[r] = cg_from_scratch(c, LLVMBuildLoad2(c->b, st, cg_smem_addr(c, LLVMBuildMul(c->b, at, cg_i32(c, slot), "")), ""), et);
    }
    *cg_get(c, res) = out;
}
