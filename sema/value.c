/* Values and the typed tree: the constructors of the checker's values
 * (constexprs, runtime work, tuples), how they print in messages, and the
 * typed tree's nodes and statements; making a value runtime, converting
 * and broadcasting it, and the checks on tile shapes. The interface the
 * builtins and every other file of the checker build on. Needs: types.c.
 * Guarantees: every sx made here has a type; a tile's dimensions are
 * powers of two and its size within the limits. */
#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- values --------------------------------------------------------- */

void sema_error(checker *c, tk_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tk_verror(c->diag, loc, fmt, ap);
    va_end(ap);
}

value v_error(void) { return (value){.kind = V_ERROR}; }

value v_int(tk_loc loc, int64_t i) {
    value v = {.kind = V_INT, .loc = loc};
    v.u.i = i;
    return v;
}

value v_float(tk_loc loc, double f) {
    value v = {.kind = V_FLOAT, .loc = loc};
    v.u.f = f;
    return v;
}

value v_bool(tk_loc loc, bool b) {
    value v = {.kind = V_BOOL, .loc = loc};
    v.u.b = b;
    return v;
}

value v_rt(tk_sx *rt) {
    value v = {.kind = rt ? V_RT : V_ERROR};
    if (rt) v.loc = rt->loc;
    v.u.rt = rt;
    return v;
}

value v_tuple(checker *c, tk_loc loc, uint32_t count) {
    value v = {.kind = V_TUPLE, .loc = loc, .count = count};
    v.items = TK_NEW_ARRAY(c->arena, value, count ? count : 1);
    return v;
}

bool v_is_number(const value *v) {
    return v->kind == V_INT || v->kind == V_FLOAT || v->kind == V_BOOL;
}

bool v_is_const(const value *v) {
    if (v->kind == V_TUPLE || v->kind == V_CONFIG) {
        for (uint32_t i = 0; i < (v->kind == V_CONFIG ? 2 * v->count : v->count); i++)
            if (!v_is_const(&v->items[i])) return false;
        return true;
    }
    return v->kind != V_RT && v->kind != V_ERROR;
}

bool v_truth(const value *v) {
    if (v_is_number(v)) return v_as_double(v) != 0;
    if (v->kind == V_STR) return v->u.str.len > 0;
    if (v->kind == V_TUPLE) return v->count > 0;
    return v->kind != V_NONE;
}

double v_as_double(const value *v) {
    return v->kind == V_FLOAT ? v->u.f : v->kind == V_BOOL ? (double)v->u.b : (double)v->u.i;
}

int64_t v_as_int(const value *v) { return v->kind == V_BOOL ? v->u.b : v->u.i; }

/* Writes a constexpr as the dumps show it. */
static void print_const(FILE *out, const value *v) {
    switch (v->kind) {
    case V_NONE: fputs("None", out); break;
    case V_INT: fprintf(out, "%" PRId64, v->u.i); break;
    case V_FLOAT: {
        char buf[64];
        tk_format_double(buf, sizeof buf, v->u.f);
        fputs(buf, out);
        break;
    }
    case V_BOOL: fputs(v->u.b ? "True" : "False", out); break;
    case V_STR: fprintf(out, "\"%.*s\"", (int)v->u.str.len, v->u.str.text); break;
    case V_DTYPE:
        fputs("tl.", out);
        for (uint32_t i = 0; i < v->count; i++) fputs("pointer_type(", out);
        fputs(tk_dtype_name(v->u.dtype), out);
        for (uint32_t i = 0; i < v->count; i++) fputc(')', out);
        for (uint32_t i = 0; v->block && i < v->block->rank; i++)
            fprintf(out, "%s%" PRId64 "%s", i ? ", " : "[", v->block->shape[i], i + 1 == v->block->rank ? "]" : "");
        break;
    case V_TUPLE:
        fputc('(', out);
        for (uint32_t i = 0; i < v->count; i++) {
            if (i) fputs(", ", out);
            print_const(out, &v->items[i]);
        }
        if (v->count == 1) fputc(',', out);
        fputc(')', out);
        break;
    case V_FUNC: case V_PYFUNC: fprintf(out, "%s", v->u.def->name); break;
    case V_BUILTIN: fprintf(out, "tl.%s", tk_sema_builtin_name(v->u.builtin)); break;
    case V_MODULE: fputs(v->u.module, out); break;
    case V_RT: tk_type_print(out, v->u.rt->type); break;
    case V_CONFIG:
        fputs("config(", out);
        for (uint32_t i = 0; i < v->count; i++) {
            fprintf(out, "%s%.*s=", i ? ", " : "", (int)v->items[2 * i].u.str.len, v->items[2 * i].u.str.text);
            print_const(out, &v->items[2 * i + 1]);
        }
        fputc(')', out);
        break;
    default: fputs("?", out); break;
    }
}

