/* Lowering: the typed tree of sema.h -> tile IR.
 *
 * Needs: a checked program (every sx typed, every var assigned before use).
 * Guarantees: SSA form. A sema variable is a name for its current value
 * while lowering; a runtime `for`/`while` gets block arguments for the
 * variables its body assigns that live before it, an `if` yields the
 * variables either branch assigns; @func calls are inlined with their
 * arguments bound to the call's values. Tuples are lowered to their items. */
#include "internal.h"

#include <string.h>

typedef struct vals {
    uint32_t count;
    tk_tir_value **v;
} vals;

typedef struct env {
    vals *slots;        /* by sema var id */
    uint32_t cap;
} env;

typedef struct builder {
    tk_arena *arena;
    tk_diag *diag;
    tk_tir_kernel *kernel;
    tk_tir_block *block;
    env *env;
    /* inlining a @func: where its return value goes */
    vals *return_slot;
    bool failed;
} builder;

static tk_tir_value *new_value(builder *b, const tk_type *type, tk_tir_op *def) {
    return tir_new_value(b->arena, b->kernel, type, def);
}

static tk_tir_op *emit(builder *b, tk_tir_opcode code, int sub, tk_loc loc) {
    tk_tir_op *op = tir_new_op(b->arena, code, sub, loc);
    op->parent = b->block;
    tk_vec_push(b->arena, &b->block->ops, op);
    return op;
}

static tk_tir_value *result(builder *b, tk_tir_op *op, const tk_type *type) {
    tk_tir_value *v = new_value(b, type, op);
    tk_vec_push(b->arena, &op->results, v);
    return v;
}

static void operand(builder *b, tk_tir_op *op, tk_tir_value *v) {
    tk_vec_push(b->arena, &op->operands, v);
}

static tk_tir_block *new_block(builder *b, tk_tir_op *parent) {
    tk_tir_block *blk = TK_NEW(b->arena, tk_tir_block);
    blk->parent = parent;
    if (parent) tk_vec_push(b->arena, &parent->regions, blk);
    return blk;
}

static tk_tir_value *block_arg(builder *b, tk_tir_block *blk, const tk_type *type) {
    tk_tir_value *v = new_value(b, type, NULL);
    tk_vec_push(b->arena, &blk->args, v);
    return v;
}

static vals one(builder *b, tk_tir_value *v) {
    vals r = {1, TK_NEW_ARRAY(b->arena, tk_tir_value *, 1)};
    r.v[0] = v;
    return r;
}

static vals *slot(builder *b, const tk_sema_var *var) {
    env *e = b->env;
    if (var->id >= e->cap) {
        uint32_t cap = e->cap ? e->cap * 2 : 64;
        while (cap <= var->id) cap *= 2;
        vals *bigger = TK_NEW_ARRAY(b->arena, vals, cap);
        if (e->slots) memcpy(bigger, e->slots, sizeof(vals) * e->cap);
        e->slots = bigger;
        e->cap = cap;
    }
    return &e->slots[var->id];
}

static void not_yet(builder *b, tk_loc loc, const char *what) {
    tk_error(b->diag, loc, "%s is not supported by code generation yet", what);
    b->failed = true;
}

static vals lower_sx(builder *b, const tk_sx *x);
static void lower_block(builder *b, const tk_ss_list *body);

static tk_tir_value *lower1(builder *b, const tk_sx *x) {
    vals r = lower_sx(b, x);
    return r.count ? r.v[0] : NULL;
}

static void copy_attrs(builder *b, tk_tir_op *op, const tk_sx *x) {
    for (uint32_t i = 0; i < x->attrs.len; i++) tk_vec_push(b->arena, &op->attrs, x->attrs.data[i]);
}

static bool is_f8(const tk_type *t);
static tk_tir_value *op1(builder *b, tk_tir_opcode code, int sub, tk_loc loc, const tk_type *t,
                         tk_tir_value *x, tk_tir_value *y);

static tk_tir_value *const_value(builder *b, const tk_type *type, int64_t i, double f, tk_loc loc) {
    tir_emitter e = {b->arena, b->kernel, b->block, b->block->ops.len};
    return tir_emit_const(&e, type, i, f, loc);
}

/* ---- block pointers: lowered to scalars and ordinary pointer tiles ---- */

static tk_tir_value *op1(builder *b, tk_tir_opcode code, int sub, tk_loc loc, const tk_type *t,
                         tk_tir_value *x, tk_tir_value *y) {
    tk_tir_op *op = emit(b, code, sub, loc);
    operand(b, op, x);
    if (y) operand(b, op, y);
    return result(b, op, t);
}

/* ---- f8 arithmetic: computed in f32, each result rounded to its f8 type
 * (the same as the f8 operation; PTX has no f8 arithmetic) ---- */

static bool is_f8(const tk_type *t) {
    const tk_type *e = tir_elem(t);
    return e->kind == TK_TYPE_SCALAR && (e->dtype == TK_F8E4M3 || e->dtype == TK_F8E5M2);
}

/* t with its element type replaced by f32 */
static const tk_type *as_f32(builder *b, const tk_type *t) {
    const tk_type *f32 = tk_type_scalar(b->arena, TK_F32);
    return t->kind == TK_TYPE_TILE ? tk_type_tile(b->arena, f32, t->rank, t->shape) : f32;
}

static tk_tir_value *widen_f8(builder *b, tk_tir_value *v, tk_loc loc) {
    return is_f8(v->type) ? op1(b, TIR_CAST, 0, loc, as_f32(b, v->type), v, NULL) : v;
}

static bool has_attr_int(const tk_sx *x, const char *name, int64_t value) {
    for (uint32_t i = 0; i < x->attrs.len; i++)
        if (!strcmp(x->attrs.data[i].name, name) && x->attrs.data[i].i == value) return true;
    return false;
}

/* A descriptor's fields `bp` with `at` added to its offsets (a descriptor
 * access's offsets argument) */
