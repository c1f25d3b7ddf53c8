/* The reductions and scans: sum, max, min, argmax, argmin, xor_sum,
 * reduce, cumsum, cumprod, associative_scan (with a @func combine_fn), and
 * histogram.
 * Needs: builtin.h's argument readers. Guarantees: the reduced axis and
 * the result's element type as Triton gives them. */
#include "builtin.h"

#include <inttypes.h>
#include <string.h>

static const tk_type *reduced_type(checker *c, const tk_type *t, uint32_t axis, bool all,
                                   bool keep_dims, tk_dtype d) {
    uint32_t rank = ty_rank(t), r = 0;
    int64_t shape[TK_MAX_RANK];
    for (uint32_t i = 0; i < rank; i++) {
        if (all || i == axis) {
            if (keep_dims) shape[r++] = 1;
        } else {
            shape[r++] = t->shape[i];
        }
    }
    return ty_tile(c, ty_scalar(c, d), r, shape);
}

enum reduce_kind { R_SUM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_XOR, R_OR };

/* Triton's result dtype of each reduction (docs/LANGUAGE.md). */
static tk_dtype reduce_dtype(enum reduce_kind kind, tk_dtype d, bool with_indices) {
    unsigned bits = tk_dtype_bits(d);
    switch (kind) {
    case R_SUM:
        if (tk_dtype_is_int(d) && bits < 32) return tk_dtype_is_signed(d) ? TK_I32 : TK_U32;
        return d;
    case R_MAX:
    case R_MIN:
        if (with_indices) return d;
        if (d == TK_BF16) return TK_F32;
        if (bits < 32) return tk_dtype_is_float(d) ? TK_F32 : TK_I32;
        return d;
    case R_ARGMAX:
    case R_ARGMIN: return TK_I32;
    case R_XOR:
    case R_OR: return d;
    }
    return d;
}

static value reduction(checker *c, call *k, enum reduce_kind kind, uint32_t keep_index) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    uint32_t rank = ty_rank(x->type);
    bool all = !given(k, 1) || k->args[1].kind == V_NONE;
    int64_t axis = 0;
    if (kind == R_ARGMAX || kind == R_ARGMIN) {
        if (all) {
            sema_error(c, k->loc, "%s needs axis=", k->name);
            return v_error();
        }
    }
    if (rank == 0) {
        sema_error(c, k->args[0].loc, "%s reduces a tile; this is the scalar %s", k->name,
                   tk_type_str(c->arena, x->type));
        return v_error();
    }
    if (!all && !axis_value(c, k, 1, rank, &axis)) return v_error();
    bool keep_dims = false, with_indices = false;
    if (!const_bool(c, k, keep_index, false, &keep_dims)) return v_error();
    if ((kind == R_MAX || kind == R_MIN) && !const_bool(c, k, 2, false, &with_indices)) return v_error();
    tk_dtype d = elem_dtype(x);
    if ((kind == R_XOR || kind == R_OR) && tk_dtype_is_float(d)) {
        sema_error(c, k->args[0].loc, "%s needs integers, not %s", k->name, tk_dtype_name(d));
        return v_error();
    }
    if (kind == R_SUM && given(k, 3) && k->args[3].kind != V_NONE) {
        tk_dtype want;
        if (!dtype_arg(c, k, 3, &want)) return v_error();
        x = convert(c, x, want, k->loc);
        d = want;
    }
    tk_dtype out = reduce_dtype(kind, d, with_indices);
    if (out != d && kind != R_ARGMAX && kind != R_ARGMIN) x = convert(c, x, out, k->loc);
    const tk_type *rt = reduced_type(c, x->type, (uint32_t)axis, all, keep_dims, out);
    tk_sx *r = builtin_sx(c, k, rt);
    sx_add_arg(c, r, x);
    if (!all) sx_add_attr_int(c, r, "axis", axis);
    if (keep_dims) sx_add_attr_int(c, r, "keep_dims", 1);
    if (with_indices) {
        const tk_type *items[2] = {rt, reduced_type(c, x->type, (uint32_t)axis, all, keep_dims, TK_I32)};
        r->type = ty_tuple(c, 2, items);
        sx_add_attr_int(c, r, "return_indices", 1);
        return tuple_result(c, r);
    }
    return result_rt(r);
}

