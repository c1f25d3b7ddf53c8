/* The builtins that make tiles and change their shape: program_id,
 * arange, zeros and full, cdiv; broadcast_to, expand_dims, reshape, trans
 * and permute, join, interleave, ravel, item, flip, split, cat. Needs:
 * builtin.h's argument readers. Guarantees: a result's shape is checked
 * (tile sizes, element counts kept) before its typed call is written. */
#include "builtin.h"

#include <inttypes.h>
#include <string.h>

/* a reshape of x to `shape` (same number of elements) */
tk_sx *reshaped(checker *c, call *k, tk_sx *x, uint32_t rank, const int64_t *shape) {
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(x->type), rank, shape));
    r->builtin = TK_B_RESHAPE;
    sx_add_arg(c, r, x);
    return r;
}

int64_t numel_of(const tk_type *t) {
    int64_t n = 1;
    for (uint32_t i = 0; i < ty_rank(t); i++) n *= t->shape[i];
    return n;
}

value b_program_id(checker *c, call *k) {
    int64_t axis;
    if (!const_int(c, k, 0, &axis)) return v_error();
    if (axis < 0 || axis > 2) {
        sema_error(c, k->args[0].loc, "%s axis must be 0, 1 or 2, not %" PRId64, k->name, axis);
        return v_error();
    }
    tk_sx *x = builtin_sx(c, k, ty_scalar(c, TK_I32));
    sx_add_attr_int(c, x, "axis", axis);
    return result_rt(x);
}

value b_arange(checker *c, call *k) {
    value *s = &k->args[0], *e = &k->args[1];
    for (int i = 0; i < 2; i++) {
        value *v = i ? e : s;
        if (v->kind == V_ERROR) return v_error();
        if (v->kind != V_INT) {
            sema_error(c, v->loc, "tl.arange bounds must be compile-time constants; '%s' is %s "
                       "(a constexpr parameter or a literal works)", pname(k, (uint32_t)i), v_describe(c, v));
            note_origin(c, v);
            return v_error();
        }
    }
    int64_t lo = s->u.i, hi = e->u.i;
    if (lo < 0 || hi <= lo || hi > INT32_MAX) {
        sema_error(c, k->loc, "tl.arange(%" PRId64 ", %" PRId64 ") needs 0 <= start < end < 2**31",
                   lo, hi);
        return v_error();
    }
    int64_t n = hi - lo;
    if (!tk_is_pow2(n)) {
        int64_t up = 1;
        while (up < n) up <<= 1;
        sema_error(c, k->loc, "tl.arange(%" PRId64 ", %" PRId64 ") has %" PRId64 " elements, not a "
                   "power of two; round the range up to %" PRId64 " and mask the tail", lo, hi, n, up);
        const value *origin = e->origin.src ? e : s;
        if (origin->origin.src && origin->origin_name)
            tk_note(c->diag, origin->origin, "%s", origin->origin_name);
        return v_error();
    }
    if (!check_tile_shape(c, 1, &n, k->loc, e)) return v_error();
    tk_sx *x = builtin_sx(c, k, ty_tile(c, ty_scalar(c, TK_I32), 1, &n));
    sx_add_attr_int(c, x, "start", lo);
    sx_add_attr_int(c, x, "end", hi);
    return result_rt(x);
}

