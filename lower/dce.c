/* Dead-code elimination.
 * Needs: SSA. Keeps: every op with an effect (stores, atomics, prints,
 * asserts, barriers, volatile loads, control flow, yields, returns) and
 * whatever they use; marks the rest dead (printers and codegen skip them).
 * A `for`'s carried value lives only while something outside the loop
 * uses its result or something in the body uses it other than to compute
 * its own next value: a dead one leaves the loop (its initial value, block
 * argument, yielded value and result), so a pointer the pipeliner
 * replaced stops advancing. */
#include "internal.h"

#include <string.h>

static bool has_effect(const tk_tir_op *op) { return tk_tir_props(op) & TIR_P_EFFECT; }

/* the loop a value is a carried value of: as result i or body argument i + 1 */
typedef struct carried {
    tk_tir_op *loop;
    uint32_t index;
} carried;

typedef struct dce_ctx {
    tk_arena *arena;
    bool *used;                        /* by value id */
    carried *slot;                     /* by value id: loop == NULL when not carried */
    bool *slot_live;                   /* by value id of a for's result: its carried value lives */
    TK_VEC(const tk_tir_value *) work; /* used values whose definitions are not yet marked */
} dce_ctx;

static const tk_tir_op *terminator(const tk_tir_block *blk) {
    for (uint32_t i = blk->ops.len; i-- > 0;)
        if (!blk->ops.data[i]->dead) return blk->ops.data[i];
    return NULL;
}

static void use(dce_ctx *ctx, const tk_tir_value *v);

/* carried value i of loop lives: its initial and yielded values are used */
static void live_slot(dce_ctx *ctx, tk_tir_op *loop, uint32_t i) {
    const tk_tir_value *result = loop->results.data[i];
    if (ctx->slot_live[result->id]) return;
    ctx->slot_live[result->id] = true;
    use(ctx, loop->operands.data[3 + i]);
    const tk_tir_op *y = terminator(loop->regions.data[0]);
    if (y && y->code == TIR_YIELD && i < y->operands.len) use(ctx, y->operands.data[i]);
}

static void use(dce_ctx *ctx, const tk_tir_value *v) {
    if (ctx->used[v->id]) return;
    ctx->used[v->id] = true;
    tk_vec_push(ctx->arena, &ctx->work, v);
    if (ctx->slot[v->id].loop) live_slot(ctx, ctx->slot[v->id].loop, ctx->slot[v->id].index);
}

/* a well-formed for: its carried values line up with its yield */
static bool carries(const tk_tir_op *op) {
    if (op->code != TIR_FOR || op->regions.len != 1 || op->operands.len < 3) return false;
    const tk_tir_block *body = op->regions.data[0];
    const tk_tir_op *y = terminator(body);
    uint32_t n = op->operands.len - 3;
    return y && y->code == TIR_YIELD && y->operands.len == n && op->results.len == n && body->args.len == n + 1;
}

static void note_slots(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    if (!carries(op)) return;
    for (uint32_t i = 0; i < op->results.len; i++) {
        carried c = {op, i};
        ctx->slot[op->results.data[i]->id] = c;
        ctx->slot[op->regions.data[0]->args.data[i + 1]->id] = c;
    }
}

static void mark_effects(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    if (!has_effect(op)) return;
    if (carries(op)) {
        /* the bounds; carried values as they turn out live */
        for (uint32_t i = 0; i < 3; i++) use(ctx, op->operands.data[i]);
        return;
    }
    if (op->code == TIR_YIELD && op->parent && op->parent->parent && carries(op->parent->parent) &&
        terminator(op->parent) == op)
        return;
    for (uint32_t i = 0; i < op->operands.len; i++) use(ctx, op->operands.data[i]);
}

static void sweep(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    if (has_effect(op)) return;
    bool live = false;
    for (uint32_t i = 0; i < op->results.len; i++) live |= ctx->used[op->results.data[i]->id];
    if (!live) op->dead = true;
}

/* drops the carried values of loop that are dead */
static void drop_slots(tk_tir_op *op, void *ctx_) {
    dce_ctx *ctx = ctx_;
    if (!carries(op)) return;
    tk_tir_block *body = op->regions.data[0];
    tk_tir_op *y = (tk_tir_op *)terminator(body);
    uint32_t n = op->results.len, kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!ctx->slot_live[op->results.data[i]->id]) continue;
        op->operands.data[3 + kept] = op->operands.data[3 + i];
        op->results.data[kept] = op->results.data[i];
        body->args.data[1 + kept] = body->args.data[1 + i];
        y->operands.data[kept] = y->operands.data[i];
        kept++;
    }
    op->operands.len = 3 + kept;
    op->results.len = kept;
    body->args.len = 1 + kept;
    y->operands.len = kept;
}

/* Effects are live; so is every op defining a value a live op uses: a
 * worklist of values, each visited once (linear in the program). */
void tir_pass_dce(tk_arena *arena, tk_tir_kernel *k) {
    uint32_t n = k->value_count + 1;
    dce_ctx ctx = {arena, TK_NEW_ARRAY(arena, bool, n), TK_NEW_ARRAY(arena, carried, n), TK_NEW_ARRAY(arena, bool, n),
                   {0}};
    bool *visited = TK_NEW_ARRAY(arena, bool, n);
    tir_walk(k->body, note_slots, &ctx);
    tir_walk(k->body, mark_effects, &ctx);
    while (ctx.work.len) {
        const tk_tir_op *def = ctx.work.data[--ctx.work.len]->def;
        if (!def || !def->results.len || visited[def->results.data[0]->id]) continue;
        visited[def->results.data[0]->id] = true;
        if (carries(def)) continue; /* a loop result: live_slot did its part */
        for (uint32_t i = 0; i < def->operands.len; i++) use(&ctx, def->operands.data[i]);
    }
    tir_walk(k->body, sweep, &ctx);
    tir_walk(k->body, drop_slots, &ctx);
}
