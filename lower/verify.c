/* The verifier run between passes: every operand is defined before its use
 * in an enclosing scope, every region ends in the terminator its op needs,
 * value types agree where ops require it, and no wgmma left in flight past
 * its trip reads registers the next trip writes before retiring it. A
 * failure is a compiler bug, reported as an internal error at the op's
 * source position. */
#include "internal.h"

typedef struct verify_ctx {
    tk_diag *diag;
    bool *defined;
    bool ok;
} verify_ctx;

static void fail(verify_ctx *c, const tk_tir_op *op, const char *what) {
    if (c->ok) tk_internal_error(c->diag, op->loc, "tile IR %s at %s", what, tk_tir_opcode_name(op->code));
    c->ok = false;
}

/* a broadcast keeps the rank; each dimension stays or grows from 1 */
static bool broadcast_ok(const tk_tir_op *op) {
    if (op->operands.len != 1 || op->results.len != 1) return false;
    const tk_type *a = op->operands.data[0]->type, *r = op->results.data[0]->type;
    if (a->kind != TK_TYPE_TILE || r->kind != TK_TYPE_TILE || a->rank != r->rank) return false;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->shape[d] != r->shape[d] && a->shape[d] != 1) return false;
    return true;
}

static void verify_block(verify_ctx *c, const tk_tir_block *blk) {
    TK_VEC(uint32_t) local = {0};
    (void)local;
    for (uint32_t i = 0; i < blk->args.len; i++) c->defined[blk->args.data[i]->id] = true;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        for (uint32_t k = 0; k < op->operands.len; k++)
            if (!c->defined[op->operands.data[k]->id]) fail(c, op, "uses a value before its definition");
        for (uint32_t r = 0; r < op->regions.len; r++) verify_block(c, op->regions.data[r]);
        for (uint32_t k = 0; k < op->results.len; k++) c->defined[op->results.data[k]->id] = true;
        if (op->code == TIR_BINARY && op->operands.len == 2 &&
            !tk_type_equal(op->operands.data[0]->type, op->operands.data[1]->type))
            fail(c, op, "has operands of different types");
        if (op->code == TIR_BROADCAST && !broadcast_ok(op)) fail(c, op, "broadcasts between ranks or sizes");
    }
    /* values of this region are not visible after it */
    for (uint32_t i = 0; i < blk->args.len; i++) c->defined[blk->args.data[i]->id] = false;
    for (uint32_t i = 0; i < blk->ops.len; i++)
        for (uint32_t k = 0; k < blk->ops.data[i]->results.len; k++)
            c->defined[blk->ops.data[i]->results.data[k]->id] = false;
}

/* ---- wgmma in flight over registers ------------------------------------
 * A wgmma reads its register A asynchronously, until a wait retires it;
 * the same PTX registers hold that value every trip. One that stays in
 * flight into the next trip (`pending` 1, its result carried) with an A
 * computed in the trip is safe only where the next trip retires it before
 * writing A again: each K step a group waited for before its words
 * (step_groups), a wgmma earlier in the trip that waits for every one
 * (pending 0), or a dot_wait of its result before the trip ends
 * (lower/pipeline_dot.c decides which; the H200 gave wrong sums without). */

static bool inside(const tk_tir_block *blk, const tk_tir_value *v) {
    for (const tk_tir_op *op = v->def; op; op = op->parent ? op->parent->parent : NULL)
        if (op->parent == blk) return true;
    return false;
}

/* does a dot_wait in blk after position `from` wait for v (or a relabeling of it)? */
static bool waited_in_trip(const tk_tir_block *blk, uint32_t from, const tk_tir_value *v) {
    for (uint32_t i = from; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead || !op->operands.len || op->operands.data[0] != v) continue;
        if (op->code == TIR_DOT_WAIT) return true;
        if ((op->code == TIR_PERMUTE || op->code == TIR_RESHAPE) && waited_in_trip(blk, i + 1, op->results.data[0]))
            return true;
    }
    return false;
}

static void verify_register_a(verify_ctx *c, const tk_tir_block *blk, bool loop_body) {
    bool waited_all = false;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        for (uint32_t r = 0; r < op->regions.len; r++)
            verify_register_a(c, op->regions.data[r], op->code == TIR_FOR || op->code == TIR_WHILE);
        if (op->code != TIR_DOT || tk_tir_dot_impl(op) != TK_DOT_WGMMA) continue;
        int64_t pending = tk_tir_attr_int(op, "pending", 0);
        const tk_tir_value *a = op->operands.data[0];
        bool registers = !a->def || a->def->code != TIR_LOCAL_VIEW;
        if (loop_body && pending > 0 && registers && inside(blk, a) && !waited_all &&
            !tk_tir_attr_int(op, "step_groups", 0) && !waited_in_trip(blk, i + 1, op->results.data[0]))
            fail(c, op, "leaves a wgmma in flight into the next trip over A registers that trip writes first");
        waited_all |= pending == 0;
    }
}

bool tk_tir_verify_kernel(tk_diag *diag, tk_arena *arena, const tk_tir_kernel *k) {
    verify_ctx c = {diag, TK_NEW_ARRAY(arena, bool, k->value_count + 1), true};
    verify_block(&c, k->body);
    verify_register_a(&c, k->body, false);
    return c.ok;
}

bool tk_tir_verify(tk_diag *diag, const tk_tir_program *program) {
    tk_arena scratch = {0};
    bool ok = true;
    for (uint32_t i = 0; i < program->kernels.len; i++) ok &= tk_tir_verify_kernel(diag, &scratch, program->kernels.data[i]);
    tk_arena_free(&scratch);
    return ok;
}
