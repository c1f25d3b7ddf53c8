/* The arithmetic builtins: dot, where, maximum and minimum, clamp, the
 * float functions (exp ... sigmoid), abs, fma, umulhi, fdiv, softmax,
 * libdevice's functions, inline_asm_elementwise, and cast/to. Needs:
 * builtin.h's argument readers, types.c's promotion. Guarantees: operands
 * reach the typed call promoted as Triton promotes them. */
#include "builtin.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- dot -------------------------------------------------------------- */

value b_dot(checker *c, call *k) {
    tk_sx *a = rt_arg(c, k, 0), *b = rt_arg(c, k, 1);
    if (!a || !b) return v_error();
    uint32_t ra = ty_rank(a->type), rb = ty_rank(b->type);
    if (ra < 2 || ra > 3 || ra != rb) {
        sema_error(c, k->loc, "tl.dot multiplies two tiles of rank 2 (or 3, batched) of equal rank; "
                   "these are %s and %s", tk_type_str(c->arena, a->type), tk_type_str(c->arena, b->type));
        return v_error();
    }
    if (!elem_is_scalar(c, k, a, 0) || !elem_is_scalar(c, k, b, 1)) return v_error();
    const int64_t *sa = a->type->shape, *sb = b->type->shape;
    uint32_t m = ra - 2;
    if (ra == 3 && sa[0] != sb[0]) {
        sema_error(c, k->loc, "tl.dot batch sizes differ: %lld and %lld", (long long)sa[0], (long long)sb[0]);
        return v_error();
    }
    if (sa[m + 1] != sb[m]) {
        sema_error(c, k->loc, "tl.dot inner dimensions differ: %s @ %s (K is %lld on the left, %lld "
                   "on the right)", tk_type_str(c->arena, a->type), tk_type_str(c->arena, b->type),
                   (long long)sa[m + 1], (long long)sb[m]);
        return v_error();
    }
    tk_dtype da = elem_dtype(a), db = elem_dtype(b);
    bool f8a = da == TK_F8E4M3 || da == TK_F8E5M2, f8b = db == TK_F8E4M3 || db == TK_F8E5M2;
    if (!(da == db || (f8a && f8b))) {
        sema_error(c, k->loc, "tl.dot operands must have the same dtype; these are %s and %s "
                   "(convert one with .to())", tk_dtype_name(da), tk_dtype_name(db));
        return v_error();
    }
    if (!(da == TK_I8 || da == TK_F16 || da == TK_BF16 || da == TK_F32 || da == TK_F64 || f8a)) {
        sema_error(c, k->loc, "tl.dot does not take %s operands; use i8, f16, bf16, f32, f64 or fp8",
                   tk_dtype_name(da));
        return v_error();
    }
    int64_t kdim = sa[m + 1], min_k = tk_dtype_bits(da) == 8 ? 32 : 16;
    if (kdim < min_k) {
        sema_error(c, k->loc, "tl.dot needs K >= %lld for %s operands; K is %lld here",
                   (long long)min_k, tk_dtype_name(da), (long long)kdim);
        return v_error();
    }
    tk_dtype out = TK_F32;
    if (given(k, 6) && k->args[6].kind != V_NONE) {
        if (!dtype_arg(c, k, 6, &out)) return v_error();
        if (out != TK_F32 && out != TK_F16 && out != TK_I32 && out != TK_F64) {
            sema_error(c, k->args[6].loc, "out_dtype of tl.dot is f32 or f16, not %s", tk_dtype_name(out));
            return v_error();
        }
    }
    if (da == TK_I8) out = TK_I32;
    else if (da == TK_F64) out = TK_F64;
    else if (da == TK_F32 || da == TK_BF16) out = TK_F32;
    int64_t shape[3];
    uint32_t r = 0;
    if (ra == 3) shape[r++] = sa[0];
    shape[r++] = sa[m];
    shape[r++] = sb[m + 1];
    const tk_type *rt = ty_tile(c, ty_scalar(c, out), r, shape);
    tk_sx *x = builtin_sx(c, k, rt);
    sx_add_arg(c, x, a);
    sx_add_arg(c, x, b);
    if (given(k, 2) && k->args[2].kind != V_NONE) {
        tk_sx *acc = rt_arg(c, k, 2);
        if (!acc) return v_error();
        if (!tk_type_equal(acc->type, rt)) {
            bool f16_acc = ty_elem(acc->type)->kind == TK_TYPE_SCALAR && elem_dtype(acc) == TK_F16 &&
                           out == TK_F32 && (da == TK_F16 || f8a);
            sema_error(c, k->args[2].loc, "the accumulator of tl.dot must be %s (the product's "
                       "shape and dtype), not %s%s", tk_type_str(c->arena, rt),
                       tk_type_str(c->arena, acc->type),
                       f16_acc ? "; for an f16 accumulator pass out_dtype=tl.float16" : "");
            return v_error();
        }
        sx_add_arg(c, x, acc);
    }
    static const char *const precisions[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"};
    const char *prec;
    if (!const_str(c, k, 3, precisions, 5, &prec)) return v_error();
    bool allow_tf32 = true;
    if (!const_bool(c, k, 4, true, &allow_tf32)) return v_error();
    if (!*prec) prec = allow_tf32 ? "tf32" : "ieee";
    if (da == TK_F32) sx_add_attr_text(c, x, "precision", prec);
    if (given(k, 5) && k->args[5].kind != V_NONE) {
        int64_t n;
        if (!const_int(c, k, 5, &n)) return v_error();
        sx_add_attr_int(c, x, "max_num_imprecise_acc", n);
    }
    return result_rt(x);
}

/* ---- element-wise ---------------------------------------------------- */

/* x and y with full promotion (constants take their own dtype); with
 * bf16_to_f32, each bf16 operand is f32 before the two are promoted, as
 * Triton's maximum and minimum convert them (f16 with bf16 is f32). */
static bool promote_pair(checker *c, call *k, uint32_t ia, uint32_t ib, bool bf16_to_f32,
                         tk_sx **xa, tk_sx **xb, uint32_t *rank, int64_t *shape) {
    tk_sx *a = rt_arg(c, k, ia), *b = rt_arg(c, k, ib);
    if (!a || !b || !elem_is_scalar(c, k, a, ia) || !elem_is_scalar(c, k, b, ib)) return false;
    const char *err;
    tk_dtype da = elem_dtype(a), db = elem_dtype(b);
    if (bf16_to_f32 && da == TK_BF16) da = TK_F32;
    if (bf16_to_f32 && db == TK_BF16) db = TK_F32;
    tk_dtype d = promote_dtypes(da, false, db, false, false, &err);
    if (err) {
        sema_error(c, k->loc, "%s: %s", k->name, err);
        return false;
    }
    if (!broadcast_shapes(c, a->type, b->type, k->loc, k->name, rank, shape)) return false;
    *xa = broadcast_to_shape(c, convert(c, a, d, k->loc), *rank, shape, k->loc);
    *xb = broadcast_to_shape(c, convert(c, b, d, k->loc), *rank, shape, k->loc);
    return true;
}

static const char *const propagate_nan[] = {"", "none", "all", "NONE", "ALL"};

value b_maximum(checker *c, call *k) {
    tk_sx *a, *b;
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!promote_pair(c, k, 0, 1, true, &a, &b, &rank, shape)) return v_error();
    const char *nan = "";
    if (given(k, 2) && k->args[2].kind == V_STR && !const_str(c, k, 2, propagate_nan, 5, &nan)) return v_error();
    tk_sx *x = builtin_sx(c, k, a->type);
    sx_add_arg(c, x, a);
    sx_add_arg(c, x, b);
    if (*nan) sx_add_attr_text(c, x, "propagate_nan", nan);
    return result_rt(x);
}

