/* Block accesses: a load or store through a block pointer or a tensor
 * descriptor, as the pointer tile and mask that address it.
 *
 * The block pointer is its fields [base, shape..., strides..., offsets...]
 * (make_block_ptr, make_tensor_descriptor with zero offsets, a descriptor
 * parameter's desc_field reads); the pointer tile is
 * base + sum((offset_d + range_d) * stride_d) and, for the dimensions
 * checked (a descriptor's: all of them), the mask
 * 0 <= offset_d + range_d < shape_d. lower/build.c builds block-pointer
 * and in-kernel descriptor accesses so; a descriptor parameter's stay
 * desc_load and desc_store ops until the pass below decides: kept for a
 * TMA copy (pipeline_dot.c) or expanded here.
 *
 * The pass "descriptors" (first in the pipeline) expands every desc_load
 * and desc_store, but those it may copy by TMA on a target with TMA: a
 * desc_load in a loop of num_stages >= 2 that a tl.dot reads (directly
 * or through tl.trans), and a 2-D desc_store. pipeline_dot.c expands the
 * loads it does not take (tir_expand_descriptor_access); the stores
 * become TMA stores below.
 * Needs: desc_field ops on the kernel's descriptor parameters (build.c).
 * Keeps: semantics; the expanded ops are the ones build.c would build. */
#include "internal.h"

#include <string.h>

tk_tir_op *tir_emit_op(tir_emitter *e, tk_tir_opcode code, int sub, tk_loc loc) {
    tk_tir_op *op = tir_new_op(e->arena, code, sub, loc);
    op->parent = e->block;
    tk_vec_push(e->arena, &e->block->ops, op);
    /* moved from the end to `at`: ops before it keep their places */
    tk_tir_op **ops = e->block->ops.data;
    uint32_t n = e->block->ops.len;
    if (e->at < n - 1) {
        memmove(ops + e->at + 1, ops + e->at, sizeof *ops * (n - 1 - e->at));
        ops[e->at] = op;
    }
    e->at++;
    return op;
}

tk_tir_value *tir_emit_result(tir_emitter *e, tk_tir_op *op, const tk_type *t) {
    tk_tir_value *v = tir_new_value(e->arena, e->k, t, op);
    tk_vec_push(e->arena, &op->results, v);
    return v;
}

static tk_tir_value *op1(tir_emitter *e, tk_tir_opcode code, int sub, tk_loc loc, const tk_type *t, tk_tir_value *x,
                         tk_tir_value *y) {
    tk_tir_op *op = tir_emit_op(e, code, sub, loc);
    tk_vec_push(e->arena, &op->operands, x);
    if (y) tk_vec_push(e->arena, &op->operands, y);
    return tir_emit_result(e, op, t);
}

static bool is_f8(const tk_type *t) {
    return t->kind == TK_TYPE_SCALAR && (t->dtype == TK_F8E4M3 || t->dtype == TK_F8E5M2);
}

tk_tir_value *tir_emit_const(tir_emitter *e, const tk_type *t, int64_t i, double f, tk_loc loc) {
    if (is_f8(t)) /* an f32 constant rounded to f8 like any other value */
        return op1(e, TIR_CAST, 0, loc, t, tir_emit_const(e, tk_type_scalar(e->arena, TK_F32), i, f, loc), NULL);
    tk_tir_op *op = tir_emit_op(e, TIR_CONST, 0, loc);
    if (tk_dtype_is_float(t->dtype)) op->value.f = f;
    else op->value.i = i;
    return tir_emit_result(e, op, t);
}