value b_sum(checker *c, call *k) { return reduction(c, k, R_SUM, 2); }
value b_max(checker *c, call *k) { return reduction(c, k, R_MAX, 4); }
value b_min(checker *c, call *k) { return reduction(c, k, R_MIN, 4); }
value b_argmax(checker *c, call *k) { return reduction(c, k, R_ARGMAX, 3); }
value b_argmin(checker *c, call *k) { return reduction(c, k, R_ARGMIN, 3); }
value b_xor_sum(checker *c, call *k) { return reduction(c, k, R_XOR, 2); }

/* tl.histogram(input, num_bins, mask=None): i32 counts of the values 0 ..
 * num_bins - 1 in a 1-D integer tile; other values (and masked-off
 * elements) are not counted. One op on one operand (the mask folded in);
 * codegen counts with shared-memory atomics. */
value b_histogram(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    if (ty_rank(x->type) != 1 || !tk_dtype_is_int(elem_dtype(x)) || elem_dtype(x) == TK_I1) {
        sema_error(c, k->args[0].loc, "tl.histogram counts a 1-D tile of integers, not %s",
                   tk_type_str(c->arena, x->type));
        return v_error();
    }
    int64_t bins;
    if (!const_int(c, k, 1, &bins)) return v_error();
    if (bins < 1 || !tk_is_pow2(bins) || bins > (1 << 14)) {
        sema_error(c, k->args[1].loc, "tl.histogram's num_bins must be a power of two from 1 to 16384, not %" PRId64,
                   bins);
        return v_error();
    }
    tk_sx *mask = NULL;
    if (given(k, 2) && k->args[2].kind != V_NONE) {
        mask = rt_arg(c, k, 2);
        if (!mask) return v_error();
        if (elem_dtype(mask) != TK_I1) {
            sema_error(c, k->args[2].loc, "tl.histogram's mask must be boolean, not %s",
                       tk_type_str(c->arena, mask->type));
            return v_error();
        }
        uint32_t rank;
        int64_t shape[TK_MAX_RANK];
        if (!broadcast_shapes(c, mask->type, x->type, k->args[2].loc, "tl.histogram's mask", &rank, shape))
            return v_error();
        if (rank != 1 || shape[0] != x->type->shape[0]) {
            sema_error(c, k->args[2].loc, "tl.histogram's mask is %s; the input is %s",
                       tk_type_str(c->arena, mask->type), tk_type_str(c->arena, x->type));
            return v_error();
        }
        mask = broadcast_to_shape(c, mask, 1, x->type->shape, k->args[2].loc);
        /* masked-off elements become a value no bin counts (-1, or num_bins where the type is
           unsigned), so that the op has one operand and one layout */
        tk_dtype d = elem_dtype(x);
        if (!tk_dtype_is_signed(d) && tk_dtype_bits(d) < 32) x = convert(c, x, d = TK_I32, k->loc);
        value none = v_int(k->loc, tk_dtype_is_signed(d) ? -1 : bins);
        tk_sx *other = to_runtime(c, &none, &d);
        if (!other) return v_error();
        tk_sx *w = builtin_sx(c, k, x->type);
        w->builtin = TK_B_WHERE;
        sx_add_arg(c, w, mask);
        sx_add_arg(c, w, x);
        sx_add_arg(c, w, broadcast_to_shape(c, other, 1, x->type->shape, k->loc));
        x = w;
    }
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_scalar(c, TK_I32), 1, &bins));
    sx_add_arg(c, r, x);
    return result_rt(r);
}
/* tl.sort(x, dim=None, descending=False) and tl.topk(x, k, dim=None,
 * descending=True): along the last dimension only, as in Triton; topk
 * keeps the k largest (smallest where not descending), in order (of a
 * tile narrower than 32 bits, as f32 or i32 where k < n). */
