/* tl.gather: the source written to the op's scratch row-major (each
 * register at its flat index), a barrier, then each result register reads
 * the source element its index names: its own flat index with the axis
 * field replaced by the index. Shapes are powers of two, so the fields
 * are bit ranges. An index outside the axis wraps (it is masked to the
 * axis), so no access leaves the scratch; Triton leaves it undefined.
 * Needs: the result in the index's layout (TIR_L_INDEXED), scratch sized
 * by lower/scratch.c; the reads are left pending for barriers.c. */
#include "internal.h"

static unsigned log2_exact(int64_t v) {
    unsigned b = 0;
    while ((int64_t)1 << b < v) b++;
    return b;
}

void cg_emit_gather(cg *c, const tk_tir_op *op) {
    const tk_tir_value *src = op->operands.data[0], *index = op->operands.data[1], *res = op->results.data[0];
    uint32_t axis = (uint32_t)tk_tir_attr_int(op, "axis", 0);
    int64_t inner = 1;
    for (uint32_t d = axis + 1; d < src->type->rank; d++) inner *= src->type->shape[d];
    int64_t src_len = src->type->shape[axis], res_len = res->type->shape[axis];
    unsigned slot = cg_scratch_slot(c);
    cg_scratch_write(c, src, slot);
    cg_barrier(c);
    LLVMTypeRef et = cg_elem_type(c, res->type), st = cg_scratch_type(c, et);
    bool sgn = cg_is_signed(index->type);
    cgval out = cg_newval(c, cg_nregs(res));
    for (uint32_t r = 0; r < out.n; r++) {
        LLVMValueRef flat = cg_reg_flat(c, res->layout, r);
        LLVMValueRef i = cg_operand(c, op, 1, r);
        unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(i));
        if (w > 32) i = LLVMBuildTrunc(c->b, i, c->t_i32, "");
        else if (w < 32) i = sgn ? LLVMBuildSExt(c->b, i, c->t_i32, "") : LLVMBuildZExt(c->b, i, c->t_i32, "");
        i = LLVMBuildAnd(c->b, i, cg_i32(c, src_len - 1), "");
        LLVMValueRef in = LLVMBuildAnd(c->b, flat, cg_i32(c, inner - 1), "");
        LLVMValueRef outer = LLVMBuildLShr(c->b, flat, cg_i32(c, log2_exact(inner * res_len)), "");
        LLVMValueRef at = LLVMBuildShl(c->b, outer, cg_i32(c, log2_exact(inner * src_len)), "");
        at = LLVMBuildOr(c->b, at, LLVMBuildShl(c->b, i, cg_i32(c, log2_exact(inner)), ""), "");
        at = LLVMBuildOr(c->b, at, in, "");
        LLVMValueRef v = LLVMBuildLoad2(c->b, st, cg_smem_addr(c, LLVMBuildMul(c->b, at, cg_i32(c, slot), "")), "");
        out.r[r] = cg_from_scratch(c, v, et);
    }
    *cg_get(c, res) = out;
}