void tir_emit_block_pointers(tir_emitter *e, const tk_type *bt, tk_tir_value *const *fields, uint32_t checked,
                             tk_tir_value *rows, tk_loc loc, tk_tir_value **ptrs_out, tk_tir_value **mask_out) {
    uint32_t rank = bt->rank;
    bool descriptor = bt->descriptor != TK_DESC_NONE;
    tk_arena *arena = e->arena;
    const tk_type *i32 = tk_type_scalar(arena, TK_I32), *i64 = tk_type_scalar(arena, TK_I64),
                  *i1 = tk_type_scalar(arena, TK_I1);
    const tk_type *full_i64 = tk_type_tile(arena, i64, rank, bt->shape);
    const tk_type *ptr_elem = tk_type_pointer(arena, bt->elem);
    tk_tir_value *ptrs = op1(e, TIR_SPLAT, 0, loc, tk_type_tile(arena, ptr_elem, rank, bt->shape), fields[0], NULL);
    tk_tir_value *mask = NULL;
    for (uint32_t d = 0; d < rank; d++) {
        int64_t n = bt->shape[d], one_shape[TK_MAX_RANK];
        tk_tir_value *idx = rows;
        if (d || !rows) {
            tk_tir_op *range = tir_emit_op(e, TIR_MAKE_RANGE, 0, loc);
            struct tk_sema_attr s0 = {"start", NULL, 0}, s1 = {"end", NULL, n};
            tk_vec_push(arena, &range->attrs, s0);
            tk_vec_push(arena, &range->attrs, s1);
            tk_tir_value *r = tir_emit_result(e, range, tk_type_tile(arena, i32, 1, &n));
            tk_tir_value *off =
                op1(e, TIR_SPLAT, 0, loc, tk_type_tile(arena, i32, 1, &n), fields[1 + 2 * rank + d], NULL);
            idx = op1(e, TIR_BINARY, TK_BINOP_ADD, loc, r->type, off, r);
        }
        for (uint32_t k = 0; k < rank; k++) one_shape[k] = k == d ? n : 1;
        tk_tir_value *col = op1(e, TIR_RESHAPE, TK_B_RESHAPE, loc, tk_type_tile(arena, i32, rank, one_shape), idx, NULL);
        tk_tir_value *wide = op1(e, TIR_BROADCAST, 0, loc, tk_type_tile(arena, i32, rank, bt->shape), col, NULL);
        tk_tir_value *w64 = op1(e, TIR_CAST, 0, loc, full_i64, wide, NULL);
        tk_tir_value *stride = op1(e, TIR_SPLAT, 0, loc, full_i64, fields[1 + rank + d], NULL);
        tk_tir_value *step = op1(e, TIR_BINARY, TK_BINOP_MUL, loc, full_i64, w64, stride);
        ptrs = op1(e, TIR_ADDPTR, 0, loc, ptrs->type, ptrs, step);
        if (!descriptor && !(checked >> d & 1)) continue;
        /* a descriptor's shape is i32 (Triton's), so its bounds compare in
         * 32 bits; a block pointer's shape is i64 */
        const tk_type *bool_tile = tk_type_tile(arena, i1, rank, bt->shape);
        const tk_type *index_t = descriptor ? i32 : i64;
        const tk_type *full_index = tk_type_tile(arena, index_t, rank, bt->shape);
        tk_tir_value *index = descriptor ? wide : w64;
        tk_tir_value *zero = op1(e, TIR_SPLAT, 0, loc, full_index, tir_emit_const(e, index_t, 0, 0, loc), NULL);
        tk_tir_value *limit = op1(e, TIR_SPLAT, 0, loc, full_index, fields[1 + d], NULL);
        tk_tir_value *in = op1(e, TIR_BINARY, TK_BINOP_AND, loc, bool_tile,
                               op1(e, TIR_CMP, TK_BINOP_GE, loc, bool_tile, index, zero),
                               op1(e, TIR_CMP, TK_BINOP_LT, loc, bool_tile, index, limit));
        mask = mask ? op1(e, TIR_BINARY, TK_BINOP_AND, loc, bool_tile, mask, in) : in;
    }
    *ptrs_out = ptrs;
    *mask_out = mask;
}