static tk_tir_value **offset_fields(builder *b, vals bp, vals at, uint32_t rank, tk_loc loc) {
    tk_tir_value **moved = TK_NEW_ARRAY(b->arena, tk_tir_value *, bp.count);
    memcpy(moved, bp.v, sizeof(tk_tir_value *) * bp.count);
    for (uint32_t d = 0; d < rank; d++) {
        tk_tir_value *old = bp.v[1 + 2 * rank + d];
        moved[1 + 2 * rank + d] = op1(b, TIR_BINARY, TK_BINOP_ADD, loc, old->type, old, at.v[d]);
    }
    return moved;
}

/* A block pointer is the scalars [base, shape..., strides..., offsets...]
 * (make_block_ptr; make_tensor_descriptor with zero offsets): a load or
 * store through it is its pointer tile (descriptors.c). A descriptor's
 * load and store take their offsets as the call's second argument, added
 * to the pointer's. A descriptor parameter's stay desc_load and
 * desc_store, for the descriptors pass to expand or keep for TMA. */
static vals lower_block_access(builder *b, const tk_sx *x, bool is_load) {
    const tk_type *bt = x->args.data[0]->type;
    uint32_t rank = bt->rank;
    vals bp = lower_sx(b, x->args.data[0]);
    if (bp.count != 1 + 3 * rank) return (vals){0};
    bool descriptor = bt->descriptor != TK_DESC_NONE;
    tir_emitter em = {b->arena, b->kernel, b->block, 0};
    if (descriptor) {
        vals at = lower_sx(b, x->args.data[1]);
        if (at.count != rank) return (vals){0};
        const tk_tir_op *data = bp.v[0]->def;
        if (data && data->code == TIR_DESC_FIELD) { /* a parameter's */
            tk_tir_value *stored = NULL;
            if (!is_load && !(stored = lower1(b, x->args.data[2]))) return (vals){0};
            tk_tir_op *op = emit(b, is_load ? TIR_DESC_LOAD : TIR_DESC_STORE, 0, x->loc);
            copy_attrs(b, op, x);
            operand(b, op, data->operands.data[0]);
            if (stored) operand(b, op, stored);
            for (uint32_t d = 0; d < rank; d++) operand(b, op, at.v[d]);
            return is_load ? one(b, result(b, op, x->type)) : (vals){0, NULL};
        }
        bp.v = offset_fields(b, bp, at, rank, x->loc);
    }
    uint32_t checked = 0;
    for (uint32_t d = 0; d < rank; d++)
        if (has_attr_int(x, "boundary_check", d)) checked |= 1u << d;
    tk_tir_value *ptrs, *mask;
    em.at = b->block->ops.len;
    tir_emit_block_pointers(&em, bt, bp.v, checked, NULL, x->loc, &ptrs, &mask);
    /* the operands first: ops are emitted in the order they are built */
    tk_tir_value *stored = NULL;
    if (!is_load) {
        stored = lower1(b, x->args.data[descriptor ? 2 : 1]);
        if (!stored) return (vals){0};
    }
    const char *pad = NULL;
    for (uint32_t i = 0; i < x->attrs.len; i++)
        if (!strcmp(x->attrs.data[i].name, "padding")) pad = x->attrs.data[i].text;
    bool nan = descriptor ? bt->descriptor == TK_DESC_PAD_NAN : pad && !strcmp(pad, "nan");
    em.block = b->block;
    em.at = b->block->ops.len;
    tk_tir_value *r = tir_emit_block_load_store(&em, bt, ptrs, mask, stored, nan, x->attrs.data, x->attrs.len, x->loc);
    return is_load ? one(b, r) : (vals){0, NULL};
}

/* desc.atomic_add(offsets, value) and the others: the pointer-tile atomic
 * (tl.atomic_add ...) over the block at offsets, masked to the tensor's
 * bounds, relaxed as TMA's reductions are. A descriptor parameter's
 * fields are its desc_field reads. */
static vals lower_descriptor_atomic(builder *b, const tk_sx *x) {
    static const int pointer_form[] = {TK_B_ATOMIC_ADD, TK_B_ATOMIC_MIN, TK_B_ATOMIC_MAX,
                                       TK_B_ATOMIC_AND, TK_B_ATOMIC_OR,  TK_B_ATOMIC_XOR};
    const tk_type *bt = x->args.data[0]->type;
    uint32_t rank = bt->rank;
    vals bp = lower_sx(b, x->args.data[0]), at = lower_sx(b, x->args.data[1]);
    if (bp.count != 1 + 3 * rank || at.count != rank) return (vals){0};
    tk_tir_value **fields = offset_fields(b, bp, at, rank, x->loc);
    tir_emitter em = {b->arena, b->kernel, b->block, b->block->ops.len};
    tk_tir_value *ptrs, *mask;
    tir_emit_block_pointers(&em, bt, fields, (1u << rank) - 1, NULL, x->loc, &ptrs, &mask);
    tk_tir_value *value = lower1(b, x->args.data[2]);
    if (!value) return (vals){0};
    tk_tir_op *op = emit(b, TIR_BUILTIN, pointer_form[x->builtin - TK_B_DESC_ATOMIC_ADD], x->loc);
    struct tk_sema_attr sem = {"sem", "relaxed", 0}, scope = {"scope", "gpu", 0};
    tk_vec_push(b->arena, &op->attrs, sem);
    tk_vec_push(b->arena, &op->attrs, scope);
    operand(b, op, ptrs);
    operand(b, op, value);
    operand(b, op, mask);
    result(b, op, value->type);
    return (vals){0, NULL};
}

/* desc.gather(x_offsets, y_offset) and desc.scatter(value, x_offsets,
 * y_offset) on a 2-D descriptor of [1, C] blocks: the rows x_offsets,
 * columns y_offset + 0 .. C - 1, as a [len(x_offsets), C] block whose
 * first dimension's indices are x_offsets; bounds-checked in both
 * dimensions (out-of-bounds elements read as the padding, or are not
 * written), loaded and stored through pointers. */