const char *const_text(checker *c, const value *v) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return "?";
    print_const(f, v);
    fclose(f);
    const char *s = tk_intern(c->names, buf, len);
    free(buf);
    return s;
}

const char *v_describe(checker *c, const value *v) {
    switch (v->kind) {
    case V_ERROR: return "an erroneous value";
    case V_NONE: return "None";
    case V_INT: return tk_arena_printf(c->arena, "the constant %" PRId64, v->u.i);
    case V_FLOAT: return tk_arena_printf(c->arena, "the constant %s", const_text(c, v));
    case V_BOOL: return v->u.b ? "the constant True" : "the constant False";
    case V_STR: return tk_arena_printf(c->arena, "the string %s", const_text(c, v));
    case V_DTYPE:
        if (v->block) return tk_arena_printf(c->arena, "the block type %s", tk_type_str(c->arena, v->block));
        return v->count ? tk_arena_printf(c->arena, "the pointer dtype *%s (.element_ty is %s)",
                                          tk_dtype_name(v->u.dtype), tk_dtype_name(v->u.dtype))
                        : tk_arena_printf(c->arena, "the dtype %s", tk_dtype_name(v->u.dtype));
    case V_TUPLE: return tk_arena_printf(c->arena, "the tuple %s", const_text(c, v));
    case V_CONFIG: return tk_arena_printf(c->arena, "the autotune config %s", const_text(c, v));
    case V_RT: {
        const tk_type *t = v->u.rt->type;
        if (t->kind == TK_TYPE_TILE) return tk_arena_printf(c->arena, "a tile of type %s", tk_type_str(c->arena, t));
        return tk_arena_printf(c->arena, "a value of type %s", tk_type_str(c->arena, t));
    }
    case V_BUILTIN: return tk_arena_printf(c->arena, "the builtin '%s'", tk_sema_builtin_name(v->u.builtin));
    case V_METHOD: return tk_arena_printf(c->arena, "the method '%s'", tk_sema_builtin_name(v->u.builtin));
    case V_MODULE: return tk_arena_printf(c->arena, "the module '%s'", v->u.module);
    case V_FUNC: case V_PYFUNC: return tk_arena_printf(c->arena, "the function '%s'", v->u.def->name);
    case V_META: return "the grid's meta-parameters";
    }
    return "?";
}

/* ---- the typed tree --------------------------------------------------- */

tk_sx *sx_new(checker *c, tk_sx_kind kind, const tk_type *type, tk_loc loc) {
    tk_sx *x = TK_NEW(c->arena, tk_sx);
    x->kind = kind;
    x->type = type;
    x->loc = loc;
    return x;
}

void sx_add_arg(checker *c, tk_sx *sx, tk_sx *arg) { tk_vec_push(c->arena, &sx->args, arg); }

void sx_add_attr_int(checker *c, tk_sx *sx, const char *name, int64_t i) {
    struct tk_sema_attr a = {name, NULL, i};
    tk_vec_push(c->arena, &sx->attrs, a);
}

void sx_add_attr_text(checker *c, tk_sx *sx, const char *name, const char *text) {
    struct tk_sema_attr a = {name, text, 0};
    tk_vec_push(c->arena, &sx->attrs, a);
}

tk_ss *ss_new(checker *c, tk_ss_kind kind, tk_loc loc) {
    tk_ss *s = TK_NEW(c->arena, tk_ss);
    s->kind = kind;
    s->loc = loc;
    s->num_stages = -1;
    return s;
}

