/* The builtins that read and write memory through pointers: load, store,
 * make_block_ptr and advance, and tensor descriptors (make, load, store).
 * Needs: builtin.h's argument readers.
 * Guarantees: masks and other values reach the typed call broadcast to the
 * pointer tile's shape; cache and eviction options are checked names. */
#include "builtin.h"

#include <string.h>

/* mask/other/value may broadcast up to the pointer's shape, not beyond. */
tk_sx *fit_to(checker *c, call *k, uint32_t i, tk_sx *x, const tk_type *ptr, const char *what) {
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!broadcast_shapes(c, ptr, x->type, k->args[i].loc, what, &rank, shape)) return NULL;
    if (rank != ty_rank(ptr) || memcmp(shape, ptr->shape, sizeof(int64_t) * rank) != 0) {
        sema_error(c, k->args[i].loc, "shape mismatch: '%s' of %s is %s, larger than the pointer "
                   "tile %s", pname(k, i), k->name, tk_type_str(c->arena, x->type),
                   tk_type_str(c->arena, ptr));
        return NULL;
    }
    return broadcast_to_shape(c, x, rank, shape, k->loc);
}

tk_sx *mask_arg(checker *c, call *k, uint32_t i, const tk_type *ptr) {
    if (!given(k, i) || k->args[i].kind == V_NONE) return NULL;
    tk_sx *m = rt_arg(c, k, i);
    if (!m) return NULL;
    if (ty_elem(m->type)->kind != TK_TYPE_SCALAR || elem_dtype(m) != TK_I1) {
        sema_error(c, k->args[i].loc, "the mask of %s must be boolean (a comparison such as offs < n), "
                   "not %s", k->name, tk_type_str(c->arena, m->type));
        return NULL;
    }
    return fit_to(c, k, i, m, ptr, "the mask");
}

static const char *const load_cache[] = {"", ".ca", ".cg", ".cv"};
static const char *const store_cache[] = {"", ".wb", ".cg", ".cs", ".wt"};
static const char *const eviction[] = {"", "evict_first", "evict_last", "evict_normal"};
static const char *const padding[] = {"", "zero", "nan"};

tk_sx *pointer_arg(checker *c, call *k, uint32_t i) {
    tk_sx *p = rt_arg(c, k, i);
    if (!p) return NULL;
    if (p->type->kind == TK_TYPE_BLOCK_PTR && p->type->descriptor) {
        sema_error(c, k->args[i].loc, "%s takes a pointer, not a tensor descriptor (which loads and stores "
                   "with desc.load(offsets) and desc.store(offsets, value))", k->name);
        return NULL;
    }
    if (p->type->kind == TK_TYPE_BLOCK_PTR || ty_elem_is_pointer(p->type)) return p;
    sema_error(c, k->args[i].loc, "the first argument of %s must be a pointer or a tile of pointers, "
               "not %s", k->name, tk_type_str(c->arena, p->type));
    return NULL;
}

static bool boundary_check(checker *c, call *k, uint32_t i, tk_sx *ptr, tk_sx *x) {
    if (!given(k, i)) return true;
    value *v = &k->args[i];
    if (ptr->type->kind != TK_TYPE_BLOCK_PTR) {
        if (v->kind == V_TUPLE && v->count == 0) return true;
        sema_error(c, v->loc, "boundary_check applies to block pointers (tl.make_block_ptr)");
        return false;
    }
    if (v->kind != V_TUPLE) {
        sema_error(c, v->loc, "boundary_check is a tuple of dimensions, e.g. (0, 1)");
        return false;
    }
    for (uint32_t j = 0; j < v->count; j++) {
        if (v->items[j].kind != V_INT || v->items[j].u.i < 0 || v->items[j].u.i >= ptr->type->rank) {
            sema_error(c, v->loc, "boundary_check names dimensions 0 to %u", ptr->type->rank - 1);
            return false;
        }
        sx_add_attr_int(c, x, "boundary_check", v->items[j].u.i);
    }
    return true;
}