static value make_full(checker *c, call *k, uint32_t rank, const int64_t *shape, const value *fill,
                       tk_dtype d) {
    tk_sx *x = builtin_sx(c, k, ty_tile(c, ty_scalar(c, d), rank, shape));
    x->builtin = TK_B_FULL;
    tk_sx *v;
    if (fill->kind == V_RT) {
        if (ty_rank(fill->u.rt->type) != 0) {
            sema_error(c, fill->loc, "tl.full fills with a scalar, not %s", v_describe(c, fill));
            return v_error();
        }
        v = convert(c, fill->u.rt, d, k->loc);
    } else if (v_is_number(fill)) {
        if (fill->kind == V_FLOAT && !tk_dtype_is_float(d)) {
            sema_error(c, fill->loc, "tl.full: %s does not fit an integer tile of %s",
                       v_describe(c, fill), tk_dtype_name(d));
            return v_error();
        }
        if (fill->kind == V_INT && !tk_dtype_is_float(d) &&
            (fill->u.i < dtype_int_min(d) || (fill->u.i > 0 && (uint64_t)fill->u.i > dtype_int_max(d))))
            tk_warning(c->diag, TK_W_OVERFLOW, fill->loc, "tl.full: %" PRId64 " does not fit in %s and wraps",
                       fill->u.i, tk_dtype_name(d));
        v = to_runtime(c, fill, &d);
    } else {
        if (fill->kind != V_ERROR)
            sema_error(c, fill->loc, "tl.full fills with a number, not %s", v_describe(c, fill));
        return v_error();
    }
    if (!v) return v_error();
    sx_add_arg(c, x, v);
    return result_rt(x);
}

value b_zeros(checker *c, call *k) {
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    tk_dtype d;
    if (!shape_of(c, &k->args[0], "the shape of tl.zeros", &rank, shape)) return v_error();
    if (!dtype_arg(c, k, 1, &d)) return v_error();
    value zero = v_int(k->loc, 0);
    return make_full(c, k, rank, shape, &zero, d);
}

value b_full(checker *c, call *k) {
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    tk_dtype d;
    if (!shape_of(c, &k->args[0], "the shape of tl.full", &rank, shape)) return v_error();
    if (!dtype_arg(c, k, 2, &d)) return v_error();
    return make_full(c, k, rank, shape, &k->args[1], d);
}

value b_zeros_like(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    value zero = v_int(k->loc, 0);
    return make_full(c, k, ty_rank(x->type), x->type->shape, &zero, elem_dtype(x));
}

value b_cdiv(checker *c, call *k) {
    value a = k->args[0], b = k->args[1];
    if (a.kind == V_ERROR || b.kind == V_ERROR) return v_error();
    for (int i = 0; i < 2; i++) {
        const value *v = i ? &b : &a;
        if (v->kind == V_RT && ty_elem_is_pointer(v->u.rt->type)) {
            const tk_sx *x = v->u.rt;
            if (c->frame && c->frame->in_grid && x->kind == TK_SX_VAR)
                sema_error(c, v->loc, "the grid uses the pointer '%s'; grids depend on sizes, not "
                           "addresses", x->var->name);
            else
                sema_error(c, v->loc, "cdiv needs integers, not %s", tk_type_str(c->arena, x->type));
            return v_error();
        }
    }
    if ((a.kind == V_RT && is_float_tile(a.u.rt)) || a.kind == V_FLOAT ||
        (b.kind == V_RT && is_float_tile(b.u.rt)) || b.kind == V_FLOAT) {
        sema_error(c, k->loc, "cdiv needs integers");
        return v_error();
    }
    if (b.kind == V_INT && b.u.i == 0) {
        sema_error(c, b.loc, "cdiv by zero");
        return v_error();
    }
    value sum = arith(c, TK_BINOP_ADD, a, b, k->loc);
    value minus = arith(c, TK_BINOP_SUB, sum, v_int(k->loc, 1), k->loc);
    return arith(c, TK_BINOP_FLOORDIV, minus, b, k->loc);
}

value b_next_power_of_2(checker *c, call *k) {
    int64_t n;
    const value *a = &k->args[0];
    /* of a run-time size, on the host (a heuristic, a grid): the launcher computes it */
    if (a->kind == V_RT && c->frame && c->frame->in_grid && a->u.rt->type->kind == TK_TYPE_SCALAR &&
        tk_dtype_is_int(a->u.rt->type->dtype) && a->u.rt->type->dtype != TK_I1) {
        tk_sx *x = builtin_sx(c, k, a->u.rt->type);
        tk_vec_push(c->arena, &x->args, a->u.rt);
        return v_rt(x);
    }
    if (!const_int(c, k, 0, &n)) return v_error();
    int64_t p = 1;
    while (p < n && p < ((int64_t)1 << 62)) p <<= 1;
    value r = v_int(k->loc, p);
    r.origin = k->args[0].origin;
    r.origin_name = k->args[0].origin_name;
    return r;
}

