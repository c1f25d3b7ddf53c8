/* The builtins: tl.* functions and the Python builtins kernels use. One
 * table gives each its Triton signature (parameter names, which have
 * defaults, varargs) and a checker that computes its result type and writes
 * the typed call. Needs: check.c's value helpers. Guarantees: arguments
 * reach the typed tree converted and broadcast as Triton would, and in the
 * builtin's parameter order; constant options become attributes. */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct call {
    int id;
    const char *name;      /* as the user would write it: tl.load */
    value *args;           /* one per parameter; kind V_ERROR+absent when not given */
    bool *given;
    uint32_t nparams;
    value *rest;           /* varargs */
    uint32_t rest_count;
    tk_loc loc;
} call;

typedef value (*builtin_fn)(checker *c, call *k);

enum {
    B_TL = 1,       /* tl.name */
    B_BARE = 2,     /* the bare name too */
    B_METHOD = 4,   /* x.name(...) on tiles */
    B_GRID = 8,     /* usable in grid expressions (host arithmetic) */
    B_PYTHON = 16,  /* the bare name is Python's builtin, only bare */
    B_LIBDEVICE = 32, /* libdevice.name (triton.language.extra.libdevice), and tl.math.name */
    B_MEMORY = 64   /* reads or writes memory: never evaluated speculatively */
};

typedef struct builtin_def {
    const char *name;
    const char *params; /* "pointer,mask=,*rest" */
    unsigned flags;
    builtin_fn fn;
    unsigned lowering;          /* TK_BP_ bits */
    tk_scratch_kind scratch;
} builtin_def;

/* ---- helpers --------------------------------------------------------- */

static bool given(call *k, uint32_t i) { return i < k->nparams && k->given[i]; }

static const char *param_name(const builtin_def *b, uint32_t index, char *buf, size_t size);
static const builtin_def *def_of(int id);

static const char *pname(call *k, uint32_t i) {
    static _Thread_local char buf[64];
    return param_name(def_of(k->id), i, buf, sizeof buf);
}

static tk_sx *rt_arg(checker *c, call *k, uint32_t i) {
    value *v = &k->args[i];
    if (v->kind == V_ERROR) return NULL;
    if (v->kind == V_RT) {
        if (v->u.rt->type->kind == TK_TYPE_TUPLE || v->u.rt->type->kind == TK_TYPE_VOID) {
            sema_error(c, v->loc, "'%s' of %s must be a tile or scalar, not %s", pname(k, i),
                       k->name, v_describe(c, v));
            return NULL;
        }
        return v->u.rt;
    }
    if (v_is_number(v)) return to_runtime(c, v, NULL);
    sema_error(c, v->loc, "'%s' of %s must be a tile or scalar, not %s", pname(k, i), k->name,
               v_describe(c, v));
    return NULL;
}

static bool const_int(checker *c, call *k, uint32_t i, int64_t *out) {
    value *v = &k->args[i];
    if (v->kind == V_ERROR) return false;
    if (v->kind == V_INT || v->kind == V_BOOL) {
        *out = v->kind == V_BOOL ? v->u.b : v->u.i;
        return true;
    }
    sema_error(c, v->loc, "'%s' of %s must be a compile-time integer, not %s", pname(k, i),
               k->name, v_describe(c, v));
    return false;
}

static bool const_bool(checker *c, call *k, uint32_t i, bool dflt, bool *out) {
    if (!given(k, i)) {
        *out = dflt;
        return true;
    }
    value *v = &k->args[i];
    if (v->kind == V_BOOL || v->kind == V_INT) {
        *out = v->kind == V_BOOL ? v->u.b : v->u.i != 0;
        return true;
    }
    if (v->kind == V_NONE) {
        *out = dflt;
        return true;
    }
    if (v->kind != V_ERROR)
        sema_error(c, v->loc, "'%s' of %s must be True or False", pname(k, i), k->name);
    return false;
}

static bool const_str(checker *c, call *k, uint32_t i, const char *const *allowed, size_t n,
                      const char **out) {
    *out = "";
    if (!given(k, i) || k->args[i].kind == V_NONE) return true;
    value *v = &k->args[i];
    if (v->kind != V_STR) {
        if (v->kind != V_ERROR)
            sema_error(c, v->loc, "'%s' of %s must be a string", pname(k, i), k->name);
        return false;
    }
    const char *s = tk_arena_strndup(c->arena, v->u.str.text, v->u.str.len);
    for (size_t j = 0; j < n; j++) {
        if (strcmp(allowed[j], s) == 0) {
            *out = allowed[j];
            return true;
        }
    }
    char list[256] = "";
    size_t len = 0;
    for (size_t j = 0; j < n; j++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s\"%s\"", j ? ", " : "", allowed[j]);
    sema_error(c, v->loc, "%s: '%s' must be one of %s, not \"%s\"", k->name, pname(k, i), list, s);
    return false;
}

static bool dtype_arg(checker *c, call *k, uint32_t i, tk_dtype *out) {
    value *v = &k->args[i];
    if (v->kind == V_DTYPE && v->count) {
        sema_error(c, v->loc, "'%s' of %s must be an element dtype, not a pointer's; write .element_ty",
                   pname(k, i), k->name);
        return false;
    }
    if (v->kind == V_DTYPE) {
        *out = v->u.dtype;
        return true;
    }
    if (v->kind == V_STR) {
        char *s = tk_arena_strndup(c->arena, v->u.str.text, v->u.str.len);
        tk_dtype d;
        if (dtype_from_name(s, &d)) {
            sema_error(c, v->loc, "'%s' of %s must be a dtype, not the string \"%s\"; write tl.%s",
                       pname(k, i), k->name, s, dtype_triton_name(d));
            /* where the string came from: a -D value or a default */
            if (v->origin.src && v->origin_name) tk_note(c->diag, v->origin, "%s", v->origin_name);
        } else
            sema_error(c, v->loc, "'%s' of %s must be a dtype such as tl.float32, not a string",
                       pname(k, i), k->name);
        return false;
    }
    if (v->kind != V_ERROR)
        sema_error(c, v->loc, "'%s' of %s must be a dtype such as tl.float32, not %s",
                   pname(k, i), k->name, v_describe(c, v));
    return false;
}

