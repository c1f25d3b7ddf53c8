/* Dead-code elimination.
 * Needs: SSA. Keeps: every op with an effect (stores, atomics, prints,
 * asserts, barriers, volatile loads, control flow, yields, returns) and
 * whatever they use; marks the rest dead (printers and codegen skip them). */
#include "internal.h"

#include <string.h>

static bool has_effect(const tk_tir_op *op) {
    switch (op->code) {
    case TIR_STORE: case TIR_BUILTIN: case TIR_FOR: case TIR_IF: case TIR_WHILE:
    case TIR_YIELD: case TIR_CONDITION: case TIR_RETURN: case TIR_BARRIER:
        return true;
    case TIR_LOAD: return tk_tir_attr_int(op, "volatile", 0) != 0;
    default: return false;
    }
}

typedef struct dce_ctx {
    bool *used;       /* by value id */
    bool changed;
} dce_ctx;

static void mark_uses(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    bool live = has_effect(op);
    for (uint32_t i = 0; i < op->results.len && !live; i++) live = ctx->used[op->results.data[i]->id];
    if (!live) return;
    for (uint32_t i = 0; i < op->operands.len; i++) {
        uint32_t id = op->operands.data[i]->id;
        if (!ctx->used[id]) {
            ctx->used[id] = true;
            ctx->changed = true;
        }
    }
}

static void sweep(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    if (has_effect(op)) return;
    bool live = false;
    for (uint32_t i = 0; i < op->results.len; i++) live |= ctx->used[op->results.data[i]->id];
    if (!live) op->dead = true;
}

void tir_pass_dce(tk_arena *arena, tk_tir_kernel *k) {
    dce_ctx ctx = {TK_NEW_ARRAY(arena, bool, k->value_count + 1), true};
    while (ctx.changed) {
        ctx.changed = false;
        tir_walk(k->body, mark_uses, &ctx);
    }
    tir_walk(k->body, sweep, &ctx);
}