static value sort_common(checker *c, call *k, bool topk) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    uint32_t rank = ty_rank(x->type);
    if (!rank || elem_dtype(x) == TK_I1 || (!tk_dtype_is_int(elem_dtype(x)) && !tk_dtype_is_float(elem_dtype(x)))) {
        sema_error(c, k->args[0].loc, "%s sorts a tile of numbers, not %s", k->name, tk_type_str(c->arena, x->type));
        return v_error();
    }
    if (elem_dtype(x) == TK_F8E4M3 || elem_dtype(x) == TK_F8E5M2) {
        sema_error(c, k->args[0].loc, "%s of fp8 is not supported yet; convert to tl.float16 first", k->name);
        return v_error();
    }
    uint32_t dim_arg = topk ? 2 : 1;
    if (given(k, dim_arg) && k->args[dim_arg].kind != V_NONE) {
        int64_t dim;
        if (!axis_value(c, k, dim_arg, rank, &dim)) return v_error();
        if (dim != rank - 1) {
            sema_error(c, k->args[dim_arg].loc, "%s sorts along the last dimension only (%u here), as Triton's; "
                       "tl.trans or tl.permute the tile first", k->name, rank - 1);
            return v_error();
        }
    }
    bool descending;
    if (!const_bool(c, k, dim_arg + 1, topk, &descending)) return v_error();
    int64_t n = x->type->shape[rank - 1], kk = n;
    if (topk) {
        if (!const_int(c, k, 1, &kk)) return v_error();
        if (kk < 1 || kk > n || !tk_is_pow2(kk)) {
            sema_error(c, k->args[1].loc, "tl.topk's k must be a power of two from 1 to the last dimension (%" PRId64
                       "), not %" PRId64, n, kk);
            return v_error();
        }
    }
    /* Triton's topk keeps k of n through tl.max / tl.min, which widen
     * types narrower than 32 bits: its k largest of an f16, bf16 or 8- and
     * 16-bit integer tile are f32 or i32 (the same values) */
    tk_dtype xd = elem_dtype(x);
    if (topk && kk < n && tk_dtype_bits(xd) < 32) x = convert(c, x, tk_dtype_is_float(xd) ? TK_F32 : TK_I32, k->loc);
    int64_t shape[TK_MAX_RANK];
    memcpy(shape, x->type->shape, sizeof(int64_t) * rank);
    shape[rank - 1] = kk;
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(x->type), rank, shape));
    sx_add_arg(c, r, x);
    sx_add_attr_int(c, r, "descending", descending);
    return result_rt(r);
}

value b_sort(checker *c, call *k) { return sort_common(c, k, false); }
value b_topk(checker *c, call *k) { return sort_common(c, k, true); }

value b_reduce_or(checker *c, call *k) { return reduction(c, k, R_OR, 2); }

/* Specializes a combine function for (dtype, dtype) -> dtype without
 * emitting a call, and returns its instance. */
static const tk_sema_func *combine_fn(checker *c, call *k, uint32_t i, tk_dtype d) {
    value *f = &k->args[i];
    if (f->kind != V_FUNC) {
        if (f->kind != V_ERROR)
            sema_error(c, f->loc, "combine_fn of %s must be a @func taking two scalars, not %s",
                       k->name, v_describe(c, f));
        return NULL;
    }
    if (!can_emit(c, k->loc)) return NULL;
    tk_ss_list sink = {0};
    tk_ss_list *out = c->frame->out;
    c->frame->out = &sink;
    value args[2];
    for (int j = 0; j < 2; j++) {
        tk_sx *p = sx_new(c, TK_SX_CONST, ty_scalar(c, d), k->loc);
        args[j] = v_rt(p);
    }
    value r = call_func(c, f->u.def, args, 2, NULL, NULL, NULL, 0, k->loc);
    c->frame->out = out;
    if (r.kind == V_ERROR || sink.len == 0) return NULL;
    tk_ss *s = sink.data[sink.len - 1];
    const tk_sema_func *fn = s->value && s->value->kind == TK_SX_CALL ? s->value->func : NULL;
    if (!fn || !tk_type_equal(fn->result, ty_scalar(c, d))) {
        sema_error(c, f->loc, "combine_fn '%s' must return one %s for two %s arguments",
                   f->u.def->name, tk_dtype_name(d), tk_dtype_name(d));
        return NULL;
    }
    return fn;
}

/* Specializes a combine function of 2n scalars (a's n values, then b's)
 * returning n, for a reduction over a tuple of n tiles. */
static const tk_sema_func *combine_fn_n(checker *c, call *k, uint32_t i, const tk_dtype *ds, uint32_t n) {
    value *f = &k->args[i];
    if (f->kind != V_FUNC) {
        if (f->kind != V_ERROR)
            sema_error(c, f->loc, "combine_fn of %s must be a @func taking %u scalars, not %s", k->name, 2 * n,
                       v_describe(c, f));
        return NULL;
    }
    if (!can_emit(c, k->loc)) return NULL;
    tk_ss_list sink = {0};
    tk_ss_list *out = c->frame->out;
    c->frame->out = &sink;
    value args[16];
    for (uint32_t j = 0; j < 2 * n; j++) args[j] = v_rt(sx_new(c, TK_SX_CONST, ty_scalar(c, ds[j % n]), k->loc));
    value r = call_func(c, f->u.def, args, 2 * n, NULL, NULL, NULL, 0, k->loc);
    c->frame->out = out;
    if (r.kind == V_ERROR) return NULL;
    const tk_sema_func *fn = NULL;
    for (uint32_t j = sink.len; j-- > 0 && !fn;) {
        const tk_ss *st = sink.data[j];
        if (st->value && st->value->kind == TK_SX_CALL) fn = st->value->func;
    }
    bool ok = fn && fn->result->kind == TK_TYPE_TUPLE && fn->result->count == n;
    for (uint32_t j = 0; ok && j < n; j++) ok = tk_type_equal(fn->result->items[j], ty_scalar(c, ds[j]));
    if (!ok) {
        sema_error(c, f->loc, "combine_fn '%s' must return %u scalars of the tiles' dtypes for %u arguments",
                   f->u.def->name, n, 2 * n);
        return NULL;
    }
    return fn;
}