static vals lower_descriptor_rows(builder *b, const tk_sx *x, bool gather) {
    const tk_type *bt = x->args.data[0]->type;
    vals bp = lower_sx(b, x->args.data[0]);
    tk_tir_value *value = gather ? NULL : lower1(b, x->args.data[1]);
    tk_tir_value *rows = lower1(b, x->args.data[gather ? 1 : 2]);
    tk_tir_value *col = lower1(b, x->args.data[gather ? 2 : 3]);
    if (bp.count != 7 || !rows || !col || (!gather && !value)) return (vals){0};
    tk_tir_value *at_v[2] = {const_value(b, col->type, 0, 0, x->loc), col};
    tk_tir_value **fields = offset_fields(b, bp, (vals){2, at_v}, 2, x->loc);
    int64_t shape[2] = {rows->type->shape[0], bt->shape[1]};
    const tk_type *block = tk_type_tensor_desc(b->arena, bt->elem->dtype, 2, shape, bt->descriptor == TK_DESC_PAD_NAN);
    tir_emitter em = {b->arena, b->kernel, b->block, b->block->ops.len};
    tk_tir_value *ptrs, *mask;
    tir_emit_block_pointers(&em, block, fields, 3, rows, x->loc, &ptrs, &mask);
    em.at = b->block->ops.len;
    tk_tir_value *r = tir_emit_block_load_store(&em, block, ptrs, mask, value, bt->descriptor == TK_DESC_PAD_NAN,
                                                NULL, 0, x->loc);
    return gather ? one(b, r) : (vals){0, NULL};
}

/* Reductions without a @func: over all dimensions of a tile of rank 2 or
 * more, the tile is flattened first (a scalar, or with keep_dims a splat of
 * it, comes out); tl.max/tl.min with return_indices are two reductions of
 * one input, the value's and argmax's (argmin's). */
static vals lower_reduce(builder *b, const tk_sx *x) {
    tk_tir_value *in = lower1(b, x->args.data[0]);
    if (!in) return (vals){0};
    in = widen_f8(b, in, x->loc);
    bool all = true, keep = false;
    for (uint32_t i = 0; i < x->attrs.len; i++) {
        all &= strcmp(x->attrs.data[i].name, "axis") != 0;
        keep |= !strcmp(x->attrs.data[i].name, "keep_dims") && x->attrs.data[i].i;
    }
    bool flatten = all && in->type->rank > 1;
    if (flatten) {
        int64_t numel = 1;
        for (uint32_t d = 0; d < in->type->rank; d++) numel *= in->type->shape[d];
        in = op1(b, TIR_RESHAPE, TK_B_RESHAPE, x->loc, tk_type_tile(b->arena, in->type->elem, 1, &numel), in,
                 NULL);
    }
    bool pair = x->type->kind == TK_TYPE_TUPLE;
    uint32_t n = pair ? 2 : 1;
    vals out = {n, TK_NEW_ARRAY(b->arena, tk_tir_value *, n)};
    for (uint32_t k = 0; k < n; k++) {
        const tk_type *want = pair ? x->type->items[k] : x->type;
        int sub = k == 0 ? x->builtin : (x->builtin == TK_B_MAX ? TK_B_ARGMAX : TK_B_ARGMIN);
        tk_tir_op *op = emit(b, TIR_REDUCE, sub, x->loc);
        for (uint32_t i = 0; i < x->attrs.len; i++)
            if ((!flatten || strcmp(x->attrs.data[i].name, "keep_dims")) && strcmp(x->attrs.data[i].name, "return_indices"))
                tk_vec_push(b->arena, &op->attrs, x->attrs.data[i]);
        operand(b, op, in);
        /* flattened: a scalar (splat back to keep_dims' shape); f8 values
         * reduce in f32 and round back */
        const tk_type *rt = flatten && keep ? tir_elem(want) : want;
        bool f8 = is_f8(rt);
        tk_tir_value *r = result(b, op, f8 ? as_f32(b, rt) : rt);
        if (f8) r = op1(b, TIR_CAST, 0, x->loc, rt, r, NULL);
        if (flatten && keep) r = op1(b, TIR_SPLAT, 0, x->loc, want, r, NULL);
        out.v[k] = r;
    }
    return out;
}