/* ---- shape manipulation ------------------------------------------------ */

value b_broadcast_to(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!x || !rest_shape(c, k, "the shape of tl.broadcast_to", &rank, shape)) return v_error();
    uint32_t xr = ty_rank(x->type);
    if (xr != rank && xr != 0) {
        sema_error(c, k->loc, "tl.broadcast_to keeps the rank: %s cannot become rank %u",
                   tk_type_str(c->arena, x->type), rank);
        return v_error();
    }
    for (uint32_t i = 0; i < xr; i++) {
        if (x->type->shape[i] != shape[i] && x->type->shape[i] != 1) {
            sema_error(c, k->loc, "shape mismatch: dimension %u of %s is %lld and cannot broadcast "
                       "to %lld", i, tk_type_str(c->arena, x->type), (long long)x->type->shape[i],
                       (long long)shape[i]);
            return v_error();
        }
    }
    return v_rt(broadcast_to_shape(c, x, rank, shape, k->loc));
}

value b_expand_dims(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    uint32_t rank = ty_rank(x->type);
    const value *ax = &k->args[1];
    value single = *ax;
    const value *axes = ax->kind == V_TUPLE ? ax->items : &single;
    uint32_t n = ax->kind == V_TUPLE ? ax->count : 1;
    int64_t shape[TK_MAX_RANK];
    bool inserted[TK_MAX_RANK] = {0};
    uint32_t out_rank = rank + n;
    if (out_rank > TK_MAX_RANK) {
        sema_error(c, k->loc, "too many dimensions");
        return v_error();
    }
    for (uint32_t i = 0; i < n; i++) {
        if (axes[i].kind != V_INT) {
            sema_error(c, ax->loc, "the axis of tl.expand_dims must be a compile-time integer");
            return v_error();
        }
        int64_t a = axes[i].u.i < 0 ? axes[i].u.i + out_rank : axes[i].u.i;
        if (a < 0 || a >= (int64_t)out_rank || inserted[a]) {
            sema_error(c, ax->loc, "axis %" PRId64 " is out of range for tl.expand_dims of a tile "
                       "of rank %u", axes[i].u.i, rank);
            return v_error();
        }
        inserted[a] = true;
    }
    for (uint32_t i = 0, j = 0; i < out_rank; i++) shape[i] = inserted[i] ? 1 : x->type->shape[j++];
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(x->type), out_rank, shape));
    r->builtin = TK_B_RESHAPE;
    sx_add_arg(c, r, x);
    return result_rt(r);
}

value b_reshape(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!x || !rest_shape(c, k, "the shape of tl.reshape", &rank, shape)) return v_error();
    int64_t a = 1, b = 1;
    for (uint32_t i = 0; i < ty_rank(x->type); i++) a *= x->type->shape[i];
    for (uint32_t i = 0; i < rank; i++) b *= shape[i];
    if (a != b) {
        sema_error(c, k->loc, "tl.reshape keeps the number of elements: %s has %lld, the new shape %lld",
                   tk_type_str(c->arena, x->type), (long long)a, (long long)b);
        return v_error();
    }
    bool reorder;
    if (!const_bool(c, k, 1, false, &reorder)) return v_error();
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(x->type), rank, shape));
    sx_add_arg(c, r, x);
    if (reorder) sx_add_attr_int(c, r, "can_reorder", 1);
    return result_rt(r);
}