value b_load(checker *c, call *k) {
    tk_sx *p = pointer_arg(c, k, 0);
    if (!p) return v_error();
    const char *cache, *evict, *pad;
    bool is_volatile;
    if (!const_str(c, k, 5, load_cache, 4, &cache) || !const_str(c, k, 6, eviction, 4, &evict) ||
        !const_str(c, k, 4, padding, 3, &pad) || !const_bool(c, k, 7, false, &is_volatile))
        return v_error();
    bool block = p->type->kind == TK_TYPE_BLOCK_PTR;
    const tk_type *elem = block ? p->type->elem : ty_elem(p->type)->elem;
    if (elem->kind != TK_TYPE_SCALAR && elem->kind != TK_TYPE_POINTER) return v_error();
    const tk_type *shape_like = block ? ty_tile(c, elem, p->type->rank, p->type->shape) : p->type;
    tk_sx *x = builtin_sx(c, k, ty_with_elem(c, shape_like, elem));
    sx_add_arg(c, x, p);
    bool has_mask = given(k, 1) && k->args[1].kind != V_NONE;
    bool has_other = given(k, 2) && k->args[2].kind != V_NONE;
    if (block && (has_mask || has_other)) {
        sema_error(c, k->loc, "a block-pointer load takes boundary_check= and padding_option=, "
                   "not mask= or other=");
        return v_error();
    }
    if (!block && *pad) {
        sema_error(c, k->args[4].loc, "padding_option applies to block pointers only");
        return v_error();
    }
    if (has_other && !has_mask) {
        sema_error(c, k->args[2].loc, "other= without mask= has no effect: give mask= too, or drop other=");
        return v_error();
    }
    if (has_mask) {
        tk_sx *m = mask_arg(c, k, 1, p->type);
        if (!m) return v_error();
        sx_add_arg(c, x, m);
    }
    if (has_other) {
        value *o = &k->args[2];
        tk_sx *ov;
        if (elem->kind == TK_TYPE_SCALAR && v_is_number(o)) {
            if (o->kind == V_FLOAT && !tk_dtype_is_float(elem->dtype)) {
                sema_error(c, o->loc, "other=%s does not fit the loaded %s values",
                           v_describe(c, o), tk_dtype_name(elem->dtype));
                return v_error();
            }
            ov = to_runtime(c, o, &elem->dtype);
        } else {
            ov = rt_arg(c, k, 2);
            if (ov && elem->kind == TK_TYPE_SCALAR) ov = convert(c, ov, elem->dtype, o->loc);
        }
        if (!ov) return v_error();
        ov = fit_to(c, k, 2, ov, p->type, "other");
        if (!ov) return v_error();
        sx_add_arg(c, x, ov);
    }
    if (*pad && elem->kind == TK_TYPE_SCALAR && !tk_dtype_is_float(elem->dtype) && strcmp(pad, "nan") == 0) {
        sema_error(c, k->args[4].loc, "padding_option=\"nan\" needs a floating-point pointee");
        return v_error();
    }
    if (!boundary_check(c, k, 3, p, x)) return v_error();
    if (*cache) sx_add_attr_text(c, x, "cache", cache);
    if (*evict) sx_add_attr_text(c, x, "eviction", evict);
    if (*pad) sx_add_attr_text(c, x, "padding", pad);
    if (is_volatile) sx_add_attr_int(c, x, "volatile", 1);
    if (is_volatile) return emit_effect(c, x);
    return result_rt(x);
}

