/* The builtins: tl.* functions and the Python builtins kernels use. One
 * table (builtins.def) gives each its Triton signature (parameter names,
 * which have defaults, varargs) and a checker, in the builtins_*.c file of
 * its family, that computes its result type and writes the typed call.
 * This file holds the table, the look-ups the checker uses, the binding of
 * a call's arguments to the signature, and the argument readers every
 * family shares (builtin.h). Needs: value.c's values and typed tree. Guarantees:
 * arguments reach the family's checker in the builtin's parameter order,
 * each given once, the required ones present. */
#include "builtin.h"

#include <inttypes.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------- */

static const char *param_name(const builtin_def *b, uint32_t index, char *buf, size_t size);
static const builtin_def *def_of(int id);

const char *pname(call *k, uint32_t i) {
    static _Thread_local char buf[64];
    return param_name(def_of(k->id), i, buf, sizeof buf);
}

tk_sx *rt_arg(checker *c, call *k, uint32_t i) {
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

bool const_int(checker *c, call *k, uint32_t i, int64_t *out) {
    value *v = &k->args[i];
    if (v->kind == V_ERROR) return false;
    if (v->kind == V_INT || v->kind == V_BOOL) {
        *out = v->kind == V_BOOL ? v->u.b : v->u.i;
        return true;
    }
    sema_error(c, v->loc, "'%s' of %s must be a compile-time integer, not %s", pname(k, i),
               k->name, v_describe(c, v));
    note_origin(c, v);
    return false;
}

bool const_bool(checker *c, call *k, uint32_t i, bool dflt, bool *out) {
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

bool const_str(checker *c, call *k, uint32_t i, const char *const *allowed, size_t n,
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

bool dtype_arg(checker *c, call *k, uint32_t i, tk_dtype *out) {
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
        /* -D X_dtype=bf16 where X_dtype has no dtype default: bf16 is the dtype */
        if (v->from_define && dtype_from_name(s, &d)) {
            *out = d;
            return true;
        }
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
bool shape_of(checker *c, const value *v, const char *what, uint32_t *rank, int64_t *shape) {
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
            note_origin(c, d);
            return false;
        }
        shape[i] = d->u.i;
        if (!check_tile_dim(c, shape[i], d->loc, d)) return false;
    }
    return check_tile_total(c, *rank, shape, v->loc);
}

/* The shape from varargs (f(x, 2, 3)) or a single tuple (f(x, (2, 3))). */
bool rest_shape(checker *c, call *k, const char *what, uint32_t *rank, int64_t *shape) {
    if (k->rest_count == 1) return shape_of(c, &k->rest[0], what, rank, shape);
    value t = v_tuple(c, k->loc, k->rest_count);
    for (uint32_t i = 0; i < k->rest_count; i++) t.items[i] = k->rest[i];
    return shape_of(c, &t, what, rank, shape);
}

tk_sx *builtin_sx(checker *c, call *k, const tk_type *type) {
    tk_sx *x = sx_new(c, TK_SX_BUILTIN, type, k->loc);
    x->builtin = k->id;
    return x;
}

bool elem_is_scalar(checker *c, call *k, tk_sx *x, uint32_t i) {
    if (ty_elem(x->type)->kind == TK_TYPE_SCALAR) return true;
    sema_error(c, k->args[i].loc, "'%s' of %s must hold numbers, not %s", pname(k, i), k->name,
               tk_type_str(c->arena, x->type));
    return false;
}

/* Side-effecting builtins become statements: a value-returning one is
 * assigned to a fresh variable so its effect happens exactly once. */
value emit_effect(checker *c, tk_sx *x) {
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
value tuple_result(checker *c, tk_sx *x) {
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

bool axis_value(checker *c, call *k, uint32_t i, uint32_t rank, int64_t *axis) {
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

/* ---- the table ---------------------------------------------------------- */

static const builtin_def builtins[] = {
#define BUILTIN(id, name, params, namespaces, check, lowering, scratch) {name, params, namespaces, check},
#include "builtins.def"
#undef BUILTIN
};

enum { BUILTIN_COUNT = sizeof builtins / sizeof builtins[0] };
_Static_assert((int)BUILTIN_COUNT == (int)TK_BUILTIN_COUNT, "builtins.def gives the table and the enum alike");

static const builtin_def *def_of(int id) { return &builtins[id]; }

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

int builtin_lookup_cuda(const char *name) {
    for (int i = 0; i < BUILTIN_COUNT; i++)
        if ((builtins[i].flags & B_CUDA) && strcmp(builtins[i].name, name) == 0) return i;
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
    "swizzle2d", "philox", "tensor_descriptor", "max_constancy_hint", "map_elementwise",
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
        if (builtins[i].flags && !(builtins[i].flags & B_CUDA) && (builtins[i].flags == B_LIBDEVICE) == libdevice)
            out[n++] = builtins[i].name;
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
             : receiver && id == TK_B_LOAD_TENSOR_DESCRIPTOR ? "desc.load()"
             : receiver && id == TK_B_STORE_TENSOR_DESCRIPTOR ? "desc.store()"
             : receiver && id >= TK_B_DESC_ATOMIC_ADD && id <= TK_B_DESC_SCATTER
                 ? tk_arena_printf(c->arena, "desc.%s()", b->name)
             : receiver ? tk_arena_printf(c->arena, ".%s()", b->name)
                        : tk_arena_printf(c->arena, "tl.%s", b->name);
    if (c->frame && c->frame->in_grid && !(b->flags & B_GRID)) {
        sema_error(c, loc, "%s cannot be used in a host expression (the grid, requires=, @heuristics, "
                   "num_warps=, a buffer's size): the launcher computes those from scalar parameters and "
                   "constexprs (cdiv, min, max and arithmetic)", k.name);
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
