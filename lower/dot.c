/* Choosing how each tl.dot is computed, per target and dtype (Triton's
 * AccelerateMatmul): the op gets an attribute impl, which --emit=tir-gpu
 * shows and the layout, scratch and codegen rules follow.
 *
 * "mma_sync" on every target (sm_80 and newer) for f16 and bf16 operands
 * (m16n8k16, f32 accumulator), f32 with input_precision "tf32", Triton's
 * default (m16n8k8 on operands rounded to tf32), and i8 (m16n8k32, i32
 * accumulator); on fp8 targets (sm_89 and newer) also for f8e4m3 and
 * f8e5m2 in any pairing (m16n8k32, f32 accumulator; max_num_imprecise_acc
 * bounds wgmma's accumulation only and is not used here, as in Triton's
 * mma.sync path): the operands in mma.sync's operand layouts and the result
 * in its accumulator layout (tk_ll_mma_*; layouts.c), warps split over M
 * and N as the attributes warps_m and warps_n say (all along M for dots
 * of a chain, as attention's two), one instruction per tile of 16 x 8 and
 * step along K. A batched [B, M, N] dot puts every
 * warp along the batch (Triton's rule for rank 3; warps_m = warps_n = 1),
 * each warp computing whole [M, N] products.
 * "wgmma" (sm_90a, 4 warps or a multiple) where the shape allows it
 * (tir_wgmma_warps: warpgroups down M, then across N; m64nNk(256 / bits)
 * with N a multiple of 8 up to 256 a warpgroup) and wgmma can read the
 * buffer B will get (lower/buffers.c: 16-bit either way round; tf32, i8
 * and fp8 only when B is not loaded N-major, which stays on mma.sync,
 * except a tf32 one beside a K-major A: swap_fits): its
 * operands come from the pipeliner's stages or are stored from registers
 * (dot_operands.c), A may stay in registers; whether a loop is pipelined
 * does not change the choice.
 * "fma" for every other dtype: both operands go to shared memory as words
 * of the compute type (f32; i32 for i8; f64 for f64), and each thread
 * accumulates its elements of the result with FMAs over K; correct on
 * every target, slow. For both this pass makes the conversions explicit:
 * the accumulator (and for "fma" the operands) cast to the compute type
 * before the dot, the result cast to its dtype after (f16 for
 * out_dtype=f16). fp8 operands convert there too, which targets before
 * sm_89 refuse (codegen: the casts are marked fp8_dot_operand).
 * Needs: SSA (axis info is run here for the orientation of loaded
 * B tiles). Keeps: semantics, within the rounding each precision
 * allows (tf32 rounds the operands; the FMA path rounds once per step). */
#include "internal.h"

#include <string.h>

static tk_dtype compute_dtype(tk_dtype d) {
    if (d == TK_F64) return TK_F64;
    if (d == TK_I8) return TK_I32;
    return TK_F32;
}

typedef tir_op_list op_list;

/* v converted to dtype d before `at`, pushed onto out; v itself when it has d */
static tk_tir_value *cast_to(tk_arena *arena, tk_tir_kernel *k, tk_tir_value *v, tk_dtype d, tk_tir_op *at,
                             op_list *out) {
    const tk_type *t = v->type;
    if (tir_elem(t)->dtype == d) return v;
    tk_tir_op *cast = tir_new_op(arena, TIR_CAST, 0, at->loc);
    cast->parent = at->parent;
    tk_vec_push(arena, &cast->operands, v);
    if (tir_elem(t)->dtype == TK_F8E4M3 || tir_elem(t)->dtype == TK_F8E5M2) {
        /* an fp8 dot on FMAs: codegen refuses it before sm_89 (its
         * instructions are missing, and an FMA loop is no substitute) */
        struct tk_sema_attr a = {"fp8_dot_operand", NULL, 1};
        tk_vec_push(arena, &cast->attrs, a);
    }
    tk_tir_value *r = tir_new_value(arena, k, tk_type_tile(arena, tk_type_scalar(arena, d), t->rank, t->shape), cast);
    tk_vec_push(arena, &cast->results, r);
    tk_vec_push(arena, out, cast);
    return r;
}