value b_clamp(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0), *lo = rt_arg(c, k, 1), *hi = rt_arg(c, k, 2);
    if (!x || !lo || !hi) return v_error();
    for (int i = 0; i < 3; i++) {
        tk_sx *v = i == 0 ? x : i == 1 ? lo : hi;
        if (!is_float_tile(v)) {
            sema_error(c, k->args[i].loc, "tl.clamp works on floating-point values; '%s' is %s",
                       pname(k, (uint32_t)i), tk_type_str(c->arena, v->type));
            return v_error();
        }
    }
    /* as Triton: bf16 goes to f32, then x, min and max promote as tensors
     * (bounds written as numbers are f32), so clamp(f16_tile, 0.0, 1.0) is f32 */
    tk_dtype ds[3] = {elem_dtype(x), elem_dtype(lo), elem_dtype(hi)};
    for (int i = 0; i < 3; i++)
        if (ds[i] == TK_BF16) ds[i] = TK_F32;
    const char *err;
    tk_dtype d = promote_dtypes(ds[0], false, promote_dtypes(ds[1], false, ds[2], false, false, &err), false,
                                false, &err);
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!broadcast_shapes(c, x->type, lo->type, k->loc, "tl.clamp", &rank, shape)) return v_error();
    const tk_type *t1 = ty_tile(c, ty_scalar(c, d), rank, shape);
    if (!broadcast_shapes(c, t1, hi->type, k->loc, "tl.clamp", &rank, shape)) return v_error();
    const char *nan = "";
    if (given(k, 3) && k->args[3].kind == V_STR && !const_str(c, k, 3, propagate_nan, 5, &nan)) return v_error();
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_scalar(c, d), rank, shape));
    sx_add_arg(c, r, broadcast_to_shape(c, convert(c, x, d, k->loc), rank, shape, k->loc));
    sx_add_arg(c, r, broadcast_to_shape(c, convert(c, lo, d, k->loc), rank, shape, k->loc));
    sx_add_arg(c, r, broadcast_to_shape(c, convert(c, hi, d, k->loc), rank, shape, k->loc));
    if (*nan) sx_add_attr_text(c, r, "propagate_nan", nan);
    return result_rt(r);
}

