/* The checker: interprets each kernel variant over the AST with constexprs
 * known, and writes the runtime work it finds as the typed tree of sema.h.
 *
 * Needs: a parsed module (possibly with errors already reported). Guarantees:
 * every sx has a type; every tile dimension is a power of two; a name has
 * one type across the branches of a runtime `if` and across the iterations
 * of a runtime loop; constexpr `if` keeps only the branch taken;
 * static_range is unrolled; each @func is specialized once per distinct
 * signature. Errors never stop the checker: an erroneous value becomes
 * V_ERROR, which silences what follows from it. */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
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
    if (v->kind == V_TUPLE) {
        for (uint32_t i = 0; i < v->count; i++)
            if (!v_is_const(&v->items[i])) return false;
        return true;
    }
    return v->kind != V_RT && v->kind != V_ERROR;
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
    case V_FUNC: fprintf(out, "%s", v->u.def->name); break;
    case V_BUILTIN: fprintf(out, "tl.%s", tk_sema_builtin_name(v->u.builtin)); break;
    case V_MODULE: fputs(v->u.module, out); break;
    case V_RT: tk_type_print(out, v->u.rt->type); break;
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
        return v->count ? tk_arena_printf(c->arena, "the pointer dtype *%s (.element_ty is %s)",
                                          tk_dtype_name(v->u.dtype), tk_dtype_name(v->u.dtype))
                        : tk_arena_printf(c->arena, "the dtype %s", tk_dtype_name(v->u.dtype));
    case V_TUPLE: return tk_arena_printf(c->arena, "the tuple %s", const_text(c, v));
    case V_RT: {
        const tk_type *t = v->u.rt->type;
        if (t->kind == TK_TYPE_TILE) return tk_arena_printf(c->arena, "a tile of type %s", tk_type_str(c->arena, t));
        return tk_arena_printf(c->arena, "a value of type %s", tk_type_str(c->arena, t));
    }
    case V_BUILTIN: return tk_arena_printf(c->arena, "the builtin '%s'", tk_sema_builtin_name(v->u.builtin));
    case V_METHOD: return tk_arena_printf(c->arena, "the method '%s'", tk_sema_builtin_name(v->u.builtin));
    case V_MODULE: return tk_arena_printf(c->arena, "the module '%s'", v->u.module);
    case V_FUNC: return tk_arena_printf(c->arena, "the function '%s'", v->u.def->name);
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

enum { STATIC_UNROLL_LIMIT = 4096, UNROLLED_TRIPS_LIMIT = 1 << 16, STATEMENTS_LIMIT = 1 << 18 };