static value permute_common(checker *c, call *k, bool default_swap) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    uint32_t rank = ty_rank(x->type);
    int64_t perm[TK_MAX_RANK];
    uint32_t n = 0;
    if (k->rest_count == 0) {
        if (!default_swap || rank < 2) {
            sema_error(c, k->loc, "%s needs the new order of the dimensions%s", k->name,
                       rank < 2 ? " (and a tile of rank 2 or more)" : "");
            return v_error();
        }
        for (uint32_t i = 0; i < rank; i++) perm[i] = i;
        perm[rank - 1] = rank - 2;
        perm[rank - 2] = rank - 1;
        n = rank;
    } else {
        value t = k->rest_count == 1 && k->rest[0].kind == V_TUPLE ? k->rest[0] : v_tuple(c, k->loc, k->rest_count);
        if (!(k->rest_count == 1 && k->rest[0].kind == V_TUPLE))
            for (uint32_t i = 0; i < k->rest_count; i++) t.items[i] = k->rest[i];
        n = t.count;
        for (uint32_t i = 0; i < n && i < TK_MAX_RANK; i++) {
            if (t.items[i].kind != V_INT) {
                sema_error(c, k->loc, "%s takes compile-time dimension numbers", k->name);
                return v_error();
            }
            perm[i] = t.items[i].u.i;
        }
    }
    bool seen[TK_MAX_RANK] = {0};
    if (n != rank) {
        sema_error(c, k->loc, "%s needs a permutation of the %u dimensions, got %u", k->name, rank, n);
        return v_error();
    }
    int64_t shape[TK_MAX_RANK];
    for (uint32_t i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) {
            sema_error(c, k->loc, "%s needs a permutation of 0..%u", k->name, rank - 1);
            return v_error();
        }
        seen[perm[i]] = true;
        shape[i] = x->type->shape[perm[i]];
    }
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(x->type), rank, shape));
    r->builtin = TK_B_PERMUTE;
    sx_add_arg(c, r, x);
    for (uint32_t i = 0; i < n; i++) sx_add_attr_int(c, r, "order", perm[i]);
    return result_rt(r);
}

/* tl.gather(src, index, axis): out[.., i, ..] = src[.., index[.., i, ..], ..]
 * along axis; index has src's shape but along axis, where it may be any
 * power of two. The result has index's shape and src's element type. */
value b_gather(checker *c, call *k) {
    tk_sx *src = rt_arg(c, k, 0), *index = rt_arg(c, k, 1);
    if (!src || !index) return v_error();
    uint32_t rank = ty_rank(src->type);
    if (!rank) {
        sema_error(c, k->args[0].loc, "tl.gather's src is a tile, not %s", tk_type_str(c->arena, src->type));
        return v_error();
    }
    if (ty_elem(index->type)->kind != TK_TYPE_SCALAR || !tk_dtype_is_int(elem_dtype(index)) ||
        elem_dtype(index) == TK_I1) {
        sema_error(c, k->args[1].loc, "tl.gather's index is a tile of integers, not %s",
                   tk_type_str(c->arena, index->type));
        return v_error();
    }
    int64_t axis;
    if (!axis_value(c, k, 2, rank, &axis)) return v_error();
    bool same = ty_rank(index->type) == rank;
    for (uint32_t d = 0; same && d < rank; d++) same = d == axis || index->type->shape[d] == src->type->shape[d];
    if (!same) {
        sema_error(c, k->args[1].loc, "tl.gather's index (%s) must have src's rank and shape (%s) but along axis %" PRId64,
                   tk_type_str(c->arena, index->type), tk_type_str(c->arena, src->type), axis);
        return v_error();
    }
    tk_sx *r = builtin_sx(c, k, ty_with_elem(c, index->type, ty_elem(src->type)));
    sx_add_arg(c, r, src);
    sx_add_arg(c, r, index);
    sx_add_attr_int(c, r, "axis", axis);
    return result_rt(r);
}

value b_trans(checker *c, call *k) { return permute_common(c, k, true); }
value b_permute(checker *c, call *k) { return permute_common(c, k, false); }

value b_join(checker *c, call *k) {
    tk_sx *a = rt_arg(c, k, 0), *b = rt_arg(c, k, 1);
    if (!a || !b) return v_error();
    if (!tk_type_equal(ty_elem(a->type), ty_elem(b->type))) {
        sema_error(c, k->loc, "tl.join needs two tiles of one dtype; these are %s and %s",
                   tk_type_str(c->arena, a->type), tk_type_str(c->arena, b->type));
        return v_error();
    }
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!broadcast_shapes(c, a->type, b->type, k->loc, "tl.join", &rank, shape)) return v_error();
    if (rank + 1 > TK_MAX_RANK) return v_error();
    shape[rank] = 2;
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(a->type), rank + 1, shape));
    sx_add_arg(c, r, broadcast_to_shape(c, a, rank, shape, k->loc));
    sx_add_arg(c, r, broadcast_to_shape(c, b, rank, shape, k->loc));
    return result_rt(r);
}