/* tl.logical_and / tl.logical_or: elementwise on booleans (Triton bitcasts
 * its operands to int1, so anything wider is refused there too) */
value b_logical(checker *c, call *k) {
    for (uint32_t i = 0; i < 2; i++) {
        const value *v = &k->args[i];
        bool boolean = v->kind == V_BOOL || (v->kind == V_RT && elem_dtype(v->u.rt) == TK_I1);
        if (!boolean) {
            sema_error(c, v->loc, "%s takes booleans (int1); this is %s (x != 0 makes one)", k->name,
                       v_describe(c, v));
            return v_error();
        }
    }
    return arith(c, k->id == TK_B_LOGICAL_AND ? TK_BINOP_AND : TK_BINOP_OR, k->args[0], k->args[1], k->loc);
}

value b_where(checker *c, call *k) {
    tk_sx *cond = rt_arg(c, k, 0);
    if (!cond) return v_error();
    if (ty_elem(cond->type)->kind != TK_TYPE_SCALAR) {
        sema_error(c, k->args[0].loc, "the condition of tl.where must be boolean, not %s",
                   tk_type_str(c->arena, cond->type));
        return v_error();
    }
    if (elem_dtype(cond) != TK_I1) {
        tk_warning(c->diag, TK_W_NON_BOOL_CONDITION, k->args[0].loc, "the condition of tl.where is %s, not boolean; it is "
                   "compared with zero", tk_type_str(c->arena, cond->type));
        value zero = v_int(k->loc, 0);
        value r = arith(c, TK_BINOP_NE, v_rt(cond), zero, k->args[0].loc);
        if (r.kind == V_ERROR) return r;
        cond = r.u.rt;
    }
    /* x and y follow arithmetic promotion, constants adapting */
    value *vx = &k->args[1], *vy = &k->args[2];
    for (int i = 1; i <= 2; i++) {
        const value *v = &k->args[i];
        if (v->kind != V_RT && !v_is_number(v)) {
            sema_error(c, v->loc, "'%s' of tl.where must be a tile or number, not %s", pname(k, (uint32_t)i),
                       v_describe(c, v));
            return v_error();
        }
    }
    bool ptr_x = vx->kind == V_RT && ty_elem_is_pointer(vx->u.rt->type);
    bool ptr_y = vy->kind == V_RT && ty_elem_is_pointer(vy->u.rt->type);
    tk_sx *a, *b;
    if (ptr_x || ptr_y) {
        if (!ptr_x || !ptr_y || !tk_type_equal(ty_elem(vx->u.rt->type), ty_elem(vy->u.rt->type))) {
            sema_error(c, k->loc, "tl.where between pointers needs both sides to point to the same type");
            return v_error();
        }
        a = vx->u.rt;
        b = vy->u.rt;
    } else {
        tk_dtype dx, dy;
        bool lx = vx->kind != V_RT, ly = vy->kind != V_RT;
        if (lx) literal_dtype(vx, &dx); else dx = ty_elem(vx->u.rt->type)->dtype;
        if (ly) literal_dtype(vy, &dy); else dy = ty_elem(vy->u.rt->type)->dtype;
        const char *err;
        tk_dtype d = promote_dtypes(dx, lx, dy, ly, false, &err);
        if (err) {
            sema_error(c, k->loc, "tl.where: %s", err);
            return v_error();
        }
        a = lx ? to_runtime(c, vx, &d) : convert(c, vx->u.rt, d, k->loc);
        b = ly ? to_runtime(c, vy, &d) : convert(c, vy->u.rt, d, k->loc);
    }
    if (!a || !b) return v_error();
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!broadcast_shapes(c, cond->type, a->type, k->loc, "tl.where", &rank, shape)) return v_error();
    const tk_type *t1 = ty_tile(c, ty_elem(a->type), rank, shape);
    if (!broadcast_shapes(c, t1, b->type, k->loc, "tl.where", &rank, shape)) return v_error();
    tk_sx *x = builtin_sx(c, k, ty_tile(c, ty_elem(a->type), rank, shape));
    sx_add_arg(c, x, broadcast_to_shape(c, cond, rank, shape, k->loc));
    sx_add_arg(c, x, broadcast_to_shape(c, a, rank, shape, k->loc));
    sx_add_arg(c, x, broadcast_to_shape(c, b, rank, shape, k->loc));
    return result_rt(x);
}

