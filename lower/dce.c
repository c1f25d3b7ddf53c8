/* Dead-code elimination.
 * Needs: SSA. Keeps: every op with an effect (stores, atomics, prints,
 * asserts, barriers, volatile loads, control flow, yields, returns) and
 * whatever they use; marks the rest dead (printers and codegen skip them). */
#include "internal.h"

#include <string.h>

static bool has_effect(const tk_tir_op *op) { return tk_tir_props(op) & TIR_P_EFFECT; }

typedef struct dce_ctx {
    tk_arena *arena;
    bool *used;                        /* by value id */
    TK_VEC(const tk_tir_value *) work; /* used values whose definitions are not yet marked */
} dce_ctx;

static void use(dce_ctx *ctx, const tk_tir_value *v) {
    if (ctx->used[v->id]) return;
    ctx->used[v->id] = true;
    tk_vec_push(ctx->arena, &ctx->work, v);
}

static void mark_effects(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    if (!has_effect(op)) return;
    for (uint32_t i = 0; i < op->operands.len; i++) use(ctx, op->operands.data[i]);
}

static void sweep(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    if (has_effect(op)) return;
    bool live = false;
    for (uint32_t i = 0; i < op->results.len; i++) live |= ctx->used[op->results.data[i]->id];
    if (!live) op->dead = true;
}

/* Effects are live; so is every op defining a value a live op uses: a
 * worklist of values, each visited once (linear in the program). */
void tir_pass_dce(tk_arena *arena, tk_tir_kernel *k) {
    dce_ctx ctx = {arena, TK_NEW_ARRAY(arena, bool, k->value_count + 1), {0}};
    bool *visited = TK_NEW_ARRAY(arena, bool, k->value_count + 1);
    tir_walk(k->body, mark_effects, &ctx);
    while (ctx.work.len) {
        const tk_tir_op *def = ctx.work.data[--ctx.work.len]->def;
        if (!def || !def->results.len || visited[def->results.data[0]->id]) continue;
        visited[def->results.data[0]->id] = true;
        for (uint32_t i = 0; i < def->operands.len; i++) use(&ctx, def->operands.data[i]);
    }
    tir_walk(k->body, sweep, &ctx);
}
