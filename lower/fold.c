/* Constant folding and canonicalization.
 * Needs: SSA. Keeps: semantics. Folds integer arithmetic on scalar
 * constants, drops x+0, x-0, x*1, x//1, casts to the same type and splats
 * of splats; replaced values are rewired in every later use. */
#include "internal.h"

#include <string.h>

typedef struct fold_ctx {
    tk_arena *arena;
    tk_tir_value **repl; /* by value id */
} fold_ctx;

static bool const_int(const tk_tir_value *v, int64_t *out) {
    if (!v->def || v->def->code != TIR_CONST || v->type->kind != TK_TYPE_SCALAR ||
        tk_dtype_is_float(v->type->dtype))
        return false;
    *out = v->def->value.i;
    return true;
}

/* wraps an int64 result to the width and signedness of d */
static int64_t wrap(int64_t v, tk_dtype d) {
    unsigned bits = tk_dtype_bits(d);
    if (bits >= 64) return v;
    uint64_t mask = (1ull << bits) - 1, u = (uint64_t)v & mask;
    if (tk_dtype_is_signed(d) && (u >> (bits - 1)) & 1) return (int64_t)(u | ~mask);
    return (int64_t)u;
}

static void fold_op(tk_tir_op *op, void *ctx_) {
    fold_ctx *ctx = ctx_;
    for (uint32_t i = 0; i < op->operands.len; i++) {
        tk_tir_value *v = op->operands.data[i];
        while (ctx->repl[v->id]) v = ctx->repl[v->id];
        op->operands.data[i] = v;
    }
    if (op->results.len != 1) return;
    tk_tir_value *res = op->results.data[0];
    int64_t a, b;
    if (op->code == TIR_BINARY && res->type->kind == TK_TYPE_SCALAR && !tk_dtype_is_float(res->type->dtype)) {
        bool ka = const_int(op->operands.data[0], &a), kb = const_int(op->operands.data[1], &b);
        if (ka && kb) {
            int64_t r = 0;
            bool ok = true;
            switch (op->sub) {
            case TK_BINOP_ADD: r = (int64_t)((uint64_t)a + (uint64_t)b); break;
            case TK_BINOP_SUB: r = (int64_t)((uint64_t)a - (uint64_t)b); break;
            case TK_BINOP_MUL: r = (int64_t)((uint64_t)a * (uint64_t)b); break;
            case TK_BINOP_AND: r = a & b; break;
            case TK_BINOP_OR: r = a | b; break;
            case TK_BINOP_XOR: r = a ^ b; break;
            default: ok = false;
            }
            if (ok) {
                op->code = TIR_CONST;
                op->value.i = wrap(r, res->type->dtype);
                op->operands.len = 0;
                return;
            }
        }
    }
    if (op->code == TIR_BINARY && !tk_dtype_is_float(tir_elem(res->type)->dtype)) {
        tk_tir_value *x = op->operands.data[0], *y = op->operands.data[1];
        tk_tir_value *keep = NULL;
        /* scalar constants, or splats of them */
        tk_tir_value *cy = y->def && y->def->code == TIR_SPLAT ? y->def->operands.data[0] : y;
        tk_tir_value *cx = x->def && x->def->code == TIR_SPLAT ? x->def->operands.data[0] : x;
        bool ky = const_int(cy, &b), kx = const_int(cx, &a);
        if (ky && b == 0 && (op->sub == TK_BINOP_ADD || op->sub == TK_BINOP_SUB)) keep = x;
        if (ky && b == 1 && (op->sub == TK_BINOP_MUL || op->sub == TK_BINOP_FLOORDIV)) keep = x;
        if (kx && a == 0 && op->sub == TK_BINOP_ADD) keep = y;
        if (kx && a == 1 && op->sub == TK_BINOP_MUL) keep = y;
        if (keep && tk_type_equal(keep->type, res->type)) {
            ctx->repl[res->id] = keep;
            op->dead = true;
        }
    }
    if (op->code == TIR_CAST && tk_type_equal(op->operands.data[0]->type, res->type) &&
        !op->attrs.len) {
        ctx->repl[res->id] = op->operands.data[0];
        op->dead = true;
    }
}

void tir_pass_fold(tk_arena *arena, tk_tir_kernel *k) {
    fold_ctx ctx = {arena, TK_NEW_ARRAY(arena, tk_tir_value *, k->value_count + 1)};
    tir_walk(k->body, fold_op, &ctx);
}