value b_store(checker *c, call *k) {
    tk_sx *p = pointer_arg(c, k, 0);
    if (!p) return v_error();
    const char *cache, *evict;
    if (!const_str(c, k, 4, store_cache, 5, &cache) || !const_str(c, k, 5, eviction, 4, &evict))
        return v_error();
    bool block = p->type->kind == TK_TYPE_BLOCK_PTR;
    const tk_type *elem = block ? p->type->elem : ty_elem(p->type)->elem;
    const tk_type *shape_like = block ? ty_tile(c, elem, p->type->rank, p->type->shape) : p->type;
    value *val = &k->args[1];
    tk_sx *v;
    if (elem->kind == TK_TYPE_SCALAR && v_is_number(val)) {
        v = to_runtime(c, val, &elem->dtype);
    } else {
        v = rt_arg(c, k, 1);
        if (v && elem->kind == TK_TYPE_SCALAR) {
            if (ty_elem(v->type)->kind != TK_TYPE_SCALAR) {
                sema_error(c, val->loc, "tl.store of %s through a pointer to %s",
                           tk_type_str(c->arena, v->type), tk_dtype_name(elem->dtype));
                return v_error();
            }
            v = convert(c, v, elem->dtype, val->loc);
        }
    }
    if (!v) return v_error();
    v = fit_to(c, k, 1, v, shape_like, "the stored value");
    if (!v) return v_error();
    tk_sx *x = builtin_sx(c, k, ty_void(c));
    sx_add_arg(c, x, p);
    sx_add_arg(c, x, v);
    if (given(k, 2) && k->args[2].kind != V_NONE) {
        if (block) {
            sema_error(c, k->args[2].loc, "a block-pointer store takes boundary_check=, not mask=");
            return v_error();
        }
        tk_sx *m = mask_arg(c, k, 2, p->type);
        if (!m) return v_error();
        sx_add_arg(c, x, m);
    }
    if (!boundary_check(c, k, 3, p, x)) return v_error();
    if (*cache) sx_add_attr_text(c, x, "cache", cache);
    if (*evict) sx_add_attr_text(c, x, "eviction", evict);
    return emit_effect(c, x);
}

/* A tuple of integer values (runtime or constant), each converted to d. */
static bool int_tuple(checker *c, call *k, uint32_t i, uint32_t want, tk_dtype d, tk_sx *out_call) {
    value *v = &k->args[i];
    if (v->kind != V_TUPLE) {
        if (v->kind != V_ERROR)
            sema_error(c, v->loc, "'%s' of %s must be a tuple", pname(k, i), k->name);
        return false;
    }
    if (want && v->count != want) {
        sema_error(c, v->loc, "'%s' of %s has %u entries; the block has rank %u", pname(k, i),
                   k->name, v->count, want);
        return false;
    }
    tk_sx *t = sx_new(c, TK_SX_TUPLE, NULL, v->loc);
    const tk_type *items[TK_MAX_RANK];
    for (uint32_t j = 0; j < v->count && j < TK_MAX_RANK; j++) {
        value *e = &v->items[j];
        tk_sx *x = NULL;
        if (e->kind == V_INT) x = to_runtime(c, e, &d);
        else if (e->kind == V_RT && e->u.rt->type->kind == TK_TYPE_SCALAR &&
                 tk_dtype_is_int(e->u.rt->type->dtype))
            x = convert(c, e->u.rt, d, e->loc);
        if (!x) {
            sema_error(c, e->kind == V_ERROR ? v->loc : e->loc, "'%s' of %s holds integers, not %s",
                       pname(k, i), k->name, v_describe(c, e));
            return false;
        }
        items[j] = x->type;
        sx_add_arg(c, t, x);
    }
    t->type = ty_tuple(c, v->count, items);
    sx_add_arg(c, out_call, t);
    return true;
}