/* A shape: a constant int or a tuple/list of them. */
static bool shape_of(checker *c, const value *v, const char *what, uint32_t *rank, int64_t *shape) {
    if (v->kind == V_INT) {
        *rank = 1;
        shape[0] = v->u.i;
        return check_tile_shape(c, 1, shape, v->loc, v);
    }
    if (v->kind != V_TUPLE) {
        if (v->kind != V_ERROR)
            sema_error(c, v->loc, "%s must be a constant shape such as [BLOCK_M, BLOCK_N], not %s",
                       what, v_describe(c, v));
        return false;
    }
    if (v->count > TK_MAX_RANK) {
        sema_error(c, v->loc, "a tile has at most %d dimensions", TK_MAX_RANK);
        return false;
    }
    *rank = v->count;
    for (uint32_t i = 0; i < v->count; i++) {
        const value *d = &v->items[i];
        if (d->kind != V_INT) {
            sema_error(c, d->kind == V_ERROR ? v->loc : d->loc,
                       "%s: every dimension must be a compile-time integer, not %s", what, v_describe(c, d));
            return false;
        }
        shape[i] = d->u.i;
        if (!check_tile_dim(c, shape[i], d->loc, d)) return false;
    }
    return check_tile_total(c, *rank, shape, v->loc);
}

/* The shape from varargs (f(x, 2, 3)) or a single tuple (f(x, (2, 3))). */
static bool rest_shape(checker *c, call *k, const char *what, uint32_t *rank, int64_t *shape) {
    if (k->rest_count == 1) return shape_of(c, &k->rest[0], what, rank, shape);
    value t = v_tuple(c, k->loc, k->rest_count);
    for (uint32_t i = 0; i < k->rest_count; i++) t.items[i] = k->rest[i];
    return shape_of(c, &t, what, rank, shape);
}

static tk_sx *builtin_sx(checker *c, call *k, const tk_type *type) {
    tk_sx *x = sx_new(c, TK_SX_BUILTIN, type, k->loc);
    x->builtin = k->id;
    return x;
}

static bool is_float_tile(const tk_sx *x) {
    const tk_type *e = ty_elem(x->type);
    return e->kind == TK_TYPE_SCALAR && tk_dtype_is_float(e->dtype);
}

static tk_dtype elem_dtype(const tk_sx *x) { return ty_elem(x->type)->dtype; }

static bool elem_is_scalar(checker *c, call *k, tk_sx *x, uint32_t i) {
    if (ty_elem(x->type)->kind == TK_TYPE_SCALAR) return true;
    sema_error(c, k->args[i].loc, "'%s' of %s must hold numbers, not %s", pname(k, i), k->name,
               tk_type_str(c->arena, x->type));
    return false;
}

static value result_rt(tk_sx *x) { return v_rt(x); }

/* Side-effecting builtins become statements: a value-returning one is
 * assigned to a fresh variable so its effect happens exactly once. */
static value emit_effect(checker *c, tk_sx *x) {
    if (x->type->kind == TK_TYPE_VOID) {
        tk_ss *s = ss_new(c, TK_SS_EXPR, x->loc);
        s->value = x;
        emit_stmt(c, s);
        return (value){.kind = V_NONE, .loc = x->loc};
    }
    tk_sema_var *var = new_var(c, "_", x->type, x->loc);
    tk_ss *s = ss_new(c, TK_SS_ASSIGN, x->loc);
    s->var = var;
    s->value = x;
    emit_stmt(c, s);
    tk_sx *ref = sx_new(c, TK_SX_VAR, x->type, x->loc);
    ref->var = var;
    return v_rt(ref);
}

/* A builtin with several results: assigned once to a tuple variable whose
 * items the caller unpacks. */
static value tuple_result(checker *c, tk_sx *x) {
    tk_sema_var *var = new_var(c, "_", x->type, x->loc);
    tk_ss *s = ss_new(c, TK_SS_ASSIGN, x->loc);
    s->var = var;
    s->value = x;
    emit_stmt(c, s);
    value t = v_tuple(c, x->loc, x->type->count);
    for (uint32_t i = 0; i < x->type->count; i++) {
        tk_sx *g = sx_new(c, TK_SX_TUPLE_GET, x->type->items[i], x->loc);
        g->index = i;
        tk_sx *ref = sx_new(c, TK_SX_VAR, x->type, x->loc);
        ref->var = var;
        sx_add_arg(c, g, ref);
        t.items[i] = v_rt(g);
    }
    return t;
}

static bool axis_value(checker *c, call *k, uint32_t i, uint32_t rank, int64_t *axis) {
    if (!const_int(c, k, i, axis)) return false;
    int64_t a = *axis < 0 ? *axis + (int64_t)rank : *axis;
    if (a < 0 || a >= (int64_t)rank) {
        sema_error(c, k->args[i].loc, "axis %" PRId64 " is out of range for a tile of rank %u "
                   "(valid: %d to %u)", *axis, rank, -(int)rank, rank ? rank - 1 : 0);
        return false;
    }
    *axis = a;
    return true;
}

/* ---- program and creation ------------------------------------------- */