static vals lower_builtin(builder *b, const tk_sx *x) {
    if (!x->func && (tk_builtin_lowering(x->builtin) & TK_BP_REDUCTION) && x->builtin != TK_B_REDUCE)
        return lower_reduce(b, x);
    if (x->builtin == TK_B_MAKE_BLOCK_PTR || x->builtin == TK_B_MAKE_TENSOR_DESCRIPTOR) {
        /* base, then the flattened shape, strides and offsets tuples */
        vals out = {0, NULL};
        uint32_t n = 0;
        vals parts[4];
        for (uint32_t i = 0; i < 4 && i < x->args.len; i++) {
            parts[i] = lower_sx(b, x->args.data[i]);
            n += parts[i].count;
        }
        out.v = TK_NEW_ARRAY(b->arena, tk_tir_value *, n + 1);
        for (uint32_t i = 0; i < 4 && i < x->args.len; i++)
            for (uint32_t k = 0; k < parts[i].count; k++) out.v[out.count++] = parts[i].v[k];
        return out;
    }
    if (x->builtin == TK_B_ADVANCE) {
        vals bp = lower_sx(b, x->args.data[0]), delta = lower_sx(b, x->args.data[1]);
        uint32_t rank = x->type->rank;
        if (bp.count != 1 + 3 * rank || delta.count != rank) return (vals){0};
        vals out = {bp.count, TK_NEW_ARRAY(b->arena, tk_tir_value *, bp.count)};
        memcpy(out.v, bp.v, sizeof(tk_tir_value *) * bp.count);
        for (uint32_t d = 0; d < rank; d++) {
            tk_tir_value *old = bp.v[1 + 2 * rank + d];
            out.v[1 + 2 * rank + d] = op1(b, TIR_BINARY, TK_BINOP_ADD, x->loc, old->type, old, delta.v[d]);
        }
        return out;
    }
    if ((x->builtin == TK_B_LOAD || x->builtin == TK_B_STORE) && x->args.len &&
        x->args.data[0]->type->kind == TK_TYPE_BLOCK_PTR)
        return lower_block_access(b, x, x->builtin == TK_B_LOAD);
    if (x->builtin == TK_B_LOAD_TENSOR_DESCRIPTOR || x->builtin == TK_B_STORE_TENSOR_DESCRIPTOR)
        return lower_block_access(b, x, x->builtin == TK_B_LOAD_TENSOR_DESCRIPTOR);
    if (x->builtin >= TK_B_DESC_ATOMIC_ADD && x->builtin <= TK_B_DESC_ATOMIC_XOR) return lower_descriptor_atomic(b, x);
    if (x->builtin == TK_B_DESC_GATHER || x->builtin == TK_B_DESC_SCATTER)
        return lower_descriptor_rows(b, x, x->builtin == TK_B_DESC_GATHER);
    if (x->builtin == TK_B_DESC_FIELD) {
        vals fields = lower_sx(b, x->args.data[0]);
        int64_t i = x->attrs.len ? x->attrs.data[0].i : -1;
        return i > 0 && i < (int64_t)fields.count ? one(b, fields.v[i]) : (vals){0};
    }
    unsigned lowering = tk_builtin_lowering(x->builtin);
    tk_tir_opcode code = TIR_BUILTIN;
    if (x->builtin == TK_B_PROGRAM_ID) code = TIR_PROGRAM_ID;
    else if (x->builtin == TK_B_NUM_PROGRAMS) code = TIR_NUM_PROGRAMS;
    else if (x->builtin == TK_B_ARANGE) code = TIR_MAKE_RANGE;
    else if (x->builtin == TK_B_LOAD) code = TIR_LOAD;
    else if (x->builtin == TK_B_STORE) code = TIR_STORE;
    else if (x->builtin == TK_B_RESHAPE || x->builtin == TK_B_VIEW) code = TIR_RESHAPE;
    else if (x->builtin == TK_B_PERMUTE) code = TIR_PERMUTE;
    else if (lowering & TK_BP_HINT) code = TIR_HINT;
    else if (x->builtin == TK_B_WHERE) code = TIR_SELECT;
    else if (x->builtin == TK_B_DOT) code = TIR_DOT;
    else if ((lowering & TK_BP_REDUCTION) && (x->type->kind != TK_TYPE_TUPLE || x->builtin == TK_B_REDUCE))
        code = TIR_REDUCE; /* tl.reduce over a tuple: one op, a result per tile */
    else if (lowering & TK_BP_MATH) code = TIR_MATH;
    if (x->builtin == TK_B_SOFTMAX) {
        /* exp(x - max) / sum(exp(x - max)) along the axis, from the ops that
         * already exist: two reductions kept as size-1 dimensions, broadcast back */
        tk_tir_value *in = lower1(b, x->args.data[0]);
        if (!in) return (vals){0};
        int64_t axis = 0;
        for (uint32_t i = 0; i < x->attrs.len; i++)
            if (!strcmp(x->attrs.data[i].name, "axis")) axis = x->attrs.data[i].i;
        const tk_type *t = x->type;
        int64_t kshape[TK_MAX_RANK];
        memcpy(kshape, t->shape, sizeof(int64_t) * t->rank);
        kshape[axis] = 1;
        const tk_type *kept = tk_type_tile(b->arena, t->elem, t->rank, kshape);
        const int steps[2] = {TK_B_MAX, TK_B_SUM};
        tk_tir_value *cur = in, *shifted = NULL;
        for (int k = 0; k < 2; k++) {
            tk_tir_op *red = emit(b, TIR_REDUCE, steps[k], x->loc);
            struct tk_sema_attr ax = {"axis", NULL, axis}, keep = {"keep_dims", NULL, 1};
            tk_vec_push(b->arena, &red->attrs, ax);
            tk_vec_push(b->arena, &red->attrs, keep);
            operand(b, red, cur);
            tk_tir_value *r = result(b, red, kept);
            tk_tir_op *bc = emit(b, TIR_BROADCAST, 0, x->loc);
            operand(b, bc, r);
            tk_tir_value *wide = result(b, bc, t);
            if (k == 0) {
                tk_tir_op *sub = emit(b, TIR_BINARY, TK_BINOP_SUB, x->loc);
                operand(b, sub, in);
                operand(b, sub, wide);
                tk_tir_value *d = result(b, sub, t);
                tk_tir_op *e = emit(b, TIR_MATH, TK_B_EXP, x->loc);
                operand(b, e, d);
                shifted = cur = result(b, e, t);
            } else {
                tk_tir_op *div = emit(b, TIR_BINARY, TK_BINOP_DIV, x->loc);
                operand(b, div, shifted);
                operand(b, div, wide);
                return one(b, result(b, div, t));
            }
        }
    }
    if (x->builtin == TK_B_FULL) {
        /* full(v) is a splat of v */
        tk_tir_value *v = lower1(b, x->args.data[0]);
        if (!v) return (vals){0};
        if (x->type->kind != TK_TYPE_TILE) return one(b, v);
        tk_tir_op *op = emit(b, TIR_SPLAT, 0, x->loc);
        operand(b, op, v);
        return one(b, result(b, op, x->type));
    }
    vals *args = TK_NEW_ARRAY(b->arena, vals, x->args.len + 1);
    for (uint32_t i = 0; i < x->args.len; i++) {
        args[i] = lower_sx(b, x->args.data[i]);
        if (args[i].count == 0) return (vals){0};
    }
    /* math, reductions and scans of f8 values run in f32 (a @func combine
     * function computes in its own types instead) */
    bool f8_math = !x->func && (code == TIR_MATH || code == TIR_REDUCE || x->builtin == TK_B_CUMSUM ||
                                x->builtin == TK_B_CUMPROD);
    if (f8_math)
        for (uint32_t i = 0; i < x->args.len; i++)
            for (uint32_t k = 0; k < args[i].count; k++) args[i].v[k] = widen_f8(b, args[i].v[k], x->loc);
    tk_tir_op *op = emit(b, code, code == TIR_MATH || code == TIR_REDUCE || code == TIR_BUILTIN ||
                                      code == TIR_HINT ? x->builtin : 0, x->loc);
    copy_attrs(b, op, x);
    for (uint32_t i = 0; i < x->args.len; i++)
        for (uint32_t k = 0; k < args[i].count; k++) operand(b, op, args[i].v[k]);
    if (f8_math && x->type->kind != TK_TYPE_TUPLE && is_f8(x->type))
        return one(b, op1(b, TIR_CAST, 0, x->loc, x->type, result(b, op, as_f32(b, x->type)), NULL));
    if (x->func) {
        /* the combine function, inlined once into a region of the op: two
         * scalar arguments in, the combined scalar yielded */
        const tk_sema_func *fn = x->func;
        tk_tir_block *region = new_block(b, op);
        env callee = {0};
        env *saved_env = b->env;
        vals *saved_ret = b->return_slot;
        tk_tir_block *saved_block = b->block;
        vals ret = {0};
        b->env = &callee;
        for (uint32_t i = 0; i < fn->params.len; i++)
            *slot(b, fn->params.data[i]) = one(b, block_arg(b, region, fn->params.data[i]->type));
        b->return_slot = &ret;
        b->block = region;
        lower_block(b, &fn->body);
        tk_tir_op *y = emit(b, TIR_YIELD, 0, x->loc);
        for (uint32_t i = 0; i < ret.count; i++) operand(b, y, ret.v[i]);
        b->env = saved_env;
        b->return_slot = saved_ret;
        b->block = saved_block;
    }
    if (x->type->kind == TK_TYPE_VOID) return (vals){0, NULL};
    if (x->type->kind == TK_TYPE_TUPLE) {
        vals r = {x->type->count, TK_NEW_ARRAY(b->arena, tk_tir_value *, x->type->count)};
        for (uint32_t i = 0; i < x->type->count; i++) r.v[i] = result(b, op, x->type->items[i]);
        return r;
    }
    return one(b, result(b, op, x->type));
}