typedef TK_VEC(const tk_tir_value *) value_set;

static bool has_value(const value_set *set, const tk_tir_value *v) {
    for (uint32_t i = 0; i < set->len; i++)
        if (set->data[i] == v) return true;
    return false;
}

/* Is the dot at blk->ops[at] one of a chain: another dot of its block
 * reads what it computes, or it reads what another computed (attention's
 * P = softmax(Q K^T) then P V)? Such dots put every warp along M, as
 * Triton's warpsPerTile does, so that the first one's rows are the
 * second one's A rows in the same warp: P stays in registers, and the
 * row statistics between them never cross warps. */
static bool in_dot_chain(tk_arena *arena, const tk_tir_block *blk, uint32_t at) {
    const tk_tir_op *dot = blk->ops.data[at];
    value_set after = {0}, before = {0};
    tk_vec_push(arena, &after, dot->results.data[0]);
    for (uint32_t i = at + 1; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        bool reads = false;
        for (uint32_t j = 0; j < op->operands.len && !reads; j++) reads = has_value(&after, op->operands.data[j]);
        if (!reads || op->dead) continue;
        if (op->code == TIR_DOT) return true;
        for (uint32_t j = 0; j < op->results.len; j++) tk_vec_push(arena, &after, op->results.data[j]);
    }
    for (uint32_t j = 0; j < dot->operands.len; j++) tk_vec_push(arena, &before, dot->operands.data[j]);
    for (uint32_t i = at; i-- > 0;) {
        const tk_tir_op *op = blk->ops.data[i];
        bool defines = false;
        for (uint32_t j = 0; j < op->results.len && !defines; j++) defines = has_value(&before, op->results.data[j]);
        if (!defines || op->dead) continue;
        if (op->code == TIR_DOT) return true;
        for (uint32_t j = 0; j < op->operands.len; j++) tk_vec_push(arena, &before, op->operands.data[j]);
    }
    return false;
}

/* Can wgmma read b as its B, from the buffer b will get (transposed: b's
 * transpose)? A loaded B keeps the orientation it has in memory, as the
 * pipeliner copies it; one computed in registers goes into whichever
 * orientation wgmma reads (dot_operands.c). A is read from registers
 * wherever its buffer would not do. */
static bool b_readable(const tk_tir_value *b, bool transposed, tk_dtype in) {
    bool trans;
    const tk_tir_op *load = tir_operand_load(b, &trans);
    if (load) {
        bool column_major = tir_loaded_column_major(load, trans != transposed);
        /* the transpose's swizzle: b's, the other way round */
        return tir_wgmma_reads(in, 1, column_major, tir_swizzle_for(b->type, column_major != transposed));
    }
    return tir_wgmma_reads(in, 1, true, tir_swizzle_for(b->type, true)) ||
           tir_wgmma_reads(in, 1, false, tir_swizzle_for(b->type, false));
}

/* wgmma for an mma dot of result shape [M, N] over `depth`, reading b as
 * B? (PTX ISA) m64nNk(256 / element bits), N a multiple of 8 up to 256 a
 * warpgroup (of 16 past 24 for i8), issued by whole warpgroups: fewer
 * than 4 warps (as Triton's num_warps=2 configs) take mma.sync, as do
 * batched dots and B tiles wgmma cannot read. */
static bool wgmma_fits(const tk_tir_kernel *k, const tk_target *target, const int64_t *shape, int64_t depth,
                       const tk_tir_value *b, bool b_transposed, tk_dtype in) {
    if (!target || !target->has_wgmma || k->num_warps % 4) return false;
    uint32_t warps[2];
    tir_wgmma_warps(shape, k->num_warps, warps);
    int64_t n = shape[1] / warps[1];
    int64_t instr_k = 256 / (int64_t)tk_dtype_bits(in);
    if (in == TK_I8 && n > 24 && n % 16) return false;
    return shape[0] % (16 * (int64_t)warps[0]) == 0 && n >= 8 && n <= 256 && n % 8 == 0 && depth % instr_k == 0 &&
           shape[1] % 8 == 0 && b_readable(b, b_transposed, in);
}

