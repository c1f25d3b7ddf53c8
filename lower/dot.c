/* Choosing how each tl.dot is computed, per target and dtype (Triton's
 * AccelerateMatmul): the op gets an attribute impl, which --emit=tir-gpu
 * shows and the layout, scratch and codegen rules follow.
 *
 * Today every dot is "fma": both operands go to shared memory as words of
 * the compute type (f32; i32 for i8; f64 for f64), and each thread
 * accumulates its elements of the result with FMAs over K. It is correct
 * on every target for every dtype pairing, and slow; mma.sync and wgmma
 * come as further impls. For "fma" this pass makes the conversions
 * explicit: operands and accumulator cast to the compute type before the
 * dot, the result cast to its dtype after (f16 for out_dtype=f16), so the
 * dot itself multiplies one type. fp8 operands convert there too, which
 * targets before sm_89 report.
 * Needs: SSA. Keeps: semantics (the FMA path rounds once per FMA in f32,
 * which is at least as accurate as tf32 and the tensor-core paths). */
#include "internal.h"

static tk_dtype compute_dtype(tk_dtype d) {
    if (d == TK_F64) return TK_F64;
    if (d == TK_I8) return TK_I32;
    return TK_F32;
}

typedef TK_VEC(tk_tir_op *) op_list;

/* v converted to dtype d before `at`, pushed onto out; v itself when it has d */
static tk_tir_value *cast_to(tk_arena *arena, tk_tir_kernel *k, tk_tir_value *v, tk_dtype d, tk_tir_op *at,
                             op_list *out) {
    const tk_type *t = v->type;
    if (tir_elem(t)->dtype == d) return v;
    tk_tir_op *cast = tir_new_op(arena, TIR_CAST, 0, at->loc);
    cast->parent = at->parent;
    tk_vec_push(arena, &cast->operands, v);
    tk_tir_value *r = tir_new_value(arena, k, tk_type_tile(arena, tk_type_scalar(arena, d), t->rank, t->shape), cast);
    tk_vec_push(arena, &cast->results, r);
    tk_vec_push(arena, out, cast);
    return r;
}

static void choose_block(tk_arena *arena, tk_tir_kernel *k, tk_tir_block *blk) {
    op_list ops = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t r = 0; r < op->regions.len; r++) choose_block(arena, k, op->regions.data[r]);
        if (op->dead || op->code != TIR_DOT || tk_tir_attr_text(op, "impl")) {
            tk_vec_push(arena, &ops, op);
            continue;
        }
        struct tk_sema_attr impl = {"impl", "fma", 0};
        tk_vec_push(arena, &op->attrs, impl);
        tk_dtype ct = compute_dtype(tir_elem(op->operands.data[0]->type)->dtype);
        for (uint32_t j = 0; j < op->operands.len; j++)
            op->operands.data[j] = cast_to(arena, k, op->operands.data[j], ct, op, &ops);
        tk_vec_push(arena, &ops, op);
        /* the product in the compute type, then the result's dtype */
        tk_tir_value *res = op->results.data[0];
        if (tir_elem(res->type)->dtype != ct) {
            tk_tir_value *wide = tir_new_value(
                arena, k, tk_type_tile(arena, tk_type_scalar(arena, ct), res->type->rank, res->type->shape), op);
            op->results.data[0] = wide;
            tk_tir_op *cast = tir_new_op(arena, TIR_CAST, 0, op->loc);
            cast->parent = blk;
            tk_vec_push(arena, &cast->operands, wide);
            res->def = cast;
            tk_vec_push(arena, &cast->results, res);
            tk_vec_push(arena, &ops, cast);
        }
    }
    blk->ops.data = ops.data;
    blk->ops.len = ops.len;
    blk->ops.cap = ops.cap;
}

void tir_pass_dot(tk_arena *arena, const tk_target *target, tk_tir_kernel *k) {
    (void)target; /* every target takes "fma" today */
    choose_block(arena, k, k->body);
}