static value b_program_id(checker *c, call *k) {
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

static value b_arange(checker *c, call *k) {
    value *s = &k->args[0], *e = &k->args[1];
    for (int i = 0; i < 2; i++) {
        value *v = i ? e : s;
        if (v->kind == V_ERROR) return v_error();
        if (v->kind != V_INT) {
            sema_error(c, v->loc, "tl.arange bounds must be compile-time constants; '%s' is %s "
                       "(a constexpr parameter or a literal works)", pname(k, (uint32_t)i), v_describe(c, v));
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

static value b_zeros(checker *c, call *k) {
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    tk_dtype d;
    if (!shape_of(c, &k->args[0], "the shape of tl.zeros", &rank, shape)) return v_error();
    if (!dtype_arg(c, k, 1, &d)) return v_error();
    value zero = v_int(k->loc, 0);
    return make_full(c, k, rank, shape, &zero, d);
}

static value b_full(checker *c, call *k) {
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    tk_dtype d;
    if (!shape_of(c, &k->args[0], "the shape of tl.full", &rank, shape)) return v_error();
    if (!dtype_arg(c, k, 2, &d)) return v_error();
    return make_full(c, k, rank, shape, &k->args[1], d);
}

static value b_zeros_like(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x || !elem_is_scalar(c, k, x, 0)) return v_error();
    value zero = v_int(k->loc, 0);
    return make_full(c, k, ty_rank(x->type), x->type->shape, &zero, elem_dtype(x));
}

static value b_cdiv(checker *c, call *k) {
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

static value b_next_power_of_2(checker *c, call *k) {
    int64_t n;
    if (!const_int(c, k, 0, &n)) return v_error();
    int64_t p = 1;
    while (p < n && p < ((int64_t)1 << 62)) p <<= 1;
    value r = v_int(k->loc, p);
    r.origin = k->args[0].origin;
    r.origin_name = k->args[0].origin_name;
    return r;
}

/* ---- memory ---------------------------------------------------------- */

/* mask/other/value may broadcast up to the pointer's shape, not beyond. */
static tk_sx *fit_to(checker *c, call *k, uint32_t i, tk_sx *x, const tk_type *ptr, const char *what) {
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

static tk_sx *mask_arg(checker *c, call *k, uint32_t i, const tk_type *ptr) {
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

static tk_sx *pointer_arg(checker *c, call *k, uint32_t i) {
    tk_sx *p = rt_arg(c, k, i);
    if (!p) return NULL;
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

static value b_load(checker *c, call *k) {
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

static value b_store(checker *c, call *k) {
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

static value b_make_block_ptr(checker *c, call *k) {
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

static value b_advance(checker *c, call *k) {
    tk_sx *b = rt_arg(c, k, 0);
    if (!b) return v_error();
    if (b->type->kind != TK_TYPE_BLOCK_PTR) {
        sema_error(c, k->args[0].loc, "tl.advance moves a block pointer, not %s", tk_type_str(c->arena, b->type));
        return v_error();
    }
    tk_sx *x = builtin_sx(c, k, b->type);
    sx_add_arg(c, x, b);
    if (!int_tuple(c, k, 1, b->type->rank, TK_I32, x)) return v_error();
    return result_rt(x);
}

/* ---- dot -------------------------------------------------------------- */

static value b_dot(checker *c, call *k) {
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

/* ---- reductions and scans --------------------------------------------- */

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

enum reduce_kind { R_SUM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_XOR };

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
    case R_XOR: return d;
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
    if (kind == R_XOR && tk_dtype_is_float(d)) {
        sema_error(c, k->args[0].loc, "tl.xor_sum needs integers, not %s", tk_dtype_name(d));
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

static value b_sum(checker *c, call *k) { return reduction(c, k, R_SUM, 2); }
static value b_max(checker *c, call *k) { return reduction(c, k, R_MAX, 4); }
static value b_min(checker *c, call *k) { return reduction(c, k, R_MIN, 4); }
static value b_argmax(checker *c, call *k) { return reduction(c, k, R_ARGMAX, 3); }
static value b_argmin(checker *c, call *k) { return reduction(c, k, R_ARGMIN, 3); }
static value b_xor_sum(checker *c, call *k) { return reduction(c, k, R_XOR, 2); }

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

/* a reshape of x to `shape` (same number of elements) */
static tk_sx *reshaped(checker *c, call *k, tk_sx *x, uint32_t rank, const int64_t *shape) {
    tk_sx *r = builtin_sx(c, k, ty_tile(c, ty_elem(x->type), rank, shape));
    r->builtin = TK_B_RESHAPE;
    sx_add_arg(c, r, x);
    return r;
}

static int64_t numel_of(const tk_type *t) {
    int64_t n = 1;
    for (uint32_t i = 0; i < ty_rank(t); i++) n *= t->shape[i];
    return n;
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

static value b_reduce(checker *c, call *k) {
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

static value b_cumsum(checker *c, call *k) { return scan(c, k, true, false); }
static value b_cumprod(checker *c, call *k) { return scan(c, k, false, false); }
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

static value b_associative_scan(checker *c, call *k) {
    if (k->args[0].kind == V_TUPLE) return scan_tuple(c, k);
    return scan(c, k, false, true);
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

static value b_maximum(checker *c, call *k) {
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

static value b_clamp(checker *c, call *k) {
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

static value b_where(checker *c, call *k) {
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

static value b_float_math(checker *c, call *k) { return float_math(c, k, false); }
static value b_f32_math(checker *c, call *k) { return float_math(c, k, true); }

static value b_abs(checker *c, call *k) {
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

static value b_fma(checker *c, call *k) {
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

static value b_umulhi(checker *c, call *k) {
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

static value b_fdiv(checker *c, call *k) {
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

static value b_softmax(checker *c, call *k) {
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

/* ---- shape manipulation ------------------------------------------------ */

static value b_broadcast_to(checker *c, call *k) {
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

static value b_expand_dims(checker *c, call *k) {
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

static value b_reshape(checker *c, call *k) {
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

static value b_trans(checker *c, call *k) { return permute_common(c, k, true); }
static value b_permute(checker *c, call *k) { return permute_common(c, k, false); }

static value b_join(checker *c, call *k) {
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
static value b_ravel(checker *c, call *k) {
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
static value b_interleave(checker *c, call *k) {
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
static value b_broadcast(checker *c, call *k) {
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
static value b_item(checker *c, call *k) {
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

/* tl.assume(cond): a promise to the compiler; checked for type, then used
 * for nothing (ignoring a hint is always correct) */
static value b_assume(checker *c, call *k) {
    value *v = &k->args[0];
    if (v_is_const(v)) return (value){.kind = V_NONE, .loc = k->loc};
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    if (ty_elem(x->type)->kind != TK_TYPE_SCALAR || elem_dtype(x) != TK_I1) {
        sema_error(c, v->loc, "tl.assume takes a condition, not %s", tk_type_str(c->arena, x->type));
        return v_error();
    }
    return (value){.kind = V_NONE, .loc = k->loc};
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
static value b_libdevice(checker *c, call *k) {
    const char *name = def_of(k->id)->name;
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

static value b_libdevice_call(checker *c, call *k) {
    sema_error(c, k->loc, "write libdevice.NAME(...), not tl.libdevice");
    return v_error();
}

/* tl.flip(x, dim=None): x reversed along dim (default the last). With n =
 * 2^k there, index i becomes n - 1 - i, which complements each of its k
 * bits: dim is reshaped into k dimensions of 2 and each is swapped in turn
 * (moved last, split, joined the other way round, moved back). These move
 * no data between threads where the layouts allow, as join and split. */
static value b_flip(checker *c, call *k) {
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
static value b_inline_asm(checker *c, call *k) {
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

static value b_split(checker *c, call *k) {
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

static value b_cat(checker *c, call *k) {
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

/* ---- atomics ----------------------------------------------------------- */

static const char *const sems[] = {"acquire", "release", "acq_rel", "relaxed"};
static const char *const scopes[] = {"gpu", "cta", "sys"};

static value atomic(checker *c, call *k, bool cas) {
    tk_sx *p = pointer_arg(c, k, 0);
    if (!p) return v_error();
    if (p->type->kind == TK_TYPE_BLOCK_PTR) {
        sema_error(c, k->args[0].loc, "%s takes a pointer or tile of pointers, not a block pointer", k->name);
        return v_error();
    }
    const tk_type *elem = ty_elem(p->type)->elem;
    if (elem->kind != TK_TYPE_SCALAR) return v_error();
    tk_dtype d = elem->dtype;
    const char *op = def_of(k->id)->name + strlen("atomic_");
    bool is_float = tk_dtype_is_float(d);
    unsigned bits = tk_dtype_bits(d);
    /* Triton's rules: compare-and-swap on any 16-, 32- or 64-bit element,
     * the others on 32 and 64 bits (and f16/bf16 add) */
    bool ok = cas ? bits == 16 || bits == 32 || bits == 64
                  : bits >= 16 && d != TK_I16 && d != TK_U16 && d != TK_F8E4M3 && d != TK_F8E5M2;
    if (ok && (d == TK_F16 || d == TK_BF16)) ok = strcmp(op, "add") == 0 || cas || strcmp(op, "xchg") == 0;
    if (ok && is_float && (strcmp(op, "max") == 0 || strcmp(op, "min") == 0)) ok = d == TK_F32 || d == TK_F64;
    if (!ok) {
        sema_error(c, k->args[0].loc, "%s does not support %s values", k->name, tk_dtype_name(d));
        return v_error();
    }
    uint32_t sem_i = cas ? 3 : 3, scope_i = cas ? 4 : 4;
    const char *sem, *scope_text;
    if (!const_str(c, k, sem_i, sems, 4, &sem) || !const_str(c, k, scope_i, scopes, 3, &scope_text)) return v_error();
    tk_sx *x = builtin_sx(c, k, ty_with_elem(c, p->type, elem));
    sx_add_arg(c, x, p);
    uint32_t nvals = cas ? 2 : 1;
    for (uint32_t i = 1; i <= nvals; i++) {
        value *v = &k->args[i];
        tk_sx *xv = v_is_number(v) ? to_runtime(c, v, &d) : rt_arg(c, k, i);
        if (!xv || !elem_is_scalar(c, k, xv, i)) return v_error();
        if (cas) {
            if (!tk_type_equal(ty_elem(xv->type), elem)) {
                sema_error(c, v->loc, "tl.atomic_cas: '%s' must be %s like the pointee, not %s",
                           pname(k, i), tk_dtype_name(d), tk_type_str(c->arena, xv->type));
                return v_error();
            }
        } else {
            xv = convert(c, xv, d, v->loc);
        }
        xv = fit_to(c, k, i, xv, p->type, pname(k, i));
        if (!xv) return v_error();
        sx_add_arg(c, x, xv);
    }
    if (!cas && given(k, 2) && k->args[2].kind != V_NONE) {
        tk_sx *m = mask_arg(c, k, 2, p->type);
        if (!m) return v_error();
        sx_add_arg(c, x, m);
    }
    sx_add_attr_text(c, x, "sem", *sem ? sem : "acq_rel");
    sx_add_attr_text(c, x, "scope", *scope_text ? scope_text : "gpu");
    return emit_effect(c, x);
}

static value b_atomic(checker *c, call *k) { return atomic(c, k, false); }
static value b_atomic_cas(checker *c, call *k) { return atomic(c, k, true); }

/* ---- hints, debugging, random ------------------------------------------- */

static value b_hint(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    if (ty_elem(x->type)->kind != TK_TYPE_SCALAR || !tk_dtype_is_int(elem_dtype(x))) {
        sema_error(c, k->args[0].loc, "%s describes integer tiles, not %s", k->name, tk_type_str(c->arena, x->type));
        return v_error();
    }
    value *vals = &k->args[1];
    value single = *vals;
    const value *items = vals->kind == V_TUPLE ? vals->items : &single;
    uint32_t n = vals->kind == V_TUPLE ? vals->count : 1;
    uint32_t rank = ty_rank(x->type);
    if (n != (rank ? rank : 1)) {
        sema_error(c, vals->loc, "%s needs %u value%s, one per dimension", k->name, rank ? rank : 1, rank > 1 ? "s" : "");
        return v_error();
    }
    tk_sx *r = builtin_sx(c, k, x->type);
    sx_add_arg(c, r, x);
    for (uint32_t i = 0; i < n; i++) {
        if (items[i].kind != V_INT || items[i].u.i < 1) {
            sema_error(c, vals->loc, "%s takes positive compile-time integers", k->name);
            return v_error();
        }
        sx_add_attr_int(c, r, "value", items[i].u.i);
    }
    return result_rt(r);
}

static void print_value_text(FILE *f, checker *c, const value *v) {
    if (v->kind == V_STR) fprintf(f, "%.*s", (int)v->u.str.len, v->u.str.text);
    else if (v->kind == V_RT) tk_type_print(f, v->u.rt->type);
    else fputs(v_describe(c, v), f);
}

static value b_static_print(checker *c, call *k) {
    fprintf(stderr, "%s:%u:%u: static_print:", k->loc.src ? k->loc.src->name : "?", k->loc.line, k->loc.col);
    for (uint32_t i = 0; i < k->rest_count; i++) {
        fputc(' ', stderr);
        const value *v = &k->rest[i];
        if (v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL || v->kind == V_TUPLE) {
            fputs(v_describe(c, v) + (v->kind == V_BOOL ? 13 : v->kind == V_TUPLE ? 10 : 13), stderr);
        } else {
            print_value_text(stderr, c, v);
        }
    }
    fputc('\n', stderr);
    return (value){.kind = V_NONE, .loc = k->loc};
}

static value b_static_assert(checker *c, call *k) {
    value *cond = &k->args[0];
    if (cond->kind == V_ERROR) return v_error();
    if (!v_is_const(cond)) {
        sema_error(c, cond->loc, "tl.static_assert needs a compile-time condition; use "
                   "tl.device_assert for runtime checks");
        return v_error();
    }
    bool truth = cond->kind == V_BOOL ? cond->u.b : cond->kind == V_INT ? cond->u.i != 0
               : cond->kind == V_FLOAT ? cond->u.f != 0 : cond->kind != V_NONE;
    if (!truth) {
        if (given(k, 1) && k->args[1].kind == V_STR)
            sema_error(c, k->loc, "static assertion failed: %.*s", (int)k->args[1].u.str.len, k->args[1].u.str.text);
        else
            sema_error(c, k->loc, "static assertion failed");
        if (cond->origin.src && cond->origin_name) tk_note(c->diag, cond->origin, "%s", cond->origin_name);
    }
    return (value){.kind = V_NONE, .loc = k->loc};
}

static value b_device_print(checker *c, call *k) {
    tk_sx *x = builtin_sx(c, k, ty_void(c));
    x->builtin = TK_B_DEVICE_PRINT;
    uint32_t first = 0;
    const value *prefix = NULL;
    if (k->id == TK_B_DEVICE_PRINT) {
        prefix = &k->args[0];
        if (prefix->kind != V_STR) {
            sema_error(c, prefix->loc, "the prefix of tl.device_print must be a string");
            return v_error();
        }
    } else if (k->rest_count && k->rest[0].kind == V_STR) {
        prefix = &k->rest[0];
        first = 1;
    }
    if (prefix) sx_add_attr_text(c, x, "prefix", tk_arena_strndup(c->arena, prefix->u.str.text, prefix->u.str.len));
    for (uint32_t i = first; i < k->rest_count; i++) {
        value *v = &k->rest[i];
        tk_sx *xv = v->kind == V_RT ? v->u.rt : v_is_number(v) ? to_runtime(c, v, NULL) : NULL;
        if (!xv) {
            if (v->kind != V_ERROR)
                sema_error(c, v->loc, "device_print prints numbers and tiles, not %s", v_describe(c, v));
            return v_error();
        }
        sx_add_arg(c, x, xv);
    }
    bool hex = false;
    if (k->nparams > 1 && !const_bool(c, k, k->nparams - 1, false, &hex)) return v_error();
    if (hex) sx_add_attr_int(c, x, "hex", 1);
    return emit_effect(c, x);
}

static value b_device_assert(checker *c, call *k) {
    value *cond = &k->args[0];
    if (cond->kind == V_ERROR) return v_error();
    if (v_is_const(cond)) {
        bool truth = cond->kind == V_BOOL ? cond->u.b : cond->kind == V_INT ? cond->u.i != 0 : true;
        if (!truth) {
            const value *m = &k->args[1];
            if (given(k, 1) && m->kind == V_STR)
                sema_error(c, k->loc, "assertion is always false: %.*s", (int)m->u.str.len, m->u.str.text);
            else
                sema_error(c, k->loc, "assertion is always false");
        }
        return (value){.kind = V_NONE, .loc = k->loc};
    }
    tk_sx *xc = rt_arg(c, k, 0);
    if (!xc) return v_error();
    if (ty_elem(xc->type)->kind != TK_TYPE_SCALAR || elem_dtype(xc) != TK_I1) {
        value r = arith(c, TK_BINOP_NE, v_rt(xc), v_int(k->loc, 0), k->loc);
        if (r.kind == V_ERROR) return r;
        xc = r.u.rt;
    }
    tk_sx *x = builtin_sx(c, k, ty_void(c));
    sx_add_arg(c, x, xc);
    if (given(k, 1) && k->args[1].kind == V_STR)
        sx_add_attr_text(c, x, "message", tk_arena_strndup(c->arena, k->args[1].u.str.text, k->args[1].u.str.len));
    else if (given(k, 1) && k->args[1].kind != V_NONE) {
        sema_error(c, k->args[1].loc, "the message of an assertion must be a string");
        return v_error();
    }
    if (given(k, 2) && k->args[2].kind != V_NONE) {
        tk_sx *m = mask_arg(c, k, 2, xc->type);
        if (!m) return v_error();
        sx_add_arg(c, x, m);
    }
    return emit_effect(c, x);
}

static value b_debug_barrier(checker *c, call *k) {
    return emit_effect(c, builtin_sx(c, k, ty_void(c)));
}

static value b_random(checker *c, call *k) {
    tk_sx *seed = rt_arg(c, k, 0), *offset = rt_arg(c, k, 1);
    if (!seed || !offset) return v_error();
    if (ty_rank(seed->type) != 0 || !tk_dtype_is_int(elem_dtype(seed))) {
        sema_error(c, k->args[0].loc, "the seed of %s must be an integer scalar", k->name);
        return v_error();
    }
    if (ty_elem(offset->type)->kind != TK_TYPE_SCALAR || !tk_dtype_is_int(elem_dtype(offset))) {
        sema_error(c, k->args[1].loc, "the offsets of %s must be integers", k->name);
        return v_error();
    }
    int64_t rounds = 10;
    if (given(k, 2) && !const_int(c, k, 2, &rounds)) return v_error();
    /* each round is a few multiplications a value, unrolled */
    if (rounds < 0 || rounds > 64) {
        sema_error(c, k->args[2].loc, "n_rounds of %s must be between 0 and 64, not %" PRId64 " (Philox uses 10)",
                   k->name, rounds);
        return v_error();
    }
    const char *name = def_of(k->id)->name;
    bool is_int = strncmp(name, "randint", 7) == 0;
    const tk_type *one = ty_with_elem(c, offset->type, ty_scalar(c, is_int ? TK_U32 : TK_F32));
    tk_sx *r = builtin_sx(c, k, one);
    sx_add_arg(c, r, seed);
    sx_add_arg(c, r, offset);
    if (strstr(name, "4x")) {
        /* all four words of each Philox block: a tuple of four */
        const tk_type *items[4] = {one, one, one, one};
        r->type = ty_tuple(c, 4, items);
        sx_add_attr_int(c, r, "n_rounds", rounds);
        return tuple_result(c, r);
    }
    sx_add_attr_int(c, r, "n_rounds", rounds);
    return result_rt(r);
}

static value b_cast(checker *c, call *k) {
    tk_dtype d;
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

/* ---- Python builtins ------------------------------------------------------ */

static value b_py_float(checker *c, call *k) {
    value *v = &k->args[0];
    if (v->kind == V_STR) {
        char *s = tk_arena_strndup(c->arena, v->u.str.text, v->u.str.len);
        for (char *p = s; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        if (strcmp(s, "inf") == 0 || strcmp(s, "+inf") == 0 || strcmp(s, "infinity") == 0) return v_float(k->loc, INFINITY);
        if (strcmp(s, "-inf") == 0 || strcmp(s, "-infinity") == 0) return v_float(k->loc, -INFINITY);
        if (strcmp(s, "nan") == 0) return v_float(k->loc, NAN);
        char *end;
        double f = strtod(s, &end);
        if (*s && !*end) return v_float(k->loc, f);
        sema_error(c, v->loc, "float() cannot parse this string");
        return v_error();
    }
    if (v_is_number(v)) return v_float(k->loc, v->kind == V_FLOAT ? v->u.f : (double)(v->kind == V_BOOL ? v->u.b : v->u.i));
    if (v->kind == V_RT) {
        sema_error(c, v->loc, "float() converts constants; convert runtime values with .to(tl.float32)");
        return v_error();
    }
    if (v->kind != V_ERROR) sema_error(c, v->loc, "float() of %s", v_describe(c, v));
    return v_error();
}

static value b_py_int(checker *c, call *k) {
    value *v = &k->args[0];
    if (v->kind == V_INT) return *v;
    if (v->kind == V_BOOL) return v_int(k->loc, v->u.b);
    if (v->kind == V_FLOAT) {
        if (!isfinite(v->u.f) || fabs(v->u.f) > 9.2e18) {
            sema_error(c, v->loc, "int() of %s does not fit in i64", v_describe(c, v));
            return v_error();
        }
        return v_int(k->loc, (int64_t)v->u.f);
    }
    if (v->kind == V_RT) {
        sema_error(c, v->loc, "int() converts constants; convert runtime values with .to(tl.int32)");
        return v_error();
    }
    if (v->kind != V_ERROR) sema_error(c, v->loc, "int() of %s", v_describe(c, v));
    return v_error();
}

static value b_py_bool(checker *c, call *k) {
    value *v = &k->args[0];
    if (v_is_number(v)) return v_bool(k->loc, v->kind == V_FLOAT ? v->u.f != 0 : v->kind == V_BOOL ? v->u.b : v->u.i != 0);
    if (v->kind != V_ERROR) sema_error(c, v->loc, "bool() converts constants, not %s", v_describe(c, v));
    return v_error();
}

static value b_py_len(checker *c, call *k) {
    value *v = &k->args[0];
    if (v->kind == V_TUPLE) return v_int(k->loc, v->count);
    if (v->kind == V_STR) return v_int(k->loc, v->u.str.len);
    if (v->kind == V_RT && ty_rank(v->u.rt->type) > 0) return v_int(k->loc, v->u.rt->type->shape[0]);
    if (v->kind != V_ERROR) sema_error(c, v->loc, "len() of %s", v_describe(c, v));
    return v_error();
}

/* Python's min/max: constants fold; runtime values go element-wise; one
 * tile alone is reduced. */
static value py_minmax(checker *c, call *k, bool is_max) {
    if (k->rest_count == 0) {
        sema_error(c, k->loc, "%s() needs arguments", is_max ? "max" : "min");
        return v_error();
    }
    if (k->rest_count == 1 && k->rest[0].kind == V_TUPLE) {
        call sub = *k;
        sub.rest = k->rest[0].items;
        sub.rest_count = k->rest[0].count;
        return py_minmax(c, &sub, is_max);
    }
    if (k->rest_count == 1) {
        if (k->rest[0].kind == V_RT) {
            value args[1] = {k->rest[0]};
            return builtin_call(c, is_max ? TK_B_MAX : TK_B_MIN, NULL, args, 1,
                                NULL, NULL, NULL, 0, k->loc);
        }
        return k->rest[0];
    }
    value acc = k->rest[0];
    for (uint32_t i = 1; i < k->rest_count; i++) {
        value b = k->rest[i];
        if (acc.kind == V_ERROR || b.kind == V_ERROR) return v_error();
        if (v_is_const(&acc) && v_is_const(&b)) {
            if (!v_is_number(&acc) || !v_is_number(&b)) {
                sema_error(c, k->loc, "%s() compares numbers", is_max ? "max" : "min");
                return v_error();
            }
            value gt = arith(c, TK_BINOP_GT, b, acc, k->loc);
            bool take = is_max ? gt.u.b : !gt.u.b && !(arith(c, TK_BINOP_EQ, b, acc, k->loc).u.b);
            if (take) acc = b;
            continue;
        }
        value args[2] = {acc, b};
        acc = builtin_call(c, builtin_lookup(c, is_max ? "maximum" : "minimum", true), NULL, args, 2,
                           NULL, NULL, NULL, 0, k->loc);
    }
    return acc;
}

static value b_py_min(checker *c, call *k) { return py_minmax(c, k, false); }
static value b_py_max(checker *c, call *k) { return py_minmax(c, k, true); }

static value b_constexpr(checker *c, call *k) {
    (void)c;
    return k->args[0];
}

static value b_loop_only(checker *c, call *k) {
    sema_error(c, k->loc, "%s(...) is iterated by a for loop; it is not a value", k->name);
    return v_error();
}

/* ---- the table ---------------------------------------------------------- */

#define TL (B_TL | B_BARE)
#define TLM (B_TL | B_BARE | B_METHOD)

static const builtin_def builtins[] = {
#define BUILTIN(id, name, params, namespaces, check, lowering, scratch) {name, params, namespaces, check, lowering, scratch},
#include "builtins.def"
#undef BUILTIN
};

enum { BUILTIN_COUNT = sizeof builtins / sizeof builtins[0] };
_Static_assert((int)BUILTIN_COUNT == (int)TK_BUILTIN_COUNT, "builtins.def gives the table and the enum alike");

static const builtin_def *def_of(int id) { return &builtins[id]; }

int tk_sema_builtin_id(const char *name) {
    for (int i = 0; i < BUILTIN_COUNT; i++)
        if (strcmp(builtins[i].name, name) == 0 && (builtins[i].flags & (B_TL | B_METHOD))) return i;
    return -1;
}

const char *tk_sema_builtin_name(int id) {
    return id >= 0 && id < BUILTIN_COUNT ? builtins[id].name : "?";
}

unsigned tk_builtin_lowering(int id) { return id >= 0 && id < BUILTIN_COUNT ? builtins[id].lowering : 0; }

tk_scratch_kind tk_builtin_scratch(int id) {
    return id >= 0 && id < BUILTIN_COUNT ? builtins[id].scratch : TK_SCRATCH_NONE;
}

bool builtin_touches_memory(int id) { return id >= 0 && id < BUILTIN_COUNT && (builtins[id].flags & B_MEMORY); }

int builtin_lookup(checker *c, const char *name, bool tl_namespace) {
    (void)c;
    for (int i = 0; i < BUILTIN_COUNT; i++) {
        const builtin_def *b = &builtins[i];
        if (strcmp(b->name, name) != 0) continue;
        if (tl_namespace ? (b->flags & (B_TL | B_METHOD)) : (b->flags & (B_BARE | B_PYTHON))) return i;
        if (tl_namespace && strcmp(name, "libdevice") == 0) return i; /* for sema's own use */
    }
    return -1;
}

int builtin_lookup_libdevice(const char *name) {
    for (int i = 0; i < BUILTIN_COUNT; i++)
        if ((builtins[i].flags & B_LIBDEVICE) && strcmp(builtins[i].name, name) == 0) return i;
    return -1;
}

/* Triton builtins tkc does not have yet: they get a clear message rather
 * than "no member". */
static const char *const not_yet[] = {
    "gather", "histogram", "reduce_or", "logical_and", "logical_or",
    "sort", "topk", "swizzle2d", "make_tensor_descriptor",
    "load_tensor_descriptor", "store_tensor_descriptor",
    "philox", "dot_scaled", "tensor_descriptor", "max_constancy_hint", "map_elementwise",
};

bool builtin_not_supported_yet(const char *name) {
    for (size_t i = 0; i < sizeof not_yet / sizeof not_yet[0]; i++)
        if (strcmp(not_yet[i], name) == 0) return true;
    return false;
}

bool builtin_is_method(int id) { return builtins[id].flags & B_METHOD; }
bool builtin_allowed_in_grid(int id) { return builtins[id].flags & B_GRID; }

size_t builtin_names(const char **out, size_t max, bool libdevice) {
    size_t n = 0;
    for (int i = 0; i < BUILTIN_COUNT && n < max; i++)
        if (builtins[i].flags && (builtins[i].flags == B_LIBDEVICE) == libdevice) out[n++] = builtins[i].name;
    return n;
}

static const char *param_name(const builtin_def *b, uint32_t index, char *buf, size_t size) {
    const char *p = b->params;
    for (uint32_t i = 0; *p; i++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (i == index) {
            if (*p == '*') p++, len--;
            if (len && p[len - 1] == '=') len--;
            snprintf(buf, size, "%.*s", (int)len, p);
            return buf;
        }
        if (!end) break;
        p = end + 1;
    }
    snprintf(buf, size, "argument %u", index + 1);
    return buf;
}

value builtin_call(checker *c, int id, const value *receiver, value *args, uint32_t count,
                   const char **kw_names, value *kw_values, tk_loc *kw_locs,
                   uint32_t kw_count, tk_loc loc) {
    const builtin_def *b = &builtins[id];
    call k = {0};
    k.id = id;
    k.loc = loc;
    k.name = b->flags & B_PYTHON ? b->name
             : b->flags & B_LIBDEVICE ? tk_arena_printf(c->arena, "libdevice.%s", b->name)
             : receiver ? tk_arena_printf(c->arena, ".%s()", b->name)
                        : tk_arena_printf(c->arena, "tl.%s", b->name);
    if (c->frame && c->frame->in_grid && !(b->flags & B_GRID)) {
        sema_error(c, loc, "%s cannot be used in a grid expression: the grid is computed on the "
                   "host from scalar parameters and constexprs (cdiv, min, max and arithmetic)", k.name);
        return v_error();
    }
    /* split the parameter spec */
    struct { const char *name; bool optional, rest; } params[16];
    uint32_t np = 0;
    const char *p = b->params;
    while (*p && np < 16) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool rest = *p == '*';
        const char *start = rest ? p + 1 : p;
        size_t nlen = len - (rest ? 1 : 0);
        bool optional = nlen && start[nlen - 1] == '=';
        if (optional) nlen--;
        params[np].name = tk_intern(c->names, start, nlen);
        params[np].optional = optional;
        params[np].rest = rest;
        np++;
        if (!end) break;
        p = end + 1;
    }
    k.nparams = np;
    k.args = TK_NEW_ARRAY(c->arena, value, np + 1);
    k.given = TK_NEW_ARRAY(c->arena, bool, np + 1);
    uint32_t total = count + (receiver ? 1 : 0);
    value *all = TK_NEW_ARRAY(c->arena, value, total + 1);
    if (receiver) all[0] = *receiver;
    for (uint32_t i = 0; i < count; i++) all[i + (receiver ? 1 : 0)] = args[i];
    uint32_t next = 0;
    for (uint32_t i = 0; i < np; i++) k.args[i] = v_error();
    for (uint32_t i = 0; i < np && next < total; i++) {
        if (params[i].rest) {
            k.rest = all + next;
            k.rest_count = total - next;
            next = total;
            break;
        }
        k.args[i] = all[next++];
        k.given[i] = true;
    }
    if (next < total) {
        uint32_t positional = 0;
        for (uint32_t i = 0; i < np; i++) positional += !params[i].rest;
        sema_error(c, all[next].loc, "%s takes at most %u positional argument%s but %u were given",
                   k.name, positional - (receiver ? 1 : 0), positional - (receiver ? 1 : 0) == 1 ? "" : "s",
                   count);
        return v_error();
    }
    for (uint32_t j = 0; j < kw_count; j++) {
        uint32_t i = 0;
        while (i < np && (params[i].name != kw_names[j] || params[i].rest)) i++;
        if (i == np) {
            const char *cands[16];
            size_t nc = 0;
            for (uint32_t m = 0; m < np; m++)
                if (!params[m].rest) cands[nc++] = params[m].name;
            const char *s = suggest(c, kw_names[j], cands, nc);
            tk_loc at = kw_locs ? kw_locs[j] : loc;
            if (s) sema_error(c, at, "%s has no parameter '%s'; did you mean '%s'?", k.name, kw_names[j], s);
            else sema_error(c, at, "%s has no parameter '%s'", k.name, kw_names[j]);
            return v_error();
        }
        if (k.given[i]) {
            sema_error(c, kw_locs ? kw_locs[j] : loc, "%s gets '%s' twice", k.name, kw_names[j]);
            return v_error();
        }
        k.args[i] = kw_values[j];
        k.given[i] = true;
    }
    for (uint32_t i = 0; i < np; i++) {
        if (!k.given[i] && !params[i].optional && !params[i].rest) {
            sema_error(c, loc, "%s is missing the argument '%s'", k.name, params[i].name);
            return v_error();
        }
        if (!k.given[i]) k.args[i] = (value){.kind = V_NONE, .loc = loc};
        if (k.given[i] && k.args[i].kind == V_ERROR) return v_error();
    }
    for (uint32_t i = 0; i < k.rest_count; i++)
        if (k.rest[i].kind == V_ERROR) return v_error();
    return b->fn(c, &k);
}