static bool dot_wgmma_fits(const tk_tir_kernel *k, const tk_target *target, const tk_tir_op *dot, tk_dtype in) {
    if (tir_rank(dot->operands.data[0]->type) != 2) return false;
    return wgmma_fits(k, target, dot->results.data[0]->type->shape, dot->operands.data[0]->type->shape[1],
                      dot->operands.data[1], false, in);
}

/* Computed transposed, C^T = B^T A^T, where wgmma cannot read B as it
 * lies but can read A's transpose: a tf32 B loaded row-major ([K, N], N
 * contiguous; wgmma takes 32-bit operands K-major only) beside an A
 * loaded row-major, which is K-major as the transposed product's B. B^T,
 * the new A, is read from its buffer into registers (wgmma's A may be
 * there, in any orientation). CUTLASS swaps the operands of such
 * problems the same way. Not for 8-bit operands: wgmma's register A
 * holds four consecutive K a register, which a row-major B has in four
 * rows. Not for a dot of a chain (its result feeds another dot's rows). */
static bool swap_fits(tk_arena *arena, const tk_tir_kernel *k, const tk_target *target, const tk_tir_block *blk,
                      uint32_t at, bool tf32) {
    const tk_tir_op *dot = blk->ops.data[at];
    if (!tf32 || tir_rank(dot->operands.data[0]->type) != 2) return false;
    if (tir_elem(dot->results.data[0]->type)->dtype != TK_F32 || in_dot_chain(arena, blk, at)) return false;
    const int64_t *shape = dot->results.data[0]->type->shape;
    int64_t swapped[2] = {shape[1], shape[0]};
    return wgmma_fits(k, target, swapped, dot->operands.data[0]->type->shape[1], dot->operands.data[0], true, TK_F32);
}

/* v transposed, pushed onto out (a transposed value's source itself) */
static tk_tir_value *transposed(tk_arena *arena, tk_tir_kernel *k, tk_tir_value *v, tk_tir_op *at, op_list *out) {
    if (tir_is_transpose(v->def)) return v->def->operands.data[0];
    return tir_append_transpose(arena, k, out, at->parent, at->loc, v, NULL);
}

/* dot becomes the transposed product (its operands transposed onto out
 * before it); returns the permute that gives back its result, for after it */
static tk_tir_op *swap_operands(tk_arena *arena, tk_tir_kernel *k, tk_tir_op *dot, op_list *out) {
    tk_tir_value *a = dot->operands.data[0], *b = dot->operands.data[1];
    dot->operands.data[0] = transposed(arena, k, b, dot, out);
    dot->operands.data[1] = transposed(arena, k, a, dot, out);
    if (dot->operands.len > 2) dot->operands.data[2] = transposed(arena, k, dot->operands.data[2], dot, out);
    /* the dot computes the product [N, M]; the permute after it defines
     * the old result, which keeps its uses */
    tk_tir_value *result = dot->results.data[0];
    int64_t shape[2] = {result->type->shape[1], result->type->shape[0]};
    tk_tir_value *product = tir_new_value(arena, k, tk_type_tile(arena, tir_elem(result->type), 2, shape), dot);
    dot->results.data[0] = product;
    op_list back = {0};
    tir_append_transpose(arena, k, &back, dot->parent, dot->loc, product, result);
    return back.data[0];
}