/* exp, log, sqrt, ...: f32 and f64 only, as in Triton */
static value float_math(checker *c, call *k, bool f32_only) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    tk_dtype d = elem_dtype(x);
    if (!(d == TK_F32 || (d == TK_F64 && !f32_only))) {
        if (tk_dtype_is_float(d))
            sema_error(c, k->args[0].loc, "%s computes in %s; this is %s: convert with "
                       ".to(tl.float32) first", k->name, f32_only ? "f32" : "f32 or f64",
                       tk_type_str(c->arena, x->type));
        else
            sema_error(c, k->args[0].loc, "%s needs floating-point values, not %s; convert with "
                       ".to(tl.float32)", k->name, tk_type_str(c->arena, x->type));
        return v_error();
    }
    tk_sx *r = builtin_sx(c, k, x->type);
    sx_add_arg(c, r, x);
    return result_rt(r);
}

value b_float_math(checker *c, call *k) { return float_math(c, k, false); }
value b_f32_math(checker *c, call *k) { return float_math(c, k, true); }

value b_abs(checker *c, call *k) {
    value *v = &k->args[0];
    if (v_is_number(v)) {
        if (v->kind == V_FLOAT) return v_float(v->loc, fabs(v->u.f));
        if (v->u.i == INT64_MIN) {
            sema_error(c, k->loc, "constant expression overflows 64 bits");
            return v_error();
        }
        return v_int(v->loc, v->u.i < 0 ? -v->u.i : v->u.i);
    }
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    tk_sx *r = builtin_sx(c, k, x->type);
    sx_add_arg(c, r, x);
    return result_rt(r);
}

value b_fma(checker *c, call *k) {
    tk_sx *a, *b;
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!promote_pair(c, k, 0, 1, false, &a, &b, &rank, shape)) return v_error();
    tk_sx *z = rt_arg(c, k, 2);
    if (!z) return v_error();
    if (!is_float_tile(a) || !is_float_tile(z)) {
        sema_error(c, k->loc, "tl.fma needs floating-point operands");
        return v_error();
    }
    const char *err;
    tk_dtype d = promote_dtypes(elem_dtype(a), false, elem_dtype(z), false, false, &err);
    const tk_type *t1 = a->type;
    if (!broadcast_shapes(c, t1, z->type, k->loc, "tl.fma", &rank, shape)) return v_error();
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_scalar(c, d), rank, shape));
    sx_add_arg(c, r, broadcast_to_shape(c, convert(c, a, d, k->loc), rank, shape, k->loc));
    sx_add_arg(c, r, broadcast_to_shape(c, convert(c, b, d, k->loc), rank, shape, k->loc));
    sx_add_arg(c, r, broadcast_to_shape(c, convert(c, z, d, k->loc), rank, shape, k->loc));
    return result_rt(r);
}

value b_umulhi(checker *c, call *k) {
    tk_sx *a, *b;
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!promote_pair(c, k, 0, 1, false, &a, &b, &rank, shape)) return v_error();
    tk_dtype d = elem_dtype(a);
    if (d != TK_I32 && d != TK_U32 && d != TK_I64 && d != TK_U64) {
        sema_error(c, k->loc, "tl.umulhi takes 32- or 64-bit integers, not %s", tk_dtype_name(d));
        return v_error();
    }
    tk_sx *r = builtin_sx(c, k, a->type);
    sx_add_arg(c, r, a);
    sx_add_arg(c, r, b);
    return result_rt(r);
}

value b_fdiv(checker *c, call *k) {
    tk_sx *a = rt_arg(c, k, 0), *b = rt_arg(c, k, 1);
    if (!a || !b) return v_error();
    if (!is_float_tile(a) || !is_float_tile(b) || elem_dtype(a) != elem_dtype(b)) {
        sema_error(c, k->loc, "%s needs two floating-point operands of the same dtype; these are "
                   "%s and %s", k->name, tk_type_str(c->arena, a->type), tk_type_str(c->arena, b->type));
        return v_error();
    }
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!broadcast_shapes(c, a->type, b->type, k->loc, k->name, &rank, shape)) return v_error();
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(a->type), rank, shape));
    sx_add_arg(c, r, broadcast_to_shape(c, a, rank, shape, k->loc));
    sx_add_arg(c, r, broadcast_to_shape(c, b, rank, shape, k->loc));
    return result_rt(r);
}

