/* Shared-memory loads of dot operands moved down to the dot.
 * Needs: layouts assigned (conversions placed), before shared-memory
 * allocation and barriers. Keeps: semantics; every op's operands still
 * defined before it.
 *
 * A local_load that feeds a dot is moved to just before the first op that
 * uses it, where the ops it passes write nothing of its buffer. Codegen
 * then reads an mma.sync operand a K step at a time (codegen/dot.c sinks
 * each ldmatrix to its step) only when nothing between the load and the
 * dot may write memory: a B operand converted through shared memory
 * between the two (`b = (b * s).to(f16)` loaded by plain loads) kept the
 * whole of A's tile live beside the converted B and the accumulators, and
 * the 128x128x64 sm_80 matmul spilled. */
#include "internal.h"

/* the buffer a view reads or writes, or -1 where it is not a local_view */
static int64_t view_buffer(const tk_tir_value *view) {
    return view->def && view->def->code == TIR_LOCAL_VIEW ? tk_tir_attr_int(view->def, "buffer", 0) : -1;
}

/* May op write buffer `buffer` (-1: any) or order shared memory as a
 * whole? Ops with regions and synchronising ops stop the move. */
static bool may_write_buffer(const tk_tir_op *op, int64_t buffer) {
    if (op->regions.len || (tk_tir_props(op) & TIR_P_SYNC)) return true;
    if (op->code == TIR_ASYNC_COPY || op->code == TIR_LOCAL_STORE) {
        int64_t written = view_buffer(op->operands.data[0]);
        return written < 0 || buffer < 0 || written == buffer;
    }
    return false;
}

static bool uses(const tk_tir_op *op, const tk_tir_value *v) {
    for (uint32_t i = 0; i < op->operands.len; i++)
        if (op->operands.data[i] == v) return true;
    return false;
}

static bool feeds_dot(const tk_tir_block *blk, uint32_t from, const tk_tir_value *v) {
    for (uint32_t j = from; j < blk->ops.len; j++)
        if (blk->ops.data[j]->code == TIR_DOT && uses(blk->ops.data[j], v)) return true;
    return false;
}

static void sink_block(tk_tir_block *blk) {
    for (uint32_t i = blk->ops.len; i-- > 0;) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t r = 0; r < op->regions.len; r++) sink_block(op->regions.data[r]);
        if (op->dead || op->code != TIR_LOCAL_LOAD || !feeds_dot(blk, i + 1, op->results.data[0])) continue;
        int64_t buffer = view_buffer(op->operands.data[0]);
        uint32_t to = i;
        /* loads keep their order among themselves */
        while (to + 1 < blk->ops.len && !uses(blk->ops.data[to + 1], op->results.data[0]) &&
               blk->ops.data[to + 1]->code != TIR_LOCAL_LOAD && !may_write_buffer(blk->ops.data[to + 1], buffer))
            to++;
        for (uint32_t j = i; j < to; j++) blk->ops.data[j] = blk->ops.data[j + 1];
        blk->ops.data[to] = op;
    }
}

void tir_pass_sink_loads(tk_arena *arena, tk_tir_kernel *k) {
    (void)arena;
    sink_block(k->body);
}