/* tl.reduce over a tuple of tiles of one shape: one reduction whose
 * combine function takes and returns a value of each (Welford, argmax
 * with its index); a tuple of results. */
/* The tiles of tl.reduce's or tl.associative_scan's first argument, a
 * tuple of 1 to 8 tiles of one shape, and their dtypes. */
static bool tuple_of_tiles(checker *c, call *k, tk_sx **xs, tk_dtype *ds) {
    value *t = &k->args[0];
    if (t->count < 1 || t->count > 8) {
        sema_error(c, t->loc, "%s takes a tile or a tuple of 1 to 8 tiles", k->name);
        return false;
    }
    for (uint32_t j = 0; j < t->count; j++) {
        value *v = &t->items[j];
        xs[j] = v->kind == V_RT ? v->u.rt : NULL;
        if (!xs[j] || ty_elem(xs[j]->type)->kind != TK_TYPE_SCALAR || ty_rank(xs[j]->type) == 0 ||
            (j && !tk_type_equal(ty_with_elem(c, xs[j]->type, ty_elem(xs[0]->type)), xs[0]->type))) {
            sema_error(c, v->loc, "the tiles %s combines must have one shape; this is %s", k->name,
                       v_describe(c, v));
            return false;
        }
        ds[j] = elem_dtype(xs[j]);
    }
    return true;
}

static value reduce_tuple(checker *c, call *k) {
    uint32_t n = k->args[0].count;
    tk_sx *xs[8];
    tk_dtype ds[8];
    if (!tuple_of_tiles(c, k, xs, ds)) return v_error();
    uint32_t rank = ty_rank(xs[0]->type);
    bool all = k->args[1].kind == V_NONE;
    int64_t axis = 0;
    bool keep_all = false;
    if (all && rank != 1) {
        /* over every dimension: the tiles flattened first (keep_dims
         * then reshapes the scalars back) */
        if (!const_bool(c, k, 3, false, &keep_all)) return v_error();
        int64_t numel = numel_of(xs[0]->type);
        for (uint32_t j = 0; j < n; j++) xs[j] = reshaped(c, k, xs[j], 1, &numel);
        rank = 1;
    }
    if (!all && !axis_value(c, k, 1, rank, &axis)) return v_error();
    bool keep_dims;
    if (!const_bool(c, k, 3, false, &keep_dims)) return v_error();
    const tk_sema_func *fn = combine_fn_n(c, k, 2, ds, n);
    if (!fn) return v_error();
    if (keep_all) keep_dims = false;
    const tk_type *items[8];
    for (uint32_t j = 0; j < n; j++) items[j] = reduced_type(c, xs[j]->type, (uint32_t)axis, all, keep_dims, ds[j]);
    tk_sx *r = builtin_sx(c, k, ty_tuple(c, n, items));
    r->func = fn;
    const tk_type *in_types[8];
    for (uint32_t j = 0; j < n; j++) in_types[j] = xs[j]->type;
    tk_sx *tup = sx_new(c, TK_SX_TUPLE, ty_tuple(c, n, in_types), k->loc);
    for (uint32_t j = 0; j < n; j++) sx_add_arg(c, tup, xs[j]);
    sx_add_arg(c, r, tup);
    if (!all) sx_add_attr_int(c, r, "axis", axis);
    if (keep_dims) sx_add_attr_int(c, r, "keep_dims", 1);
    value res = tuple_result(c, r);
    if (!keep_all || res.kind != V_TUPLE) return res;
    /* keep_dims over every dimension: each scalar as a tile of ones */
    int64_t ones[TK_MAX_RANK];
    uint32_t orank = ty_rank(k->args[0].items[0].u.rt->type);
    for (uint32_t d = 0; d < orank; d++) ones[d] = 1;
    for (uint32_t j = 0; j < n; j++)
        res.items[j] = v_rt(broadcast_to_shape(c, res.items[j].u.rt, orank, ones, k->loc));
    return res;
}