value b_make_block_ptr(checker *c, call *k) {
    tk_sx *base = rt_arg(c, k, 0);
    if (!base) return v_error();
    if (base->type->kind != TK_TYPE_POINTER || base->type->elem->kind != TK_TYPE_SCALAR) {
        sema_error(c, k->args[0].loc, "the base of tl.make_block_ptr is a scalar pointer, not %s",
                   tk_type_str(c->arena, base->type));
        return v_error();
    }
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!shape_of(c, &k->args[4], "block_shape", &rank, shape)) return v_error();
    tk_sx *x = builtin_sx(c, k, ty_block_ptr(c, base->type->elem->dtype, rank, shape));
    sx_add_arg(c, x, base);
    if (!int_tuple(c, k, 1, rank, TK_I64, x) || !int_tuple(c, k, 2, rank, TK_I64, x) ||
        !int_tuple(c, k, 3, rank, TK_I32, x))
        return v_error();
    value *order = &k->args[5];
    bool seen[TK_MAX_RANK] = {0};
    if (order->kind != V_TUPLE || order->count != rank) {
        sema_error(c, order->loc, "order= lists the %u dimensions from fastest to slowest, e.g. (1, 0)", rank);
        return v_error();
    }
    for (uint32_t j = 0; j < rank; j++) {
        const value *o = &order->items[j];
        if (o->kind != V_INT || o->u.i < 0 || o->u.i >= rank || seen[o->u.i]) {
            sema_error(c, order->loc, "order= must be a permutation of 0..%u", rank - 1);
            return v_error();
        }
        seen[o->u.i] = true;
        sx_add_attr_int(c, x, "order", o->u.i);
    }
    return result_rt(x);
}

value b_advance(checker *c, call *k) {
    tk_sx *b = rt_arg(c, k, 0);
    if (!b) return v_error();
    if (b->type->kind != TK_TYPE_BLOCK_PTR || b->type->descriptor) {
        sema_error(c, k->args[0].loc, "tl.advance moves a block pointer, not %s%s", tk_type_str(c->arena, b->type),
                   b->type->descriptor ? " (a descriptor takes its offsets at each load and store)" : "");
        return v_error();
    }
    tk_sx *x = builtin_sx(c, k, b->type);
    sx_add_arg(c, x, b);
    if (!int_tuple(c, k, 1, b->type->rank, TK_I32, x)) return v_error();
    return result_rt(x);
}

/* A tensor descriptor's block shape v (a constant shape) for elements of
 * type elem: 1 to 5 dimensions, at least 16 bytes in the last (Triton's
 * rules, which TMA's boxes follow). */
bool descriptor_block(checker *c, const value *v, tk_dtype elem, uint32_t *rank, int64_t *shape) {
    if (!shape_of(c, v, "block_shape", rank, shape)) return false;
    if (*rank < 1 || *rank > 5) {
        sema_error(c, v->loc, "a tensor descriptor has 1 to 5 dimensions, not %u", *rank);
        return false;
    }
    int64_t last_bytes = shape[*rank - 1] * (int64_t)tk_dtype_bits(elem) / 8;
    if (last_bytes < 16) {
        sema_error(c, v->loc, "a tensor descriptor's block needs at least 16 bytes in its last dimension, "
                   "not %lld x %u bytes", (long long)shape[*rank - 1], tk_dtype_bits(elem) / 8);
        return false;
    }
    return true;
}

/* tl.make_tensor_descriptor(base, shape, strides, block_shape,
 * padding_option="zero"): Triton's rules, so that a descriptor built here
 * can later become a TMA tensor map unchanged: rank 1 to 5, the last
 * stride the constant 1, at least 16 bytes in the block's last dimension.
 * The value is the block pointer (base, shape, strides, zero offsets). */