/* tl.ravel: the elements in row-major order, as one dimension */
value b_ravel(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    if (ty_rank(x->type) == 0) {
        sema_error(c, k->args[0].loc, "%s needs a tile, not the scalar %s", k->name, tk_type_str(c->arena, x->type));
        return v_error();
    }
    int64_t n = numel_of(x->type);
    return v_rt(reshaped(c, k, x, 1, &n));
}

/* tl.interleave(a, b): a's and b's elements alternating along the last
 * dimension, which doubles (a join, then the pair dimension folded in) */
value b_interleave(checker *c, call *k) {
    value joined = b_join(c, k);
    if (joined.kind != V_RT) return joined;
    tk_sx *j = joined.u.rt;
    j->builtin = TK_B_JOIN;
    uint32_t rank = j->type->rank - 1;
    if (rank == 0) {
        sema_error(c, k->loc, "tl.interleave needs tiles, not scalars (tl.join pairs scalars)");
        return v_error();
    }
    int64_t shape[TK_MAX_RANK];
    memcpy(shape, j->type->shape, sizeof(int64_t) * rank);
    shape[rank - 1] *= 2;
    return v_rt(reshaped(c, k, j, rank, shape));
}

/* tl.broadcast(a, b): both broadcast to their common shape */
value b_broadcast(checker *c, call *k) {
    tk_sx *a = rt_arg(c, k, 0), *b = rt_arg(c, k, 1);
    if (!a || !b) return v_error();
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!broadcast_shapes(c, a->type, b->type, k->loc, k->name, &rank, shape)) return v_error();
    value t = v_tuple(c, k->loc, 2);
    t.items[0] = v_rt(broadcast_to_shape(c, a, rank, shape, k->loc));
    t.items[1] = v_rt(broadcast_to_shape(c, b, rank, shape, k->loc));
    return t;
}

/* x.item(): the one element of a tile of one element, as a scalar */
value b_item(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    if (ty_rank(x->type) == 0) return v_rt(x);
    if (numel_of(x->type) != 1) {
        sema_error(c, k->args[0].loc, "%s needs a tile of one element, not %s", k->name,
                   tk_type_str(c->arena, x->type));
        return v_error();
    }
    int64_t one = 1;
    tk_sx *r = builtin_sx(c, k, ty_elem(x->type));
    r->builtin = TK_B_MAX;
    sx_add_arg(c, r, reshaped(c, k, x, 1, &one));
    return result_rt(r);
}

/* tl.flip(x, dim=None): x reversed along dim (default the last). With n =
 * 2^k there, index i becomes n - 1 - i, which complements each of its k
 * bits: dim is reshaped into k dimensions of 2 and each is swapped in turn
 * (moved last, split, joined the other way round, moved back). These move
 * no data between threads where the layouts allow, as join and split. */