value b_softmax(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    if (!is_float_tile(x) || ty_rank(x->type) == 0) {
        sema_error(c, k->args[0].loc, "tl.softmax needs a floating-point tile, not %s",
                   tk_type_str(c->arena, x->type));
        return v_error();
    }
    int64_t dim = ty_rank(x->type) - 1;
    if (given(k, 1) && k->args[1].kind != V_NONE && !axis_value(c, k, 1, ty_rank(x->type), &dim))
        return v_error();
    tk_dtype d = elem_dtype(x);
    if (d == TK_F16 || d == TK_BF16) d = TK_F32;
    x = convert(c, x, d, k->loc);
    tk_sx *r = builtin_sx(c, k, x->type);
    sx_add_arg(c, r, x);
    sx_add_attr_int(c, r, "axis", dim);
    return result_rt(r);
}

/* ---- libdevice (libdevice.def) ---------------------------------------- */

enum { TO_I1 = 1, AS_IS = 0 };
#define NONE TK_DTYPE_COUNT

static const struct libdevice_overload {
    const char *name, *symbol;
    tk_dtype result, args[3];
    bool to_i1;
} libdevice_overloads[] = {
#define LIBDEVICE_FN(name, arity)
#define LIBDEVICE_OVERLOAD(name, symbol, result, a0, a1, a2, post) \
    {#name, #symbol, TK_##result, {TK_##a0, TK_##a1, TK_##a2}, post},
#define TK_NONE NONE
#include "libdevice.def"
#undef TK_NONE
#undef LIBDEVICE_FN
#undef LIBDEVICE_OVERLOAD
};

static const struct libdevice_overload *libdevice_match(const char *name, const tk_dtype *args, uint32_t n) {
    for (size_t i = 0; i < sizeof libdevice_overloads / sizeof libdevice_overloads[0]; i++) {
        const struct libdevice_overload *o = &libdevice_overloads[i];
        if (strcmp(o->name, name) != 0) continue;
        bool same = true;
        for (uint32_t a = 0; a < 3; a++) same &= a < n ? o->args[a] == args[a] : o->args[a] == NONE;
        if (same) return o;
    }
    return NULL;
}

/* libdevice.NAME(args) as Triton's extern_elementwise: the overload whose
 * argument dtypes match exactly; else the arguments promoted together (as
 * an arithmetic operator would) must match one. Numbers are f32 or i32.
 * The arguments broadcast to one shape; the result has it. */
value b_libdevice(checker *c, call *k) {
    const char *name = tk_sema_builtin_name(k->id);
    uint32_t n = k->nparams < 3 ? k->nparams : 3;
    tk_sx *xs[3] = {NULL, NULL, NULL};
    tk_dtype ds[3] = {TK_F32, TK_F32, TK_F32};
    if (n == 0) return v_error();
    for (uint32_t i = 0; i < n; i++) {
        xs[i] = rt_arg(c, k, i);
        if (!xs[i] || !elem_is_scalar(c, k, xs[i], i)) return v_error();
        ds[i] = elem_dtype(xs[i]);
    }
    const struct libdevice_overload *o = libdevice_match(name, ds, n);
    if (!o) {
        const char *err = NULL;
        tk_dtype common = ds[0];
        for (uint32_t i = 1; i < n && !err; i++) common = promote_dtypes(common, false, ds[i], false, false, &err);
        tk_dtype all[3] = {common, common, common};
        if (!err) o = libdevice_match(name, all, n);
    }
    if (!o) {
        char want[512] = "";
        size_t len = 0;
        for (size_t i = 0; i < sizeof libdevice_overloads / sizeof libdevice_overloads[0] && len < 400; i++) {
            const struct libdevice_overload *q = &libdevice_overloads[i];
            if (strcmp(q->name, name) != 0) continue;
            len += (size_t)snprintf(want + len, sizeof want - len, "%s(", len ? ", " : "");
            for (uint32_t a = 0; a < 3 && q->args[a] != NONE; a++)
                len += (size_t)snprintf(want + len, sizeof want - len, "%s%s", a ? ", " : "", tk_dtype_name(q->args[a]));
            len += (size_t)snprintf(want + len, sizeof want - len, ")");
        }
        char got[128] = "";
        size_t glen = 0;
        for (uint32_t i = 0; i < n; i++)
            glen += (size_t)snprintf(got + glen, sizeof got - glen, "%s%s", i ? ", " : "", tk_dtype_name(ds[i]));
        sema_error(c, k->loc, "%s takes %s, not (%s); convert with .to()", k->name, want, got);
        return v_error();
    }
    uint32_t rank = ty_rank(xs[0]->type);
    int64_t shape[TK_MAX_RANK];
    if (rank) memcpy(shape, xs[0]->type->shape, sizeof(int64_t) * rank);
    const tk_type *shaped = xs[0]->type;
    for (uint32_t i = 1; i < n; i++) {
        if (!broadcast_shapes(c, shaped, xs[i]->type, k->loc, k->name, &rank, shape)) return v_error();
        shaped = ty_tile(c, ty_elem(shaped), rank, shape);
    }
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_scalar(c, o->result), rank, shape));
    r->builtin = TK_B_LIBDEVICE_CALL;
    for (uint32_t i = 0; i < n; i++)
        sx_add_arg(c, r, broadcast_to_shape(c, convert(c, xs[i], o->args[i], k->loc), rank, shape, k->loc));
    sx_add_attr_text(c, r, "symbol", o->symbol);
    if (!o->to_i1) return result_rt(r);
    tk_sx *cast = sx_new(c, TK_SX_CAST, ty_tile(c, ty_scalar(c, TK_I1), rank, shape), k->loc);
    sx_add_arg(c, cast, r);
    return v_rt(cast);
}
#undef NONE