value b_make_tensor_descriptor(checker *c, call *k) {
    tk_sx *base = rt_arg(c, k, 0);
    if (!base) return v_error();
    if (base->type->kind != TK_TYPE_POINTER || base->type->elem->kind != TK_TYPE_SCALAR ||
        base->type->elem->dtype == TK_I1) {
        sema_error(c, k->args[0].loc, "the base of tl.make_tensor_descriptor is a pointer to numbers (not i1), "
                   "not %s", tk_type_str(c->arena, base->type));
        return v_error();
    }
    tk_dtype elem = base->type->elem->dtype;
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!descriptor_block(c, &k->args[3], elem, &rank, shape)) return v_error();
    const value *strides = &k->args[2];
    if (strides->kind == V_TUPLE && strides->count == rank) {
        const value *last = &strides->items[rank - 1];
        if (last->kind != V_INT || last->u.i != 1) {
            sema_error(c, last->kind == V_ERROR ? strides->loc : last->loc,
                       "a tensor descriptor's last stride must be the constant 1, not %s", v_describe(c, last));
            return v_error();
        }
    }
    const char *pad;
    static const char *const paddings[] = {"", "zero", "nan"};
    if (!const_str(c, k, 4, paddings, 3, &pad)) return v_error();
    bool nan = strcmp(pad, "nan") == 0;
    if (nan && !tk_dtype_is_float(elem)) {
        sema_error(c, k->args[4].loc, "padding_option=\"nan\" needs a floating-point pointee");
        return v_error();
    }
    tk_sx *x = builtin_sx(c, k, tk_type_tensor_desc(c->arena, elem, rank, shape, nan));
    sx_add_arg(c, x, base);
    if (!int_tuple(c, k, 1, rank, TK_I32, x) || !int_tuple(c, k, 2, rank, TK_I64, x)) return v_error();
    tk_sx *zeros = sx_new(c, TK_SX_TUPLE, NULL, k->loc);
    const tk_type *items[TK_MAX_RANK];
    for (uint32_t d = 0; d < rank; d++) {
        value zero = v_int(k->loc, 0);
        tk_dtype i32 = TK_I32;
        tk_sx *z = to_runtime(c, &zero, &i32);
        items[d] = z->type;
        sx_add_arg(c, zeros, z);
    }
    zeros->type = ty_tuple(c, rank, items);
    sx_add_arg(c, x, zeros);
    return result_rt(x);
}

static tk_sx *descriptor_arg(checker *c, call *k) {
    tk_sx *d = rt_arg(c, k, 0);
    if (!d) return NULL;
    if (d->type->kind != TK_TYPE_BLOCK_PTR || !d->type->descriptor) {
        sema_error(c, k->args[0].loc, "%s takes a tensor descriptor (tl.make_tensor_descriptor), not %s", k->name,
                   tk_type_str(c->arena, d->type));
        return NULL;
    }
    return d;
}

/* desc.load(offsets): the block at offsets, every dimension checked,
 * out-of-bounds elements the descriptor's padding */
value b_load_tensor_descriptor(checker *c, call *k) {
    tk_sx *d = descriptor_arg(c, k);
    if (!d) return v_error();
    const tk_type *t = d->type;
    tk_sx *x = builtin_sx(c, k, ty_tile(c, t->elem, t->rank, t->shape));
    sx_add_arg(c, x, d);
    if (!int_tuple(c, k, 1, t->rank, TK_I32, x)) return v_error();
    return result_rt(x);
}

/* A write through descriptor argument 0 at offsets (argument 1) of value
 * (argument 2), converted to the element type and broadcast to the block:
 * the call, NULL after an error */
static tk_sx *descriptor_write(checker *c, call *k, tk_sx *d) {
    const tk_type *t = d->type;
    const tk_type *block = ty_tile(c, t->elem, t->rank, t->shape);
    value *val = &k->args[2];
    tk_sx *v;
    if (v_is_number(val)) {
        v = to_runtime(c, val, &t->elem->dtype);
    } else {
        v = rt_arg(c, k, 2);
        if (v && ty_elem(v->type)->kind != TK_TYPE_SCALAR) {
            sema_error(c, val->loc, "a tensor descriptor stores numbers, not %s", tk_type_str(c->arena, v->type));
            return NULL;
        }
        if (v) v = convert(c, v, t->elem->dtype, val->loc);
    }
    if (!v) return NULL;
    v = fit_to(c, k, 2, v, block, "the stored value");
    if (!v) return NULL;
    tk_sx *x = builtin_sx(c, k, ty_void(c));
    sx_add_arg(c, x, d);
    if (!int_tuple(c, k, 1, t->rank, TK_I32, x)) return NULL;
    sx_add_arg(c, x, v);
    return x;
}