bool can_emit(checker *c, tk_loc loc) {
    if (c->frame) return true;
    if (c->pyfunc_depth > 0)
        sema_error(c, loc, "this runs on the GPU, but it is in a function evaluated at compile time (a def "
                   "without @func); decorate the function with @func (Triton: @triton.jit)");
    else
        sema_error(c, loc, "this runs on the GPU, but it is evaluated at compile time here (a parameter's "
                   "default or a module-level name); compute it in the kernel or a @func");
    return false;
}

void emit_stmt(checker *c, tk_ss *s) {
    if (!can_emit(c, s->loc)) return;
    if (++c->emitted_statements > STATEMENTS_LIMIT && !c->over_budget) {
        c->over_budget = true;
        sema_error(c, s->loc, "this kernel unrolls into more than %d statements (tl.static_range loops "
                   "multiply their bodies); use range() for a runtime loop", STATEMENTS_LIMIT);
    }
    tk_vec_push(c->arena, c->frame->out, s);
}

tk_sema_var *new_var(checker *c, const char *name, const tk_type *type, tk_loc loc) {
    tk_sema_var *v = TK_NEW(c->arena, tk_sema_var);
    v->name = name;
    v->type = type;
    v->loc = loc;
    v->id = c->frame ? (*c->frame->var_counter)++ : c->frameless_vars++;
    return v;
}

tk_sx *sx_var(checker *c, const tk_sema_var *var, tk_loc loc) {
    tk_sx *x = sx_new(c, TK_SX_VAR, var->type, loc);
    x->var = var;
    return x;
}

bool const_fits(int64_t i, tk_dtype d) {
    if (tk_dtype_is_float(d)) return true;
    if (i < 0) return i >= dtype_int_min(d);
    return (uint64_t)i <= dtype_int_max(d);
}

tk_sx *sx_const(checker *c, const value *v, tk_dtype d, tk_loc loc) {
    tk_sx *x = sx_new(c, TK_SX_CONST, ty_scalar(c, d), loc);
    if (tk_dtype_is_float(d)) x->value.f = v_as_double(v);
    else if (v->kind == V_FLOAT) x->value.i = (int64_t)v->u.f;
    else x->value.i = v_as_int(v);
    if (d == TK_I1) x->value.i = x->value.i != 0;
    return x;
}

tk_sx *to_runtime(checker *c, const value *v, const tk_dtype *want) {
    tk_dtype d;
    switch (v->kind) {
    case V_RT: return v->u.rt;
    case V_INT: case V_FLOAT: case V_BOOL:
        if (!literal_dtype(v, &d)) return NULL;
        if (want) d = *want;
        return sx_const(c, v, d, v->loc);
    case V_ERROR: return NULL;
    default:
        sema_error(c, v->loc, "%s is not a runtime value here", v_describe(c, v));
        return NULL;
    }
}

tk_sx *convert(checker *c, tk_sx *x, tk_dtype d, tk_loc loc) {
    if (!x) return NULL;
    const tk_type *elem = ty_elem(x->type);
    if (elem->kind == TK_TYPE_SCALAR && elem->dtype == d) return x;
    if (x->kind == TK_SX_CONST) {
        value v = elem->kind == TK_TYPE_SCALAR && tk_dtype_is_float(elem->dtype)
                      ? v_float(x->loc, x->value.f)
                      : v_int(x->loc, x->value.i);
        return sx_const(c, &v, d, x->loc);
    }
    tk_sx *cast = sx_new(c, TK_SX_CAST, ty_with_elem(c, x->type, ty_scalar(c, d)), loc);
    sx_add_arg(c, cast, x);
    return cast;
}

tk_sx *broadcast_to_shape(checker *c, tk_sx *x, uint32_t rank, const int64_t *shape, tk_loc loc) {
    if (!x) return NULL;
    if (ty_rank(x->type) == rank && memcmp(ty_shape(x->type), shape, sizeof(int64_t) * rank) == 0)
        return x;
    if (rank == 0) return x;
    tk_sx *b = sx_new(c, TK_SX_BROADCAST, ty_tile(c, ty_elem(x->type), rank, shape), loc);
    sx_add_arg(c, b, x);
    return b;
}