value b_libdevice_call(checker *c, call *k) {
    sema_error(c, k->loc, "write libdevice.NAME(...), not tl.libdevice");
    return v_error();
}

/* ---- inline_asm_elementwise ------------------------------------------- */

/* The PTX register class of one operand: h 16-bit, r 32-bit integers, l
 * 64-bit integers, f f32, d f64 (NVPTX's inline-asm constraints). */
static char asm_class(tk_dtype d) {
    switch (d) {
    case TK_I16: case TK_U16: case TK_F16: case TK_BF16: return 'h';
    case TK_I32: case TK_U32: return 'r';
    case TK_I64: case TK_U64: return 'l';
    case TK_F32: return 'f';
    case TK_F64: return 'd';
    default: return 0;
    }
}

/* Elements of dtype d that share one asm register at `pack`: Triton packs
 * values narrower than 32 bits into 32-bit registers, up to pack of them. */
static uint32_t asm_elems_per_reg(tk_dtype d, int64_t pack) {
    unsigned bits = tk_dtype_bits(d);
    uint32_t n = bits && bits < 32 ? 32 / bits : 1;
    return n < pack ? n : (uint32_t)pack;
}

/* The register class of one asm operand of dtype d at `pack`: a packed
 * register is a 16- or 32-bit integer register. */
static char asm_packed_class(tk_dtype d, int64_t pack) {
    uint32_t n = asm_elems_per_reg(d, pack);
    if (n == 1) return asm_class(d);
    unsigned bits = n * tk_dtype_bits(d);
    return bits == 16 ? 'h' : bits == 32 ? 'r' : 0;
}

/* tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
 * the PTX in `asm` runs once per `pack` elements of a thread, $0.. its
 * outputs then its inputs, each value as pack/k registers where k of its
 * elements fit one 32-bit register (Triton's packing). Checked here so LLVM
 * never sees a constraint or operand that does not fit: one constraint per
 * register, each of its class, and every $N naming one of them. */