/* desc.store(offsets, value): value converted to the element type and
 * broadcast to the block; out-of-bounds elements are not written */
value b_store_tensor_descriptor(checker *c, call *k) {
    tk_sx *d = descriptor_arg(c, k);
    tk_sx *x = d ? descriptor_write(c, k, d) : NULL;
    return x ? emit_effect(c, x) : v_error();
}

/* Argument i of a descriptor method: an integer (a number or a run-time
 * scalar) as i32, else NULL after an error */
static tk_sx *index_arg(checker *c, call *k, uint32_t i) {
    value *v = &k->args[i];
    tk_dtype i32 = TK_I32;
    if (v->kind == V_INT) return to_runtime(c, v, &i32);
    tk_sx *x = v_is_number(v) ? NULL : rt_arg(c, k, i);
    if (!x && !v_is_number(v)) return NULL;
    if (!x || x->type->kind != TK_TYPE_SCALAR || !tk_dtype_is_int(x->type->dtype) || x->type->dtype == TK_I1) {
        sema_error(c, v->loc, "'%s' of %s is an integer, not %s", pname(k, i), k->name,
                   x ? tk_type_str(c->arena, x->type) : v->kind == V_FLOAT ? "a float" : "a bool");
        return NULL;
    }
    return convert(c, x, TK_I32, v->loc);
}

/* desc.gather(x_offsets, y_offset) and desc.scatter(value, x_offsets,
 * y_offset), Triton's rules (TMA's gather4 and scatter4): a 2-D
 * descriptor of [1, C] blocks, C at least 8 32-bit words' worth of
 * elements; x_offsets a 1-D integer tile of at least 8 rows; the block
 * moved is [len(x_offsets), C], its rows x_offsets and its columns
 * y_offset + 0 .. C - 1, out-of-bounds elements read as the padding or
 * not written. On the call x: the descriptor, then (scatter) the value,
 * the rows as i32, the column as i32. */
static bool descriptor_rows(checker *c, call *k, tk_sx *d, bool scatter, tk_sx *x) {
    const tk_type *t = d->type;
    if (t->rank != 2 || t->shape[0] != 1) {
        sema_error(c, k->args[0].loc, "%s needs a 2-D descriptor of [1, C] blocks (as Triton's does), not %s", k->name,
                   tk_type_str(c->arena, t));
        return false;
    }
    int64_t min_cols = 32 / tk_dtype_bits(t->elem->dtype) * 8;
    if (t->shape[1] < min_cols) {
        sema_error(c, k->args[0].loc, "%s of %s needs blocks of at least %lld columns (as Triton's does), not %lld",
                   k->name, tk_dtype_name(t->elem->dtype), (long long)min_cols, (long long)t->shape[1]);
        return false;
    }
    uint32_t ri = scatter ? 2 : 1;
    tk_sx *rows = rt_arg(c, k, ri);
    if (!rows) return false;
    const tk_type *rt = rows->type;
    if (rt->kind != TK_TYPE_TILE || rt->rank != 1 || rt->elem->kind != TK_TYPE_SCALAR ||
        !tk_dtype_is_int(rt->elem->dtype) || rt->elem->dtype == TK_I1 || rt->shape[0] < 8) {
        sema_error(c, k->args[ri].loc, "'x_offsets' of %s is a 1-D integer tile of at least 8 rows, not %s", k->name,
                   tk_type_str(c->arena, rt));
        return false;
    }
    rows = convert(c, rows, TK_I32, k->args[ri].loc);
    tk_sx *col = index_arg(c, k, ri + 1);
    if (!rows || !col) return false;
    sx_add_arg(c, x, d);
    if (scatter) {
        int64_t shape[2] = {rt->shape[0], t->shape[1]};
        const tk_type *block = ty_tile(c, t->elem, 2, shape);
        tk_sx *v = v_is_number(&k->args[1]) ? to_runtime(c, &k->args[1], &t->elem->dtype) : rt_arg(c, k, 1);
        if (v && ty_elem(v->type)->kind != TK_TYPE_SCALAR) {
            sema_error(c, k->args[1].loc, "a tensor descriptor stores numbers, not %s", tk_type_str(c->arena, v->type));
            return false;
        }
        if (v) v = convert(c, v, t->elem->dtype, k->args[1].loc);
        if (v) v = fit_to(c, k, 1, v, block, "the scattered value");
        if (!v) return false;
        sx_add_arg(c, x, v);
    }
    sx_add_arg(c, x, rows);
    sx_add_arg(c, x, col);
    return true;
}