value b_flip(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    uint32_t rank = ty_rank(x->type);
    if (rank == 0) {
        sema_error(c, k->args[0].loc, "%s needs a tile, not the scalar %s", k->name, tk_type_str(c->arena, x->type));
        return v_error();
    }
    int64_t dim = rank - 1;
    if (given(k, 1) && k->args[1].kind != V_NONE && !axis_value(c, k, 1, rank, &dim)) return v_error();
    int64_t n = x->type->shape[dim];
    uint32_t bits = 0;
    while (((int64_t)1 << bits) < n) bits++;
    if (bits == 0) return v_rt(x);
    if (rank - 1 + bits > TK_MAX_RANK) {
        sema_error(c, k->loc, "%s of a rank-%u tile along a dimension of %" PRId64 " needs more than %d dimensions "
                   "on the way; reshape first", k->name, rank, n, TK_MAX_RANK);
        return v_error();
    }
    const tk_type *elem = ty_elem(x->type);
    uint32_t brank = rank - 1 + bits;
    int64_t bshape[TK_MAX_RANK];
    for (uint32_t i = 0, j = 0; i < rank; i++) {
        if (i == (uint32_t)dim)
            for (uint32_t b = 0; b < bits; b++) bshape[j++] = 2;
        else
            bshape[j++] = x->type->shape[i];
    }
    tk_sx *y = reshaped(c, k, x, brank, bshape);
    int id_permute = TK_B_PERMUTE, id_split = TK_B_SPLIT;
    int id_join = TK_B_JOIN;
    for (uint32_t p = (uint32_t)dim; p < (uint32_t)dim + bits; p++) {
        /* p to the last place, and back */
        int64_t order[TK_MAX_RANK], back[TK_MAX_RANK], pshape[TK_MAX_RANK];
        for (uint32_t i = 0, j = 0; i < brank; i++)
            if (i != p) order[j++] = i;
        order[brank - 1] = p;
        for (uint32_t i = 0; i < brank; i++) back[order[i]] = i;
        for (uint32_t i = 0; i < brank; i++) pshape[i] = bshape[order[i]];
        tk_sx *t = builtin_sx(c, k, ty_tile(c, elem, brank, pshape));
        t->builtin = id_permute;
        sx_add_arg(c, t, y);
        for (uint32_t i = 0; i < brank; i++) sx_add_attr_int(c, t, "order", order[i]);
        const tk_type *half = ty_tile(c, elem, brank - 1, pshape);
        const tk_type *items[2] = {half, half};
        tk_sx *sp = builtin_sx(c, k, ty_tuple(c, 2, items));
        sp->builtin = id_split;
        sx_add_arg(c, sp, t);
        value pair = tuple_result(c, sp);
        if (pair.kind != V_TUPLE) return v_error();
        tk_sx *j = builtin_sx(c, k, ty_tile(c, elem, brank, pshape));
        j->builtin = id_join;
        sx_add_arg(c, j, pair.items[1].u.rt);
        sx_add_arg(c, j, pair.items[0].u.rt);
        y = builtin_sx(c, k, ty_tile(c, elem, brank, bshape));
        y->builtin = id_permute;
        sx_add_arg(c, y, j);
        for (uint32_t i = 0; i < brank; i++) sx_add_attr_int(c, y, "order", back[i]);
    }
    return v_rt(reshaped(c, k, y, rank, x->type->shape));
}

value b_split(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    uint32_t rank = ty_rank(x->type);
    if (rank == 0 || x->type->shape[rank - 1] != 2) {
        sema_error(c, k->args[0].loc, "tl.split needs a tile whose last dimension is 2, not %s",
                   tk_type_str(c->arena, x->type));
        return v_error();
    }
    const tk_type *half = ty_tile(c, ty_elem(x->type), rank - 1, x->type->shape);
    const tk_type *items[2] = {half, half};
    tk_sx *r = builtin_sx(c, k, ty_tuple(c, 2, items));
    sx_add_arg(c, r, x);
    return tuple_result(c, r);
}

value b_cat(checker *c, call *k) {
    tk_sx *a = rt_arg(c, k, 0), *b = rt_arg(c, k, 1);
    if (!a || !b) return v_error();
    bool reorder;
    if (!const_bool(c, k, 2, false, &reorder)) return v_error();
    if (!reorder) {
        sema_error(c, k->loc, "tl.cat may reorder elements: pass can_reorder=True (as Triton requires)");
        return v_error();
    }
    if (!tk_type_equal(a->type, b->type) || ty_rank(a->type) != 1) {
        sema_error(c, k->loc, "tl.cat joins two rank-1 tiles of one type; these are %s and %s",
                   tk_type_str(c->arena, a->type), tk_type_str(c->arena, b->type));
        return v_error();
    }
    int64_t n = a->type->shape[0] * 2;
    if (!check_tile_shape(c, 1, &n, k->loc, NULL)) return v_error();
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(a->type), 1, &n));
    sx_add_arg(c, r, a);
    sx_add_arg(c, r, b);
    return result_rt(r);
}