tk_tir_value *tir_emit_block_load_store(tir_emitter *e, const tk_type *bt, tk_tir_value *ptrs, tk_tir_value *mask,
                                        tk_tir_value *stored, bool pad_nan, const struct tk_sema_attr *attrs,
                                        uint32_t nattrs, tk_loc loc) {
    uint32_t rank = bt->rank;
    tk_tir_value *fill = NULL;
    if (!stored && mask)
        fill = op1(e, TIR_SPLAT, 0, loc, tk_type_tile(e->arena, bt->elem, rank, bt->shape),
                   tir_emit_const(e, bt->elem, 0, pad_nan ? __builtin_nan("") : 0.0, loc), NULL);
    tk_tir_op *op = tir_emit_op(e, stored ? TIR_STORE : TIR_LOAD, 0, loc);
    for (uint32_t i = 0; i < nattrs; i++)
        if (strcmp(attrs[i].name, "boundary_check") && strcmp(attrs[i].name, "padding"))
            tk_vec_push(e->arena, &op->attrs, attrs[i]);
    tk_vec_push(e->arena, &op->operands, ptrs);
    if (stored) tk_vec_push(e->arena, &op->operands, stored);
    if (mask) tk_vec_push(e->arena, &op->operands, mask);
    if (fill) tk_vec_push(e->arena, &op->operands, fill);
    return stored ? NULL : tir_emit_result(e, op, tk_type_tile(e->arena, bt->elem, rank, bt->shape));
}

/* desc_field `sub` (dimension dim) of descriptor parameter desc, before e's position */
static tk_tir_value *field(tir_emitter *e, tk_tir_value *desc, int sub, uint32_t dim, tk_loc loc) {
    const tk_type *t = desc->type;
    if (sub == TIR_DESC_STRIDE && dim == t->rank - 1) /* the launcher checked it is 1 */
        return tir_emit_const(e, tk_type_scalar(e->arena, TK_I64), 1, 1, loc);
    tk_tir_op *op = tir_emit_op(e, TIR_DESC_FIELD, sub, loc);
    tk_vec_push(e->arena, &op->operands, desc);
    if (sub != TIR_DESC_DATA) {
        struct tk_sema_attr d = {"dim", NULL, dim};
        tk_vec_push(e->arena, &op->attrs, d);
    }
    const tk_type *rt = sub == TIR_DESC_DATA ? tk_type_pointer(e->arena, t->elem)
                        : tk_type_scalar(e->arena, sub == TIR_DESC_SHAPE ? TK_I32 : TK_I64);
    return tir_emit_result(e, op, rt);
}

void tir_expand_descriptor_access(tk_arena *arena, tk_tir_kernel *k, tk_tir_op *op) {
    tk_tir_block *blk = op->parent;
    uint32_t at = 0;
    while (at < blk->ops.len && blk->ops.data[at] != op) at++;
    tir_emitter e = {arena, k, blk, at};
    bool is_load = op->code == TIR_DESC_LOAD;
    tk_tir_value *desc = op->operands.data[0];
    const tk_type *bt = desc->type;
    uint32_t rank = bt->rank, first = is_load ? 1 : 2;
    tk_tir_value **fields = TK_NEW_ARRAY(arena, tk_tir_value *, 1 + 3 * rank);
    fields[0] = field(&e, desc, TIR_DESC_DATA, 0, op->loc);
    for (uint32_t d = 0; d < rank; d++) fields[1 + d] = field(&e, desc, TIR_DESC_SHAPE, d, op->loc);
    for (uint32_t d = 0; d < rank; d++) fields[1 + rank + d] = field(&e, desc, TIR_DESC_STRIDE, d, op->loc);
    for (uint32_t d = 0; d < rank; d++) fields[1 + 2 * rank + d] = op->operands.data[first + d];
    tk_tir_value *ptrs, *mask;
    tir_emit_block_pointers(&e, bt, fields, 0, NULL, op->loc, &ptrs, &mask);
    tk_tir_value *r = tir_emit_block_load_store(&e, bt, ptrs, mask, is_load ? NULL : op->operands.data[1],
                                                bt->descriptor == TK_DESC_PAD_NAN, op->attrs.data, op->attrs.len,
                                                op->loc);
    if (is_load) {
        tk_tir_block *top = blk;
        while (top->parent) top = top->parent->parent;
        tir_replace_uses(top, op->results.data[0], r, NULL);
    }
    op->dead = true;
}

/* Is load, a desc_load, one pipeline_dot.c may copy by TMA: in a loop
 * pipelined num_stages >= 2 deep, read there by a dot (directly or
 * through a tl.trans)? pipeline_dot.c decides the rest. */