/* Inlines a @func instance: its parameters bound to the call's values. */
static vals lower_call(builder *b, const tk_sx *x) {
    const tk_sema_func *fn = x->func;
    env callee = {0};
    env *saved_env = b->env;
    vals *saved_ret = b->return_slot;
    vals ret = {0};
    vals *args = TK_NEW_ARRAY(b->arena, vals, x->args.len + 1);
    for (uint32_t i = 0; i < x->args.len; i++) args[i] = lower_sx(b, x->args.data[i]);
    b->env = &callee;
    for (uint32_t i = 0; i < fn->params.len && i < x->args.len; i++) *slot(b, fn->params.data[i]) = args[i];
    b->return_slot = &ret;
    lower_block(b, &fn->body);
    b->env = saved_env;
    b->return_slot = saved_ret;
    return ret;
}

static vals lower_sx(builder *b, const tk_sx *x) {
    if (!x) return (vals){0};
    switch (x->kind) {
    case TK_SX_CONST:
        return one(b, const_value(b, x->type, x->value.i, x->value.f, x->loc));
    case TK_SX_VAR: {
        vals *s = slot(b, x->var);
        if (s->count == 0) {
            tk_internal_error(b->diag, x->loc, "'%s' used before it has a value", x->var->name);
            b->failed = true;
        }
        return *s;
    }
    case TK_SX_UNARY: {
        tk_tir_value *a = lower1(b, x->args.data[0]);
        if (!a) return (vals){0};
        if (x->op == TK_UNOP_POS) return one(b, a);
        bool f8 = is_f8(a->type);
        a = widen_f8(b, a, x->loc);
        tk_tir_op *op = emit(b, TIR_UNARY, x->op == TK_UNOP_NEG ? TIR_NEG : TIR_NOT, x->loc);
        operand(b, op, a);
        if (f8) return one(b, op1(b, TIR_CAST, 0, x->loc, x->type, result(b, op, as_f32(b, x->type)), NULL));
        return one(b, result(b, op, x->type));
    }
    case TK_SX_BINARY: {
        tk_tir_value *l = lower1(b, x->args.data[0]), *r = lower1(b, x->args.data[1]);
        if (!l || !r) return (vals){0};
        bool ptr = ty_elem_is_pointer_type(x->type);
        if (ptr) {
            if (x->op == TK_BINOP_SUB) {
                tk_tir_op *neg = emit(b, TIR_UNARY, TIR_NEG, x->loc);
                operand(b, neg, r);
                r = result(b, neg, r->type);
            }
            tk_tir_op *op = emit(b, TIR_ADDPTR, 0, x->loc);
            operand(b, op, l);
            operand(b, op, r);
            return one(b, result(b, op, x->type));
        }
        bool cmp = x->op >= TK_BINOP_LT && x->op <= TK_BINOP_NE;
        bool f8 = is_f8(l->type);
        l = widen_f8(b, l, x->loc);
        r = widen_f8(b, r, x->loc);
        tk_tir_op *op = emit(b, cmp ? TIR_CMP : TIR_BINARY, x->op, x->loc);
        copy_attrs(b, op, x);
        operand(b, op, l);
        operand(b, op, r);
        if (f8 && !cmp)
            return one(b, op1(b, TIR_CAST, 0, x->loc, x->type, result(b, op, as_f32(b, x->type)), NULL));
        return one(b, result(b, op, x->type));
    }
    case TK_SX_CAST: {
        tk_tir_value *a = lower1(b, x->args.data[0]);
        if (!a) return (vals){0};
        tk_tir_op *op = emit(b, x->bitcast ? TIR_BITCAST : TIR_CAST, 0, x->loc);
        copy_attrs(b, op, x);
        operand(b, op, a);
        return one(b, result(b, op, x->type));
    }
    case TK_SX_BROADCAST: {
        tk_tir_value *a = lower1(b, x->args.data[0]);
        if (!a) return (vals){0};
        if (a->type->kind == TK_TYPE_TILE && a->type->rank < x->type->rank) {
            /* numpy's rule: missing leading dimensions are 1 (a [64] mask
             * over a [32, 64] pointer tile is [1, 64] first) */
            int64_t shape[TK_MAX_RANK];
            uint32_t pad = x->type->rank - a->type->rank;
            for (uint32_t d = 0; d < x->type->rank; d++) shape[d] = d < pad ? 1 : a->type->shape[d - pad];
            a = op1(b, TIR_RESHAPE, TK_B_RESHAPE, x->loc,
                    tk_type_tile(b->arena, a->type->elem, x->type->rank, shape), a, NULL);
        }
        tk_tir_op *op = emit(b, a->type->kind == TK_TYPE_TILE ? TIR_BROADCAST : TIR_SPLAT, 0, x->loc);
        operand(b, op, a);
        return one(b, result(b, op, x->type));
    }
    case TK_SX_SELECT: {
        tk_tir_value *parts[3];
        for (uint32_t i = 0; i < 3; i++) {
            parts[i] = lower1(b, x->args.data[i]);
            if (!parts[i]) return (vals){0};
        }
        tk_tir_op *op = emit(b, TIR_SELECT, 0, x->loc);
        for (uint32_t i = 0; i < 3; i++) operand(b, op, parts[i]);
        return one(b, result(b, op, x->type));
    }
    case TK_SX_BUILTIN: return lower_builtin(b, x);
    case TK_SX_CALL: return lower_call(b, x);
    case TK_SX_TUPLE: {
        uint32_t n = 0;
        vals *parts = TK_NEW_ARRAY(b->arena, vals, x->args.len + 1);
        for (uint32_t i = 0; i < x->args.len; i++) {
            parts[i] = lower_sx(b, x->args.data[i]);
            n += parts[i].count;
        }
        vals r = {n, TK_NEW_ARRAY(b->arena, tk_tir_value *, n + 1)};
        n = 0;
        for (uint32_t i = 0; i < x->args.len; i++)
            for (uint32_t k = 0; k < parts[i].count; k++) r.v[n++] = parts[i].v[k];
        return r;
    }
    case TK_SX_TUPLE_GET: {
        vals t = lower_sx(b, x->args.data[0]);
        if (x->index >= t.count) return (vals){0};
        return one(b, t.v[x->index]);
    }
    }
    return (vals){0};
}