value b_descriptor_gather(checker *c, call *k) {
    tk_sx *d = descriptor_arg(c, k);
    if (!d) return v_error();
    const tk_type *rt = k->args[1].kind == V_RT ? k->args[1].u.rt->type : NULL;
    int64_t shape[2] = {rt && rt->kind == TK_TYPE_TILE ? rt->shape[0] : 1, d->type->shape[1]};
    tk_sx *x = builtin_sx(c, k, ty_tile(c, d->type->elem, 2, shape));
    return descriptor_rows(c, k, d, false, x) ? result_rt(x) : v_error();
}

value b_descriptor_scatter(checker *c, call *k) {
    tk_sx *d = descriptor_arg(c, k);
    if (!d) return v_error();
    tk_sx *x = builtin_sx(c, k, ty_void(c));
    return descriptor_rows(c, k, d, true, x) ? emit_effect(c, x) : v_error();
}

/* desc.shape and desc.strides are attributes (expr.c), not calls */
value b_descriptor_field(checker *c, call *k) {
    sema_error(c, k->loc, "%s cannot be called", k->name);
    return v_error();
}

/* desc.atomic_add(offsets, value), atomic_min, _max, _and, _or, _xor:
 * each element of the block at offsets combined with value's atomically
 * (relaxed, as TMA's reductions are), out-of-bounds ones untouched;
 * nothing returned. The element types Triton takes for each (its
 * descriptor reductions): add on i32, u32, u64, f32, f16, bf16; min and
 * max on i32, u32, i64, u64 (and f16, bf16 through TMA only: not here
 * yet); and, or, xor on i32, u32, i64, u64. */
value b_descriptor_atomic(checker *c, call *k) {
    tk_sx *d = descriptor_arg(c, k);
    if (!d) return v_error();
    tk_dtype e = d->type->elem->dtype;
    bool integer = e == TK_I32 || e == TK_U32 || e == TK_I64 || e == TK_U64;
    bool half = e == TK_F16 || e == TK_BF16;
    bool ok;
    switch (k->id) {
    case TK_B_DESC_ATOMIC_ADD: ok = (integer && e != TK_I64) || e == TK_F32 || half; break;
    case TK_B_DESC_ATOMIC_MIN: case TK_B_DESC_ATOMIC_MAX:
        if (half) {
            sema_error(c, k->args[0].loc, "%s on %s elements is not supported yet (Triton does it with TMA's reduction)",
                       k->name, tk_dtype_name(e));
            return v_error();
        }
        ok = integer;
        break;
    default: ok = integer; break;
    }
    if (!ok) {
        sema_error(c, k->args[0].loc, "%s does not support %s elements (as in Triton)", k->name, tk_dtype_name(e));
        return v_error();
    }
    tk_sx *x = descriptor_write(c, k, d);
    return x ? emit_effect(c, x) : v_error();
}