static bool tma_candidate(const tk_tir_kernel *k, const tk_tir_op *load) {
    const tk_tir_block *body = load->parent;
    const tk_tir_op *loop = body->parent;
    if (!loop || loop->code != TIR_FOR || load->results.data[0]->type->rank != 2) return false;
    int64_t stages = tk_tir_attr_int(loop, "num_stages", -1);
    if ((stages < 0 ? (int64_t)k->num_stages : stages) < 2) return false;
    const tk_tir_value *v = load->results.data[0];
    for (uint32_t i = 0; i < body->ops.len; i++) {
        const tk_tir_op *op = body->ops.data[i];
        if (op->dead) continue;
        const tk_tir_value *through = v;
        if (op->code == TIR_PERMUTE && op->operands.data[0] == v) through = op->results.data[0];
        for (uint32_t j = 0; j < body->ops.len; j++) {
            const tk_tir_op *dot = body->ops.data[j];
            if (dot->dead || dot->code != TIR_DOT) continue;
            if (dot->operands.data[0] == through || dot->operands.data[1] == through) return true;
        }
    }
    return false;
}

/* Can TMA store a desc_store's block (a 2-D block TMA can copy out of the
 * swizzled buffer it is staged in)? */
static bool tma_store_candidate(const tk_tir_op *store) {
    const tk_tir_value *desc = store->operands.data[0];
    if (desc->type->rank != 2) return false;
    int64_t shape[2] = {desc->type->shape[0], desc->type->shape[1]};
    tk_type tile = {0};
    tile.kind = TK_TYPE_TILE;
    tile.elem = desc->type->elem;
    tile.rank = 2;
    tile.shape[0] = shape[0];
    tile.shape[1] = shape[1];
    uint32_t box[2], swizzle;
    return tir_tma_box(&tile, false, box, &swizzle);
}

typedef struct expand_ctx {
    tk_arena *arena;
    tk_tir_kernel *k;
    bool tma;
    TK_VEC(tk_tir_op *) ops;
} expand_ctx;

static void collect(tk_tir_op *op, void *ctx) {
    expand_ctx *c = ctx;
    if (op->dead || (op->code != TIR_DESC_LOAD && op->code != TIR_DESC_STORE)) return;
    if (c->tma && op->code == TIR_DESC_LOAD && tma_candidate(c->k, op)) return;
    if (c->tma && op->code == TIR_DESC_STORE && tma_store_candidate(op)) return;
    tk_vec_push(c->arena, &c->ops, op);
}

/* ---- TMA stores: the pass "tma-stores" (after dot-operands) ----------
 * A desc_store the descriptors pass kept becomes
 *   %s = local_view %zero {buffer}; local_store %s, %v; barrier;
 *   tma_store %s, %desc, %coords...; barrier
 * the block staged in a swizzled buffer of its own (local_store makes the
 * threads' writes visible to the copy: fence.proxy.async), copied out by
 * one thread, which waits until the copy has read the buffer; the last
 * barrier keeps every thread from writing it again before. Out-of-bounds
 * elements are not written (TMA clips them). A store whose parameter's
 * tensor map a load already fixed to other boxes is expanded instead.
 * Needs: dot-operands done (its buffers first). */

static const tk_tir_op *enclosing_loop(const tk_tir_op *op) {
    for (const tk_tir_op *o = op->parent ? op->parent->parent : NULL; o; o = o->parent ? o->parent->parent : NULL)
        if (o->code == TIR_FOR || o->code == TIR_WHILE) return o;
    return NULL;
}

static void collect_stores(tk_tir_op *op, void *ctx) {
    expand_ctx *c = ctx;
    if (!op->dead && op->code == TIR_DESC_STORE) tk_vec_push(c->arena, &c->ops, op);
}

/* the staging buffers made so far: stores of one loop (or of none) with
 * blocks of one type share theirs, each waiting for the copy before it
 * to read it out (the barrier after each) */
typedef struct staging {
    const tk_type *tile;
    const tk_tir_op *loop;
    uint32_t buffer;
} staging;
typedef TK_VEC(staging) staging_list;