/* ---- statements --------------------------------------------------------- */

typedef TK_VEC(const tk_sema_var *) var_set;

static void add_var(builder *b, var_set *s, const tk_sema_var *v) {
    for (uint32_t i = 0; i < s->len; i++)
        if (s->data[i] == v) return;
    tk_vec_push(b->arena, s, v);
}

static void assigned_vars(builder *b, const tk_ss_list *body, var_set *out) {
    for (uint32_t i = 0; i < body->len; i++) {
        const tk_ss *s = body->data[i];
        if (s->kind == TK_SS_ASSIGN) add_var(b, out, s->var);
        assigned_vars(b, &s->then, out);
        assigned_vars(b, &s->otherwise, out);
    }
}

static bool ends_in_return(const tk_ss_list *body) {
    return body->len && body->data[body->len - 1]->kind == TK_SS_RETURN;
}

/* Appends the current values of vars as a YIELD (or CONDITION) to blk. */
static tk_tir_op *yield(builder *b, tk_tir_opcode code, const var_set *vars, tk_loc loc,
                        tk_tir_value *cond) {
    tk_tir_op *op = emit(b, code, 0, loc);
    if (cond) operand(b, op, cond);
    for (uint32_t i = 0; i < vars->len; i++) {
        vals *s = slot(b, vars->data[i]);
        for (uint32_t k = 0; k < s->count; k++) operand(b, op, s->v[k]);
    }
    return op;
}

static uint32_t count_values(builder *b, const var_set *vars) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < vars->len; i++) n += slot(b, vars->data[i])->count;
    return n;
}

/* Rebinds vars to consecutive values (block arguments or op results). */
static void bind_values(builder *b, const var_set *vars, tk_tir_value **values) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < vars->len; i++) {
        vals *s = slot(b, vars->data[i]);
        vals nv = {s->count, TK_NEW_ARRAY(b->arena, tk_tir_value *, s->count + 1)};
        for (uint32_t k = 0; k < s->count; k++) nv.v[k] = values[n++];
        *s = nv;
    }
}