value b_reduce(checker *c, call *k) {
    if (k->args[0].kind == V_TUPLE) return reduce_tuple(c, k);
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    uint32_t rank = ty_rank(x->type);
    bool all = k->args[1].kind == V_NONE;
    int64_t axis = 0;
    if (rank == 0) {
        sema_error(c, k->args[0].loc, "tl.reduce reduces a tile, not a scalar");
        return v_error();
    }
    if (!all && !axis_value(c, k, 1, rank, &axis)) return v_error();
    bool keep_dims;
    if (!const_bool(c, k, 3, false, &keep_dims)) return v_error();
    const tk_sema_func *fn = combine_fn(c, k, 2, elem_dtype(x));
    if (!fn) return v_error();
    tk_sx *r = builtin_sx(c, k, reduced_type(c, x->type, (uint32_t)axis, all, keep_dims, elem_dtype(x)));
    r->func = fn;
    sx_add_arg(c, r, x);
    if (!all) sx_add_attr_int(c, r, "axis", axis);
    if (keep_dims) sx_add_attr_int(c, r, "keep_dims", 1);
    return result_rt(r);
}

static value scan(checker *c, call *k, bool is_sum, bool generic) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    uint32_t rank = ty_rank(x->type);
    if (rank == 0) {
        sema_error(c, k->args[0].loc, "%s scans a tile, not a scalar", k->name);
        return v_error();
    }
    int64_t axis = 0;
    if (given(k, 1) && !axis_value(c, k, 1, rank, &axis)) return v_error();
    bool reverse;
    if (!const_bool(c, k, generic ? 3 : 2, false, &reverse)) return v_error();
    tk_dtype d = elem_dtype(x);
    const tk_sema_func *fn = NULL;
    if (generic) {
        fn = combine_fn(c, k, 2, d);
        if (!fn) return v_error();
    } else {
        if (d == TK_BF16) d = TK_F32;
        if (is_sum) {
            if (given(k, 3) && k->args[3].kind != V_NONE && !dtype_arg(c, k, 3, &d)) return v_error();
            d = reduce_dtype(R_SUM, d, false);
        }
        x = convert(c, x, d, k->loc);
    }
    tk_sx *r = builtin_sx(c, k, x->type);
    r->func = fn;
    sx_add_arg(c, r, x);
    sx_add_attr_int(c, r, "axis", axis);
    if (reverse) sx_add_attr_int(c, r, "reverse", 1);
    return result_rt(r);
}

value b_cumsum(checker *c, call *k) { return scan(c, k, true, false); }
value b_cumprod(checker *c, call *k) { return scan(c, k, false, false); }
/* tl.associative_scan over a tuple of tiles of one shape: one scan whose
 * combine function takes and returns a value of each (a linear recurrence
 * as (a, b) pairs); a tuple of results. */
static value scan_tuple(checker *c, call *k) {
    uint32_t n = k->args[0].count;
    tk_sx *xs[8];
    tk_dtype ds[8];
    const tk_type *types[8];
    if (!tuple_of_tiles(c, k, xs, ds)) return v_error();
    for (uint32_t j = 0; j < n; j++) types[j] = xs[j]->type;
    int64_t axis = 0;
    if (given(k, 1) && !axis_value(c, k, 1, ty_rank(xs[0]->type), &axis)) return v_error();
    bool reverse;
    if (!const_bool(c, k, 3, false, &reverse)) return v_error();
    const tk_sema_func *fn = combine_fn_n(c, k, 2, ds, n);
    if (!fn) return v_error();
    tk_sx *r = builtin_sx(c, k, ty_tuple(c, n, types));
    r->func = fn;
    tk_sx *tup = sx_new(c, TK_SX_TUPLE, ty_tuple(c, n, types), k->loc);
    for (uint32_t j = 0; j < n; j++) sx_add_arg(c, tup, xs[j]);
    sx_add_arg(c, r, tup);
    sx_add_attr_int(c, r, "axis", axis);
    if (reverse) sx_add_attr_int(c, r, "reverse", 1);
    return tuple_result(c, r);
}

value b_associative_scan(checker *c, call *k) {
    if (k->args[0].kind == V_TUPLE) return scan_tuple(c, k);
    return scan(c, k, false, true);
}