value b_inline_asm(checker *c, call *k) {
    value *asmv = &k->args[0], *cons = &k->args[1], *args = &k->args[2], *dt = &k->args[3];
    if (asmv->kind != V_STR || cons->kind != V_STR) {
        sema_error(c, (asmv->kind != V_STR ? asmv : cons)->loc, "%s needs the PTX and its constraints as strings",
                   k->name);
        return v_error();
    }
    int64_t pack = 1;
    if (given(k, 5) && !const_int(c, k, 5, &pack)) return v_error();
    if (pack != 1 && pack != 2 && pack != 4 && pack != 8) {
        sema_error(c, k->args[5].loc, "%s runs its PTX on pack = 1, 2, 4 or 8 elements at once, not %" PRId64,
                   k->name, pack);
        return v_error();
    }
    bool pure = true;
    if (!const_bool(c, k, 4, true, &pure)) return v_error();
    /* the inputs */
    uint32_t nin = args->kind == V_TUPLE ? args->count : 1;
    if (nin > 8) {
        sema_error(c, args->loc, "%s takes at most 8 arguments", k->name);
        return v_error();
    }
    tk_sx *in[8];
    uint32_t rank = 0;
    int64_t shape[TK_MAX_RANK];
    const tk_type *shaped = NULL;
    for (uint32_t i = 0; i < nin; i++) {
        value *a = args->kind == V_TUPLE ? &args->items[i] : args;
        in[i] = a->kind == V_RT ? a->u.rt : v_is_number(a) ? to_runtime(c, a, NULL) : NULL;
        if (!in[i] || ty_elem(in[i]->type)->kind != TK_TYPE_SCALAR) {
            sema_error(c, a->loc, "the arguments of %s are tiles or scalars, not %s", k->name, v_describe(c, a));
            return v_error();
        }
        if (!shaped) {
            shaped = in[i]->type;
            rank = ty_rank(shaped);
            if (rank) memcpy(shape, shaped->shape, sizeof(int64_t) * rank);
        } else {
            if (!broadcast_shapes(c, shaped, in[i]->type, a->loc, k->name, &rank, shape)) return v_error();
            shaped = ty_tile(c, ty_elem(shaped), rank, shape);
        }
    }
    /* the outputs */
    uint32_t nout = dt->kind == V_TUPLE ? dt->count : 1;
    tk_dtype outs[8];
    for (uint32_t i = 0; i < nout; i++) {
        value *d = dt->kind == V_TUPLE ? &dt->items[i] : dt;
        if (d->kind != V_DTYPE || d->count || i >= 8) {
            sema_error(c, d->loc, "the dtype of %s is a dtype or a tuple of at most 8", k->name);
            return v_error();
        }
        outs[i] = d->u.dtype;
    }
    /* the constraints: one per output register ("=c"), then one per input
     * register ("c"); a value is pack/k registers, k of its elements each */
    tk_dtype reg_dtype[16 * 8]; /* 8 outputs and 8 inputs at pack 8 */
    uint32_t nregs_out = 0, nregs = 0;
    for (uint32_t i = 0; i < nout + nin; i++) {
        tk_dtype d = i < nout ? outs[i] : elem_dtype(in[i - nout]);
        for (uint32_t r = 0; r < (uint32_t)pack / asm_elems_per_reg(d, pack); r++) reg_dtype[nregs++] = d;
        if (i < nout) nregs_out = nregs;
    }
    const char *text = tk_arena_strndup(c->arena, cons->u.str.text, cons->u.str.len);
    uint32_t count = 0;
    for (const char *p = text; ; count++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (count >= nregs) break;
        bool is_out = count < nregs_out;
        tk_dtype d = reg_dtype[count];
        char want = asm_packed_class(d, pack);
        if (len != (size_t)(is_out ? 2 : 1) || (is_out && p[0] != '=') ||
            p[len - 1] != want) {
            if (!want)
                sema_error(c, cons->loc, "item %u of the constraints of %s, \"%.*s\", is for an %s of dtype %s, which "
                           "has no register class at pack=%" PRId64 "%s", count + 1, k->name, (int)len, p,
                           is_out ? "output" : "input", tk_dtype_name(d), pack,
                           tk_dtype_bits(d) == 8 ? " (8-bit values need pack=2 or more)" : "");
            else
                sema_error(c, cons->loc, "the constraints of %s are one per output register (\"=c\") then one per "
                           "input register (\"c\"), c the register's class (h 16-bit, r i32/u32 or packed 32-bit, "
                           "l i64/u64, f f32, d f64); item %u, \"%.*s\", should be \"%s%c\" (%s %s%s)", k->name,
                           count + 1, (int)len, p, is_out ? "=" : "", want, tk_dtype_name(d),
                           is_out ? "output" : "input", asm_elems_per_reg(d, pack) > 1 ? ", packed" : "");
            return v_error();
        }
        if (!end) break;
        p = end + 1;
    }
    uint32_t given_count = 1;
    for (const char *p = text; *p; p++) given_count += *p == ',';
    if (given_count != nregs) {
        sema_error(c, cons->loc, "%s has %u outputs and %u inputs in %u registers at pack=%" PRId64 ", so %u "
                   "constraints, not %u", k->name, nout, nin, nregs, pack, nregs, given_count);
        return v_error();
    }
    /* every $N names an operand; $$ is a dollar sign */
    const char *code = tk_arena_strndup(c->arena, asmv->u.str.text, asmv->u.str.len);
    for (const char *p = strchr(code, '$'); p; p = strchr(p + 1, '$')) {
        if (p[1] == '$') {
            p++;
            continue;
        }
        char *num_end;
        long op = strtol(p + 1, &num_end, 10);
        if (num_end == p + 1 || op < 0 || op >= (long)nregs) {
            sema_error(c, asmv->loc, "the PTX of %s names operands $0 to $%u; '%.*s' is none of them", k->name,
                       nregs - 1, (int)(num_end > p + 1 ? num_end - p : 2), p);
            return v_error();
        }
    }
    const tk_type *types[8];
    for (uint32_t i = 0; i < nout; i++) types[i] = ty_tile(c, ty_scalar(c, outs[i]), rank, shape);
    tk_sx *r = builtin_sx(c, k, nout == 1 ? types[0] : ty_tuple(c, nout, types));
    for (uint32_t i = 0; i < nin; i++)
        sx_add_arg(c, r, broadcast_to_shape(c, in[i], rank, shape, k->loc));
    sx_add_attr_text(c, r, "asm", code);
    sx_add_attr_text(c, r, "constraints", text);
    if (!pure) sx_add_attr_int(c, r, "side_effects", 1);
    if (pack > 1) sx_add_attr_int(c, r, "pack", pack);
    if (nout > 1) return tuple_result(c, r);
    return emit_effect(c, r);
}