static void shape_text(char *buf, size_t size, uint32_t rank, const int64_t *shape) {
    size_t n = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < rank && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (n < size) snprintf(buf + n, size - n, "]");
}

bool broadcast_shapes(checker *c, const tk_type *a, const tk_type *b, tk_loc loc,
                      const char *what, uint32_t *rank, int64_t *shape) {
    uint32_t ra = ty_rank(a), rb = ty_rank(b);
    uint32_t r = ra > rb ? ra : rb;
    for (uint32_t i = 0; i < r; i++) {
        int64_t da = i + ra >= r ? a->shape[i + ra - r] : 1;
        int64_t db = i + rb >= r ? b->shape[i + rb - r] : 1;
        if (ra == 0) da = 1;
        if (rb == 0) db = 1;
        if (da != db && da != 1 && db != 1) {
            char sa[96], sb[96];
            shape_text(sa, sizeof sa, ra, a->shape);
            shape_text(sb, sizeof sb, rb, b->shape);
            sema_error(c, loc, "shape mismatch in %s: %s and %s cannot be broadcast together "
                       "(dimension %u is %lld against %lld)", what, sa, sb, i, (long long)da,
                       (long long)db);
            return false;
        }
        shape[i] = da == 1 ? db : da;
    }
    *rank = r;
    return true;
}

void note_origin(checker *c, const value *origin) {
    if (origin && origin->origin.src && origin->origin_name)
        tk_note(c->diag, origin->origin, "%s", origin->origin_name);
}

bool check_tile_dim(checker *c, int64_t dim, tk_loc loc, const value *origin) {
    if (tk_is_pow2(dim)) return true;
    int64_t up = 1;
    while (up < dim && up < ((int64_t)1 << 40)) up <<= 1;
    if (dim <= 0)
        sema_error(c, loc, "tile dimension %lld is not positive", (long long)dim);
    else
        sema_error(c, loc, "tile dimension %lld is not a power of two; round it up to %lld and "
                   "mask the tail", (long long)dim, (long long)up);
    note_origin(c, origin);
    return false;
}

bool check_tile_total(checker *c, uint32_t rank, const int64_t *shape, tk_loc loc) {
    if (rank > TK_MAX_RANK) {
        sema_error(c, loc, "a tile has at most %d dimensions; this one would have %u", TK_MAX_RANK, rank);
        return false;
    }
    int64_t total = 1;
    bool over = false;
    for (uint32_t i = 0; i < rank; i++) {
        if (__builtin_mul_overflow(total, shape[i], &total)) over = true;
        if (total > TK_MAX_TILE_ELEMENTS) over = true;
    }
    if (!over) return true;
    char text[128];
    shape_text(text, sizeof text, rank, shape);
    sema_error(c, loc, "tile too large: %s has %lld elements, more than the limit of %d; split "
               "the work over more programs or loop over smaller blocks", text,
               (long long)total, TK_MAX_TILE_ELEMENTS);
    return false;
}

bool check_tile_shape(checker *c, uint32_t rank, const int64_t *shape, tk_loc loc,
                      const value *origin) {
    for (uint32_t i = 0; i < rank && i < TK_MAX_RANK; i++)
        if (!check_tile_dim(c, shape[i], loc, origin)) return false;
    return check_tile_total(c, rank, shape, loc);
}

/* ---- messages ---------------------------------------------------------- */

const char *suggest(checker *c, const char *name, const char *const *candidates, size_t n) {
    (void)c;
    const char *best = NULL;
    unsigned best_d = 3;
    size_t len = strlen(name);
    unsigned limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i] || strcmp(candidates[i], name) == 0) continue;
        /* a name cut short (cache for cache_modifier) */
        if (len >= 4 && strncmp(candidates[i], name, len) == 0 && !best) best = candidates[i];
        unsigned d = tk_edit_distance(name, candidates[i]);
        if (d <= limit && d < best_d + (best ? 0 : 1)) {
            if (!best || d < best_d) {
                best = candidates[i];
                best_d = d;
            }
        }
    }
    return best;
}