static void lower_if(builder *b, const tk_ss *s) {
    tk_tir_value *cond = lower1(b, s->value);
    if (!cond) return;
    var_set in_then = {0}, in_else = {0}, outs = {0};
    assigned_vars(b, &s->then, &in_then);
    assigned_vars(b, &s->otherwise, &in_else);
    /* results: assigned in a branch and live before, or assigned in both */
    for (int side = 0; side < 2; side++) {
        var_set *vs = side ? &in_else : &in_then;
        for (uint32_t i = 0; i < vs->len; i++) {
            const tk_sema_var *v = vs->data[i];
            bool before = slot(b, v)->count > 0, both = false;
            var_set *other = side ? &in_then : &in_else;
            for (uint32_t k = 0; k < other->len; k++) both |= other->data[k] == v;
            if (before || both) add_var(b, &outs, v);
        }
    }
    vals *saved = TK_NEW_ARRAY(b->arena, vals, outs.len + 1);
    for (uint32_t i = 0; i < outs.len; i++) saved[i] = *slot(b, outs.data[i]);
    tk_tir_op *op = emit(b, TIR_IF, 0, s->loc);
    operand(b, op, cond);
    tk_tir_block *outer = b->block;
    const tk_ss_list *bodies[2] = {&s->then, &s->otherwise};
    tk_tir_block *blocks[2];
    tk_tir_op *yields[2] = {NULL, NULL};
    /* each out's values as a branch that falls through leaves them: their
     * count and types decide the if's results */
    vals *ends = TK_NEW_ARRAY(b->arena, vals, outs.len + 1);
    for (int side = 0; side < 2; side++) {
        for (uint32_t i = 0; i < outs.len; i++) *slot(b, outs.data[i]) = saved[i];
        blocks[side] = b->block = new_block(b, op);
        lower_block(b, bodies[side]);
        if (ends_in_return(bodies[side])) continue;
        for (uint32_t i = 0; i < outs.len; i++) {
            if (slot(b, outs.data[i])->count == 0) {
                /* assigned in the other branch only: never used after (sema) */
                tk_tir_op *u = emit(b, TIR_UNDEF, 0, s->loc);
                *slot(b, outs.data[i]) = one(b, result(b, u, outs.data[i]->type));
            }
            ends[i] = *slot(b, outs.data[i]);
        }
        yields[side] = yield(b, TIR_YIELD, &outs, s->loc, NULL);
    }
    for (int side = 0; side < 2; side++) {
        if (yields[side]) continue;
        /* a branch that returned: an unreachable yield of any values with
         * the other branch's types (or the variables' own, if both return) */
        b->block = blocks[side];
        TK_VEC(tk_tir_value *) undefs = {0};
        for (uint32_t i = 0; i < outs.len; i++) {
            if (ends[i].count == 0) ends[i] = saved[i].count ? saved[i] : one(b, NULL);
            for (uint32_t k = 0; k < ends[i].count; k++) {
                tk_tir_op *u = emit(b, TIR_UNDEF, 0, s->loc);
                const tk_type *t = ends[i].v[k] ? ends[i].v[k]->type : outs.data[i]->type;
                tk_vec_push(b->arena, &undefs, result(b, u, t));
            }
        }
        tk_tir_op *y = emit(b, TIR_YIELD, 0, s->loc);
        yields[side] = y;
        for (uint32_t i = 0; i < undefs.len; i++) operand(b, y, undefs.data[i]);
    }
    b->block = outer;
    uint32_t n = yields[0]->operands.len, k = 0;
    tk_tir_value **res = TK_NEW_ARRAY(b->arena, tk_tir_value *, n + 1);
    for (uint32_t i = 0; i < outs.len; i++) {
        vals nv = {ends[i].count, TK_NEW_ARRAY(b->arena, tk_tir_value *, ends[i].count + 1)};
        for (uint32_t j = 0; j < ends[i].count; j++, k++)
            nv.v[j] = res[k] = result(b, op, yields[0]->operands.data[k]->type);
        *slot(b, outs.data[i]) = nv;
    }
}

/* Loop-carried: assigned in the body and live before the loop. */
static void carried_vars(builder *b, const tk_ss_list *body, const tk_sema_var *iv, var_set *out) {
    var_set assigned = {0};
    assigned_vars(b, body, &assigned);
    for (uint32_t i = 0; i < assigned.len; i++)
        if (assigned.data[i] != iv && slot(b, assigned.data[i])->count > 0) add_var(b, out, assigned.data[i]);
}

/* The current values of a loop's carried variables: operands of the loop
 * op (its initial values) and the returned array; *n their count. */
static tk_tir_value **carried_operands(builder *b, tk_tir_op *op, const var_set *carried, uint32_t *n) {
    *n = count_values(b, carried);
    tk_tir_value **inits = TK_NEW_ARRAY(b->arena, tk_tir_value *, *n + 1);
    uint32_t k = 0;
    for (uint32_t i = 0; i < carried->len; i++) {
        vals *sl = slot(b, carried->data[i]);
        for (uint32_t j = 0; j < sl->count; j++) {
            inits[k++] = sl->v[j];
            operand(b, op, sl->v[j]);
        }
    }
    return inits;
}

/* Rebinds a loop's carried variables to fresh arguments of block, typed
 * like their initial values. */
static void bind_carried_args(builder *b, tk_tir_block *block, const var_set *carried, tk_tir_value **inits,
                              uint32_t n) {
    tk_tir_value **args = TK_NEW_ARRAY(b->arena, tk_tir_value *, n + 1);
    for (uint32_t i = 0; i < n; i++) args[i] = block_arg(b, block, inits[i]->type);
    bind_values(b, carried, args);
}

/* After the loop: its carried variables are the loop op's results. */
static void bind_carried_results(builder *b, tk_tir_op *op, const var_set *carried, tk_tir_value **inits,
                                 uint32_t n) {
    tk_tir_value **res = TK_NEW_ARRAY(b->arena, tk_tir_value *, n + 1);
    for (uint32_t i = 0; i < n; i++) res[i] = result(b, op, inits[i]->type);
    bind_values(b, carried, res);
}

static void lower_for(builder *b, const tk_ss *s) {
    tk_tir_value *lo = lower1(b, s->lo), *hi = lower1(b, s->hi), *step = lower1(b, s->step);
    if (!lo || !hi || !step) return;
    var_set carried = {0};
    carried_vars(b, &s->then, s->var, &carried);
    tk_tir_op *op = emit(b, TIR_FOR, 0, s->loc);
    operand(b, op, lo);
    operand(b, op, hi);
    operand(b, op, step);
    if (s->num_stages >= 0) {
        struct tk_sema_attr a = {"num_stages", NULL, s->num_stages};
        tk_vec_push(b->arena, &op->attrs, a);
    }
    if (s->warp_specialize) {
        struct tk_sema_attr a = {"warp_specialize", NULL, 1};
        tk_vec_push(b->arena, &op->attrs, a);
    }
    uint32_t n;
    tk_tir_value **inits = carried_operands(b, op, &carried, &n);
    tk_tir_block *outer = b->block;
    tk_tir_block *body = new_block(b, op);
    *slot(b, s->var) = one(b, block_arg(b, body, s->var->type));
    bind_carried_args(b, body, &carried, inits, n);
    b->block = body;
    lower_block(b, &s->then);
    yield(b, TIR_YIELD, &carried, s->loc, NULL);
    b->block = outer;
    bind_carried_results(b, op, &carried, inits, n);
}

