/* TMA copies and the mbarriers they complete on (lower/pipeline_dot.c's
 * TMA producer, warp_specialize.c's ring). One thread (thread 0, or the
 * producer warpgroup's first) initializes a barrier, arrives on it
 * expecting a trip's bytes and issues the trip's copies; every thread
 * waits on the barrier's phase; a warp-specialized kernel's consumer
 * warps each arrive once to free a stage. A tma_copy of a tile wider than one
 * swizzle span is one copy a box of box_rows x box_cols, one box after
 * another in the buffer (lower/buffers.c's tir_tma_box).
 * Needs: the buffers placed (smem.c), the descriptor parameter's tensor
 * map built by the launcher (header.c, runtime_stub's
 * tkrt_tensor_map_encode). */
#include "internal.h"

/* emits the rest of the op where `cond` holds: returns the block to go on in */
static LLVMBasicBlockRef only_if(cg *c, LLVMValueRef cond, const char *what) {
    LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(c->ctx, c->fn, what);
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "");
    LLVMBuildCondBr(c->b, cond, then, done);
    LLVMPositionBuilderAtEnd(c->b, then);
    return done;
}

static void end_if(cg *c, LLVMBasicBlockRef done) {
    LLVMBuildBr(c->b, done);
    LLVMPositionBuilderAtEnd(c->b, done);
}

static LLVMValueRef first_thread(cg *c) {
    return LLVMBuildICmp(c->b, LLVMIntEQ, c->tid, cg_i32(c, c->leader_tid), "");
}

static LLVMValueRef scalar(cg *c, const tk_tir_op *op, uint32_t i) {
    return cg_get(c, op->operands.data[i])->r[0];
}

