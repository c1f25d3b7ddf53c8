/* Address reassociation in loops.
 * Needs: SSA, CSE done; dce and licm after it. Keeps: semantics (the offsets
 * are summed in 64 bits, each extended as addptr extends it, and pointer
 * arithmetic wraps: p + a + b == p + (a + b) exactly).
 *
 * `base + rows[:, None] * stride + cols[None, :]` reads as
 * (base + rows * stride) + cols: two 64-bit adds an address. Where base
 * changes each trip of a loop (attention's K and V tiles: the tile's
 * first row) and both offsets do not, the chain becomes
 * base + (rows * stride + cols): the sum, which no longer depends on the
 * trip, is computed once before the loop (LLVM hoists it element by
 * element) and each address costs one add in the loop. Triton's
 * addresses there cost one IMAD.WIDE. The pattern, with the inner
 * pointer widened by a splat or broadcast on the way or not:
 *
 *   addptr(widen?(addptr(P, A)), B)  ->  addptr(widen?(P), widen?(i64 A) + i64 B)
 *
 * for P varying in the innermost loop around the outer addptr, A and B
 * not. Elsewhere the chain stays: the two adds cost the same either way. */
#include "internal.h"

static bool pure(const tk_tir_op *op) {
    return (tk_tir_props(op) & TIR_P_PURE) && op->regions.len == 0;
}

/* variant[v]: v changes from one trip of the loop to the next (its
 * block arguments, what an impure op or a nested region yields, and what
 * is computed from those); values defined outside stay false */
static void mark_variant(const tk_tir_block *blk, bool *variant) {
    for (uint32_t i = 0; i < blk->args.len; i++) variant[blk->args.data[i]->id] = true;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        for (uint32_t r = 0; r < op->regions.len; r++) mark_variant(op->regions.data[r], variant);
        bool v = !pure(op);
        for (uint32_t k = 0; k < op->operands.len && !v; k++) v = variant[op->operands.data[k]->id];
        for (uint32_t r = 0; r < op->results.len; r++) variant[op->results.data[r]->id] = v;
    }
}

typedef TK_VEC(tk_tir_op *) op_list;

/* A loop's variance: variant[] for the values that were there when it was
 * marked (n of them); a value made since (by a rewrite) varies when one of
 * its operands does. */
typedef struct variance {
    const bool *variant;
    uint32_t n;
} variance;

static bool varies(const variance *v, const tk_tir_value *x) {
    if (x->id < v->n) return v->variant[x->id];
    for (uint32_t k = 0; x->def && k < x->def->operands.len; k++)
        if (varies(v, x->def->operands.data[k])) return true;
    return false;
}

/* a new op of one result before the op being rewritten (pushed onto out) */
static tk_tir_value *emit(tk_arena *arena, tk_tir_kernel *k, op_list *out, const tk_tir_op *at, tk_tir_opcode code,
                          int sub, const tk_type *type, tk_tir_value *a, tk_tir_value *b) {
    tk_tir_op *op = tir_new_op(arena, code, sub, at->loc);
    op->parent = at->parent;
    tk_vec_push(arena, &op->operands, a);
    if (b) tk_vec_push(arena, &op->operands, b);
    tk_tir_value *r = tir_new_value(arena, k, type, op);
    tk_vec_push(arena, &op->results, r);
    tk_vec_push(arena, out, op);
    return r;
}

/* t's shape (a tile's, or a scalar) with element type elem */
static const tk_type *shaped(tk_arena *arena, const tk_type *t, const tk_type *elem) {
    return t->kind == TK_TYPE_TILE ? tk_type_tile(arena, elem, t->rank, t->shape) : elem;
}

static tk_tir_value *to_i64(tk_arena *arena, tk_tir_kernel *k, op_list *out, const tk_tir_op *at, tk_tir_value *v) {
    if (tir_elem(v->type)->dtype == TK_I64) return v;
    return emit(arena, k, out, at, TIR_CAST, 0, shaped(arena, v->type, tk_type_scalar(arena, TK_I64)), v, NULL);
}

/* Rewrites op (an addptr) where the pattern holds; the new ops go to out. */
static void reassociate(tk_arena *arena, tk_tir_kernel *k, tk_tir_op *op, const variance *variant, op_list *out) {
    tk_tir_value *x = op->operands.data[0], *b = op->operands.data[1];
    if (varies(variant, b) || !x->def) return;
    const tk_tir_op *widen = NULL, *inner = x->def;
    if (inner->code == TIR_BROADCAST || inner->code == TIR_SPLAT) {
        widen = inner;
        inner = inner->operands.data[0]->def;
    }
    if (!inner || inner->dead || inner->code != TIR_ADDPTR) return;
    tk_tir_value *p = inner->operands.data[0], *a = inner->operands.data[1];
    if (!varies(variant, p) || varies(variant, a)) return;
    const tk_type *rt = op->results.data[0]->type, *i64 = tk_type_scalar(arena, TK_I64);
    /* offsets shaped as their pointers (as lowering makes them) */
    if (tir_rank(a->type) != tir_rank(inner->results.data[0]->type) || tir_rank(b->type) != tir_rank(rt)) return;
    tk_tir_value *a64 = to_i64(arena, k, out, op, a);
    if (widen) a64 = emit(arena, k, out, op, widen->code, widen->sub, shaped(arena, rt, i64), a64, NULL);
    tk_tir_value *sum = emit(arena, k, out, op, TIR_BINARY, TK_BINOP_ADD, shaped(arena, rt, i64), a64,
                             to_i64(arena, k, out, op, b));
    if (widen) p = emit(arena, k, out, op, widen->code, widen->sub, rt, p, NULL);
    op->operands.data[0] = p;
    op->operands.data[1] = sum;
}

/* The addptrs of blk (a loop's body, or an if's branch inside it; not a
 * nested loop's, which is its own innermost loop) */
static void rewrite_block(tk_arena *arena, tk_tir_kernel *k, tk_tir_block *blk, const variance *variant) {
    op_list ops = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (!op->dead && op->code == TIR_ADDPTR) reassociate(arena, k, op, variant, &ops);
        if (!op->dead && op->code == TIR_IF)
            for (uint32_t r = 0; r < op->regions.len; r++) rewrite_block(arena, k, op->regions.data[r], variant);
        tk_vec_push(arena, &ops, op);
    }
    blk->ops.data = ops.data, blk->ops.len = ops.len, blk->ops.cap = ops.cap;
}

static void visit(tk_arena *arena, tk_tir_kernel *k, tk_tir_block *blk) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        for (uint32_t r = 0; r < op->regions.len; r++) visit(arena, k, op->regions.data[r]);
        if (op->code != TIR_FOR && op->code != TIR_WHILE) continue;
        bool *marks = TK_NEW_ARRAY(arena, bool, k->value_count + 1);
        for (uint32_t r = 0; r < op->regions.len; r++) mark_variant(op->regions.data[r], marks);
        variance variant = {marks, k->value_count + 1};
        for (uint32_t r = 0; r < op->regions.len; r++) rewrite_block(arena, k, op->regions.data[r], &variant);
    }
}

void tir_pass_reassociate_addresses(tk_arena *arena, tk_tir_kernel *k) {
    visit(arena, k, k->body);
}
