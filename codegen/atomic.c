/* Atomics (tl.atomic_add, max, min, and, or, xor, xchg, cas): one atomicrmw
 * or cmpxchg per element, with the op's memory order (sem) and scope, by
 * the thread that owns the element (a scalar's: the program's first
 * thread), under the mask. The old values reach the copies that did not
 * act through the op's scratch, which lower/smem.c gives where the result
 * is used and replicated. Bitwise atomics on floats are reported as not
 * supported yet. */
#include "internal.h"

#include <string.h>

static LLVMAtomicOrdering ordering_of(const tk_tir_op *op) {
    const char *sem = tk_tir_attr_text(op, "sem");
    if (!sem || !strcmp(sem, "acq_rel")) return LLVMAtomicOrderingAcquireRelease;
    if (!strcmp(sem, "acquire")) return LLVMAtomicOrderingAcquire;
    if (!strcmp(sem, "release")) return LLVMAtomicOrderingRelease;
    return LLVMAtomicOrderingMonotonic;
}

static unsigned scope_of(cg *c, const tk_tir_op *op) {
    const char *scope = tk_tir_attr_text(op, "scope");
    const char *name = !scope || !strcmp(scope, "gpu") ? "device" : !strcmp(scope, "cta") ? "block" : "";
    return LLVMGetSyncScopeID(c->ctx, name, strlen(name));
}

void cg_emit_atomic(cg *c, const tk_tir_op *op) {
    int id = op->sub;
    bool cas = id == TK_B_ATOMIC_CAS;
    const tk_tir_value *ptr = op->operands.data[0], *res = op->results.data[0];
    const tk_type *t = res->type;
    bool f = cg_is_float(t), s = cg_is_signed(t);
    LLVMAtomicRMWBinOp rmw = LLVMAtomicRMWBinOpAdd;
    if (id == TK_B_ATOMIC_ADD) rmw = f ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
    else if (id == TK_B_ATOMIC_MAX) rmw = f ? LLVMAtomicRMWBinOpFMax : s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
    else if (id == TK_B_ATOMIC_MIN) rmw = f ? LLVMAtomicRMWBinOpFMin : s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
    else if (id == TK_B_ATOMIC_AND) rmw = LLVMAtomicRMWBinOpAnd;
    else if (id == TK_B_ATOMIC_OR) rmw = LLVMAtomicRMWBinOpOr;
    else if (id == TK_B_ATOMIC_XOR) rmw = LLVMAtomicRMWBinOpXor;
    else if (id == TK_B_ATOMIC_XCHG) rmw = LLVMAtomicRMWBinOpXchg;
    bool float_bits = f && rmw >= LLVMAtomicRMWBinOpAnd && rmw <= LLVMAtomicRMWBinOpXor;
    if (float_bits) {
        cg_not_yet(c, op, "a bitwise atomic on floating-point values");
        return;
    }
    LLVMAtomicOrdering order = ordering_of(op);
    unsigned scope = scope_of(c, op);
    uint32_t n = cg_nregs(res);
    cgval out = cg_newval(c, n);
    const tk_tir_value *mask = !cas && op->operands.len > 2 ? op->operands.data[2] : NULL;
    /* a scalar atomic happens once per program, by its first thread */
    bool scalar = ptr->type->kind != TK_TYPE_TILE;
    LLVMValueRef first_thread =
        scalar ? cg_is_first_thread(c) : NULL;
    /* the old values go to the copies that did not act through scratch
     * (smem.c gives it where the result is used and replicated) */
    LLVMTypeRef rt = cg_elem_type(c, res->type);
    unsigned slot = cg_scratch_slot(c);
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef pred = scalar ? first_thread : cg_owner(c, ptr->layout, r);
        if (mask) pred = LLVMBuildAnd(c->b, pred, cg_operand(c, op, 2, r), "");
        LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
        LLVMBasicBlockRef act = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "atomic");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "atomic.end");
        LLVMBuildCondBr(c->b, pred, act, join);
        LLVMPositionBuilderAtEnd(c->b, act);
        LLVMValueRef old;
        if (cas) {
            LLVMAtomicOrdering fail = order == LLVMAtomicOrderingAcquireRelease || order == LLVMAtomicOrderingAcquire
                                          ? LLVMAtomicOrderingAcquire : LLVMAtomicOrderingMonotonic;
            /* cmpxchg compares bits: floats go as integers of their width */
            LLVMValueRef cmp = cg_operand(c, op, 1, r), val = cg_operand(c, op, 2, r);
            LLVMTypeRef bits = f ? LLVMIntTypeInContext(c->ctx, tk_dtype_bits(cg_elem_of(t)->dtype)) : rt;
            if (f) {
                cmp = LLVMBuildBitCast(c->b, cmp, bits, "");
                val = LLVMBuildBitCast(c->b, val, bits, "");
            }
            LLVMValueRef pair = LLVMBuildAtomicCmpXchgSyncScope(c->b, cg_operand(c, op, 0, r), cmp, val, order, fail, scope);
            old = LLVMBuildExtractValue(c->b, pair, 0, "");
            if (f) old = LLVMBuildBitCast(c->b, old, rt, "");
        } else {
            old = LLVMBuildAtomicRMWSyncScope(c->b, rmw, cg_operand(c, op, 0, r), cg_operand(c, op, 1, r), order, scope);
        }
        if (op->scratch_bytes) {
            LLVMValueRef flat = scalar ? cg_i32(c, 0) : cg_reg_flat(c, res->layout, r);
            LLVMBuildStore(c->b, cg_to_scratch(c, old), cg_smem_addr(c, LLVMBuildMul(c->b, flat, cg_i32(c, slot), "")));
        }
        LLVMBasicBlockRef act_end = LLVMGetInsertBlock(c->b);
        LLVMBuildBr(c->b, join);
        LLVMPositionBuilderAtEnd(c->b, join);
        LLVMValueRef phi = LLVMBuildPhi(c->b, LLVMTypeOf(old), "");
        LLVMValueRef poison = LLVMGetPoison(LLVMTypeOf(old));
        LLVMAddIncoming(phi, &old, &act_end, 1);
        LLVMAddIncoming(phi, &poison, &from, 1);
        out.r[r] = phi;
    }
    if (op->scratch_bytes) {
        cg_barrier(c);
        out = cg_scratch_read(c, res->type, scalar ? NULL : res->layout, 1, 0, slot);
    }
    *cg_get(c, res) = out;
}