static void lower_while(builder *b, const tk_ss *s) {
    var_set carried = {0};
    carried_vars(b, &s->then, NULL, &carried);
    tk_tir_op *op = emit(b, TIR_WHILE, 0, s->loc);
    uint32_t n;
    tk_tir_value **inits = carried_operands(b, op, &carried, &n);
    tk_tir_block *outer = b->block;
    tk_tir_block *before = new_block(b, op);
    bind_carried_args(b, before, &carried, inits, n);
    b->block = before;
    lower_block(b, &s->otherwise);
    tk_tir_value *cond = lower1(b, s->value);
    if (!cond) return;
    yield(b, TIR_CONDITION, &carried, s->loc, cond);
    tk_tir_block *after = new_block(b, op);
    bind_carried_args(b, after, &carried, inits, n);
    b->block = after;
    lower_block(b, &s->then);
    yield(b, TIR_YIELD, &carried, s->loc, NULL);
    b->block = outer;
    bind_carried_results(b, op, &carried, inits, n);
}

static void lower_block(builder *b, const tk_ss_list *body) {
    for (uint32_t i = 0; i < body->len; i++) {
        const tk_ss *s = body->data[i];
        switch (s->kind) {
        case TK_SS_ASSIGN: {
            vals v = lower_sx(b, s->value);
            if (v.count) *slot(b, s->var) = v;
            break;
        }
        case TK_SS_EXPR: lower_sx(b, s->value); break;
        case TK_SS_IF: lower_if(b, s); break;
        case TK_SS_FOR: lower_for(b, s); break;
        case TK_SS_WHILE: lower_while(b, s); break;
        case TK_SS_RETURN:
            if (b->return_slot) {
                if (s->value) *b->return_slot = lower_sx(b, s->value);
            } else {
                emit(b, TIR_RETURN, 0, s->loc);
            }
            break;
        case TK_SS_BREAK:
        case TK_SS_CONTINUE:
            not_yet(b, s->loc, "break/continue");
            break;
        }
    }
}

/* A descriptor parameter as the block pointer a descriptor is (see
 * lower_block_access): its data, shape and strides read from the
 * parameter (the launcher checked them: the last stride is 1), zero
 * offsets. */
static vals descriptor_param(builder *b, tk_tir_value *param, const tk_sema_param *p) {
    uint32_t rank = p->type->rank;
    const tk_type *i32 = tk_type_scalar(b->arena, TK_I32), *i64 = tk_type_scalar(b->arena, TK_I64);
    vals out = {1 + 3 * rank, TK_NEW_ARRAY(b->arena, tk_tir_value *, 1 + 3 * rank)};
    for (uint32_t i = 0; i < out.count; i++) {
        int field = i == 0 ? TIR_DESC_DATA : i <= rank ? TIR_DESC_SHAPE : TIR_DESC_STRIDE;
        uint32_t dim = i == 0 ? 0 : (i - 1) % rank;
        if (i > 2 * rank) {
            out.v[i] = const_value(b, i32, 0, 0, p->loc);
        } else if (field == TIR_DESC_STRIDE && dim == rank - 1) {
            out.v[i] = const_value(b, i64, 1, 1, p->loc);
        } else {
            tk_tir_op *op = emit(b, TIR_DESC_FIELD, field, p->loc);
            operand(b, op, param);
            struct tk_sema_attr d = {"dim", NULL, dim};
            if (field != TIR_DESC_DATA) tk_vec_push(b->arena, &op->attrs, d);
            out.v[i] = result(b, op, field == TIR_DESC_DATA ? tk_type_pointer(b->arena, tk_type_scalar(b->arena, p->type->elem->dtype))
                                     : field == TIR_DESC_SHAPE ? i32 : i64);
        }
    }
    return out;
}

/* sk's body in TIR; the runtime parameters in assume_one (bit i: the i-th)
 * are the constant 1 in it */
static tk_tir_kernel *lower_kernel(tk_arena *arena, tk_diag *diag, const tk_sema_kernel *sk, uint64_t assume_one) {
    tk_tir_kernel *kernel = TK_NEW(arena, tk_tir_kernel);
    kernel->sema = sk;
    kernel->num_warps = (uint32_t)sk->num_warps;
    kernel->num_stages = (uint32_t)sk->num_stages;
    kernel->suffix = "";
    env e = {0};
    builder b = {arena, diag, kernel, NULL, &e, NULL, false};
    kernel->body = new_block(&b, NULL);
    b.block = kernel->body;
    uint32_t arg = 0;
    for (uint32_t i = 0; i < sk->params.len; i++) {
        const tk_sema_param *p = &sk->params.data[i];
        if (p->is_constexpr) continue;
        tk_tir_value *v = block_arg(&b, kernel->body, p->type);
        if (arg < 64 && (assume_one >> arg & 1)) v = const_value(&b, p->type, 1, 1.0, p->loc);
        *slot(&b, p->var) = p->type->kind == TK_TYPE_BLOCK_PTR ? descriptor_param(&b, v, p) : one(&b, v);
        arg++;
    }
    lower_block(&b, &sk->body);
    return kernel;
}

tk_tir_kernel *tir_lower_again(tk_arena *arena, tk_diag *diag, const tk_tir_kernel *k) {
    tk_tir_kernel *again = lower_kernel(arena, diag, k->sema, k->assume_one);
    again->assume_one = k->assume_one;
    again->assume_div16 = k->assume_div16;
    again->suffix = k->suffix;
    return again;
}

tk_tir_program *tk_tir_lower(tk_arena *arena, tk_diag *diag, const tk_sema_program *program,
                             uint32_t specializations) {
    tk_tir_program *out = TK_NEW(arena, tk_tir_program);
    for (uint32_t k = 0; k < program->kernels.len; k++) {
        const tk_sema_kernel *sk = program->kernels.data[k];
        tk_tir_kernel *general = lower_kernel(arena, diag, sk, 0);
        tir_specialization specs[TIR_MAX_SPECIALIZATIONS];
        uint32_t n = tir_specializations(arena, general, specializations, specs);
        for (uint32_t i = 0; i + 1 < n; i++) {
            tk_tir_kernel *special = lower_kernel(arena, diag, sk, specs[i].assume_one);
            special->assume_one = specs[i].assume_one;
            special->assume_div16 = specs[i].assume_div16;
            special->suffix = specs[i].suffix;
            tk_vec_push(arena, &out->kernels, special);
        }
        tk_vec_push(arena, &out->kernels, general);
    }
    return out;
}
