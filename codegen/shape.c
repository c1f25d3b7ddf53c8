/* join, split and cat: in registers where lower/layout.c gives layouts
 * that keep each element in its thread (only registers are renumbered),
 * else through the op's shared-memory scratch. reshape, permute and
 * broadcast are emitted by the op dispatch (control.c).
 * Needs: the op's scratch (lower/smem.c) where elements change threads. */
#include "internal.h"

/* Element e of v (flat index in v's shape) goes to scratch slot e * mul + add. */
static void scratch_write(cg *c, const tk_tir_value *v, int64_t mul, int64_t add, unsigned slot) {
    cgval *vv = cg_get(c, v);
    for (uint32_t r = 0; r < vv->n; r++) {
        LLVMValueRef flat = v->type->kind == TK_TYPE_TILE ? cg_reg_flat(c, v->layout, r) : cg_i32(c, 0);
        LLVMValueRef idx = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, flat, cg_i32(c, mul), ""), cg_i32(c, add), "");
        LLVMBuildStore(c->b, cg_to_scratch(c, vv->r[r]), cg_smem_addr(c, LLVMBuildMul(c->b, idx, cg_i32(c, slot), "")));
    }
}

/* join, split and cat in the layouts lower/layout.c gives them: each
 * element stays in its thread, only registers are renumbered */
static void emit_shuffle_in_registers(cg *c, const tk_tir_op *op) {
    const tk_tir_value *a = op->operands.data[0];
    const cgval *av = cg_get(c, a);
    if (op->sub == TK_B_SPLIT) {
        tk_ll half;
        uint32_t pair_bit = 0;
        tk_ll_split(&half, a->layout, &pair_bit);
        uint64_t low = (1ull << pair_bit) - 1;
        for (uint32_t k = 0; k < 2; k++) {
            cgval out = cg_newval(c, (uint32_t)tk_ll_num_regs(&half));
            for (uint32_t r = 0; r < out.n; r++)
                out.r[r] = av->r[(r & low) | (uint64_t)k << pair_bit | (r & ~low) << 1];
            *cg_get(c, op->results.data[k]) = out;
        }
        return;
    }
    const cgval *bv = cg_get(c, op->operands.data[1]);
    cgval out = cg_newval(c, av->n * 2);
    for (uint32_t r = 0; r < out.n; r++) {
        if (op->sub == TK_B_JOIN) out.r[r] = (r & 1 ? bv : av)->r[r >> 1];
        else out.r[r] = r < av->n ? av->r[r] : bv->r[r - av->n];
    }
    *cg_get(c, op->results.data[0]) = out;
}

void cg_emit_join_split_cat(cg *c, const tk_tir_op *op) {
    const tk_tir_value *a = op->operands.data[0];
    if (tk_tir_join_split_cat_in_registers(op)) {
        emit_shuffle_in_registers(c, op);
        return;
    }
    if (op->sub == TK_B_JOIN && a->type->kind != TK_TYPE_TILE) {
        /* two scalars: every thread holds both, so each register picks
         * its element (smem.c gives this no scratch) */
        const tk_tir_value *res = op->results.data[0];
        LLVMValueRef first = cg_get(c, a)->r[0], second = cg_get(c, op->operands.data[1])->r[0];
        cgval out = cg_newval(c, (uint32_t)tk_ll_num_regs(res->layout));
        for (uint32_t r = 0; r < out.n; r++) {
            LLVMValueRef is_first = LLVMBuildICmp(c->b, LLVMIntEQ, cg_reg_flat(c, res->layout, r), cg_i32(c, 0), "");
            out.r[r] = LLVMBuildSelect(c->b, is_first, first, second, "");
        }
        *cg_get(c, res) = out;
        return;
    }
    unsigned slot = cg_scratch_slot(c);
    if (op->sub == TK_B_JOIN) {
        const tk_tir_value *res = op->results.data[0];
        scratch_write(c, a, 2, 0, slot);
        scratch_write(c, op->operands.data[1], 2, 1, slot);
        cg_barrier(c);
        *cg_get(c, res) = cg_scratch_read(c, res->type, res->layout, 1, 0, slot);
    } else if (op->sub == TK_B_SPLIT) {
        scratch_write(c, a, 1, 0, slot);
        cg_barrier(c);
        for (uint32_t i = 0; i < 2; i++) {
            const tk_tir_value *res = op->results.data[i];
            *cg_get(c, res) = cg_scratch_read(c, res->type, res->type->kind == TK_TYPE_TILE ? res->layout : NULL, 2, i, slot);
        }
    } else { /* cat: a's elements, then b's */
        const tk_tir_value *res = op->results.data[0];
        scratch_write(c, a, 1, 0, slot);
        scratch_write(c, op->operands.data[1], 1, a->type->shape[0], slot);
        cg_barrier(c);
        *cg_get(c, res) = cg_scratch_read(c, res->type, res->layout, 1, 0, slot);
    }
}