void cg_emit_tma(cg *c, const tk_tir_op *op) {
    LLVMValueRef bar = op->code == TIR_TMA_STORE ? NULL : scalar(c, op, op->code == TIR_TMA_COPY ? 2 : 0);
    switch (op->code) {
    case TIR_MBAR_INIT: {
        LLVMBasicBlockRef done = only_if(c, first_thread(c), "mbar.init");
        LLVMValueRef args[2] = {bar, cg_i32(c, tk_tir_attr_int(op, "count", 1))};
        cg_call(c, "llvm.nvvm.mbarrier.init.shared", c->t_void, args, 2);
        cg_call(c, "llvm.nvvm.fence.mbarrier_init.release.cluster", c->t_void, NULL, 0);
        end_if(c, done);
        return;
    }
    case TIR_MBAR_INVAL: {
        LLVMBasicBlockRef done = only_if(c, first_thread(c), "mbar.inval");
        cg_call(c, "llvm.nvvm.mbarrier.inval.shared", c->t_void, &bar, 1);
        end_if(c, done);
        return;
    }
    case TIR_MBAR_EXPECT: {
        LLVMValueRef issue = LLVMBuildAnd(c->b, first_thread(c), scalar(c, op, 1), "");
        LLVMBasicBlockRef done = only_if(c, issue, "mbar.expect");
        LLVMValueRef args[2] = {bar, cg_i32(c, tk_tir_attr_int(op, "bytes", 0))};
        cg_call(c, "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta", c->t_i64, args, 2);
        end_if(c, done);
        return;
    }
    case TIR_MBAR_ARRIVE: {
        /* one arrival a warp: its wgmma wait (.sync.aligned) brought the
         * whole warp here */
        LLVMValueRef lane0 = LLVMBuildICmp(c->b, LLVMIntEQ, c->lane, cg_i32(c, 0), "");
        LLVMBasicBlockRef done = only_if(c, LLVMBuildAnd(c->b, lane0, scalar(c, op, 1), ""), "mbar.arrive");
        cg_call(c, "llvm.nvvm.mbarrier.arrive.shared", c->t_i64, &bar, 1);
        end_if(c, done);
        return;
    }
    case TIR_MBAR_WAIT: {
        /* try_wait suspends a while in hardware; retried until the phase
         * given has completed */
        LLVMBasicBlockRef retry = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "mbar.wait");
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "");
        LLVMBuildBr(c->b, retry);
        LLVMPositionBuilderAtEnd(c->b, retry);
        LLVMValueRef args[2] = {bar, scalar(c, op, 1)};
        LLVMValueRef ok = cg_call(c, "llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta", c->t_i1, args, 2);
        LLVMBuildCondBr(c->b, ok, done, retry);
        LLVMPositionBuilderAtEnd(c->b, done);
        return;
    }
    case TIR_TMA_COPY: {
        const tk_tir_value *desc = op->operands.data[1];
        uint32_t rank = desc->type->rank;
        if (rank != 2) {
            cg_not_yet(c, op, "a TMA copy of other than 2 dimensions");
            return;
        }
        int64_t rows = tk_tir_attr_int(op, "box_rows", 0), cols = tk_tir_attr_int(op, "box_cols", 0);
        int64_t panels = tk_tir_attr_int(op, "panels", 1);
        int64_t box_bytes = rows * cols * (int64_t)(tk_dtype_bits(desc->type->elem->dtype) / 8);
        LLVMValueRef issue = LLVMBuildAnd(c->b, first_thread(c), scalar(c, op, 3), "");
        LLVMBasicBlockRef done = only_if(c, issue, "tma.copy");
        LLVMValueRef map = scalar(c, op, 1), dst = scalar(c, op, 0);
        LLVMTypeRef cluster_ptr = LLVMPointerTypeInContext(c->ctx, 7);
        for (int64_t p = 0; p < panels; p++) {
            LLVMValueRef at = LLVMConstInt(c->t_i32, (unsigned long long)(p * box_bytes), 0);
            LLVMValueRef to = LLVMBuildAddrSpaceCast(c->b, LLVMBuildGEP2(c->b, c->t_i8, dst, &at, 1, ""), cluster_ptr, "");
            LLVMValueRef col = LLVMBuildAdd(c->b, scalar(c, op, 5), cg_i32(c, p * cols), "");
            /* no multicast, no cache hint, cta_group 0 (LLVM 22's form) */
            LLVMValueRef args[10] = {to, bar, map, col, scalar(c, op, 4), LLVMConstInt(c->t_i16, 0, 0),
                                     LLVMConstInt(c->t_i64, 0, 0), LLVMConstInt(c->t_i1, 0, 0),
                                     LLVMConstInt(c->t_i1, 0, 0), cg_i32(c, 0)};
            cg_call(c, "llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d", c->t_void, args, 10);
        }
        end_if(c, done);
        return;
    }
    case TIR_TMA_STORE: {
        /* the threads' writes of the view were fenced for the async
         * proxy (local_store) and passed a barrier */
        const tk_tir_value *desc = op->operands.data[1];
        int64_t rows = tk_tir_attr_int(op, "box_rows", 0), cols = tk_tir_attr_int(op, "box_cols", 0);
        int64_t panels = tk_tir_attr_int(op, "panels", 1);
        int64_t box_bytes = rows * cols * (int64_t)(tk_dtype_bits(desc->type->elem->dtype) / 8);
        LLVMBasicBlockRef done = only_if(c, first_thread(c), "tma.store");
        LLVMValueRef map = scalar(c, op, 1), src = scalar(c, op, 0);
        for (int64_t p = 0; p < panels; p++) {
            LLVMValueRef at = LLVMConstInt(c->t_i32, (unsigned long long)(p * box_bytes), 0);
            LLVMValueRef col = LLVMBuildAdd(c->b, scalar(c, op, 3), cg_i32(c, p * cols), "");
            LLVMValueRef args[6] = {LLVMBuildGEP2(c->b, c->t_i8, src, &at, 1, ""), map, col, scalar(c, op, 2),
                                    LLVMConstInt(c->t_i64, 0, 0), LLVMConstInt(c->t_i1, 0, 0)};
            cg_call(c, "llvm.nvvm.cp.async.bulk.tensor.s2g.tile.2d", c->t_void, args, 6);
        }
        cg_call(c, "llvm.nvvm.cp.async.bulk.commit.group", c->t_void, NULL, 0);
        LLVMValueRef none = cg_i32(c, 0);
        cg_call(c, "llvm.nvvm.cp.async.bulk.wait.group.read", c->t_void, &none, 1);
        end_if(c, done);
        return;
    }
    default:
        cg_not_yet(c, op, tk_tir_opcode_name(op->code));
    }
}