static void tma_store(tk_arena *arena, tk_tir_kernel *k, tk_tir_op *op, staging_list *made) {
    tk_tir_value *desc = op->operands.data[0], *value = op->operands.data[1];
    const tk_type *t = tk_type_tile(arena, desc->type->elem, 2, desc->type->shape);
    uint32_t box[2], swizzle, arg = 0;
    while (arg < k->body->args.len && k->body->args.data[arg] != desc) arg++;
    bool ok = arg < k->body->args.len && tir_tma_box(t, false, box, &swizzle);
    for (uint32_t m = 0; ok && m < k->tma_maps.len; m++) {
        const tk_tir_tma_map *map = &k->tma_maps.data[m];
        if (map->arg == arg) ok = map->box[0] == box[0] && map->box[1] == box[1] && map->swizzle_bytes == swizzle;
    }
    if (!ok) {
        tir_expand_descriptor_access(arena, k, op);
        return;
    }
    bool known = false;
    for (uint32_t m = 0; m < k->tma_maps.len; m++) known |= k->tma_maps.data[m].arg == arg;
    if (!known) {
        tk_tir_tma_map map = {arg, {box[0], box[1]}, swizzle};
        tk_vec_push(arena, &k->tma_maps, map);
    }
    const tk_tir_op *loop = enclosing_loop(op);
    uint32_t buffer = UINT32_MAX;
    for (uint32_t i = 0; i < made->len; i++)
        if (made->data[i].loop == loop && tk_type_equal(made->data[i].tile, t)) buffer = made->data[i].buffer;
    if (buffer == UINT32_MAX) {
        buffer = tir_add_buffer(arena, k, t, 1, false, loop, op->loc);
        k->buffers.data[buffer].from_registers = true;
        staging st = {t, loop, buffer};
        tk_vec_push(arena, made, st);
    }
    tk_tir_block *blk = op->parent;
    uint32_t at = 0;
    while (at < blk->ops.len && blk->ops.data[at] != op) at++;
    tir_emitter e = {arena, k, blk, at};
    tk_tir_value *zero = tir_emit_const(&e, tk_type_scalar(arena, TK_I32), 0, 0, op->loc);
    tk_tir_op *view = tir_emit_op(&e, TIR_LOCAL_VIEW, 0, op->loc);
    tk_vec_push(arena, &view->operands, zero);
    struct tk_sema_attr b = {"buffer", NULL, buffer};
    tk_vec_push(arena, &view->attrs, b);
    tk_tir_value *v = tir_emit_result(&e, view, t);
    tk_tir_op *put = tir_emit_op(&e, TIR_LOCAL_STORE, 0, op->loc);
    tk_vec_push(arena, &put->operands, v);
    tk_vec_push(arena, &put->operands, value);
    tir_emit_op(&e, TIR_BARRIER, 0, op->loc);
    tk_tir_op *copy = tir_emit_op(&e, TIR_TMA_STORE, 0, op->loc);
    tk_vec_push(arena, &copy->operands, v);
    tk_vec_push(arena, &copy->operands, desc);
    for (uint32_t d = 2; d < op->operands.len; d++) tk_vec_push(arena, &copy->operands, op->operands.data[d]);
    struct tk_sema_attr rows = {"box_rows", NULL, box[0]}, cols = {"box_cols", NULL, box[1]},
                        panels = {"panels", NULL, t->shape[1] / box[1]};
    tk_vec_push(arena, &copy->attrs, rows);
    tk_vec_push(arena, &copy->attrs, cols);
    tk_vec_push(arena, &copy->attrs, panels);
    tir_emit_op(&e, TIR_BARRIER, 0, op->loc);
    op->dead = true;
}

void tir_pass_tma_stores(tk_arena *arena, tk_tir_kernel *k) {
    expand_ctx c = {arena, k, true, {0}};
    tir_walk(k->body, collect_stores, &c);
    staging_list made = {0};
    for (uint32_t i = 0; i < c.ops.len; i++) tma_store(arena, k, c.ops.data[i], &made);
}

void tir_pass_descriptors(tk_arena *arena, tk_tir_kernel *k, const tk_target *target) {
    expand_ctx c = {arena, k, target && target->has_tma, {0}};
    tir_walk(k->body, collect, &c);
    for (uint32_t i = 0; i < c.ops.len; i++) tir_expand_descriptor_access(arena, k, c.ops.data[i]);
}