/* x.to(tl.pointer_type(T)): an i64 address, or a pointer to another
 * type, as a pointer to T (Triton's int-to-pointer and pointer casts). */
static value cast_to_pointer(checker *c, call *k) {
    const value *target = &k->args[1];
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    bool bitcast;
    if (!const_bool(c, k, 3, false, &bitcast)) return v_error();
    if (given(k, 2) && k->args[2].kind != V_NONE) {
        sema_error(c, k->args[2].loc, "fp_downcast_rounding applies to a conversion to a narrower float only");
        return v_error();
    }
    const tk_type *to = ty_scalar(c, target->u.dtype);
    for (uint32_t i = 0; i < target->count; i++) to = ty_pointer(c, to);
    const tk_type *e = ty_elem(x->type);
    if (e->kind == TK_TYPE_SCALAR && e->dtype != TK_I64 && e->dtype != TK_U64) {
        sema_error(c, k->loc, "only a 64-bit integer converts to a pointer (an address), not %s%s",
                   tk_dtype_name(e->dtype), tk_dtype_is_int(e->dtype) ? "; widen it with .to(tl.int64) first" : "");
        return v_error();
    }
    if (tk_type_equal(e, to)) return v_rt(x);
    tk_sx *r = sx_new(c, TK_SX_CAST, ty_with_elem(c, x->type, to), k->loc);
    sx_add_arg(c, r, x);
    return result_rt(r);
}

value b_cast(checker *c, call *k) {
    tk_dtype d;
    if (k->args[1].kind == V_DTYPE && k->args[1].count) return cast_to_pointer(c, k);
    if (!dtype_arg(c, k, 1, &d)) return v_error();
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    const tk_type *e = ty_elem(x->type);
    bool bitcast;
    if (!const_bool(c, k, 3, false, &bitcast)) return v_error();
    static const char *const roundings[] = {"rtne", "rtz"};
    const char *rounding;
    if (!const_str(c, k, 2, roundings, 2, &rounding)) return v_error();
    if (e->kind == TK_TYPE_POINTER) {
        if (d != TK_I64 && d != TK_I1) {
            sema_error(c, k->loc, "a pointer converts to i64 or i1 only, not %s", tk_dtype_name(d));
            return v_error();
        }
    } else {
        tk_dtype s = e->dtype;
        bool f8s = s == TK_F8E4M3 || s == TK_F8E5M2, f8d = d == TK_F8E4M3 || d == TK_F8E5M2;
        if (bitcast && tk_dtype_bits(s) != tk_dtype_bits(d)) {
            sema_error(c, k->loc, "a bitcast keeps the width: %s is %u bits but %s is %u",
                       tk_dtype_name(s), tk_dtype_bits(s), tk_dtype_name(d), tk_dtype_bits(d));
            return v_error();
        }
        if (!bitcast && ((f8s && tk_dtype_is_int(d)) || (f8d && tk_dtype_is_int(s)))) {
            sema_error(c, k->loc, "fp8 converts to and from floating-point types only; go through "
                       "tl.float32");
            return v_error();
        }
        if (*rounding && !(tk_dtype_is_float(s) && tk_dtype_is_float(d) && tk_dtype_bits(d) < tk_dtype_bits(s))) {
            sema_error(c, k->args[2].loc, "fp_downcast_rounding applies to a conversion to a narrower "
                       "float only");
            return v_error();
        }
    }
    if (!bitcast && e->kind == TK_TYPE_SCALAR && e->dtype == d && !*rounding) return v_rt(x);
    tk_sx *r = sx_new(c, TK_SX_CAST, ty_with_elem(c, x->type, ty_scalar(c, d)), k->loc);
    r->bitcast = bitcast;
    sx_add_arg(c, r, x);
    if (*rounding) sx_add_attr_text(c, r, "rounding", rounding);
    return result_rt(r);
}