void emit_stmt(checker *c, tk_ss *s) {
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
    v->id = (*c->frame->var_counter)++;
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

static void note_origin(checker *c, const value *origin) {
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

/* ---- names ------------------------------------------------------------ */

user_module *sema_user_module(checker *c, const char *key) {
    for (uint32_t i = 0; i < c->user_modules.len; i++)
        if (c->user_modules.data[i]->key == key) return c->user_modules.data[i];
    return NULL;
}

user_module *sema_home_of(checker *c, const tk_def *def) {
    for (uint32_t i = 0; i < c->homes.len; i++)
        if (c->homes.data[i].def == def) return c->homes.data[i].home;
    return NULL;
}

static binding *lookup_in(scope *s, const char *name) {
    for (uint32_t i = s->len; i-- > 0;)
        if (s->data[i].name == name) return &s->data[i];
    return NULL;
}

static binding *lookup(checker *c, const char *name) {
    binding *b = c->frame ? lookup_in(&c->frame->names, name) : NULL;
    if (b) return b;
    for (uint32_t i = c->globals.len; i-- > 0;)
        if (c->globals.data[i].name == name) return &c->globals.data[i];
    return NULL;
}

binding *bind(checker *c, scope *s, const char *name, value v, tk_loc def_loc) {
    binding *b = lookup_in(s, name);
    if (!b) {
        binding nb = {0};
        nb.name = name;
        tk_vec_push(c->arena, s, nb);
        b = &s->data[s->len - 1];
    }
    b->val = v;
    b->var = NULL;
    b->state = BOUND;
    b->def_loc = def_loc;
    return b;
}

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

static void unknown_name(checker *c, const char *name, tk_loc loc) {
    /* a module of triton.language used without its import: say how to
     * reach it, not which name it looks like */
    if (tl_reexporting_module(name) || name == c->n_math) {
        sema_error(c, loc, "unknown name '%s'; write tl.%s, or import triton.language.%s as %s", name, name, name,
                   name);
        return;
    }
    if (strcmp(name, "libdevice") == 0) {
        sema_error(c, loc, "unknown name 'libdevice'; from triton.language.extra import libdevice");
        return;
    }
    const char *cands[512];
    size_t n = 0;
    if (c->frame)
        for (uint32_t i = 0; i < c->frame->names.len && n < 256; i++)
            cands[n++] = c->frame->names.data[i].name;
    for (uint32_t i = 0; i < c->globals.len && n < 300; i++) cands[n++] = c->globals.data[i].name;
    n += builtin_names(cands + n, 512 - n, false);
    const char *s = suggest(c, name, cands, n);
    if (s) {
        sema_error(c, loc, "unknown name '%s'; did you mean '%s'?", name, s);
    } else {
        sema_error(c, loc, "unknown name '%s'", name);
    }
}

/* ---- constexpr arithmetic (Python's rules) ---------------------------- */

static value fold_error(checker *c, tk_loc loc, const char *msg) {
    sema_error(c, loc, "%s", msg);
    return v_error();
}

static int64_t py_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t py_mod(int64_t a, int64_t b) {
    int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return m;
}

static bool const_equal(const value *a, const value *b) {
    if (v_is_number(a) && v_is_number(b)) {
        if (a->kind == V_FLOAT || b->kind == V_FLOAT) return v_as_double(a) == v_as_double(b);
        return v_as_int(a) == v_as_int(b);
    }
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case V_NONE: return true;
    case V_STR: return a->u.str.len == b->u.str.len && memcmp(a->u.str.text, b->u.str.text, a->u.str.len) == 0;
    case V_DTYPE: return a->u.dtype == b->u.dtype && a->count == b->count;
    case V_TUPLE:
        if (a->count != b->count) return false;
        for (uint32_t i = 0; i < a->count; i++)
            if (!const_equal(&a->items[i], &b->items[i])) return false;
        return true;
    case V_FUNC: return a->u.def == b->u.def;
    case V_BUILTIN: return a->u.builtin == b->u.builtin;
    default: return false;
    }
}

static value fold_binary(checker *c, tk_binop op, const value *a, const value *b, tk_loc loc) {
    value r = v_error();
    r.loc = loc;
    r.origin = a->origin.src ? a->origin : b->origin;
    r.origin_name = a->origin.src ? a->origin_name : b->origin_name;
    if (op == TK_BINOP_EQ || op == TK_BINOP_NE || op == TK_BINOP_IS || op == TK_BINOP_IS_NOT) {
        bool eq = const_equal(a, b);
        bool want_eq = op == TK_BINOP_EQ || op == TK_BINOP_IS;
        value out = v_bool(loc, eq == want_eq);
        out.origin = r.origin;
        out.origin_name = r.origin_name;
        return out;
    }
    if (op == TK_BINOP_IN || op == TK_BINOP_NOT_IN) {
        if (b->kind != V_TUPLE) return fold_error(c, loc, "'in' needs a tuple or list on its right");
        bool found = false;
        for (uint32_t i = 0; i < b->count; i++) found |= const_equal(a, &b->items[i]);
        return v_bool(loc, found == (op == TK_BINOP_IN));
    }
    if (a->kind == V_STR && b->kind == V_STR && op == TK_BINOP_ADD) {
        char *s = tk_arena_alloc(c->arena, a->u.str.len + b->u.str.len + 1);
        memcpy(s, a->u.str.text, a->u.str.len);
        memcpy(s + a->u.str.len, b->u.str.text, b->u.str.len);
        r.kind = V_STR;
        r.u.str.text = s;
        r.u.str.len = a->u.str.len + b->u.str.len;
        return r;
    }
    if (a->kind == V_TUPLE && b->kind == V_TUPLE && op == TK_BINOP_ADD) {
        value t = v_tuple(c, loc, a->count + b->count);
        for (uint32_t i = 0; i < a->count; i++) t.items[i] = a->items[i];
        for (uint32_t i = 0; i < b->count; i++) t.items[a->count + i] = b->items[i];
        return t;
    }
    if (!v_is_number(a) || !v_is_number(b)) {
        sema_error(c, loc, "'%s' does not apply to %s and %s", tk_ast_binop_spelling(op),
                   v_describe(c, a), v_describe(c, b));
        return v_error();
    }
    bool is_float = a->kind == V_FLOAT || b->kind == V_FLOAT;
    bool is_cmp = op >= TK_BINOP_LT && op <= TK_BINOP_GE;
    if (is_cmp) {
        bool res;
        if (is_float) {
            double x = v_as_double(a), y = v_as_double(b);
            res = op == TK_BINOP_LT ? x < y : op == TK_BINOP_GT ? x > y : op == TK_BINOP_LE ? x <= y : x >= y;
        } else {
            int64_t x = v_as_int(a), y = v_as_int(b);
            res = op == TK_BINOP_LT ? x < y : op == TK_BINOP_GT ? x > y : op == TK_BINOP_LE ? x <= y : x >= y;
        }
        value out = v_bool(loc, res);
        out.origin = r.origin;
        out.origin_name = r.origin_name;
        return out;
    }
    if (op == TK_BINOP_DIV || (is_float && op != TK_BINOP_AND && op != TK_BINOP_OR &&
                               op != TK_BINOP_XOR && op != TK_BINOP_SHL && op != TK_BINOP_SHR)) {
        double x = v_as_double(a), y = v_as_double(b), z;
        switch (op) {
        case TK_BINOP_ADD: z = x + y; break;
        case TK_BINOP_SUB: z = x - y; break;
        case TK_BINOP_MUL: z = x * y; break;
        case TK_BINOP_DIV:
            if (y == 0) return fold_error(c, loc, "division by zero in a constant expression");
            z = x / y;
            break;
        case TK_BINOP_FLOORDIV:
            if (y == 0) return fold_error(c, loc, "division by zero in a constant expression");
            z = floor(x / y);
            break;
        case TK_BINOP_MOD:
            if (y == 0) return fold_error(c, loc, "modulo by zero in a constant expression");
            z = fmod(x, y);
            if (z != 0 && ((z < 0) != (y < 0))) z += y;
            break;
        case TK_BINOP_POW: z = pow(x, y); break;
        default:
            sema_error(c, loc, "'%s' does not apply to floating-point constants", tk_ast_binop_spelling(op));
            return v_error();
        }
        value out = v_float(loc, z);
        out.origin = r.origin;
        out.origin_name = r.origin_name;
        return out;
    }
    int64_t x = v_as_int(a), y = v_as_int(b), z = 0;
    bool overflow = false;
    switch (op) {
    case TK_BINOP_ADD: overflow = __builtin_add_overflow(x, y, &z); break;
    case TK_BINOP_SUB: overflow = __builtin_sub_overflow(x, y, &z); break;
    case TK_BINOP_MUL: overflow = __builtin_mul_overflow(x, y, &z); break;
    case TK_BINOP_FLOORDIV:
        if (y == 0) return fold_error(c, loc, "division by zero in a constant expression");
        if (x == INT64_MIN && y == -1) overflow = true; else z = py_floordiv(x, y);
        break;
    case TK_BINOP_MOD:
        if (y == 0) return fold_error(c, loc, "modulo by zero in a constant expression");
        z = y == -1 ? 0 : py_mod(x, y);
        break;
    case TK_BINOP_POW:
        if (y < 0) {
            value out = v_float(loc, pow((double)x, (double)y));
            return out;
        }
        z = 1;
        for (int64_t k = 0; k < y && !overflow; k++) overflow = __builtin_mul_overflow(z, x, &z);
        break;
    case TK_BINOP_SHL:
        if (y < 0 || y >= 63) overflow = true; else overflow = __builtin_mul_overflow(x, (int64_t)1 << y, &z);
        break;
    case TK_BINOP_SHR:
        if (y < 0) return fold_error(c, loc, "negative shift count in a constant expression");
        z = y >= 64 ? (x < 0 ? -1 : 0) : x >> y;
        break;
    case TK_BINOP_AND: z = x & y; break;
    case TK_BINOP_OR: z = x | y; break;
    case TK_BINOP_XOR: z = x ^ y; break;
    default:
        sema_error(c, loc, "'%s' does not apply to constants", tk_ast_binop_spelling(op));
        return v_error();
    }
    if (overflow) return fold_error(c, loc, "constant expression overflows 64 bits");
    bool both_bool = a->kind == V_BOOL && b->kind == V_BOOL &&
                     (op == TK_BINOP_AND || op == TK_BINOP_OR || op == TK_BINOP_XOR);
    value out = both_bool ? v_bool(loc, z != 0) : v_int(loc, z);
    out.origin = r.origin;
    out.origin_name = r.origin_name;
    return out;
}

/* ---- runtime arithmetic ----------------------------------------------- */

static bool is_cmp_op(tk_binop op) { return op >= TK_BINOP_LT && op <= TK_BINOP_NE; }
static bool is_bitwise_op(tk_binop op) {
    return op == TK_BINOP_AND || op == TK_BINOP_OR || op == TK_BINOP_XOR ||
           op == TK_BINOP_SHL || op == TK_BINOP_SHR;
}

/* Checks that constexpr `lit` can take dtype d without changing value. */
static bool check_literal_fits(checker *c, const value *lit, tk_dtype d, tk_loc loc) {
    if (lit->kind != V_INT || tk_dtype_is_float(d)) return true;
    if (!tk_dtype_is_signed(d) && lit->u.i < 0) {
        sema_error(c, loc, "the constant %" PRId64 " is negative but the other operand is "
                   "unsigned (%s)", lit->u.i, tk_dtype_name(d));
        return false;
    }
    if (!const_fits(lit->u.i, d)) {
        sema_error(c, loc, "the constant %" PRId64 " does not fit in %s, the other operand's "
                   "type; convert that operand with .to() first", lit->u.i, tk_dtype_name(d));
        note_origin(c, lit);
        return false;
    }
    return true;
}

static value pointer_arith(checker *c, tk_binop op, value a, value b, tk_loc loc) {
    bool a_ptr = a.kind == V_RT && ty_elem_is_pointer(a.u.rt->type);
    bool b_ptr = b.kind == V_RT && ty_elem_is_pointer(b.u.rt->type);
    if (a_ptr && b_ptr) {
        sema_error(c, loc, "pointer %s pointer: only an integer offset can be added to a pointer",
                   tk_ast_binop_spelling(op));
        return v_error();
    }
    if (op != TK_BINOP_ADD && op != TK_BINOP_SUB) {
        sema_error(c, loc, "'%s' does not apply to pointers; only '+' and '-' with an integer "
                   "offset do", tk_ast_binop_spelling(op));
        return v_error();
    }
    if (b_ptr) {
        if (op == TK_BINOP_SUB) {
            sema_error(c, loc, "an integer minus a pointer has no meaning; write pointer - offset");
            return v_error();
        }
        value t = a;
        a = b;
        b = t;
    }
    tk_dtype od;
    if (b.kind == V_RT) {
        const tk_type *be = ty_elem(b.u.rt->type);
        od = be->dtype;
        if (be->kind != TK_TYPE_SCALAR || tk_dtype_is_float(od)) {
            sema_error(c, b.loc, "a float used as an index: pointer offsets must be integers "
                       "(this one is %s)", tk_type_str(c->arena, b.u.rt->type));
            return v_error();
        }
    } else if (b.kind == V_INT || b.kind == V_BOOL) {
        literal_dtype(&b, &od);
    } else if (b.kind == V_FLOAT) {
        sema_error(c, b.loc, "a float used as an index: pointer offsets must be integers");
        return v_error();
    } else {
        sema_error(c, b.loc, "%s cannot be added to a pointer", v_describe(c, &b));
        return v_error();
    }
    tk_sx *p = a.u.rt, *off = to_runtime(c, &b, &od);
    if (!off) return v_error();
    if (op == TK_BINOP_SUB && b.kind == V_RT && !tk_dtype_is_signed(od) && od != TK_I1)
        tk_warning(c->diag, TK_W_UNSIGNED_OFFSET, b.loc, "subtracting an unsigned offset (%s) from a pointer: the "
                   "negated offset wraps to a large positive one; convert it to a signed type "
                   "first", tk_dtype_name(od));
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    if (!broadcast_shapes(c, p->type, off->type, loc, "pointer arithmetic", &rank, shape)) return v_error();
    tk_sx *x = sx_new(c, TK_SX_BINARY, ty_tile(c, ty_elem(p->type), rank, shape), loc);
    x->op = op;
    sx_add_arg(c, x, broadcast_to_shape(c, p, rank, shape, loc));
    sx_add_arg(c, x, broadcast_to_shape(c, off, rank, shape, loc));
    return v_rt(x);
}

value arith(checker *c, tk_binop op, value a, value b, tk_loc loc) {
    if (a.kind == V_ERROR || b.kind == V_ERROR) return v_error();
    if (v_is_const(&a) && v_is_const(&b)) return fold_binary(c, op, &a, &b, loc);
    if (op == TK_BINOP_MATMUL) {
        int dot = TK_B_DOT;
        value args[2] = {a, b};
        return builtin_call(c, dot, NULL, args, 2, NULL, NULL, NULL, 0, loc);
    }
    if (op == TK_BINOP_IS || op == TK_BINOP_IS_NOT || op == TK_BINOP_IN || op == TK_BINOP_NOT_IN) {
        sema_error(c, loc, "'%s' compares compile-time values only", tk_ast_binop_spelling(op));
        return v_error();
    }
    if (op == TK_BINOP_POW) {
        sema_error(c, loc, "'**' on runtime values is not supported; multiply, or use tl.exp2 "
                   "and tl.log2");
        return v_error();
    }
    for (int side = 0; side < 2; side++) {
        const value *v = side ? &b : &a;
        if (v->kind != V_RT && !v_is_number(v)) {
            sema_error(c, v->loc, "%s cannot be used in '%s' with a runtime value",
                       v_describe(c, v), tk_ast_binop_spelling(op));
            return v_error();
        }
        if (v->kind == V_RT && (v->u.rt->type->kind == TK_TYPE_TUPLE ||
                                v->u.rt->type->kind == TK_TYPE_BLOCK_PTR ||
                                v->u.rt->type->kind == TK_TYPE_VOID)) {
            sema_error(c, v->loc, "'%s' does not apply to %s", tk_ast_binop_spelling(op),
                       v_describe(c, v));
            return v_error();
        }
    }
    bool a_ptr = a.kind == V_RT && ty_elem_is_pointer(a.u.rt->type);
    bool b_ptr = b.kind == V_RT && ty_elem_is_pointer(b.u.rt->type);
    if (a_ptr || b_ptr) {
        if (is_cmp_op(op)) {
            sema_error(c, loc, "pointers cannot be compared; compare the offsets instead");
            return v_error();
        }
        return pointer_arith(c, op, a, b, loc);
    }
    bool lit_a = a.kind != V_RT, lit_b = b.kind != V_RT;
    tk_dtype da, db;
    if (lit_a) literal_dtype(&a, &da); else da = ty_elem(a.u.rt->type)->dtype;
    if (lit_b) literal_dtype(&b, &db); else db = ty_elem(b.u.rt->type)->dtype;
    tk_dtype result;
    const char *err = NULL;
    bool div_or_mod = op == TK_BINOP_DIV || op == TK_BINOP_FLOORDIV || op == TK_BINOP_MOD;
    if (is_cmp_op(op)) {
        /* comparisons do not let a constant adapt: it takes its own dtype */
        result = promote_dtypes(da, false, db, false, false, &err);
        const value *lit = lit_a ? &a : lit_b ? &b : NULL;
        if (!err && lit && lit->kind == V_INT && lit->u.i < 0 && !tk_dtype_is_signed(result) &&
            !tk_dtype_is_float(result))
            tk_warning(c->diag, TK_W_SIGN_COMPARE, lit->loc, "comparing an unsigned %s value with the negative "
                       "constant %" PRId64 ": the constant becomes %llu", tk_dtype_name(result),
                       lit->u.i, (unsigned long long)((uint64_t)lit->u.i & dtype_int_max(result)));
    } else {
        result = promote_dtypes(da, lit_a, db, lit_b, div_or_mod, &err);
    }
    if (err) {
        sema_error(c, loc, "%s (operands are %s and %s)", err, tk_dtype_name(da), tk_dtype_name(db));
        return v_error();
    }
    if (is_bitwise_op(op) && (tk_dtype_is_float(da) || tk_dtype_is_float(db))) {
        sema_error(c, loc, "bitwise '%s' on %s: bitwise operators need integers (reinterpret "
                   "the bits with .to(tl.int32, bitcast=True))", tk_ast_binop_spelling(op),
                   tk_dtype_is_float(da) ? tk_dtype_name(da) : tk_dtype_name(db));
        return v_error();
    }
    if (op == TK_BINOP_FLOORDIV && tk_dtype_is_float(result)) {
        sema_error(c, loc, "'//' needs integer operands (these are %s and %s); use '/' and "
                   "tl.floor for floats", tk_dtype_name(da), tk_dtype_name(db));
        return v_error();
    }
    if (!is_cmp_op(op)) {
        if (lit_a && !check_literal_fits(c, &a, result, a.loc)) return v_error();
        if (lit_b && !check_literal_fits(c, &b, result, b.loc)) return v_error();
    }
    /* int / int is a float division in f32 (Triton's rule) */
    if (op == TK_BINOP_DIV && !tk_dtype_is_float(result)) result = TK_F32;
    tk_sx *xa = lit_a ? to_runtime(c, &a, &result) : a.u.rt;
    tk_sx *xb = lit_b ? to_runtime(c, &b, &result) : b.u.rt;
    if (!xa || !xb) return v_error();
    uint32_t rank;
    int64_t shape[TK_MAX_RANK];
    char what[32];
    snprintf(what, sizeof what, "'%s'", tk_ast_binop_spelling(op));
    if (!broadcast_shapes(c, xa->type, xb->type, loc, what, &rank, shape)) return v_error();
    xa = broadcast_to_shape(c, convert(c, xa, result, loc), rank, shape, loc);
    xb = broadcast_to_shape(c, convert(c, xb, result, loc), rank, shape, loc);
    tk_dtype out = is_cmp_op(op) ? TK_I1 : result;
    tk_sx *x = sx_new(c, TK_SX_BINARY, ty_tile(c, ty_scalar(c, out), rank, shape), loc);
    x->op = op;
    /* '>>' is arithmetic when the left operand was signed before promotion */
    if (op == TK_BINOP_SHR) sx_add_attr_int(c, x, "arithmetic", tk_dtype_is_signed(da) && da != TK_I1);
    sx_add_arg(c, x, xa);
    sx_add_arg(c, x, xb);
    return v_rt(x);
}

/* ---- short circuits ------------------------------------------------------ */

/* Would evaluating x touch memory? A call's body may. */
static bool sx_touches_memory(const tk_sx *x) {
    if (x->kind == TK_SX_CALL || (x->kind == TK_SX_BUILTIN && builtin_touches_memory(x->builtin))) return true;
    for (uint32_t i = 0; i < x->args.len; i++)
        if (sx_touches_memory(x->args.data[i])) return true;
    return false;
}

/* Evaluates e with the statements it emits (an inlined @func, an atomic)
 * going to *stmts, so that they can run only where a condition holds. */
static value eval_aside(checker *c, const tk_expr *e, tk_ss_list *stmts) {
    tk_ss_list *out = c->frame->out;
    c->frame->out = stmts;
    value v = eval(c, e);
    c->frame->out = out;
    return v;
}

/* Must a branch guard this operand, as `i < n and x[i] > 0` guards the
 * load? A pure operand is cheaper computed beside the other (a select). */
static bool needs_branch(const value *v, const tk_ss_list *stmts) {
    return stmts->len > 0 || (v->kind == V_RT && sx_touches_memory(v->u.rt));
}

static void append_stmts(checker *c, const tk_ss_list *stmts) {
    for (uint32_t i = 0; i < stmts->len; i++) tk_vec_push(c->arena, c->frame->out, stmts->data[i]);
}

/* The value of `then_x if cond else else_x` where only the chosen side may
 * run: an if whose branches run their statements and assign one variable. */
static value guarded_value(checker *c, tk_sx *cond, tk_ss_list *then_stmts, tk_sx *then_x,
                          tk_ss_list *else_stmts, tk_sx *else_x, tk_loc loc) {
    tk_sema_var *var = new_var(c, "_", then_x->type, loc);
    tk_ss *st = ss_new(c, TK_SS_IF, loc);
    st->value = cond;
    st->then = *then_stmts;
    st->otherwise = *else_stmts;
    tk_sx *xs[2] = {then_x, else_x};
    for (int side = 0; side < 2; side++) {
        tk_ss *assign = ss_new(c, TK_SS_ASSIGN, loc);
        assign->var = var;
        assign->value = xs[side];
        tk_vec_push(c->arena, side ? &st->otherwise : &st->then, assign);
    }
    emit_stmt(c, st);
    return v_rt(sx_var(c, var, loc));
}

static value logical(checker *c, tk_binop op, const tk_expr *lhs_e, const tk_expr *rhs_e, tk_loc loc) {
    value a = eval(c, lhs_e);
    if (a.kind == V_ERROR) return a;
    if (v_is_const(&a)) {
        /* Python's short circuit: the constant decides whether rhs runs */
        bool truth = v_is_number(&a) ? v_as_double(&a) != 0 : a.kind == V_STR ? a.u.str.len > 0
                   : a.kind == V_TUPLE ? a.count > 0 : a.kind != V_NONE;
        if (op == TK_BINOP_LOGICAL_AND && !truth) return a;
        if (op == TK_BINOP_LOGICAL_OR && truth) return a;
        value b = eval(c, rhs_e);
        if (b.kind != V_RT) return b;
        a = v_bool(a.loc, truth);
        return arith(c, op == TK_BINOP_LOGICAL_AND ? TK_BINOP_AND : TK_BINOP_OR, a, b, loc);
    }
    tk_ss_list rhs_stmts = {0};
    value b = eval_aside(c, rhs_e, &rhs_stmts);
    if (b.kind == V_ERROR) return b;
    for (int side = 0; side < 2; side++) {
        const value *v = side ? &b : &a;
        if (v->kind == V_RT && ty_elem(v->u.rt->type)->dtype != TK_I1) {
            sema_error(c, v->loc, "'%s' needs boolean (i1) operands; this is %s; compare it "
                       "first (x != 0)", op == TK_BINOP_LOGICAL_AND ? "and" : "or",
                       tk_type_str(c->arena, v->u.rt->type));
            return v_error();
        }
    }
    bool is_and = op == TK_BINOP_LOGICAL_AND;
    value r = arith(c, is_and ? TK_BINOP_AND : TK_BINOP_OR, a, b, loc);
    /* Python's short circuit where skipping rhs matters; tiles (Triton's
     * elementwise 'and') compute both sides */
    if (r.kind != V_RT || !needs_branch(&b, &rhs_stmts) || a.kind != V_RT || ty_rank(a.u.rt->type) != 0 ||
        ty_rank(r.u.rt->type) != 0) {
        append_stmts(c, &rhs_stmts);
        return r;
    }
    tk_dtype i1 = TK_I1;
    tk_sx *rhs = b.kind == V_RT ? b.u.rt : to_runtime(c, &b, &i1);
    value decided = v_bool(loc, !is_and);
    tk_sx *lhs_decides = to_runtime(c, &decided, &i1);
    if (!rhs || !lhs_decides) return v_error();
    tk_ss_list none = {0};
    return is_and ? guarded_value(c, a.u.rt, &rhs_stmts, rhs, &none, lhs_decides, loc)
                  : guarded_value(c, a.u.rt, &none, lhs_decides, &rhs_stmts, rhs, loc);
}

static value unary(checker *c, tk_unop op, value a, tk_loc loc) {
    if (a.kind == V_ERROR) return a;
    if (v_is_const(&a)) {
        if (op == TK_UNOP_NOT) {
            bool truth = v_is_number(&a) ? v_as_double(&a) != 0 : a.kind == V_STR ? a.u.str.len > 0
                       : a.kind == V_TUPLE ? a.count > 0 : a.kind != V_NONE;
            return v_bool(loc, !truth);
        }
        if (!v_is_number(&a)) {
            sema_error(c, loc, "'%s' does not apply to %s", tk_ast_unop_spelling(op), v_describe(c, &a));
            return v_error();
        }
        if (op == TK_UNOP_POS) return a;
        if (op == TK_UNOP_NEG) {
            if (a.kind == V_FLOAT) return v_float(loc, -a.u.f);
            if (v_as_int(&a) == INT64_MIN) return fold_error(c, loc, "constant expression overflows 64 bits");
            return v_int(loc, -v_as_int(&a));
        }
        if (a.kind == V_FLOAT) return fold_error(c, loc, "'~' needs an integer");
        return v_int(loc, ~v_as_int(&a));
    }
    if (a.kind != V_RT) {
        sema_error(c, loc, "'%s' does not apply to %s", tk_ast_unop_spelling(op), v_describe(c, &a));
        return v_error();
    }
    const tk_type *et = ty_elem(a.u.rt->type);
    if (et->kind != TK_TYPE_SCALAR) {
        sema_error(c, loc, "'%s' does not apply to %s", tk_ast_unop_spelling(op), v_describe(c, &a));
        return v_error();
    }
    if (op == TK_UNOP_POS) return a;
    if (op == TK_UNOP_INVERT && tk_dtype_is_float(et->dtype)) {
        sema_error(c, loc, "bitwise '~' on %s: bitwise operators need integers", tk_dtype_name(et->dtype));
        return v_error();
    }
    if (op == TK_UNOP_NOT && et->dtype != TK_I1) {
        sema_error(c, loc, "'not' needs a boolean (i1) operand; this is %s; compare it first",
                   tk_type_str(c->arena, a.u.rt->type));
        return v_error();
    }
    tk_sx *x = sx_new(c, TK_SX_UNARY, a.u.rt->type, loc);
    x->op = op;
    sx_add_arg(c, x, a.u.rt);
    return v_rt(x);
}

/* ---- expressions -------------------------------------------------------- */

static value eval_name(checker *c, const tk_expr *e) {
    binding *b = lookup(c, e->u.name);
    if (b) {
        if (b->state == ONLY_IN_BRANCH) {
            sema_error(c, e->loc, "'%s' is assigned in only some branches of the if above, so it "
                       "may be undefined here", e->u.name);
            tk_note(c->diag, b->where, "the if is here");
            return v_error();
        }
        if (b->state == ONLY_IN_LOOP) {
            sema_error(c, e->loc, "'%s' is assigned only inside the loop above; assign it before "
                       "the loop to use it after", e->u.name);
            tk_note(c->diag, b->where, "the loop is here");
            return v_error();
        }
        value v = b->val;
        if (b->var) v = v_rt(sx_var(c, b->var, e->loc));
        else v.loc = e->loc;
        return v;
    }
    int id = builtin_lookup(c, e->u.name, false);
    if (id >= 0) {
        value v = {.kind = V_BUILTIN, .loc = e->loc};
        v.u.builtin = id;
        return v;
    }
    if (e->u.name == c->n_tl || e->u.name == c->n_triton) {
        value v = {.kind = V_MODULE, .loc = e->loc};
        v.u.module = e->u.name;
        return v;
    }
    tk_dtype d;
    if (dtype_from_name(e->u.name, &d)) {
        value v = {.kind = V_DTYPE, .loc = e->loc};
        v.u.dtype = d;
        return v;
    }
    unknown_name(c, e->u.name, e->loc);
    return v_error();
}

static value eval_attr(checker *c, const tk_expr *e) {
    value obj = eval(c, e->u.attr.object);
    const char *name = e->u.attr.name;
    tk_loc loc = e->loc;
    if (obj.kind == V_ERROR) return obj;
    user_module *um = obj.kind == V_MODULE ? sema_user_module(c, obj.u.module) : NULL;
    if (um) {
        /* NAME.f, NAME.CONSTANT of an imported .tk module */
        for (uint32_t i = um->globals.len; i-- > 0;)
            if (um->globals.data[i].name == name) {
                value v = um->globals.data[i].val;
                v.loc = loc;
                return v;
            }
        const char *cands[256];
        size_t n = 0;
        for (uint32_t i = 0; i < um->globals.len && n < 256; i++) cands[n++] = um->globals.data[i].name;
        const char *best = suggest(c, name, cands, n);
        sema_error(c, e->u.attr.name_loc, "module '%s' has no @func or constant '%s'%s%s%s", um->name, name,
                   best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
        return v_error();
    }
    if (obj.kind == V_MODULE) {
        if (obj.u.module == c->n_triton && name == c->n_language) {
            value v = obj;
            v.u.module = c->n_tl;
            return v;
        }
        /* tl.PropagateNan.ALL / .NONE: the strings propagate_nan= takes */
        if (obj.u.module == c->n_tl && strcmp(name, "PropagateNan") == 0) {
            value v = obj;
            v.u.module = tk_intern_cstr(c->names, "PropagateNan");
            return v;
        }
        if (strcmp(obj.u.module, "PropagateNan") == 0) {
            if (strcmp(name, "ALL") != 0 && strcmp(name, "NONE") != 0) {
                sema_error(c, e->u.attr.name_loc, "tl.PropagateNan has ALL and NONE, not '%s'", name);
                return v_error();
            }
            value v = {.kind = V_STR, .loc = loc};
            v.u.str.text = name;
            v.u.str.len = (uint32_t)strlen(name);
            return v;
        }
        if (name == c->n_math && obj.u.module == c->n_tl) {
            value v = obj;
            v.u.module = c->n_math;
            return v;
        }
        /* tl.core and tl.standard: the modules triton.language re-exports
         * its names from, so the same names */
        if (obj.u.module == c->n_tl && tl_reexporting_module(name)) return obj;
        /* libdevice.NAME, and tl.math.NAME where tl has no NAME */
        if (obj.u.module == c->n_libdevice ||
            (obj.u.module == c->n_math && builtin_lookup(c, name, true) < 0)) {
            int id = builtin_lookup_libdevice(name);
            if (id >= 0) {
                value v = {.kind = V_BUILTIN, .loc = loc};
                v.u.builtin = id;
                return v;
            }
            if (obj.u.module == c->n_libdevice) {
                const char *cands[300];
                size_t n = builtin_names(cands, 300, true);
                const char *s = suggest(c, name, cands, n);
                sema_error(c, e->u.attr.name_loc, "libdevice has no function '%s'%s%s%s", name,
                           s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
                return v_error();
            }
        }
        tk_dtype d;
        if (dtype_from_name(name, &d) && strchr(name, '_') == NULL && strlen(name) > 3) {
            value v = {.kind = V_DTYPE, .loc = loc};
            v.u.dtype = d;
            return v;
        }
        if (dtype_from_name(name, &d)) {
            value v = {.kind = V_DTYPE, .loc = loc};
            v.u.dtype = d;
            return v;
        }
        int id = builtin_lookup(c, name, true);
        if (id >= 0) {
            value v = {.kind = V_BUILTIN, .loc = loc};
            v.u.builtin = id;
            return v;
        }
        if (builtin_not_supported_yet(name)) {
            sema_error(c, e->u.attr.name_loc, "tl.%s is not supported yet", name);
            return v_error();
        }
        const char *cands[300];
        size_t n = builtin_names(cands, 300, false);
        const char *s = suggest(c, name, cands, n);
        if (s)
            sema_error(c, e->u.attr.name_loc, "'%s' has no member '%s'; did you mean '%s'?",
                       obj.u.module, name, s);
        else
            sema_error(c, e->u.attr.name_loc, "'%s' has no member '%s'", obj.u.module, name);
        return v_error();
    }
    if (obj.kind == V_RT) {
        const tk_type *t = obj.u.rt->type;
        if (strcmp(name, "T") == 0) {
            int id = TK_B_TRANS;
            return builtin_call(c, id, NULL, &obj, 1, NULL, NULL, NULL, 0, loc);
        }
        if (strcmp(name, "dtype") == 0) {
            /* a pointer's dtype: its pointee's, one level of pointer in count
             * (only .element_ty takes it further) */
            value v = {.kind = V_DTYPE, .loc = loc};
            const tk_type *e2 = ty_elem(t);
            while (e2->kind == TK_TYPE_POINTER) {
                v.count++;
                e2 = e2->elem;
            }
            if (e2->kind == TK_TYPE_SCALAR) {
                v.u.dtype = e2->dtype;
                return v;
            }
        }
        if (strcmp(name, "shape") == 0) {
            uint32_t r = ty_rank(t);
            value v = v_tuple(c, loc, r);
            for (uint32_t i = 0; i < r; i++) v.items[i] = v_int(loc, t->shape[i]);
            return v;
        }
        if (strcmp(name, "numel") == 0) {
            int64_t n = 1;
            for (uint32_t i = 0; i < ty_rank(t); i++) n *= t->shape[i];
            return v_int(loc, n);
        }
        int id = builtin_lookup(c, name, true);
        if (id >= 0 && builtin_is_method(id)) {
            value v = {.kind = V_METHOD, .loc = loc};
            v.u.builtin = id;
            v.items = TK_NEW(c->arena, value);
            v.items[0] = obj;
            v.count = 1;
            return v;
        }
        if (builtin_not_supported_yet(name))
            sema_error(c, e->u.attr.name_loc, "the method '%s' is not supported yet", name);
        else
            sema_error(c, e->u.attr.name_loc, "%s has no attribute or method '%s'",
                       v_describe(c, &obj), name);
        return v_error();
    }
    if (obj.kind == V_DTYPE) {
        if (strcmp(name, "element_ty") == 0 && obj.count) {
            obj.count--;
            obj.loc = loc;
            return obj;
        }
        if (obj.count) {
            sema_error(c, e->u.attr.name_loc, "a pointer dtype has only .element_ty (the pointee), not '%s'",
                       name);
            return v_error();
        }
        if (strcmp(name, "primitive_bitwidth") == 0) return v_int(loc, tk_dtype_bits(obj.u.dtype));
        if (strcmp(name, "is_floating") == 0 || strcmp(name, "is_float") == 0) {
            /* a method in Triton; the call is handled by eval_call */
        }
    }
    sema_error(c, e->u.attr.name_loc, "%s has no attribute '%s'", v_describe(c, &obj), name);
    return v_error();
}

static value eval_subscript(checker *c, const tk_expr *e) {
    value obj = eval(c, e->u.subscript.object);
    if (obj.kind == V_ERROR) return obj;
    const tk_expr_list *idx = &e->u.subscript.indices;
    if (obj.kind == V_META) {
        if (idx->len == 1 && idx->data[0]->kind == TK_EXPR_STRING) {
            const tk_expr *s = idx->data[0];
            const char *name = tk_intern(c->names, s->u.string.text, s->u.string.len);
            binding *b = lookup(c, name);
            if (b) {
                value v = b->val;
                if (b->var) v = v_rt(sx_var(c, b->var, e->loc));
                return v;
            }
            sema_error(c, s->loc, "the kernel has no parameter '%s'", name);
            return v_error();
        }
        sema_error(c, e->loc, "index the meta-parameters with a string: meta['BLOCK']");
        return v_error();
    }
    if (obj.kind == V_TUPLE) {
        if (idx->len != 1) {
            sema_error(c, e->loc, "a tuple takes one index");
            return v_error();
        }
        value i = eval(c, idx->data[0]);
        if (i.kind == V_ERROR) return i;
        if (i.kind != V_INT) {
            sema_error(c, idx->data[0]->loc, "a tuple index must be a constant integer");
            return v_error();
        }
        int64_t k = i.u.i < 0 ? i.u.i + obj.count : i.u.i;
        if (k < 0 || k >= (int64_t)obj.count) {
            sema_error(c, idx->data[0]->loc, "tuple index %" PRId64 " is out of range for a "
                       "tuple of %u", i.u.i, obj.count);
            return v_error();
        }
        return obj.items[k];
    }
    if (obj.kind != V_RT || obj.u.rt->type->kind == TK_TYPE_TUPLE) {
        sema_error(c, e->loc, "%s cannot be indexed", v_describe(c, &obj));
        return v_error();
    }
    /* tile[:, None]: ':' keeps a dimension, None inserts one of size 1 */
    tk_sx *x = obj.u.rt;
    uint32_t rank = ty_rank(x->type), kept = 0, out_rank = 0;
    int64_t shape[TK_MAX_RANK];
    for (uint32_t i = 0; i < idx->len; i++) {
        const tk_expr *ix = idx->data[i];
        if (ix->kind == TK_EXPR_NONE) {
            if (out_rank == TK_MAX_RANK) {
                sema_error(c, e->loc, "too many dimensions");
                return v_error();
            }
            shape[out_rank++] = 1;
        } else if (ix->kind == TK_EXPR_SLICE && !ix->u.slice.lo && !ix->u.slice.hi && !ix->u.slice.step) {
            if (kept == rank) {
                sema_error(c, ix->loc, "too many ':' for a tile of rank %u", rank);
                return v_error();
            }
            shape[out_rank++] = x->type->shape[kept++];
        } else {
            sema_error(c, ix->loc, "tiles are indexed only with ':' and None (x[:, None]); use "
                       "tl.load with offsets to pick elements");
            return v_error();
        }
    }
    while (kept < rank && out_rank < TK_MAX_RANK) shape[out_rank++] = x->type->shape[kept++];
    if (out_rank == rank) return obj;
    tk_sx *r = sx_new(c, TK_SX_BUILTIN, ty_tile(c, ty_elem(x->type), out_rank, shape), e->loc);
    r->builtin = TK_B_RESHAPE;
    sx_add_arg(c, r, x);
    return v_rt(r);
}

static value eval_call(checker *c, const tk_expr *e) {
    value callee = eval(c, e->u.call.callee);
    const tk_expr_list *args = &e->u.call.args;
    uint32_t npos = 0, nkw = 0;
    for (uint32_t i = 0; i < args->len; i++) {
        if (args->data[i]->kind == TK_EXPR_KEYWORD) nkw++;
        else npos++;
    }
    value *pos = TK_NEW_ARRAY(c->arena, value, npos + 1);
    value *kwv = TK_NEW_ARRAY(c->arena, value, nkw + 1);
    const char **kwn = TK_NEW_ARRAY(c->arena, const char *, nkw + 1);
    tk_loc *kwl = TK_NEW_ARRAY(c->arena, tk_loc, nkw + 1);
    uint32_t ip = 0, ik = 0;
    bool failed = callee.kind == V_ERROR;
    for (uint32_t i = 0; i < args->len; i++) {
        const tk_expr *a = args->data[i];
        if (a->kind == TK_EXPR_KEYWORD) {
            for (uint32_t j = 0; j < ik; j++) {
                if (kwn[j] == a->u.keyword.name) {
                    sema_error(c, a->u.keyword.name_loc, "keyword argument '%s' given twice", a->u.keyword.name);
                    failed = true;
                }
            }
            kwn[ik] = a->u.keyword.name;
            kwl[ik] = a->u.keyword.name_loc;
            kwv[ik] = eval(c, a->u.keyword.value);
            failed |= kwv[ik].kind == V_ERROR;
            ik++;
        } else if (a->kind == TK_EXPR_STARRED) {
            value t = eval(c, a->u.starred);
            if (t.kind != V_TUPLE) {
                if (t.kind != V_ERROR) sema_error(c, a->loc, "only a constant tuple can be unpacked with '*'");
                failed = true;
                continue;
            }
            value *bigger = TK_NEW_ARRAY(c->arena, value, npos + t.count + 1);
            memcpy(bigger, pos, sizeof(value) * ip);
            pos = bigger;
            npos += t.count - 1;
            for (uint32_t j = 0; j < t.count; j++) pos[ip++] = t.items[j];
        } else {
            pos[ip] = eval(c, a);
            failed |= pos[ip].kind == V_ERROR;
            ip++;
        }
    }
    if (failed) return v_error();
    switch (callee.kind) {
    case V_BUILTIN:
        return builtin_call(c, callee.u.builtin, NULL, pos, ip, kwn, kwv, kwl, ik, e->loc);
    case V_METHOD:
        return builtin_call(c, callee.u.builtin, &callee.items[0], pos, ip, kwn, kwv, kwl, ik, e->loc);
    case V_FUNC:
        return call_func(c, callee.u.def, pos, ip, kwn, kwv, kwl, ik, e->loc);
    case V_DTYPE:
        if (ip == 1 && ik == 0 && v_is_number(&pos[0]) && !callee.count) {
            /* tl.float32(1.0): a typed constant */
            tk_dtype d = callee.u.dtype;
            tk_sx *x = to_runtime(c, &pos[0], &d);
            return v_rt(x);
        }
        break;
    default:
        break;
    }
    sema_error(c, e->u.call.callee->loc, "%s is not callable", v_describe(c, &callee));
    return v_error();
}

static value eval_compare(checker *c, const tk_expr *e) {
    const tk_expr_list *ops = &e->u.compare.operands;
    value lhs = eval(c, ops->data[0]);
    value result = v_error();
    for (uint32_t i = 0; i < e->u.compare.ops.len; i++) {
        value rhs = eval(c, ops->data[i + 1]);
        if (lhs.kind == V_ERROR || rhs.kind == V_ERROR) return v_error();
        tk_loc loc = tk_loc_span(ops->data[i]->loc, ops->data[i + 1]->loc);
        value r = arith(c, e->u.compare.ops.data[i], lhs, rhs, loc);
        if (r.kind == V_ERROR) return r;
        if (i == 0) {
            result = r;
        } else if (v_is_const(&result) && v_is_const(&r)) {
            if (!result.u.b) return result;
            result = r;
        } else {
            sema_error(c, e->loc, "chained comparisons of runtime values are not supported; "
                       "write (a < b) & (b < c)");
            return v_error();
        }
        if (v_is_const(&r) && !r.u.b) return r;
        lhs = rhs;
    }
    result.loc = e->loc;
    return result;
}

static value eval_ternary(checker *c, const tk_expr *e) {
    value cond = eval(c, e->u.ternary.cond);
    if (cond.kind == V_ERROR) return cond;
    if (v_is_const(&cond)) {
        bool truth = v_is_number(&cond) ? v_as_double(&cond) != 0 : cond.kind != V_NONE;
        return eval(c, truth ? e->u.ternary.then : e->u.ternary.otherwise);
    }
    tk_ss_list then_stmts = {0}, else_stmts = {0};
    value a = eval_aside(c, e->u.ternary.then, &then_stmts), b = eval_aside(c, e->u.ternary.otherwise, &else_stmts);
    if (a.kind == V_ERROR || b.kind == V_ERROR) return v_error();
    if (ty_rank(cond.u.rt->type) != 0 || ty_elem(cond.u.rt->type)->dtype != TK_I1) {
        sema_error(c, e->u.ternary.cond->loc, "a runtime 'x if c else y' needs a scalar boolean "
                   "condition; for tiles use tl.where(c, x, y)");
        return v_error();
    }
    tk_sx *xa = a.kind == V_RT ? a.u.rt : NULL, *xb = b.kind == V_RT ? b.u.rt : NULL;
    if (!xa && xb && v_is_number(&a)) xa = to_runtime(c, &a, &ty_elem(xb->type)->dtype);
    if (!xb && xa && v_is_number(&b)) xb = to_runtime(c, &b, &ty_elem(xa->type)->dtype);
    if (!xa) xa = to_runtime(c, &a, NULL);
    if (!xb) xb = to_runtime(c, &b, NULL);
    if (!xa || !xb) return v_error();
    if (!tk_type_equal(xa->type, xb->type)) {
        sema_error(c, e->loc, "the two sides of 'x if c else y' have different types: %s and %s",
                   tk_type_str(c->arena, xa->type), tk_type_str(c->arena, xb->type));
        return v_error();
    }
    /* only the chosen side runs where the other could fault or has effects */
    if (needs_branch(&a, &then_stmts) || needs_branch(&b, &else_stmts))
        return guarded_value(c, cond.u.rt, &then_stmts, xa, &else_stmts, xb, e->loc);
    tk_sx *x = sx_new(c, TK_SX_SELECT, xa->type, e->loc);
    sx_add_arg(c, x, cond.u.rt);
    sx_add_arg(c, x, xa);
    sx_add_arg(c, x, xb);
    return v_rt(x);
}

value eval(checker *c, const tk_expr *e) {
    switch (e->kind) {
    case TK_EXPR_NAME: return eval_name(c, e);
    case TK_EXPR_INT:
        if (e->u.int_value > INT64_MAX) {
            sema_error(c, e->loc, "integer constant %llu does not fit in i64",
                       (unsigned long long)e->u.int_value);
            return v_error();
        }
        return v_int(e->loc, (int64_t)e->u.int_value);
    case TK_EXPR_FLOAT: return v_float(e->loc, e->u.float_value);
    case TK_EXPR_STRING: {
        value v = {.kind = V_STR, .loc = e->loc};
        v.u.str.text = e->u.string.text;
        v.u.str.len = e->u.string.len;
        return v;
    }
    case TK_EXPR_BOOL: return v_bool(e->loc, e->u.bool_value);
    case TK_EXPR_NONE: return (value){.kind = V_NONE, .loc = e->loc};
    case TK_EXPR_UNARY: return unary(c, e->u.unary.op, eval(c, e->u.unary.operand), e->loc);
    case TK_EXPR_BINARY:
        if (e->u.binary.op == TK_BINOP_LOGICAL_AND || e->u.binary.op == TK_BINOP_LOGICAL_OR)
            return logical(c, e->u.binary.op, e->u.binary.lhs, e->u.binary.rhs, e->loc);
        {
            value a = eval(c, e->u.binary.lhs);
            value b = eval(c, e->u.binary.rhs);
            return arith(c, e->u.binary.op, a, b, e->loc);
        }
    case TK_EXPR_COMPARE: return eval_compare(c, e);
    case TK_EXPR_TERNARY: return eval_ternary(c, e);
    case TK_EXPR_CALL: return eval_call(c, e);
    case TK_EXPR_ATTR: return eval_attr(c, e);
    case TK_EXPR_SUBSCRIPT: return eval_subscript(c, e);
    case TK_EXPR_DICT:
        sema_error(c, e->loc, "a dict is allowed only as the first argument of triton.Config");
        return v_error();
    case TK_EXPR_TUPLE:
    case TK_EXPR_LIST: {
        value t = v_tuple(c, e->loc, e->u.items.len);
        for (uint32_t i = 0; i < e->u.items.len; i++) {
            t.items[i] = eval(c, e->u.items.data[i]);
            if (t.items[i].kind == V_ERROR) return v_error();
        }
        return t;
    }
    case TK_EXPR_LAMBDA:
        sema_error(c, e->loc, "a lambda is allowed only as grid= or a @heuristics value");
        return v_error();
    case TK_EXPR_SLICE:
        sema_error(c, e->loc, "a slice is allowed only inside a tile index, as ':'");
        return v_error();
    case TK_EXPR_KEYWORD:
    case TK_EXPR_STARRED:
        sema_error(c, e->loc, "unexpected argument syntax here");
        return v_error();
    case TK_EXPR_POINTER_TYPE:
        sema_error(c, e->loc, "a pointer type is allowed only in a parameter annotation");
        return v_error();
    }
    return v_error();
}

/* ---- assignment --------------------------------------------------------- */

/* The runtime type a constexpr number takes to join `like` (a loop-carried
 * or branch-merged variable): it adapts to a same-or-wider kind. */
static tk_sx *adapt_const(checker *c, const value *v, const tk_type *like) {
    tk_dtype d;
    if (!literal_dtype(v, &d)) return NULL;
    const tk_type *le = ty_elem(like);
    if (like->kind == TK_TYPE_SCALAR && le->kind == TK_TYPE_SCALAR) {
        bool lit_float = v->kind == V_FLOAT, like_float = tk_dtype_is_float(le->dtype);
        if (lit_float == like_float || (!lit_float && like_float)) {
            if (lit_float || const_fits(v_as_int(v), le->dtype)) d = le->dtype;
        }
    }
    return sx_const(c, v, d, v->loc);
}

static void emit_assign(checker *c, tk_sema_var *var, tk_sx *rhs, tk_loc loc) {
    tk_ss *s = ss_new(c, TK_SS_ASSIGN, loc);
    s->var = var;
    s->value = rhs;
    emit_stmt(c, s);
}

static bool is_plain_var(const value *v) { return v->kind == V_RT && v->u.rt->kind == TK_SX_VAR; }

typedef TK_VEC(const tk_sema_var *) var_list;

/* Does x read one of vars? */
static bool sx_reads_any(const tk_sx *x, const tk_sema_var *const *vars, uint32_t n) {
    if (!x) return false;
    if (x->kind == TK_SX_VAR)
        for (uint32_t i = 0; i < n; i++)
            if (x->var == vars[i]) return true;
    for (uint32_t i = 0; i < x->args.len; i++)
        if (sx_reads_any(x->args.data[i], vars, n)) return true;
    return false;
}

/* Copies the runtime items of tuple v into fresh variables named `name`:
 * all of them (reads == NULL), or those that read one of `reads`. */
static void snapshot_items(checker *c, value *v, const char *name, const var_list *reads, tk_loc loc) {
    for (uint32_t i = 0; i < v->count; i++) {
        value *it = &v->items[i];
        if (it->kind == V_TUPLE) {
            snapshot_items(c, it, name, reads, loc);
            continue;
        }
        if (it->kind != V_RT || it->u.rt->type->kind == TK_TYPE_VOID) continue;
        if (reads ? !sx_reads_any(it->u.rt, reads->data, reads->len) : false) continue;
        tk_sema_var *var = new_var(c, reads && is_plain_var(it) ? it->u.rt->var->name : name,
                                   it->u.rt->type, loc);
        emit_assign(c, var, it->u.rt, loc);
        *it = v_rt(sx_var(c, var, loc));
    }
}

/* the variables the names of an unpacking target are bound to now */
static void target_vars(checker *c, const tk_expr *target, var_list *out) {
    if (target->kind != TK_EXPR_NAME) {
        for (uint32_t i = 0; i < target->u.items.len; i++) target_vars(c, target->u.items.data[i], out);
        return;
    }
    binding *b = lookup_in(&c->frame->names, target->u.name);
    if (b && b->var) tk_vec_push(c->arena, out, (const tk_sema_var *)b->var);
}

/* Binds name to v, writing runtime values into a variable. */
static void assign_name(checker *c, const char *name, value v, tk_loc loc) {
    if (v.kind == V_ERROR) {
        bind(c, &c->frame->names, name, v, loc);
        return;
    }
    binding *b = lookup_in(&c->frame->names, name);
    if (v.kind == V_NONE && v.loc.src == NULL) v.loc = loc;
    if (b && b->fixed) {
        /* inside a runtime loop: the name keeps the type it entered with */
        if (!b->var) {
            if (v_is_const(&v) && const_equal(&v, &b->val)) return;
            sema_error(c, loc, "'%s' is a compile-time value that changes inside a runtime loop; "
                       "make it a runtime value before the loop", name);
            tk_note(c->diag, b->fixed_loc, "the loop is here");
            return;
        }
        tk_sx *x = v.kind == V_RT ? v.u.rt : v_is_number(&v) ? adapt_const(c, &v, b->var->type) : NULL;
        if (!x) {
            sema_error(c, loc, "'%s' is %s before the loop but %s inside it", name,
                       tk_type_str(c->arena, b->var->type), v_describe(c, &v));
            tk_note(c->diag, b->fixed_loc, "the loop is here");
            return;
        }
        if (!tk_type_equal(x->type, b->var->type)) {
            sema_error(c, loc, "'%s' is %s before the loop but %s after an iteration; a loop-carried "
                       "name must keep its type (convert with .to(), or initialize it with the "
                       "right type)", name, tk_type_str(c->arena, b->var->type),
                       tk_type_str(c->arena, x->type));
            tk_note(c->diag, b->def_loc, "'%s' gets its type here", name);
            return;
        }
        emit_assign(c, b->var, x, loc);
        return;
    }
    if (v.kind == V_TUPLE) {
        /* runtime items live in variables of their own: uses do not repeat
         * work, and a later assignment to a name the tuple was built from
         * does not change the tuple (Python's semantics) */
        snapshot_items(c, &v, name, NULL, loc);
        bind(c, &c->frame->names, name, v, loc);
        return;
    }
    if (v.kind != V_RT) {
        value cv = v;
        if (!cv.origin.src) {
            cv.origin = loc;
            cv.origin_name = tk_arena_printf(c->arena, "%s is set here", name);
        }
        bind(c, &c->frame->names, name, cv, loc);
        return;
    }
    if (v.u.rt->type->kind == TK_TYPE_VOID) {
        sema_error(c, loc, "this call returns nothing, so there is nothing to assign to '%s'", name);
        bind(c, &c->frame->names, name, v_error(), loc);
        return;
    }
    tk_sema_var *var = b && b->var && b->state == BOUND && tk_type_equal(b->var->type, v.u.rt->type)
                           ? b->var
                           : new_var(c, name, v.u.rt->type, loc);
    emit_assign(c, var, v.u.rt, loc);
    b = bind(c, &c->frame->names, name, v, loc);
    b->var = var;
}

static void assign_target(checker *c, const tk_expr *target, value v, tk_loc loc) {
    if (target->kind == TK_EXPR_NAME) {
        assign_name(c, target->u.name, v, target->loc);
        return;
    }
    /* tuple unpacking */
    const tk_expr_list *items = &target->u.items;
    if (v.kind == V_ERROR) {
        for (uint32_t i = 0; i < items->len; i++) assign_target(c, items->data[i], v, loc);
        return;
    }
    if (v.kind != V_TUPLE) {
        sema_error(c, loc, "cannot unpack %s into %u names", v_describe(c, &v), items->len);
        for (uint32_t i = 0; i < items->len; i++) assign_target(c, items->data[i], v_error(), loc);
        return;
    }
    if (v.count != items->len) {
        sema_error(c, loc, "cannot unpack a tuple of %u into %u names", v.count, items->len);
        for (uint32_t i = 0; i < items->len; i++) assign_target(c, items->data[i], v_error(), loc);
        return;
    }
    for (uint32_t i = 0; i < items->len; i++) assign_target(c, items->data[i], v.items[i], loc);
}

/* ---- control flow ------------------------------------------------------- */

scope copy_scope(checker *c, const scope *s) {
    scope out = {0};
    for (uint32_t i = 0; i < s->len; i++) tk_vec_push(c->arena, &out, s->data[i]);
    return out;
}

static bool const_truth(const value *v) {
    if (v_is_number(v)) return v_as_double(v) != 0;
    if (v->kind == V_STR) return v->u.str.len > 0;
    if (v->kind == V_TUPLE) return v->count > 0;
    return v->kind != V_NONE;
}

static bool same_binding(const binding *a, const binding *b) {
    if (a->state != b->state) return false;
    if (a->var || b->var) return a->var == b->var;
    if (a->val.kind == V_ERROR || b->val.kind == V_ERROR) return true;
    return v_is_const(&a->val) && v_is_const(&b->val) && const_equal(&a->val, &b->val);
}

/* The runtime form of a branch's binding for merging, or NULL. */
static tk_sx *branch_value(checker *c, const binding *b, const tk_type *like, tk_loc loc) {
    if (b->var) return sx_var(c, b->var, loc);
    if (v_is_number(&b->val)) return like ? adapt_const(c, &b->val, like) : to_runtime(c, &b->val, NULL);
    return NULL;
}

/* Joins the scopes after the two branches of a runtime if. A name bound
 * differently in the two becomes one variable assigned at the end of each
 * branch; a name bound in one branch only is marked so a later use says so. */
static void merge_branches(checker *c, const scope *before, scope *then_s, bool then_returned,
                           scope *else_s, bool else_returned, tk_ss *if_stmt) {
    scope merged = copy_scope(c, before);
    if (then_returned && else_returned) {
        c->frame->names = merged;
        return;
    }
    if (then_returned || else_returned) {
        c->frame->names = copy_scope(c, then_returned ? else_s : then_s);
        return;
    }
    scope *sides[2] = {then_s, else_s};
    for (int side = 0; side < 2; side++) {
        for (uint32_t i = 0; i < sides[side]->len; i++) {
            const char *name = sides[side]->data[i].name;
            if (side == 1 && lookup_in(then_s, name)) continue; /* done from the then side */
            binding *bt = lookup_in(then_s, name), *be = lookup_in(else_s, name);
            binding *bb = lookup_in(&merged, name);
            if (!bt || !be) {
                binding *only = bt ? bt : be;
                binding nb = *only;
                nb.state = ONLY_IN_BRANCH;
                nb.where = if_stmt->loc;
                if (bb) *bb = nb; else tk_vec_push(c->arena, &merged, nb);
                continue;
            }
            if (same_binding(bt, be)) {
                if (bb) *bb = *bt; else tk_vec_push(c->arena, &merged, *bt);
                continue;
            }
            if (bt->state != BOUND || be->state != BOUND || bt->val.kind == V_ERROR ||
                be->val.kind == V_ERROR) {
                binding nb = *bt;
                nb.val = v_error();
                nb.var = NULL;
                if (bb) *bb = nb; else tk_vec_push(c->arena, &merged, nb);
                continue;
            }
            const tk_type *like = bt->var ? bt->var->type : be->var ? be->var->type : NULL;
            tk_sx *xt = branch_value(c, bt, like, bt->def_loc);
            tk_sx *xe = branch_value(c, be, like ? like : xt ? xt->type : NULL, be->def_loc);
            if (!xt || !xe) {
                sema_error(c, if_stmt->loc, "'%s' gets a different compile-time value in each "
                           "branch of this runtime if (%s and %s)", name, v_describe(c, &bt->val),
                           v_describe(c, &be->val));
                binding nb = *bt;
                nb.val = v_error();
                nb.var = NULL;
                if (bb) *bb = nb; else tk_vec_push(c->arena, &merged, nb);
                continue;
            }
            if (!tk_type_equal(xt->type, xe->type)) {
                sema_error(c, be->def_loc, "'%s' is %s in one branch of the if and %s in the "
                           "other; a name must have one type after the if", name,
                           tk_type_str(c->arena, xt->type), tk_type_str(c->arena, xe->type));
                tk_note(c->diag, bt->def_loc, "'%s' is %s here", name, tk_type_str(c->arena, xt->type));
                binding nb = *bt;
                nb.val = v_error();
                nb.var = NULL;
                if (bb) *bb = nb; else tk_vec_push(c->arena, &merged, nb);
                continue;
            }
            tk_sema_var *var = bt->var ? bt->var : be->var ? be->var : new_var(c, name, xt->type, if_stmt->loc);
            if (bt->var != var) {
                tk_ss *s = ss_new(c, TK_SS_ASSIGN, bt->def_loc);
                s->var = var;
                s->value = xt;
                tk_vec_push(c->arena, &if_stmt->then, s);
            }
            if (be->var != var) {
                tk_ss *s = ss_new(c, TK_SS_ASSIGN, be->def_loc);
                s->var = var;
                s->value = xe;
                tk_vec_push(c->arena, &if_stmt->otherwise, s);
            }
            binding nb = *bt;
            nb.var = var;
            nb.val = v_rt(sx_var(c, var, if_stmt->loc));
            if (bb) *bb = nb; else tk_vec_push(c->arena, &merged, nb);
        }
    }
    c->frame->names = merged;
}

static void exec_if(checker *c, const tk_stmt *s) {
    value cond = eval(c, s->u.if_.cond);
    if (cond.kind == V_ERROR) {
        /* check both branches anyway, for their own errors */
        scope saved = copy_scope(c, &c->frame->names);
        tk_ss_list sink = {0};
        tk_ss_list *out = c->frame->out;
        c->frame->out = &sink;
        exec_block(c, &s->u.if_.then);
        c->frame->names = copy_scope(c, &saved);
        exec_block(c, &s->u.if_.otherwise);
        c->frame->names = saved;
        c->frame->out = out;
        c->frame->returned = false;
        return;
    }
    if (v_is_const(&cond)) {
        exec_block(c, const_truth(&cond) ? &s->u.if_.then : &s->u.if_.otherwise);
        return;
    }
    const tk_type *ct = cond.u.rt->type;
    tk_sx *cx = cond.u.rt;
    if (ty_rank(ct) != 0) {
        sema_error(c, s->u.if_.cond->loc, "an if condition must be a scalar, not %s; reduce it "
                   "(tl.max, tl.sum) or use tl.where for element-wise choice",
                   tk_type_str(c->arena, ct));
        return;
    }
    if (ct->kind == TK_TYPE_SCALAR && ct->dtype != TK_I1) {
        value zero = v_int(cond.loc, 0);
        value r = arith(c, TK_BINOP_NE, cond, zero, cond.loc);
        if (r.kind == V_ERROR) return;
        cx = r.u.rt;
    } else if (ct->kind != TK_TYPE_SCALAR) {
        sema_error(c, s->u.if_.cond->loc, "an if condition must be a boolean, not %s",
                   tk_type_str(c->arena, ct));
        return;
    }
    tk_ss *st = ss_new(c, TK_SS_IF, s->loc);
    st->value = cx;
    scope before = copy_scope(c, &c->frame->names);
    tk_ss_list *out = c->frame->out;
    c->frame->runtime_branch_depth++;
    c->frame->out = &st->then;
    exec_block(c, &s->u.if_.then);
    scope then_s = c->frame->names;
    bool then_ret = c->frame->returned;
    c->frame->returned = false;
    c->frame->names = copy_scope(c, &before);
    c->frame->out = &st->otherwise;
    exec_block(c, &s->u.if_.otherwise);
    scope else_s = c->frame->names;
    bool else_ret = c->frame->returned;
    c->frame->runtime_branch_depth--;
    c->frame->out = out;
    emit_stmt(c, st);
    merge_branches(c, &before, &then_s, then_ret, &else_s, else_ret, st);
    c->frame->returned = then_ret && else_ret;
}

/* Names a block assigns, syntactically (nested blocks included). */
static void collect_assigned(checker *c, const tk_stmt_list *body, name_list *out);

static void collect_target(checker *c, const tk_expr *t, void *out_) {
    name_list *out = out_;
    if (t->kind == TK_EXPR_NAME) {
        for (uint32_t i = 0; i < out->len; i++)
            if (out->data[i] == t->u.name) return;
        tk_vec_push(c->arena, out, t->u.name);
    } else if (t->kind == TK_EXPR_TUPLE || t->kind == TK_EXPR_LIST) {
        for (uint32_t i = 0; i < t->u.items.len; i++) collect_target(c, t->u.items.data[i], out);
    }
}

static void collect_assigned(checker *c, const tk_stmt_list *body, name_list *out) {
    for (uint32_t i = 0; i < body->len; i++) {
        const tk_stmt *s = body->data[i];
        switch (s->kind) {
        case TK_STMT_ASSIGN:
            for (uint32_t k = 0; k < s->u.assign.targets.len; k++)
                collect_target(c, s->u.assign.targets.data[k], out);
            break;
        case TK_STMT_AUGASSIGN: collect_target(c, s->u.augassign.target, out); break;
        case TK_STMT_IF:
            collect_assigned(c, &s->u.if_.then, out);
            collect_assigned(c, &s->u.if_.otherwise, out);
            break;
        case TK_STMT_FOR:
            collect_target(c, s->u.for_.target, out);
            collect_assigned(c, &s->u.for_.body, out);
            break;
        case TK_STMT_WHILE: collect_assigned(c, &s->u.while_.body, out); break;
        default: break;
        }
    }
}

typedef struct loop_state {
    scope before;
    TK_VEC(struct fixed_save { const char *name; bool fixed; tk_loc loc; }) saved;
} loop_state;

/* Before a runtime loop: every name the body assigns that is already bound
 * becomes a variable of fixed type for the loop's duration. */
static void enter_runtime_loop(checker *c, const tk_stmt_list *body, tk_loc loop_loc,
                               loop_state *ls) {
    name_list names = {0};
    collect_assigned(c, body, (void *)&names);
    for (uint32_t i = 0; i < names.len; i++) {
        binding *b = lookup_in(&c->frame->names, names.data[i]);
        if (!b || b->state != BOUND || b->val.kind == V_ERROR) continue;
        struct fixed_save sv = {b->name, b->fixed, b->fixed_loc};
        tk_vec_push(c->arena, &ls->saved, sv);
        if (!b->var && v_is_number(&b->val)) {
            tk_sx *x = to_runtime(c, &b->val, NULL);
            if (x) {
                tk_sema_var *var = new_var(c, b->name, x->type, b->def_loc);
                emit_assign(c, var, x, b->def_loc);
                b->var = var;
                b->val = v_rt(sx_var(c, var, b->def_loc));
            }
        } else if (!b->var && b->val.kind == V_TUPLE && !v_is_const(&b->val)) {
            sema_error(c, loop_loc, "the tuple '%s' is reassigned inside this runtime loop; "
                       "unpack it into separate names before the loop (not supported yet)", b->name);
            continue;
        }
        b->fixed = true;
        b->fixed_loc = loop_loc;
    }
    ls->before = copy_scope(c, &c->frame->names);
    c->frame->runtime_loop_depth++;
}

static void leave_runtime_loop(checker *c, loop_state *ls, tk_loc loop_loc) {
    c->frame->runtime_loop_depth--;
    scope after = c->frame->names;
    scope result = copy_scope(c, &ls->before);
    for (uint32_t i = 0; i < after.len; i++) {
        binding *b = &after.data[i];
        binding *old = lookup_in(&result, b->name);
        if (old && old->state == BOUND) {
            if (old->fixed) continue; /* same variable, same type */
            *old = *b;
            continue;
        }
        if (old) {
            *old = *b;
            old->state = ONLY_IN_LOOP;
            old->where = loop_loc;
            continue;
        }
        binding nb = *b;
        nb.state = ONLY_IN_LOOP;
        nb.where = loop_loc;
        tk_vec_push(c->arena, &result, nb);
    }
    for (uint32_t i = 0; i < ls->saved.len; i++) {
        binding *b = lookup_in(&result, ls->saved.data[i].name);
        if (b) {
            b->fixed = ls->saved.data[i].fixed;
            b->fixed_loc = ls->saved.data[i].loc;
        }
    }
    c->frame->names = result;
    c->frame->returned = false;
}


static bool const_int_arg(checker *c, const value *v, int64_t *out, const char *what) {
    if (v->kind == V_INT || v->kind == V_BOOL) {
        *out = v_as_int(v);
        return true;
    }
    if (v->kind != V_ERROR)
        sema_error(c, v->loc, "%s must be a compile-time integer, not %s", what, v_describe(c, v));
    return false;
}

static void exec_static_loop(checker *c, const tk_stmt *s, const value *items, uint32_t count,
                             int64_t lo, int64_t step, bool is_range) {
    for (uint32_t k = 0; k < count && !c->over_budget; k++) {
        if (++c->unrolled_trips > UNROLLED_TRIPS_LIMIT) {
            c->over_budget = true;
            sema_error(c, s->loc, "tl.static_range loops here unroll more than %d trips in all (nested "
                       "loops multiply); use range() for a runtime loop", UNROLLED_TRIPS_LIMIT);
            return;
        }
        value iv = is_range ? v_int(s->u.for_.target->loc, lo + (int64_t)k * step) : items[k];
        assign_target(c, s->u.for_.target, iv, s->u.for_.target->loc);
        exec_block(c, &s->u.for_.body);
        if (c->frame->returned) return;
    }
}

static void exec_for(checker *c, const tk_stmt *s) {
    const tk_expr *iter = s->u.for_.iter;
    value it = v_error();
    int range_id = TK_B_RANGE;
    int static_id = TK_B_STATIC_RANGE;
    if (iter->kind == TK_EXPR_CALL) {
        value callee = eval(c, iter->u.call.callee);
        if (callee.kind == V_ERROR) return;
        if (callee.kind == V_BUILTIN && (callee.u.builtin == range_id || callee.u.builtin == static_id)) {
            bool is_static = callee.u.builtin == static_id;
            value bounds[3];
            uint32_t nb = 0;
            int64_t num_stages = -1;
            bool ok = true;
            for (uint32_t i = 0; i < iter->u.call.args.len; i++) {
                const tk_expr *a = iter->u.call.args.data[i];
                if (a->kind == TK_EXPR_KEYWORD) {
                    value kv = eval(c, a->u.keyword.value);
                    const char *kn = a->u.keyword.name;
                    if (strcmp(kn, "num_stages") == 0 && !is_static) {
                        ok &= const_int_arg(c, &kv, &num_stages, "num_stages");
                        if (ok && num_stages < 1) {
                            sema_error(c, a->loc, "num_stages must be at least 1");
                            ok = false;
                        }
                    } else if (!is_static && (strcmp(kn, "loop_unroll_factor") == 0 ||
                               strcmp(kn, "disallow_acc_multi_buffer") == 0 ||
                               strcmp(kn, "flatten") == 0 || strcmp(kn, "warp_specialize") == 0 ||
                               strcmp(kn, "disable_licm") == 0)) {
                        if (!v_is_const(&kv)) {
                            sema_error(c, a->loc, "'%s' must be a compile-time value", kn);
                            ok = false;
                        }
                    } else {
                        sema_error(c, a->u.keyword.name_loc, "%s() has no parameter '%s'",
                                   is_static ? "tl.static_range" : "range", kn);
                        ok = false;
                    }
                    continue;
                }
                if (nb == 3) {
                    sema_error(c, a->loc, "range() takes at most 3 positional arguments");
                    ok = false;
                    break;
                }
                bounds[nb] = eval(c, a);
                ok &= bounds[nb].kind != V_ERROR;
                nb++;
            }
            if (!ok) return;
            if (nb == 0) {
                sema_error(c, iter->loc, "range() needs at least an end");
                return;
            }
            value lo = nb >= 2 ? bounds[0] : v_int(iter->loc, 0);
            value hi = nb >= 2 ? bounds[1] : bounds[0];
            value step = nb == 3 ? bounds[2] : v_int(iter->loc, 1);
            bool all_const = v_is_const(&lo) && v_is_const(&hi) && v_is_const(&step);
            if (is_static) {
                int64_t l, h, st;
                if (!all_const) {
                    const value *bad = !v_is_const(&lo) ? &lo : !v_is_const(&hi) ? &hi : &step;
                    sema_error(c, bad->loc, "tl.static_range bounds must be compile-time constants; "
                               "use range() for a runtime loop");
                    return;
                }
                if (!const_int_arg(c, &lo, &l, "a range bound") || !const_int_arg(c, &hi, &h, "a range bound") ||
                    !const_int_arg(c, &step, &st, "a range step"))
                    return;
                if (st == 0) {
                    sema_error(c, step.loc, "range step cannot be zero");
                    return;
                }
                /* in 128 bits: h - l overflows 64 for bounds near the ends */
                __int128 span = st > 0 ? (__int128)h - l : (__int128)l - h, size = st > 0 ? st : -(__int128)st;
                __int128 trips = span > 0 ? (span + size - 1) / size : 0;
                int64_t n = trips > STATIC_UNROLL_LIMIT ? STATIC_UNROLL_LIMIT + 1 : (int64_t)trips;
                if (n > STATIC_UNROLL_LIMIT) {
                    sema_error(c, iter->loc, "tl.static_range would unroll more than %d iterations; "
                               "use range() for a runtime loop", STATIC_UNROLL_LIMIT);
                    return;
                }
                if (s->u.for_.target->kind != TK_EXPR_NAME) {
                    sema_error(c, s->u.for_.target->loc, "a range loop needs a single name");
                    return;
                }
                exec_static_loop(c, s, NULL, (uint32_t)n, l, st, true);
                return;
            }
            /* a runtime loop */
            if (s->u.for_.target->kind != TK_EXPR_NAME) {
                sema_error(c, s->u.for_.target->loc, "a range loop needs a single name");
                return;
            }
            value *parts[3] = {&lo, &hi, &step};
            tk_dtype d = TK_I32;
            bool first = true;
            for (int i = 0; i < 3; i++) {
                value *p = parts[i];
                tk_dtype pd;
                if (p->kind == V_RT) {
                    const tk_type *t = p->u.rt->type;
                    if (t->kind != TK_TYPE_SCALAR || tk_dtype_is_float(t->dtype)) {
                        sema_error(c, p->loc, "range bounds must be integer scalars, not %s",
                                   tk_type_str(c->arena, t));
                        return;
                    }
                    pd = t->dtype;
                } else if (p->kind == V_INT || p->kind == V_BOOL) {
                    literal_dtype(p, &pd);
                } else {
                    sema_error(c, p->loc, "range bounds must be integers, not %s", v_describe(c, p));
                    return;
                }
                d = first ? pd : int_promote(d, pd);
                first = false;
            }
            if (step.kind == V_INT && step.u.i == 0) {
                sema_error(c, step.loc, "range step cannot be zero");
                return;
            }
            tk_ss *st = ss_new(c, TK_SS_FOR, s->loc);
            st->lo = convert(c, to_runtime(c, &lo, &d), d, lo.loc);
            st->hi = convert(c, to_runtime(c, &hi, &d), d, hi.loc);
            st->step = convert(c, to_runtime(c, &step, &d), d, step.loc);
            st->num_stages = num_stages;
            loop_state ls = {0};
            enter_runtime_loop(c, &s->u.for_.body, s->loc, &ls);
            tk_sema_var *iv = new_var(c, s->u.for_.target->u.name, ty_scalar(c, d), s->u.for_.target->loc);
            st->var = iv;
            binding *b = bind(c, &c->frame->names, iv->name, v_rt(sx_var(c, iv, iv->loc)), iv->loc);
            b->var = iv;
            tk_ss_list *out = c->frame->out;
            c->frame->out = &st->then;
            exec_block(c, &s->u.for_.body);
            c->frame->out = out;
            leave_runtime_loop(c, &ls, s->loc);
            emit_stmt(c, st);
            return;
        }
        it = callee.kind == V_ERROR ? callee : eval(c, iter);
    } else {
        it = eval(c, iter);
    }
    if (it.kind == V_ERROR) return;
    if (it.kind == V_TUPLE && v_is_const(&it)) {
        exec_static_loop(c, s, it.items, it.count, 0, 0, false);
        return;
    }
    sema_error(c, iter->loc, "a for loop iterates over range(), tl.range(), tl.static_range() "
               "or a constant tuple, not %s", v_describe(c, &it));
}

static void exec_while(checker *c, const tk_stmt *s) {
    loop_state ls = {0};
    enter_runtime_loop(c, &s->u.while_.body, s->loc, &ls);
    tk_ss *st = ss_new(c, TK_SS_WHILE, s->loc);
    tk_ss_list *out = c->frame->out;
    /* statements the condition emits (an atomic's result, an inlined
     * @func) belong to every test, not only the first */
    c->frame->out = &st->otherwise;
    value cond = eval(c, s->u.while_.cond);
    tk_sx *cx = NULL;
    if (cond.kind == V_RT) {
        const tk_type *t = cond.u.rt->type;
        if (t->kind != TK_TYPE_SCALAR) {
            sema_error(c, s->u.while_.cond->loc, "a while condition must be a scalar, not %s",
                       tk_type_str(c->arena, t));
        } else if (t->dtype != TK_I1) {
            value r = arith(c, TK_BINOP_NE, cond, v_int(cond.loc, 0), cond.loc);
            if (r.kind == V_RT) cx = r.u.rt;
        } else {
            cx = cond.u.rt;
        }
    } else if (cond.kind != V_ERROR) {
        if (v_is_number(&cond) && !const_truth(&cond)) {
            c->frame->out = out;
            c->frame->runtime_loop_depth--;
            c->frame->names = ls.before;
            return;
        }
        tk_dtype b = TK_I1;
        cx = to_runtime(c, &cond, &b);
    }
    st->value = cx;
    c->frame->out = &st->then;
    exec_block(c, &s->u.while_.body);
    c->frame->out = out;
    leave_runtime_loop(c, &ls, s->loc);
    if (cx) emit_stmt(c, st);
}

static void exec_return(checker *c, const tk_stmt *s) {
    frame *f = c->frame;
    if (f->in_kernel) {
        if (s->u.expr) {
            value v = eval(c, s->u.expr);
            if (v.kind != V_NONE && v.kind != V_ERROR)
                sema_error(c, s->u.expr->loc, "a kernel returns nothing; store results through a "
                           "pointer parameter with tl.store");
        }
        emit_stmt(c, ss_new(c, TK_SS_RETURN, s->loc));
        if (f->runtime_branch_depth == 0 && f->runtime_loop_depth == 0) f->returned = true;
        else if (f->runtime_loop_depth == 0) f->returned = true;
        return;
    }
    if (f->runtime_loop_depth > 0) {
        sema_error(c, s->loc, "return inside a runtime loop of a @func is not supported yet; "
                   "assign the result to a name and return it after the loop");
        return;
    }
    value v = s->u.expr ? eval(c, s->u.expr) : (value){.kind = V_NONE, .loc = s->loc};
    if (f->runtime_branch_depth > 0) {
        /* exec_block moved what follows the if into the branches, so this
         * return ends its path: the value goes to a hidden name that the
         * branches merge like any other, and the call reads it at the end */
        if (v.kind == V_ERROR || v.kind == V_NONE) return;
        if (v_is_number(&v)) v = v_rt(to_runtime(c, &v, NULL));
        if (v.kind == V_RT) assign_name(c, c->n_return, v, s->loc);
        else sema_error(c, s->loc, "a return inside a runtime if gives a runtime value, not %s", v_describe(c, &v));
        f->return_loc = s->loc;
        return;
    }
    f->returned = true;
    f->has_return_value = true;
    f->return_value = v;
    f->return_loc = s->loc;
}

static void exec_assert(checker *c, const tk_stmt *s) {
    value cond = eval(c, s->u.assert_.cond);
    value msg = s->u.assert_.message ? eval(c, s->u.assert_.message) : (value){.kind = V_NONE};
    if (cond.kind == V_ERROR || msg.kind == V_ERROR) return;
    if (v_is_const(&cond)) {
        if (!const_truth(&cond)) {
            if (msg.kind == V_STR)
                sema_error(c, s->loc, "assertion failed: %.*s", (int)msg.u.str.len, msg.u.str.text);
            else
                sema_error(c, s->loc, "assertion failed");
        }
        return;
    }
    int id = TK_B_DEVICE_ASSERT;
    value args[2] = {cond, msg};
    uint32_t n = msg.kind == V_NONE ? 1 : 2;
    builtin_call(c, id, NULL, args, n, NULL, NULL, NULL, 0, s->loc);
}


/* `NAME: tl.constexpr = value` names a compile-time value (Triton's
 * local constexpr); other annotations of local names are refused. */
static bool check_local_annotation(checker *c, const tk_stmt *s, value *v) {
    const tk_type *t = NULL;
    if (!annotation_type(c, s->u.assign.annotation, &t)) return false;
    if (t) {
        sema_error(c, s->u.assign.annotation->loc, "a local name can be annotated only with tl.constexpr, "
                   "not %s; drop the annotation (a .to() converts)", tk_type_str(c->arena, t));
        return false;
    }
    if (v->kind == V_ERROR) return false;
    if (!v_is_const(v) && v->kind != V_DTYPE) {
        sema_error(c, s->u.assign.value->loc, "'%s' is annotated tl.constexpr, but %s is not a compile-time "
                   "value", s->u.assign.targets.data[0]->u.name, v_describe(c, v));
        return false;
    }
    return true;
}

static void exec_stmt(checker *c, const tk_stmt *s) {
    switch (s->kind) {
    case TK_STMT_EXPR: {
        value v = eval(c, s->u.expr);
        (void)v;
        break;
    }
    case TK_STMT_ASSIGN: {
        value v = eval(c, s->u.assign.value);
        if (s->u.assign.annotation && !check_local_annotation(c, s, &v)) break;
        if (v.kind == V_TUPLE) {
            /* `a, b = b, a`: every item is read before any name is written */
            var_list written = {0};
            for (uint32_t i = 0; i < s->u.assign.targets.len; i++)
                target_vars(c, s->u.assign.targets.data[i], &written);
            if (written.len) snapshot_items(c, &v, "tmp", &written, s->loc);
        }
        for (uint32_t i = 0; i < s->u.assign.targets.len; i++)
            assign_target(c, s->u.assign.targets.data[i], v, s->loc);
        break;
    }
    case TK_STMT_AUGASSIGN: {
        const tk_expr *t = s->u.augassign.target;
        if (t->kind != TK_EXPR_NAME) break; /* reported by the parser */
        value cur = eval(c, t);
        value rhs = eval(c, s->u.augassign.value);
        value v = arith(c, s->u.augassign.op, cur, rhs, s->loc);
        assign_name(c, t->u.name, v, t->loc);
        break;
    }
    case TK_STMT_IF: exec_if(c, s); break;
    case TK_STMT_FOR: exec_for(c, s); break;
    case TK_STMT_WHILE: exec_while(c, s); break;
    case TK_STMT_RETURN: exec_return(c, s); break;
    case TK_STMT_PASS: break;
    case TK_STMT_BREAK:
    case TK_STMT_CONTINUE:
        sema_error(c, s->loc, "'%s' is not supported in kernels (nor in Triton); use a while loop "
                   "whose condition ends it", s->kind == TK_STMT_BREAK ? "break" : "continue");
        break;
    case TK_STMT_ASSERT: exec_assert(c, s); break;
    case TK_STMT_DEF:
        sema_error(c, s->u.def->name_loc, "functions are defined at the top level of the file, "
                   "not inside another function");
        break;
    case TK_STMT_IMPORT:
        sema_error(c, s->loc, "imports belong at the top level of the file");
        break;
    }
}

static bool stmt_has_return(const tk_stmt *s) {
    if (s->kind == TK_STMT_RETURN) return true;
    const tk_stmt_list *lists[2] = {NULL, NULL};
    if (s->kind == TK_STMT_IF) lists[0] = &s->u.if_.then, lists[1] = &s->u.if_.otherwise;
    for (int k = 0; k < 2 && lists[k]; k++)
        for (uint32_t i = 0; i < lists[k]->len; i++)
            if (stmt_has_return(lists[k]->data[i])) return true;
    return false;
}

static bool always_returns(const tk_stmt_list *b) {
    if (!b->len) return false;
    const tk_stmt *last = b->data[b->len - 1];
    return last->kind == TK_STMT_RETURN ||
           (last->kind == TK_STMT_IF && always_returns(&last->u.if_.then) && always_returns(&last->u.if_.otherwise));
}

/* A branch's list, then `rest` unless the branch always returns. */
static tk_stmt_list then_rest(checker *c, const tk_stmt_list *branch, const tk_stmt_list *body, uint32_t from) {
    tk_stmt_list out = {0};
    for (uint32_t i = 0; i < branch->len; i++) tk_vec_push(c->arena, &out, branch->data[i]);
    if (!always_returns(branch))
        for (uint32_t i = from; i < body->len; i++) tk_vec_push(c->arena, &out, body->data[i]);
    return out;
}

void exec_block(checker *c, const tk_stmt_list *body) {
    for (uint32_t i = 0; i < body->len; i++) {
        if (c->frame->returned) {
            tk_warning(c->diag, TK_W_UNREACHABLE_CODE, body->data[i]->loc, "this code follows a return and never runs");
            return;
        }
        const tk_stmt *s = body->data[i];
        if (!c->frame->in_kernel && s->kind == TK_STMT_IF && i + 1 < body->len && stmt_has_return(s)) {
            /* in a @func, what follows an if that returns runs only where it
             * did not: it moves into the branches, so every return ends a
             * path (Triton does the same) */
            tk_stmt *moved = TK_NEW(c->arena, tk_stmt);
            *moved = *s;
            moved->u.if_.then = then_rest(c, &s->u.if_.then, body, i + 1);
            moved->u.if_.otherwise = then_rest(c, &s->u.if_.otherwise, body, i + 1);
            exec_stmt(c, moved);
            return;
        }
        exec_stmt(c, s);
    }
}

/* ---- @func calls ---------------------------------------------------------- */

static bool param_is_constexpr(checker *c, const tk_param *p) {
    if (!p->annotation) return false;
    const char *name = p->annotation->kind == TK_EXPR_NAME ? p->annotation->u.name
                       : p->annotation->kind == TK_EXPR_ATTR ? p->annotation->u.attr.name : NULL;
    (void)c;
    return name && strcmp(name, "constexpr") == 0;
}


/* Binds positional and keyword arguments to a def's parameters, defaults
 * filled in. Returns false after reporting what does not match. */
static bool bind_arguments(checker *c, const tk_def *def, value *args, uint32_t count,
                           const char **kw_names, value *kw_values, const tk_loc *kw_locs,
                           uint32_t kw_count, tk_loc loc, value *out) {
    uint32_t n = def->params.len;
    bool *set = TK_NEW_ARRAY(c->arena, bool, n + 1);
    if (count > n) {
        sema_error(c, args[n].loc.src ? args[n].loc : loc, "'%s' takes %u argument%s but %u were given",
                   def->name, n, n == 1 ? "" : "s", count);
        tk_note(c->diag, def->name_loc, "'%s' is defined here", def->name);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        out[i] = args[i];
        set[i] = true;
    }
    for (uint32_t k = 0; k < kw_count; k++) {
        uint32_t i = 0;
        while (i < n && def->params.data[i].name != kw_names[k]) i++;
        if (i == n) {
            const char *cands[64];
            size_t nc = 0;
            for (uint32_t j = 0; j < n && nc < 64; j++) cands[nc++] = def->params.data[j].name;
            const char *s = suggest(c, kw_names[k], cands, nc);
            tk_loc at = kw_locs ? kw_locs[k] : loc;
            if (s) sema_error(c, at, "'%s' has no parameter '%s'; did you mean '%s'?", def->name, kw_names[k], s);
            else sema_error(c, at, "'%s' has no parameter '%s'", def->name, kw_names[k]);
            tk_note(c->diag, def->name_loc, "'%s' is defined here", def->name);
            return false;
        }
        if (set[i]) {
            sema_error(c, kw_locs ? kw_locs[k] : loc, "'%s' gets parameter '%s' twice", def->name, kw_names[k]);
            return false;
        }
        out[i] = kw_values[k];
        set[i] = true;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (set[i]) continue;
        const tk_param *p = &def->params.data[i];
        if (!p->default_value) {
            sema_error(c, loc, "'%s' is missing the argument '%s'", def->name, p->name);
            tk_note(c->diag, p->loc, "'%s' is declared here", p->name);
            return false;
        }
        frame *saved = c->frame;
        c->frame = NULL; /* defaults see only top-level names */
        out[i] = eval(c, p->default_value);
        c->frame = saved;
    }
    return true;
}

static void append_signature(checker *c, char **buf, const value *v) {
    const char *part = v->kind == V_RT ? tk_type_str(c->arena, v->u.rt->type) : const_text(c, v);
    *buf = tk_arena_printf(c->arena, "%s%s%s", *buf, **buf ? "," : "", part);
}

static value runtime_result(checker *c, tk_sx *call, tk_loc loc) {
    const tk_type *t = call->type;
    if (t->kind == TK_TYPE_VOID) {
        tk_ss *s = ss_new(c, TK_SS_EXPR, loc);
        s->value = call;
        emit_stmt(c, s);
        return (value){.kind = V_NONE, .loc = loc};
    }
    tk_sema_var *var = new_var(c, "_", t, loc);
    emit_assign(c, var, call, loc);
    if (t->kind != TK_TYPE_TUPLE) return v_rt(sx_var(c, var, loc));
    value tup = v_tuple(c, loc, t->count);
    for (uint32_t i = 0; i < t->count; i++) {
        tk_sx *g = sx_new(c, TK_SX_TUPLE_GET, t->items[i], loc);
        g->index = i;
        sx_add_arg(c, g, sx_var(c, var, loc));
        tup.items[i] = v_rt(g);
    }
    return tup;
}

/* The runtime form of a @func's return value. */
static tk_sx *return_sx(checker *c, const value *v) {
    if (v->kind == V_NONE) return NULL;
    if (v->kind == V_TUPLE) {
        const tk_type **items = TK_NEW_ARRAY(c->arena, const tk_type *, v->count + 1);
        tk_sx *t = sx_new(c, TK_SX_TUPLE, NULL, v->loc);
        for (uint32_t i = 0; i < v->count; i++) {
            tk_sx *x = to_runtime(c, &v->items[i], NULL);
            if (!x) return NULL;
            items[i] = x->type;
            sx_add_arg(c, t, x);
        }
        t->type = ty_tuple(c, v->count, items);
        return t;
    }
    return to_runtime(c, v, NULL);
}

value call_func(checker *c, const tk_def *def, value *args, uint32_t count,
                const char **kw_names, value *kw_values, const tk_loc *kw_locs,
                uint32_t kw_count, tk_loc loc) {
    if (c->frame && c->frame->in_grid) {
        sema_error(c, loc, "a @func cannot be called in a grid expression: grids are computed on "
                   "the host");
        return v_error();
    }
    for (uint32_t i = 0; i < c->call_stack.len; i++) {
        if (c->call_stack.data[i] == def) {
            sema_error(c, loc, "'%s' calls itself; recursion is not supported", def->name);
            return v_error();
        }
    }
    uint32_t n = def->params.len;
    value *bound = TK_NEW_ARRAY(c->arena, value, n + 1);
    if (!bind_arguments(c, def, args, count, kw_names, kw_values, kw_locs, kw_count, loc, bound))
        return v_error();
    char *sig = "";
    for (uint32_t i = 0; i < n; i++) {
        if (bound[i].kind == V_ERROR) return v_error();
        if (param_is_constexpr(c, &def->params.data[i]) && !v_is_const(&bound[i])) {
            sema_error(c, bound[i].loc, "'%s' is a constexpr parameter of '%s' but gets %s",
                       def->params.data[i].name, def->name, v_describe(c, &bound[i]));
            return v_error();
        }
        if (bound[i].kind == V_TUPLE && !v_is_const(&bound[i])) {
            sema_error(c, bound[i].loc, "passing a tuple of runtime values to a @func is not "
                       "supported yet; pass its items separately");
            return v_error();
        }
        append_signature(c, &sig, &bound[i]);
    }
    const char *key = tk_intern_cstr(c->names, sig);
    tk_sema_func *fn = NULL;
    for (uint32_t i = 0; i < c->instances.len; i++) {
        if (c->instances.data[i].def == def && c->instances.data[i].signature == key) {
            if (c->instances.data[i].failed) return v_error();
            fn = c->instances.data[i].func;
        }
    }
    if (!fn) {
        fn = TK_NEW(c->arena, tk_sema_func);
        fn->name = def->name;
        fn->loc = def->name_loc;
        uint32_t index = 0;
        for (uint32_t i = 0; i < c->instances.len; i++) index += c->instances.data[i].def->name == def->name; /* two modules may both define a name */
        fn->instance = index;
        func_instance_key k = {def, key, fn};
        tk_vec_push(c->arena, &c->instances, k);
        uint32_t counter = 0;
        frame f = {0};
        f.out = &fn->body;
        f.var_counter = &counter;
        f.def = def;
        frame *saved = c->frame;
        c->frame = &f;
        for (uint32_t i = 0; i < n; i++) {
            const tk_param *p = &def->params.data[i];
            if (bound[i].kind == V_RT) {
                tk_sema_var *var = new_var(c, p->name, bound[i].u.rt->type, p->loc);
                tk_vec_push(c->arena, &fn->params, var);
                binding *b = bind(c, &f.names, p->name, v_rt(sx_var(c, var, p->loc)), p->loc);
                b->var = var;
            } else {
                value cv = bound[i];
                cv.origin = p->loc;
                cv.origin_name = tk_arena_printf(c->arena, "%s is bound here by the call", p->name);
                bind(c, &f.names, p->name, cv, p->loc);
                tk_sema_const_binding cb = {p->name, const_text(c, &bound[i])};
                tk_vec_push(c->arena, &fn->constexprs, cb);
            }
        }
        uint32_t key_index = c->instances.len - 1;
        int errors_before = c->diag->error_count;
        tk_vec_push(c->arena, &c->call_stack, def);
        /* an imported module's @func reads its own module's names */
        user_module *home = sema_home_of(c, def);
        scope caller_globals = c->globals;
        if (home) c->globals = home->globals;
        exec_block(c, &def->body);
        c->globals = caller_globals;
        c->call_stack.len--;
        if (c->diag->error_count > errors_before) {
            tk_note(c->diag, loc, "in '%s', called here", def->name);
            c->instances.data[key_index].failed = true;
            c->frame = saved;
            return v_error();
        }
        fn->result = ty_void(c);
        binding *branch_ret = f.has_return_value ? NULL : lookup_in(&f.names, c->n_return);
        if (branch_ret && branch_ret->state != BOUND) {
            sema_error(c, def->name_loc, "'%s' returns a value on some paths only (a runtime if returns in "
                       "one branch)", def->name);
            tk_note(c->diag, loc, "in '%s', called here", def->name);
            c->instances.data[key_index].failed = true;
            c->frame = saved;
            return v_error();
        }
        if (branch_ret) {
            f.has_return_value = true;
            f.return_value = branch_ret->var ? v_rt(sx_var(c, branch_ret->var, f.return_loc)) : branch_ret->val;
        }
        if (f.has_return_value) {
            tk_sx *r = return_sx(c, &f.return_value);
            if (r) {
                tk_ss *s = ss_new(c, TK_SS_RETURN, f.return_loc);
                s->value = r;
                emit_stmt(c, s);
                fn->result = r->type;
            }
        }
        c->frame = saved;
        tk_vec_push(c->arena, &c->program->funcs, fn);
    }
    tk_sx *call = sx_new(c, TK_SX_CALL, fn->result, loc);
    call->func = fn;
    for (uint32_t i = 0; i < n; i++)
        if (bound[i].kind == V_RT) sx_add_arg(c, call, bound[i].u.rt);
    return runtime_result(c, call, loc);
}

/* ---- annotations ------------------------------------------------------ */

/* The type a parameter's or a name's annotation names (x: *f32, BLOCK:
 * tl.constexpr); NULL for constexpr. */
bool annotation_type(checker *c, const tk_expr *a, const tk_type **out) {
    if (a->kind == TK_EXPR_POINTER_TYPE) {
        const tk_type *inner;
        if (!annotation_type(c, a->u.pointee, &inner)) return false;
        if (!inner) {
            sema_error(c, a->loc, "a pointer to constexpr has no meaning");
            return false;
        }
        *out = ty_pointer(c, inner);
        return true;
    }
    const char *name = a->kind == TK_EXPR_NAME ? a->u.name : a->kind == TK_EXPR_ATTR ? a->u.attr.name : NULL;
    if (a->kind == TK_EXPR_ATTR) {
        const tk_expr *o = a->u.attr.object;
        bool known = (o->kind == TK_EXPR_NAME && (o->u.name == c->n_tl || o->u.name == c->n_triton)) ||
                     (o->kind == TK_EXPR_ATTR && o->u.attr.name == c->n_language);
        if (!known) name = NULL;
    }
    if (name && strcmp(name, "constexpr") == 0) {
        *out = NULL;
        return true;
    }
    tk_dtype d;
    if (name && dtype_from_name(name, &d)) {
        *out = ty_scalar(c, d);
        return true;
    }
    const char *cands[] = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16",
                           "bf16", "f32", "f64", "f8e4m3", "f8e5m2", "constexpr"};
    const char *s = name ? suggest(c, name, cands, sizeof cands / sizeof cands[0]) : NULL;
    if (s) sema_error(c, a->loc, "unknown type '%s'; did you mean '%s'?", name, s);
    else sema_error(c, a->loc, "not a type: expected a dtype such as f32, a pointer such as *f16, or constexpr");
    return false;
}