static void choose_block(tk_arena *arena, tk_tir_kernel *k, const tk_target *target, tk_tir_block *blk) {
    op_list ops = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t r = 0; r < op->regions.len; r++) choose_block(arena, k, target, op->regions.data[r]);
        if (op->dead || op->code != TIR_DOT || tk_tir_attr_text(op, "impl")) {
            tk_vec_push(arena, &ops, op);
            continue;
        }
        tk_dtype in = tir_elem(op->operands.data[0]->type)->dtype;
        const char *precision = tk_tir_attr_text(op, "precision");
        bool tf32 = in == TK_F32 && (!precision || !strcmp(precision, "tf32"));
        bool fp8 = in == TK_F8E4M3 || in == TK_F8E5M2;
        const tk_type *rt = op->results.data[0]->type;
        bool mma = in == TK_F16 || in == TK_BF16 || in == TK_I8 || tf32 || (fp8 && target && target->has_fp8);
        bool wgmma = mma && dot_wgmma_fits(k, target, op, in);
        bool swap = mma && !wgmma && swap_fits(arena, k, target, blk, i, tf32);
        tk_tir_op *swapped_back = swap ? swap_operands(arena, k, op, &ops) : NULL;
        wgmma |= swap;
        rt = op->results.data[0]->type;
        tk_dot_impl how = wgmma ? TK_DOT_WGMMA : mma ? TK_DOT_MMA_SYNC : TK_DOT_FMA;
        struct tk_sema_attr impl = {"impl", tk_tir_dot_impl_name(how), 0};
        tk_vec_push(arena, &op->attrs, impl);
        tk_dtype ct = compute_dtype(in);
        if (mma) {
            uint32_t warps[2] = {1, 1};
            if (wgmma) tir_wgmma_warps(rt->shape, k->num_warps, warps);
            else if (rt->rank == 2 && in_dot_chain(arena, blk, i)) warps[0] = k->num_warps;
            else if (rt->rank == 2) tk_tir_dot_warps(rt->shape, k->num_warps, warps);
            struct tk_sema_attr wm = {"warps_m", NULL, warps[0]}, wn = {"warps_n", NULL, warps[1]};
            tk_vec_push(arena, &op->attrs, wm);
            tk_vec_push(arena, &op->attrs, wn);
        }
        for (uint32_t j = mma ? 2 : 0; j < op->operands.len; j++)
            op->operands.data[j] = cast_to(arena, k, op->operands.data[j], ct, op, &ops);
        tk_vec_push(arena, &ops, op);
        if (swapped_back) tk_vec_push(arena, &ops, swapped_back); /* its result is f32: no cast after */
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

/* Triton's warpsPerTile for mma.sync: warps doubled along whichever of M
 * (16 rows a warp) and N (8 columns) has more tiles per warp left, while
 * it has any; warps beyond both hold copies along M. */
void tk_tir_dot_warps(const int64_t *shape, uint32_t num_warps, uint32_t *warps) {
    warps[0] = warps[1] = 1;
    while (warps[0] * warps[1] < num_warps) {
        int64_t m_left = shape[0] / (16 * (int64_t)warps[0]), n_left = shape[1] / (8 * (int64_t)warps[1]);
        if (m_left >= n_left && m_left > 1) warps[0] *= 2;
        else if (n_left > 1) warps[1] *= 2;
        else warps[0] *= 2;
    }
}

void tir_wgmma_warps(const int64_t *shape, uint32_t num_warps, uint32_t *warps) {
    warps[0] = 4, warps[1] = 1;
    while (warps[0] * warps[1] < num_warps) {
        if (shape[0] > 16 * (int64_t)warps[0]) warps[0] *= 2;
        else warps[1] *= 2;
    }
}

/* Every target tkc has (sm_80 and newer) has mma.sync; fp8 operands need
 * sm_89; wgmma needs sm_90a. */
void tir_pass_dot(tk_arena *arena, tk_tir_kernel *k, const tk_target *target) {
    /* which loads run down their columns (tir_loaded_column_major) */
    if (target && target->has_wgmma) tir_pass_axis_info(arena, k);
    choose_block(arena, k, target, k->body);
}
