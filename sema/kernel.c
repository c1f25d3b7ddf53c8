/* Kernels: each @kernel's decorators (@kernel's grid and launch options,
 * @autotune's configs, key, prune_configs_by and the lists of what the
 * trials write, @heuristics) read into the variants to compile, and each
 * variant checked with its constexprs bound; a kernel generic over dtypes
 * (x: *DT, @kernel(dtypes=...)) all of that once per instance, each a
 * kernel of its own name.
 *
 * Needs: the checker (value.c, scope.c, expr.c, stmt.c). Guarantees:
 * one tk_sema_kernel per variant, each constexpr with a value; the host
 * expressions (grid, heuristics, sizes, pruning) are ones codegen/header.c
 * prints in C; at most 64 variants per kernel. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct kernel_decl {
    const tk_def *def;
    const tk_expr *grid;
    const tk_expr *num_warps, *num_stages, *maxnreg;
    const tk_expr *requires;  /* a list of conditions, or one */
    const tk_expr *launcher_name; /* name="...": the C launcher's name */
    const tk_expr *fp_fusion;     /* enable_fp_fusion=True/False */
    const tk_expr *launch_pdl;    /* launch_pdl=True/False */
    const tk_expr *configs;   /* the list of config(...) calls */
    const tk_expr *key;
    const tk_expr *tuned[3];  /* restore_value, reset_to_zero, may_clobber (TK_TUNED_*) */
    const tk_expr *prune;     /* prune_configs_by's value */
    const tk_expr *warmup, *rep; /* do_bench's milliseconds */
    uint32_t prune_top_k;     /* with a perf_model: how many configs are timed */
    TK_VEC(const tk_expr *) heuristics; /* KEYWORD nodes */
    tk_loc kernel_loc;
    /* the instance of a kernel generic over dtypes: its name (the def's,
     * or with a suffix per listed dtype parameter: scale_bf16) and the
     * values of its listed dtype parameters */
    const char *name, *suffix;
    TK_VEC(struct type_param) listed;
} kernel_decl;

typedef struct variant {
    TK_VEC(binding) constexprs;
    TK_VEC(struct tk_sema_condition) conditions;
    value num_warps, num_stages, maxnreg;
    int config;          /* autotune config index, -1 for none */
    const char *config_text;
    tk_loc config_loc;   /* its config(...) in the decorator */
    tk_sx *prune_keep, *prune_estimate; /* prune_configs_by for this config (NULL: none) */
    uint64_t absent;     /* optional pointer parameters (bit = index in the def) compiled as None */
    /* constexpr parameters @heuristics computes from run-time scalars: the
     * launcher computes each (expr) and passes it as a run-time argument */
    TK_VEC(struct computed_param { const char *name; tk_sx *expr; tk_loc loc; }) computed;
} variant;

/* Is e `num_sms()`, the default that makes a parameter a launch value? */
static bool is_num_sms_call(const tk_expr *e) {
    return e && e->kind == TK_EXPR_CALL && e->u.call.callee->kind == TK_EXPR_NAME &&
           strcmp(e->u.call.callee->u.name, "num_sms") == 0;
}

const char *decorator_name(checker *c, const tk_expr *e) {
    if (e->kind == TK_EXPR_CALL) e = e->u.call.callee;
    if (e->kind == TK_EXPR_NAME) return e->u.name;
    if (e->kind == TK_EXPR_ATTR) {
        const tk_expr *o = e->u.attr.object;
        if (o->kind == TK_EXPR_NAME && (o->u.name == c->n_triton || o->u.name == c->n_tl))
            return e->u.attr.name;
    }
    return NULL;
}

/* A decorator's arguments by name into out[] (the index of each in
 * `allowed`). The first arguments may come by position where `positional`
 * lists, in order, the names they stand for (as in Triton's signature). */
static bool keyword_args(checker *c, const tk_expr *call, const char *what,
                         const char *const *allowed, size_t n_allowed,
                         const char *const *positional, size_t n_positional,
                         const tk_expr **out) {
    bool ok = true;
    if (call->kind != TK_EXPR_CALL) return true;
    for (uint32_t i = 0; i < call->u.call.args.len; i++) {
        const tk_expr *a = call->u.call.args.data[i];
        if (a->kind != TK_EXPR_KEYWORD && i < n_positional) {
            size_t k = 0;
            while (k < n_allowed && strcmp(allowed[k], positional[i]) != 0) k++;
            if (k < n_allowed) out[k] = a;
            else {
                sema_error(c, a->loc, "%s's argument %s is not supported yet; name the others", what,
                           positional[i]);
                ok = false;
            }
            continue;
        }
        if (a->kind != TK_EXPR_KEYWORD) {
            if (n_positional)
                sema_error(c, a->loc, "%s takes at most %zu arguments by position (%s, ...); name the rest (name=value)",
                           what, n_positional, positional[0]);
            else
                sema_error(c, a->loc, "%s takes keyword arguments only (name=value)", what);
            ok = false;
            continue;
        }
        for (size_t j = 0; j < i && j < n_positional; j++)
            if (call->u.call.args.data[j]->kind != TK_EXPR_KEYWORD && strcmp(positional[j], a->u.keyword.name) == 0) {
                sema_error(c, a->u.keyword.name_loc, "%s's '%s' is given by position and by name", what,
                           a->u.keyword.name);
                ok = false;
            }
        size_t k = 0;
        while (k < n_allowed && strcmp(allowed[k], a->u.keyword.name) != 0) k++;
        if (k == n_allowed) {
            const char *s = suggest(c, a->u.keyword.name, allowed, n_allowed);
            if (s) sema_error(c, a->u.keyword.name_loc, "%s has no option '%s'; did you mean '%s'?", what, a->u.keyword.name, s);
            else sema_error(c, a->u.keyword.name_loc, "%s has no option '%s'", what, a->u.keyword.name);
            ok = false;
            continue;
        }
        out[k] = a->u.keyword.value;
    }
    return ok;
}

value eval_global(checker *c, const tk_expr *e) {
    frame *saved = c->frame;
    c->frame = NULL;
    value v = eval(c, e);
    c->frame = saved;
    return v;
}

const tk_param *find_param(const tk_def *def, const char *name) {
    for (uint32_t i = 0; i < def->params.len; i++)
        if (def->params.data[i].name == name) return &def->params.data[i];
    return NULL;
}

/* @kernel or @autotune written a second time would silently replace the
 * first: an error that points at both */
static bool once(checker *c, const tk_decorator *d, const char *what, const tk_loc *first) {
    if (!first) return true;
    sema_error(c, d->loc, "@%s is given twice", what);
    tk_note(c->diag, *first, "the first is here");
    return false;
}

static bool parse_kernel_decl(checker *c, const tk_def *def, kernel_decl *k) {
    bool ok = true;
    const tk_loc *kernel_at = NULL, *autotune_at = NULL;
    k->def = def;
    for (uint32_t i = 0; i < def->decorators.len; i++) {
        const tk_expr *d = def->decorators.data[i].expr;
        const char *name = decorator_name(c, d);
        if (name && (strcmp(name, "kernel") == 0 || strcmp(name, "autotune") == 0)) {
            const tk_loc **at = name[0] == 'k' ? &kernel_at : &autotune_at;
            if (!once(c, &def->decorators.data[i], name, *at)) {
                ok = false;
                continue;
            }
            *at = &def->decorators.data[i].loc;
        }
        if (name && strcmp(name, "kernel") == 0) {
            static const char *const opts[] = {"grid", "num_warps", "num_stages", "requires", "name",
                                               "enable_fp_fusion", "dtypes", "launch_pdl", "maxnreg"};
            const tk_expr *vals[9] = {0};
            ok &= keyword_args(c, d, "@kernel", opts, 9, NULL, 0, vals);
            k->maxnreg = vals[8];
            k->launch_pdl = vals[7];
            k->launcher_name = vals[4];
            k->fp_fusion = vals[5];
            k->grid = vals[0];
            k->num_warps = vals[1];
            k->num_stages = vals[2];
            k->requires = vals[3];
            k->kernel_loc = def->decorators.data[i].loc;
            if (!k->grid) {
                sema_error(c, def->decorators.data[i].loc, "@kernel needs grid=(...): the number "
                           "of programs along each axis, from the scalar parameters");
                ok = false;
            }
        } else if (name && strcmp(name, "autotune") == 0) {
            static const char *const opts[] = {"configs", "key", "warmup", "rep", "prune_configs_by",
                                               "restore_value", "reset_to_zero", "may_clobber"};
            const tk_expr *vals[8] = {0};
            /* Triton's autotune(configs, key, prune_configs_by, reset_to_zero, restore_value, ...) */
            static const char *const order[] = {"configs", "key", "prune_configs_by", "reset_to_zero",
                                                "restore_value", "pre_hook", "post_hook", "warmup", "rep"};
            ok &= keyword_args(c, d, "@autotune", opts, 8, order, 9, vals);
            k->configs = vals[0];
            k->key = vals[1];
            for (uint32_t j = 0; j < 3; j++) k->tuned[j] = vals[5 + j];
            k->prune = vals[4];
            k->warmup = vals[2];
            k->rep = vals[3];
            if (!k->configs) {
                sema_error(c, def->decorators.data[i].loc, "@autotune needs configs=[config(...), ...]");
                ok = false;
            }
        } else if (name && strcmp(name, "heuristics") == 0) {
            if (d->kind != TK_EXPR_CALL) continue;
            for (uint32_t j = 0; j < d->u.call.args.len; j++) {
                const tk_expr *a = d->u.call.args.data[j];
                if (a->kind != TK_EXPR_KEYWORD) {
                    sema_error(c, a->loc, "@heuristics takes NAME=expression arguments");
                    ok = false;
                    continue;
                }
                tk_vec_push(c->arena, &k->heuristics, a);
            }
        } else if (name && strcmp(name, "func") == 0) {
            sema_error(c, def->decorators.data[i].loc, "a function cannot be both @func and @kernel");
            ok = false;
        } else if (name && strcmp(name, "jit") == 0) {
            sema_error(c, def->decorators.data[i].loc, "@jit is Triton's; in tkc write "
                       "@kernel(grid=...) for a kernel and @func for a device function");
            ok = false;
        } else {
            sema_error(c, def->decorators.data[i].loc, "unknown decorator; tkc knows @kernel, "
                       "@func, @autotune and @heuristics");
            ok = false;
        }
    }
    for (uint32_t i = 0; i < def->params.len; i++) {
        const tk_param *p = &def->params.data[i];
        if (!p->annotation) {
            sema_error(c, p->loc, "kernel parameter '%s' needs a type annotation (for example "
                       "'%s: *f32', '%s: i32' or '%s: constexpr')", p->name, p->name, p->name, p->name);
            ok = false;
            continue;
        }
        const tk_type *t;
        if (!annotation_type(c, p->annotation, &t)) {
            ok = false;
            continue;
        }
        if (t && t->kind == TK_TYPE_BLOCK_PTR && p->promise != TK_PROMISE_NONE) {
            sema_error(c, p->promise_loc, "a descriptor parameter takes no promise: the launcher checks what "
                       "a tensor descriptor needs (16-byte aligned data and strides, the last stride 1)");
            ok = false;
        } else if (p->promise == TK_PROMISE_OPTIONAL) {
            if (!t || t->kind != TK_TYPE_POINTER) {
                sema_error(c, p->promise_loc, "only a pointer parameter may be None ('%s: *f32 | None'); "
                           "'%s' is %s", p->name, p->name, t ? tk_type_str(c->arena, t) : "a constexpr");
                ok = false;
            } else if (p->default_value && p->default_value->kind != TK_EXPR_NONE) {
                sema_error(c, p->default_value->loc, "an optional pointer's default is None; the launcher "
                           "takes NULL for it");
                ok = false;
            }
        } else if (p->promise != TK_PROMISE_NONE) {
            if (!t) {
                sema_error(c, p->promise_loc, "a constexpr parameter has a known value; a promise "
                           "about it has no meaning");
                ok = false;
            } else if (t->kind == TK_TYPE_SCALAR && tk_dtype_is_float(t->dtype)) {
                sema_error(c, p->promise_loc, "promises ('%% 16', '== 1') apply to integers and "
                           "pointers, not to %s", tk_dtype_name(t->dtype));
                ok = false;
            } else if (p->promise == TK_PROMISE_EQUAL && t->kind == TK_TYPE_POINTER) {
                sema_error(c, p->promise_loc, "'== 1' applies to integers, not to pointers");
                ok = false;
            } else if (p->promise == TK_PROMISE_DIVISIBLE && !tk_is_pow2((int64_t)p->promise_value)) {
                sema_error(c, p->promise_loc, "a divisibility promise must be a power of two, not %llu",
                           (unsigned long long)p->promise_value);
                ok = false;
            } else if (p->promise == TK_PROMISE_EQUAL && p->promise_value != 1) {
                sema_error(c, p->promise_loc, "only '== 1' is supported as an equality promise");
                ok = false;
            }
        }
        if (is_num_sms_call(p->default_value) && t) {
            if (p->default_value->u.call.args.len) {
                sema_error(c, p->default_value->loc, "num_sms() takes no arguments: it is the number of "
                           "multiprocessors of the device the kernel is launched on");
                ok = false;
            } else if (t->kind != TK_TYPE_SCALAR || t->dtype != TK_I32) {
                sema_error(c, p->annotation->loc, "num_sms() fills an i32 parameter ('%s: i32 = num_sms()'), "
                           "not %s", p->name, tk_type_str(c->arena, t));
                ok = false;
            } else if (p->promise != TK_PROMISE_NONE) {
                sema_error(c, p->promise_loc, "'%s' is filled in by the launcher from the device: a promise "
                           "about it has no meaning", p->name);
                ok = false;
            }
        } else if (p->default_value && t && p->promise != TK_PROMISE_OPTIONAL) {
            sema_error(c, p->default_value->loc, "only constexpr parameters take defaults; the "
                       "launcher passes every runtime argument (but 'NAME: i32 = num_sms()', which it "
                       "reads from the device)");
            ok = false;
        }
    }
    return ok;
}

/* Parses a -D value: an integer, a float, True/False, a dtype, or else a
 * string. A dtype is written as in Triton (tl.bfloat16, triton.language.
 * float16) or torch (torch.bfloat16), or bare (bf16, float16) for a
 * parameter whose default is a dtype (`dtype_default`); other bare names
 * stay strings (used where a dtype is needed, dtype_arg takes them). */
static value define_value(checker *c, const char *text, tk_loc loc, bool dtype_default) {
    const char *bare = text;
    if (strncmp(bare, "tl.", 3) == 0) bare += 3;
    else if (strncmp(bare, "triton.language.", 16) == 0) bare += 16;
    else if (strncmp(bare, "torch.", 6) == 0) bare += 6; /* what a wrapper passes: x.dtype */
    tk_dtype d;
    if ((bare != text || dtype_default) && dtype_from_name(bare, &d)) {
        value v = {.kind = V_DTYPE, .loc = loc};
        v.u.dtype = d;
        return v;
    }
    char *end;
    errno = 0;
    long long i = strtoll(text, &end, 0);
    if (*text && !*end && errno == 0) return v_int(loc, i);
    double f = strtod(text, &end);
    if (*text && !*end) return v_float(loc, f);
    if (strcmp(text, "True") == 0 || strcmp(text, "true") == 0) return v_bool(loc, true);
    if (strcmp(text, "False") == 0 || strcmp(text, "false") == 0) return v_bool(loc, false);
    value v = {.kind = V_STR, .loc = loc};
    size_t len = strlen(text);
    if (len >= 2 && (text[0] == '"' || text[0] == '\'') && text[len - 1] == text[0]) {
        text++;
        len -= 2;
    }
    v.u.str.text = tk_arena_strndup(c->arena, text, len);
    v.u.str.len = (uint32_t)len;
    return v;
}

/* The frame of one kernel variant: runtime parameters as variables,
 * constexprs bound to the variant's values. */
static void setup_kernel_frame(checker *c, const kernel_decl *k, const variant *v, frame *f,
                               tk_sema_kernel *out, uint32_t *counter) {
    memset(f, 0, sizeof *f);
    f->in_kernel = true;
    f->var_counter = counter;
    f->def = k->def;
    c->frame = f;
    /* descriptor parameters last: their blocks are written with the
     * constexprs, which may come after them */
    for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < k->def->params.len; i++) {
        const tk_param *p = &k->def->params.data[i];
        bool descriptor = annotation_is_descriptor(c, p->annotation);
        if (descriptor && pass == 0) {
            if (out) tk_vec_push(c->arena, &out->params, (tk_sema_param){0}); /* its place, filled below */
            continue;
        }
        if (descriptor != (pass == 1)) continue;
        const tk_type *t = NULL;
        if (descriptor && !descriptor_annotation(c, p->annotation, true, &t)) {
            bind(c, &f->names, p->name, v_error(), p->loc);
            if (out) out->params.data[i] = (tk_sema_param){.name = p->name, .loc = p->loc, .is_constexpr = true};
            continue;
        }
        if (!descriptor) annotation_type(c, p->annotation, &t);
        tk_sema_param sp = {0};
        sp.name = p->name;
        sp.loc = p->loc;
        sp.promise = p->promise;
        sp.promise_value = p->promise_value;
        const struct computed_param *computed = NULL;
        for (uint32_t j = 0; !t && j < v->computed.len; j++)
            if (v->computed.data[j].name == p->name) computed = &v->computed.data[j];
        if (computed) {
            /* in the frames of later heuristics and of pruning, the host
             * expression itself; in the kernel, a run-time parameter */
            value rv = v_rt(computed->expr);
            tk_sema_var *var = NULL;
            if (out) {
                var = new_var(c, p->name, computed->expr->type, p->loc);
                sp.type = computed->expr->type;
                sp.var = var;
                sp.computed = computed->expr;
                rv = v_rt(sx_var(c, var, p->loc));
            }
            rv.origin = computed->loc;
            rv.origin_name = tk_arena_printf(c->arena, "%s comes from @heuristics over run-time arguments: the "
                                             "launcher computes it, so it is a run-time value here; where a "
                                             "compile-time one is needed (a tile size), give %s a few values in "
                                             "autotune configs instead (config(%s=1024), config(%s=4096), ...) "
                                             "and state what each needs with requires= (requires=[n <= %s])",
                                             p->name, p->name, p->name, p->name, p->name);
            binding *b = bind(c, &f->names, p->name, rv, p->loc);
            b->var = var;
        } else if (!t) {
            sp.is_constexpr = true;
            for (uint32_t j = 0; j < v->constexprs.len; j++)
                if (v->constexprs.data[j].name == p->name)
                    bind(c, &f->names, p->name, v->constexprs.data[j].val, p->loc);
        } else {
            tk_sema_var *var = new_var(c, p->name, t, p->loc);
            sp.type = t;
            sp.var = var;
            sp.num_sms = is_num_sms_call(p->default_value);
            sp.python_int = !sp.num_sms && p->annotation->kind == TK_EXPR_NAME &&
                            strcmp(p->annotation->u.name, "int") == 0;
            sp.absent = i < 64 && (v->absent >> i & 1);
            if (sp.absent) {
                value none = {.kind = V_NONE, .loc = p->loc};
                none.origin = p->promise_loc;
                none.origin_name = tk_arena_printf(c->arena, "%s is None in this variant (the launcher "
                                                   "picks it when %s is NULL)", p->name, p->name);
                bind(c, &f->names, p->name, none, p->loc);
            } else if (p->promise == TK_PROMISE_EQUAL) {
                /* as in Triton: a parameter promised == 1 is the constant 1 in
                 * the body; the launcher checks the argument */
                value one = v_int(p->loc, 1);
                one.origin = p->promise_loc;
                one.origin_name = tk_arena_printf(c->arena, "%s is promised == 1 here", p->name);
                bind(c, &f->names, p->name, one, p->loc);
            } else {
                binding *b = bind(c, &f->names, p->name, v_rt(sx_var(c, var, p->loc)), p->loc);
                b->var = var;
            }
        }
        if (out && descriptor) out->params.data[i] = sp;
        else if (out) tk_vec_push(c->arena, &out->params, sp);
    }
}

static bool sx_uses_pointer(const tk_sx *x, const tk_sema_var **which) {
    if (!x) return false;
    if (x->kind == TK_SX_VAR && x->var->type->kind == TK_TYPE_POINTER) {
        *which = x->var;
        return true;
    }
    for (uint32_t i = 0; i < x->args.len; i++)
        if (sx_uses_pointer(x->args.data[i], which)) return true;
    return false;
}

/* Is x an expression the launch header can compute in C (codegen/header.c
 * prints exactly these)? Reports the first part that is not. */
static bool host_printable(checker *c, const tk_sx *x, const char *what) {
    const tk_type *t = x->type;
    if (t->kind != TK_TYPE_SCALAR || t->dtype == TK_F16 || t->dtype == TK_BF16 || t->dtype == TK_F8E4M3 ||
        t->dtype == TK_F8E5M2) {
        sema_error(c, x->loc, "%s is computed on the host in 64-bit integers or doubles; %s values "
                   "cannot be part of it", what, tk_type_str(c->arena, t));
        return false;
    }
    bool flt = tk_dtype_is_float(t->dtype);
    switch (x->kind) {
    case TK_SX_CONST:
        if (flt && !isfinite(x->value.f)) {
            sema_error(c, x->loc, "%s cannot use an infinite or NaN constant", what);
            return false;
        }
        return true;
    case TK_SX_VAR: return true;
    case TK_SX_UNARY: return host_printable(c, x->args.data[0], what);
    case TK_SX_BINARY: {
        bool operand_flt = tk_dtype_is_float(x->args.data[0]->type->dtype);
        if (operand_flt && (x->op == TK_BINOP_FLOORDIV || x->op == TK_BINOP_MOD)) {
            sema_error(c, x->loc, "%s cannot use '//' or '%%' on floating-point values; convert to "
                       "integers first", what);
            return false;
        }
        return host_printable(c, x->args.data[0], what) && host_printable(c, x->args.data[1], what);
    }
    case TK_SX_SELECT:
    case TK_SX_CAST:
        for (uint32_t i = 0; i < x->args.len; i++)
            if (!host_printable(c, x->args.data[i], what)) return false;
        return true;
    case TK_SX_BUILTIN: {
        const char *name = tk_sema_builtin_name(x->builtin);
        if (!strcmp(name, "maximum") || !strcmp(name, "minimum"))
            return host_printable(c, x->args.data[0], what) && host_printable(c, x->args.data[1], what);
        if (!strcmp(name, "next_power_of_2")) return host_printable(c, x->args.data[0], what);
        sema_error(c, x->loc, "%s cannot use %s: the launch header computes it on the host", what, name);
        return false;
    }
    default:
        sema_error(c, x->loc, "%s cannot use this expression: the launch header computes it on the host",
                   what);
        return false;
    }
}

/* A grid or heuristic value computed on the host: a constexpr or an
 * integer scalar over the scalar parameters. */
static tk_sx *host_int(checker *c, value v, tk_loc loc, const char *what) {
    if (v.kind == V_ERROR) return NULL;
    if (v.kind == V_INT || v.kind == V_BOOL) {
        tk_dtype d = TK_I32;
        if (!const_fits(v_as_int(&v), TK_I32)) d = TK_I64;
        return sx_const(c, &v, d, v.loc);
    }
    if (v.kind != V_RT) {
        sema_error(c, loc, "%s must be an integer, not %s", what, v_describe(c, &v));
        return NULL;
    }
    const tk_sema_var *ptr;
    if (sx_uses_pointer(v.u.rt, &ptr)) {
        sema_error(c, v.loc, "%s uses the pointer '%s'; the host computes it from sizes, not addresses",
                   what, ptr->name);
        return NULL;
    }
    const tk_type *t = v.u.rt->type;
    if (t->kind != TK_TYPE_SCALAR || tk_dtype_is_float(t->dtype)) {
        sema_error(c, v.loc, "%s must be an integer scalar, not %s", what, tk_type_str(c->arena, t));
        return NULL;
    }
    return host_printable(c, v.u.rt, what) ? v.u.rt : NULL;
}

static value eval_host(checker *c, const tk_expr *e) {
    bool saved = c->frame->in_grid;
    c->frame->in_grid = true;
    value v;
    if (e->kind == TK_EXPR_LAMBDA) {
        if (e->u.lambda.params.len != 1) {
            sema_error(c, e->loc, "a grid or heuristics lambda takes one parameter (the "
                       "meta-parameters)");
            c->frame->in_grid = saved;
            return v_error();
        }
        value meta = {.kind = V_META, .loc = e->loc};
        scope before = copy_scope(c, &c->frame->names);
        bind(c, &c->frame->names, e->u.lambda.params.data[0], meta, e->loc);
        v = eval(c, e->u.lambda.body);
        c->frame->names = before;
    } else {
        v = eval(c, e);
    }
    c->frame->in_grid = saved;
    return v;
}

static void check_grid(checker *c, const kernel_decl *k, tk_sema_kernel *out) {
    value g = eval_host(c, k->grid);
    if (g.kind == V_ERROR) return;
    if (g.kind != V_TUPLE) {
        value t = v_tuple(c, g.loc, 1);
        t.items[0] = g;
        g = t;
    }
    if (g.count < 1 || g.count > 3) {
        sema_error(c, k->grid->loc, "a grid has 1 to 3 dimensions, not %u", g.count);
        return;
    }
    for (uint32_t i = 0; i < g.count; i++) {
        tk_sx *x = host_int(c, g.items[i], k->grid->loc, "a grid dimension");
        if (!x) return;
        out->grid[i] = x;
    }
    out->grid_rank = g.count;
}

/* @kernel(requires=[COND, ...]): each a boolean over the scalar parameters
 * and constexprs. One that holds for every argument is dropped; one that
 * never holds for this variant is an error here (a static assertion); the
 * rest the launcher checks (codegen/header.c). */
static void check_requires(checker *c, const kernel_decl *k, tk_sema_kernel *out) {
    const tk_expr *list = k->requires;
    if (!list) return;
    uint32_t n = list->kind == TK_EXPR_LIST || list->kind == TK_EXPR_TUPLE ? list->u.items.len : 1;
    for (uint32_t i = 0; i < n; i++) {
        const tk_expr *e = n == 1 && list->kind != TK_EXPR_LIST && list->kind != TK_EXPR_TUPLE
                               ? list : list->u.items.data[i];
        const char *text = e->loc.src ? tk_arena_strndup(c->arena, e->loc.src->text + e->loc.begin,
                                                         e->loc.end - e->loc.begin)
                                      : "?";
        value r = eval_host(c, e);
        if (r.kind == V_ERROR) continue;
        if (v_is_const(&r)) {
            if (r.kind != V_BOOL) {
                sema_error(c, e->loc, "a requirement is a condition (True or False), not %s", v_describe(c, &r));
            } else if (!r.u.b) {
                char *with = tk_arena_printf(c->arena, "%s", "");
                for (uint32_t b = 0; b < out->constexprs.len; b++)
                    with = tk_arena_printf(c->arena, "%s%s%s = %s", with, b ? ", " : " (with ",
                                           out->constexprs.data[b].name, out->constexprs.data[b].value_text);
                sema_error(c, e->loc, "this kernel's requirement '%s' never holds%s%s", text, with,
                           out->constexprs.len ? ")" : "");
            }
            continue;
        }
        const tk_type *rt = r.u.rt->type;
        const tk_sema_var *ptr;
        if (sx_uses_pointer(r.u.rt, &ptr)) {
            sema_error(c, e->loc, "a requirement uses the pointer '%s'; the launcher checks sizes, not addresses "
                       "(promise an alignment in the signature instead: %s: *T %% 16)", ptr->name, ptr->name);
            continue;
        }
        if (rt->kind != TK_TYPE_SCALAR || rt->dtype != TK_I1) {
            sema_error(c, e->loc, "a requirement is a condition over the scalar parameters, not %s",
                       tk_type_str(c->arena, rt));
            continue;
        }
        if (!host_printable(c, r.u.rt, "a requirement")) continue;
        struct tk_sema_requirement req = {r.u.rt, text};
        tk_vec_push(c->arena, &out->requires, req);
    }
}

/* @autotune's restore_value=[(PTR, elements), ...], reset_to_zero=[...]
 * (the same form) and may_clobber=[PTR, ...]: pointer parameters (and in
 * may_clobber tensor descriptor parameters), each in one list; the element counts are host expressions over the scalar
 * parameters (the header has no tensor sizes to take them from). */
static void check_tuned(checker *c, const kernel_decl *k, tk_sema_kernel *out) {
    static const char *const what[3] = {"restore_value", "reset_to_zero", "may_clobber"};
    for (int kind = 0; kind < 3; kind++) {
        const tk_expr *list = k->tuned[kind];
        if (!list) continue;
        if (list->kind != TK_EXPR_LIST && list->kind != TK_EXPR_TUPLE) {
            sema_error(c, list->loc, "%s= is a list: %s", what[kind],
                       kind == TK_TUNED_CLOBBER ? "[PTR, ...]" : "[(PTR, number of elements), ...]");
            continue;
        }
        for (uint32_t i = 0; i < list->u.items.len; i++) {
            const tk_expr *item = list->u.items.data[i], *name_expr = item, *size = NULL;
            if (item->kind == TK_EXPR_TUPLE && item->u.items.len == 2) {
                name_expr = item->u.items.data[0];
                size = item->u.items.data[1];
            }
            const char *name = name_expr->kind == TK_EXPR_NAME ? name_expr->u.name
                               : name_expr->kind == TK_EXPR_STRING
                                   ? tk_intern(c->names, name_expr->u.string.text, name_expr->u.string.len)
                                   : NULL;
            const tk_param *p = name ? find_param(k->def, name) : NULL;
            const tk_type *t = NULL;
            /* a tensor descriptor parameter: its size is the tensor's, which
             * the header has no expression for; may_clobber alone */
            bool descriptor = p && p->annotation && annotation_is_descriptor(c, p->annotation);
            if (descriptor && kind != TK_TUNED_CLOBBER) {
                sema_error(c, name_expr->loc, "%s of a tensor descriptor parameter ('%s') is not supported yet",
                           what[kind], name);
                continue;
            }
            if (!descriptor && (!p || !annotation_type(c, p->annotation, &t) || !t || t->kind != TK_TYPE_POINTER)) {
                sema_error(c, name_expr->loc, "%s names pointer parameters of '%s'", what[kind], k->def->name);
                continue;
            }
            if ((kind == TK_TUNED_CLOBBER) != !size) {
                sema_error(c, item->loc, kind == TK_TUNED_CLOBBER
                           ? "may_clobber takes pointer parameters alone: may_clobber=[%s]"
                           : "%s needs the number of elements '%s' points at: %s=[(%s, n)]",
                           kind == TK_TUNED_CLOBBER ? name : what[kind], name, what[kind], name);
                continue;
            }
            bool twice = false;
            for (uint32_t j = 0; j < out->tuned.len; j++) twice |= out->tuned.data[j].name == name;
            if (twice) {
                sema_error(c, name_expr->loc, "'%s' is named twice in restore_value, reset_to_zero "
                           "and may_clobber", name);
                continue;
            }
            struct tk_sema_tuned entry = {name, kind, NULL};
            if (size) {
                entry.elements = host_int(c, eval_host(c, size), size->loc, "a number of elements");
                if (!entry.elements) continue;
            }
            tk_vec_push(c->arena, &out->tuned, entry);
        }
    }
}

/* The launch options @kernel, a config and -D may set, and where a
 * variant keeps each */
static const struct launch_option {
    const char *name;
    size_t offset;
} launch_options[] = {
    {"num_warps", offsetof(variant, num_warps)},
    {"num_stages", offsetof(variant, num_stages)},
    {"maxnreg", offsetof(variant, maxnreg)},
};

static const struct launch_option *find_launch_option(const char *name) {
    for (size_t i = 0; i < sizeof launch_options / sizeof launch_options[0]; i++)
        if (strcmp(launch_options[i].name, name) == 0) return &launch_options[i];
    return NULL;
}

/* A variant's launch option `name`, or NULL for any other name */
static value *variant_launch_option(variant *v, const char *name) {
    const struct launch_option *o = find_launch_option(name);
    return o ? (value *)((char *)v + o->offset) : NULL;
}

bool launch_option_name(const char *name) { return find_launch_option(name) != NULL; }

static bool const_launch_option(checker *c, const value *v, const char *what, int64_t lo,
                                int64_t hi, bool pow2, int64_t *out) {
    if (v->kind == V_ERROR) return false;
    if (v->kind != V_INT) {
        sema_error(c, v->loc, "%s must be a constant integer, not %s", what, v_describe(c, v));
        return false;
    }
    if (v->u.i < lo || v->u.i > hi || (pow2 && !tk_is_pow2(v->u.i))) {
        sema_error(c, v->loc, "%s must be %s between %lld and %lld, not %lld", what,
                   pow2 ? "a power of two" : "an integer", (long long)lo, (long long)hi,
                   (long long)v->u.i);
        return false;
    }
    *out = v->u.i;
    return true;
}

static void check_variant(checker *c, const kernel_decl *k, const variant *v, uint32_t index) {
    tk_sema_kernel *out = TK_NEW(c->arena, tk_sema_kernel);
    out->name = k->name;
    out->loc = k->def->name_loc;
    out->variant = index;
    out->instance_of = k->suffix && *k->suffix ? k->def->name : NULL;
    out->num_warps = 4;
    out->num_stages = 3;
    frame f;
    uint32_t counter = 0;
    c->unrolled_trips = c->emitted_statements = 0;
    setup_kernel_frame(c, k, v, &f, out, &counter);
    f.out = &out->body;
    /* @kernel's options may use the constexprs (num_warps=BLOCK // 256);
     * an autotune config's own values win */
    value num_warps = v->num_warps, num_stages = v->num_stages, maxnreg = v->maxnreg;
    if (num_warps.kind == V_NONE && k->num_warps) num_warps = eval_host(c, k->num_warps);
    if (num_stages.kind == V_NONE && k->num_stages) num_stages = eval_host(c, k->num_stages);
    if (maxnreg.kind == V_NONE && k->maxnreg) maxnreg = eval_host(c, k->maxnreg);
    /* maxnreg=None is Triton's default: no cap */
    if (maxnreg.kind != V_NONE) const_launch_option(c, &maxnreg, "maxnreg", 1, 255, false, &out->maxnreg);
    if (num_warps.kind != V_NONE)
        const_launch_option(c, &num_warps, "num_warps", 1, 32, true, &out->num_warps);
    if (num_stages.kind != V_NONE)
        const_launch_option(c, &num_stages, "num_stages", 1, 16, false, &out->num_stages);
    for (uint32_t i = 0; i < v->constexprs.len; i++) {
        tk_sema_const_binding b = {v->constexprs.data[i].name, const_text(c, &v->constexprs.data[i].val)};
        tk_vec_push(c->arena, &out->constexprs, b);
    }
    for (uint32_t i = 0; i < out->params.len; i++) {
        const tk_sema_param *sp = &out->params.data[i];
        if (sp->promise != TK_PROMISE_OPTIONAL) continue;
        struct tk_sema_condition cond = {sx_var(c, sp->var, sp->loc), !sp->absent, sp->name};
        tk_vec_push(c->arena, &out->conditions, cond);
    }
    for (uint32_t i = 0; i < v->conditions.len; i++) tk_vec_push(c->arena, &out->conditions, v->conditions.data[i]);
    if (k->key && (k->key->kind == TK_EXPR_LIST || k->key->kind == TK_EXPR_TUPLE)) { /* else reported */
        for (uint32_t i = 0; i < k->key->u.items.len; i++) {
            const tk_expr *e = k->key->u.items.data[i];
            const char *name = e->kind == TK_EXPR_NAME ? e->u.name
                               : e->kind == TK_EXPR_STRING ? tk_intern(c->names, e->u.string.text, e->u.string.len)
                               : NULL;
            /* the run-time key: scalar parameters (the others are fixed per compiled kernel) */
            const tk_param *p = name ? find_param(k->def, name) : NULL;
            const tk_type *t = NULL;
            if (p && annotation_type(c, p->annotation, &t) && (!t || t->kind != TK_TYPE_SCALAR)) continue;
            tk_vec_push(c->arena, &out->autotune_key, name);
        }
    }
    out->config = v->config;
    out->config_text = v->config_text;
    out->config_loc = v->config_loc;
    out->prune_keep = v->prune_keep;
    out->prune_estimate = v->prune_estimate;
    out->prune_top_k = v->prune_estimate ? k->prune_top_k : 0;
    out->tune_warmup_ms = out->tune_rep_ms = -1;
    for (int i = 0; i < 2; i++) {
        const tk_expr *e = i ? k->rep : k->warmup;
        if (!e) continue;
        if (e->kind == TK_EXPR_NAME && find_param(k->def, e->u.name)) {
            sema_error(c, e->loc, "%s= is do_bench's time in milliseconds, a constant; not the parameter '%s'",
                       i ? "rep" : "warmup", e->u.name);
            continue;
        }
        value ms = eval_global(c, e);
        if (ms.kind == V_ERROR) continue;
        if (!v_is_number(&ms) || ms.kind == V_BOOL || v_as_double(&ms) < 0 || v_as_double(&ms) > 60000) {
            sema_error(c, e->loc, "%s= is do_bench's time in milliseconds, a constant from 0 to 60000; not %s",
                       i ? "rep" : "warmup", v_describe(c, &ms));
            continue;
        }
        *(i ? &out->tune_rep_ms : &out->tune_warmup_ms) = v_as_double(&ms);
    }
    check_tuned(c, k, out);
    check_grid(c, k, out);
    check_requires(c, k, out);
    out->fp_fusion = true;
    if (k->fp_fusion) {
        value fv = eval_global(c, k->fp_fusion);
        if (fv.kind == V_BOOL) out->fp_fusion = fv.u.b;
        else if (fv.kind != V_ERROR)
            sema_error(c, k->fp_fusion->loc, "enable_fp_fusion= is True or False, not %s", v_describe(c, &fv));
    }
    if (k->launch_pdl) {
        /* a constant, or a constexpr of the variant (launch_pdl=USE_GDC) */
        value pv = eval_host(c, k->launch_pdl);
        if (pv.kind == V_BOOL) out->launch_pdl = pv.u.b;
        else if (pv.kind != V_ERROR)
            sema_error(c, k->launch_pdl->loc, "launch_pdl= is True or False (a compile-time value), not %s",
                       v_describe(c, &pv));
    }
    if (k->launcher_name) {
        value nv = eval_global(c, k->launcher_name);
        bool ident = nv.kind == V_STR && tk_is_c_identifier(nv.u.str.text, nv.u.str.len);
        if (nv.kind != V_ERROR && !ident)
            sema_error(c, k->launcher_name->loc, "name= is the C launcher's name: a string that is a C identifier, "
                       "not %s", v_describe(c, &nv));
        else if (ident)
            out->launcher_name = tk_arena_printf(c->arena, "%.*s%s", (int)nv.u.str.len, nv.u.str.text, k->suffix);
    }
    exec_block(c, &k->def->body);
    out->var_count = counter;
    c->frame = NULL;
    tk_vec_push(c->arena, &c->program->kernels, out);
}

static void add_constexpr(checker *c, variant *v, const char *name, value val, tk_loc origin,
                          const char *origin_what) {
    val.origin = origin;
    val.origin_name = tk_arena_printf(c->arena, "%s %s", name, origin_what);
    for (uint32_t i = 0; i < v->constexprs.len; i++) {
        if (v->constexprs.data[i].name == name) {
            v->constexprs.data[i].val = val;
            return;
        }
    }
    binding b = {0};
    b.name = name;
    b.val = val;
    tk_vec_push(c->arena, &v->constexprs, b);
}

/* The value v binds `name` to so far (NULL: none). */
static const value *variant_constexpr(const variant *v, const char *name) {
    for (uint32_t i = 0; i < v->constexprs.len; i++)
        if (v->constexprs.data[i].name == name) return &v->constexprs.data[i].val;
    return NULL;
}

static variant copy_variant(checker *c, const variant *v) {
    variant out = *v;
    memset(&out.constexprs, 0, sizeof out.constexprs);
    memset(&out.conditions, 0, sizeof out.conditions);
    memset(&out.computed, 0, sizeof out.computed);
    for (uint32_t i = 0; i < v->computed.len; i++) tk_vec_push(c->arena, &out.computed, v->computed.data[i]);
    for (uint32_t i = 0; i < v->constexprs.len; i++) tk_vec_push(c->arena, &out.constexprs, v->constexprs.data[i]);
    for (uint32_t i = 0; i < v->conditions.len; i++) tk_vec_push(c->arena, &out.conditions, v->conditions.data[i]);
    return out;
}

/* The first scalar parameter x reads that is not in the autotune key,
 * or NULL. */
static const tk_sema_var *non_key_var(const tk_sx *x, const char *const *key, uint32_t nkey) {
    if (!x) return NULL;
    if (x->kind == TK_SX_VAR) {
        for (uint32_t i = 0; i < nkey; i++)
            if (key[i] == x->var->name) return NULL;
        return x->var;
    }
    for (uint32_t i = 0; i < x->args.len; i++) {
        const tk_sema_var *v = non_key_var(x->args.data[i], key, nkey);
        if (v) return v;
    }
    return NULL;
}

/* One prune_configs_by entry (an expression, or a lambda of one
 * parameter as in @heuristics) for config v: over its constexprs, its
 * num_warps, num_stages and maxnreg (Triton's config.all_kwargs()) and the scalar
 * parameters. A host expression must read only key parameters: the
 * choice, and with it the pruning, is made once per key. NULL and *out a
 * constant where it has one value. */
static bool eval_prune(checker *c, const kernel_decl *k, const variant *v, const tk_expr *e, const char *what,
                       bool condition, value *constant, tk_sx **out) {
    frame f;
    uint32_t counter = 0;
    *out = NULL;
    if (e->kind == TK_EXPR_LAMBDA && e->u.lambda.params.len != 1) {
        sema_error(c, e->loc, "%s is written for one config: an expression over the config's values "
                   "and the key parameters, or lambda args: ... (Triton's function of all the configs "
                   "has no ahead-of-time form)", what);
        return false;
    }
    setup_kernel_frame(c, k, v, &f, NULL, &counter);
    /* the launch options, as the config (or else the kernel) sets them:
     * num_warps 4 and num_stages 3 by default, maxnreg None */
    static const char *const launch_names[3] = {"num_warps", "num_stages", "maxnreg"};
    for (int i = 0; i < 3; i++) {
        const char *name = tk_intern_cstr(c->names, launch_names[i]);
        if (find_param(k->def, name)) continue;
        value val = i == 2 ? v->maxnreg : i ? v->num_stages : v->num_warps;
        const tk_expr *given = i == 2 ? k->maxnreg : i ? k->num_stages : k->num_warps;
        if (val.kind == V_NONE && given) val = eval_host(c, given);
        if (val.kind == V_NONE) val = i == 2 ? (value){.kind = V_NONE, .loc = e->loc} : v_int(e->loc, i ? 3 : 4);
        bind(c, &f.names, name, val, e->loc);
    }
    value r = eval_host(c, e);
    c->frame = NULL;
    *constant = r;
    if (r.kind == V_ERROR) return false;
    if (condition ? r.kind == V_BOOL || r.kind == V_INT : v_is_number(&r)) return true;
    const tk_type *t = r.kind == V_RT ? r.u.rt->type : NULL;
    bool fits = t && t->kind == TK_TYPE_SCALAR && (condition ? t->dtype == TK_I1 : t->dtype != TK_I1);
    if (!fits) {
        sema_error(c, e->loc, condition ? "%s must be a condition (a boolean), not %s"
                                        : "%s must be a number (the config's estimated time), not %s",
                   what, r.kind == V_RT ? tk_type_str(c->arena, t) : v_describe(c, &r));
        return false;
    }
    const tk_sema_var *bad = NULL;
    const char *const *key = NULL;
    uint32_t nkey = 0;
    const char *names[64];
    if (k->key && (k->key->kind == TK_EXPR_LIST || k->key->kind == TK_EXPR_TUPLE)) {
        for (uint32_t i = 0; i < k->key->u.items.len && nkey < 64; i++) {
            const tk_expr *ke = k->key->u.items.data[i];
            names[nkey++] = ke->kind == TK_EXPR_NAME ? ke->u.name
                            : ke->kind == TK_EXPR_STRING ? tk_intern(c->names, ke->u.string.text, ke->u.string.len)
                            : NULL;
        }
        key = names;
    }
    if (sx_uses_pointer(r.u.rt, &bad)) {
        sema_error(c, e->loc, "%s uses the pointer '%s'; ahead of time it can read the config and the "
                   "key parameters", what, bad->name);
        return false;
    }
    bad = non_key_var(r.u.rt, key, nkey);
    if (bad) {
        sema_error(c, e->loc, "%s reads '%s', which is not in key=[...]: a config is chosen once per key, "
                   "so pruning may read only the key parameters", what, bad->name);
        return false;
    }
    if (!host_printable(c, r.u.rt, what)) return false;
    *out = r.u.rt;
    return true;
}

/* @autotune's prune_configs_by, as far as it can be decided ahead of time:
 * {'early_config_prune': COND, 'perf_model': TIME, 'top_k': N}, or COND
 * alone. COND keeps a config where it holds; of the configs kept, the
 * top_k with the lowest TIME are timed (top_k a count, or a fraction of
 * the configs; 10 by default, as in Triton). A config whose COND is false
 * whatever the arguments is not compiled; the rest are decided at launch. */
static bool prune_configs(checker *c, kernel_decl *k, variant *variants, uint32_t *count) {
    static const char *const options[4] = {"early_config_prune", "perf_model", "top_k", "prune_num_stages_by"};
    const tk_expr *given[4] = {0};
    const tk_expr *opt = k->prune;
    bool ok = true;
    if (opt->kind == TK_EXPR_DICT) {
        for (uint32_t i = 0; i + 1 < opt->u.items.len; i += 2) {
            const tk_expr *name = opt->u.items.data[i];
            if (name->kind != TK_EXPR_STRING) {
                sema_error(c, name->loc, "prune_configs_by's keys are 'early_config_prune', 'perf_model' "
                           "and 'top_k'");
                ok = false;
                continue;
            }
            const char *text = tk_intern(c->names, name->u.string.text, name->u.string.len);
            int j = 0;
            while (j < 4 && strcmp(options[j], text) != 0) j++;
            if (j == 3) {
                sema_error(c, name->loc, "prune_configs_by option 'prune_num_stages_by' is not supported yet");
                ok = false;
            } else if (j == 4) {
                const char *s = suggest(c, text, options, 3);
                if (s) sema_error(c, name->loc, "prune_configs_by has no option '%s'; did you mean '%s'?", text, s);
                else sema_error(c, name->loc, "prune_configs_by has no option '%s'", text);
                ok = false;
            } else {
                given[j] = opt->u.items.data[i + 1];
            }
        }
    } else {
        given[0] = opt;
    }
    if (!ok) return false;
    k->prune_top_k = 10;
    if (given[2] && !given[1]) {
        tk_warning(c->diag, TK_W_AUTOTUNE, given[2]->loc, "top_k has no effect without a perf_model");
    } else if (given[2]) {
        value n = eval_global(c, given[2]);
        if (n.kind == V_ERROR) return false;
        if (n.kind == V_INT && n.u.i >= 1) {
            k->prune_top_k = n.u.i > 64 ? 64 : (uint32_t)n.u.i;
        } else if (n.kind == V_FLOAT && n.u.f > 0 && n.u.f <= 1 && (uint32_t)(n.u.f * *count) >= 1) {
            k->prune_top_k = (uint32_t)(n.u.f * *count); /* Triton's int(len(configs) * top_k) */
        } else {
            sema_error(c, given[2]->loc, "top_k is a number of configs (1 or more) or a fraction of the %u "
                       "configs (at most 1.0) that leaves at least one; not %s", *count, v_describe(c, &n));
            return false;
        }
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < *count; i++) {
        variant v = variants[i];
        value constant;
        if (given[0]) {
            if (!eval_prune(c, k, &v, given[0], "early_config_prune", true, &constant, &v.prune_keep)) {
                ok = false;
                continue;
            }
            if (!v.prune_keep && !v_as_int(&constant)) continue; /* never kept */
        }
        if (given[1]) {
            if (!eval_prune(c, k, &v, given[1], "perf_model", false, &constant, &v.prune_estimate)) {
                ok = false;
                continue;
            }
            if (!v.prune_estimate) v.prune_estimate = sx_const(c, &constant, TK_F64, given[1]->loc);
        }
        variants[kept++] = v;
    }
    if (ok && !kept) {
        sema_error(c, opt->loc, "prune_configs_by keeps none of the %u configs of '%s', whatever the arguments",
                   *count, k->def->name);
        ok = false;
    }
    *count = kept;
    return ok;
}

static bool is_type_param(checker *c, const char *name) {
    for (uint32_t i = 0; i < c->type_params.len; i++)
        if (c->type_params.data[i].name == name) return true;
    return false;
}

static void check_kernel_instance(checker *c, const tk_def *def, const kernel_decl *instance) {
    kernel_decl k = {0};
    if (!parse_kernel_decl(c, def, &k)) return;
    k.name = instance->name;
    k.suffix = instance->suffix;
    k.listed = instance->listed;
    variant base = {0};
    base.config = -1;
    base.num_warps = (value){.kind = V_NONE};
    base.num_stages = (value){.kind = V_NONE};
    base.maxnreg = (value){.kind = V_NONE};
    for (uint32_t i = 0; i < def->params.len; i++) {
        const tk_param *p = &def->params.data[i];
        const tk_type *t;
        if (!annotation_type(c, p->annotation, &t) || t || !p->default_value) continue;
        if (is_num_sms_call(p->default_value)) {
            sema_error(c, p->default_value->loc, "num_sms() is known only at launch: declare '%s: i32 = "
                       "num_sms()', a run-time parameter the launcher fills in from the device", p->name);
            return;
        }
        value dv = eval_global(c, p->default_value);
        if (dv.kind == V_ERROR) return;
        if (!v_is_const(&dv)) {
            sema_error(c, p->default_value->loc, "the default of '%s' must be a compile-time value", p->name);
            return;
        }
        add_constexpr(c, &base, p->name, dv, p->default_value->loc, "has its default here");
    }
    /* each listed dtype parameter is this instance's dtype */
    for (uint32_t i = 0; i < k.listed.len; i++) {
        value dv = {.kind = V_DTYPE, .loc = def->name_loc};
        dv.u.dtype = k.listed.data[i].dtype;
        const tk_param *p = find_param(def, k.listed.data[i].name);
        add_constexpr(c, &base, p->name, dv, p->loc,
                      tk_arena_printf(c->arena, "is %s in the instance '%s' (@kernel's dtypes=)",
                                      tk_dtype_name(dv.u.dtype), k.name));
    }
    TK_VEC(binding) defined = {0}; /* the -D values of constexpr parameters */
    for (uint32_t i = 0; i < c->options->defines.len; i++) {
        const tk_sema_define *d = &c->options->defines.data[i];
        const char *name = tk_intern_cstr(c->names, d->name);
        /* -D num_warps=N, -D num_stages=N, -D maxnreg=N: the kernel's (an
         * autotuned one keeps the configs that ask for that) */
        value *launch_option = variant_launch_option(&base, name);
        if (launch_option) {
            value dv = define_value(c, d->value, def->name_loc, false);
            *launch_option = dv;
            binding b = {0};
            b.name = name;
            b.val = dv;
            tk_vec_push(c->arena, &defined, b);
            continue;
        }
        const tk_param *p = find_param(def, name);
        const tk_type *t;
        if (!p || !annotation_type(c, p->annotation, &t) || t) continue;
        const value *given = variant_constexpr(&base, name);
        value dv = define_value(c, d->value, p->loc, given && given->kind == V_DTYPE && !given->count);
        dv.from_define = true;
        add_constexpr(c, &base, name, dv, p->loc, tk_arena_printf(c->arena, "is set by -D %s=%s", d->name, d->value));
        binding b = {0};
        b.name = name;
        b.val = dv;
        tk_vec_push(c->arena, &defined, b);
    }
    TK_VEC(variant) variants = {0};
    bool any_config = false;
    value configs = k.configs ? eval_global(c, k.configs) : v_error();
    if (k.configs && configs.kind != V_ERROR && configs.kind != V_TUPLE) {
        sema_error(c, k.configs->loc, "@autotune's configs is a list of config(...), not %s",
                   v_describe(c, &configs));
        configs = v_error();
    }
    if (k.configs && configs.kind == V_TUPLE && configs.count == 0)
        sema_error(c, k.configs->loc, "@autotune's configs is an empty list");
    if (configs.kind == V_TUPLE) {
        for (uint32_t i = 0; i < configs.count; i++) {
            const value *cfg = &configs.items[i];
            if (cfg->kind != V_CONFIG) {
                sema_error(c, cfg->loc, "an autotune config is written config(NAME=value, ..., "
                           "num_warps=4, num_stages=3), not %s", v_describe(c, cfg));
                continue;
            }
            variant v = copy_variant(c, &base);
            v.config = (int)i;
            v.config_loc = cfg->loc;
            bool ok = true, picked = true;
            const char *text = "";
            for (uint32_t j = 0; j < cfg->count; j++) {
                const value *key = &cfg->items[2 * j];
                value val = cfg->items[2 * j + 1];
                const char *name = key->u.str.text;
                tk_loc name_loc = key->loc;
                text = tk_arena_printf(c->arena, "%s%s%s=%s", text, *text ? ", " : "", name, const_text(c, &val));
                value *launch_option = variant_launch_option(&v, name);
                /* -D NAME=V picks the configs that set NAME to V */
                for (uint32_t d = 0; d < defined.len; d++)
                    if (defined.data[d].name == name && v_is_number(&defined.data[d].val) && v_is_number(&val) &&
                        v_as_double(&defined.data[d].val) != v_as_double(&val))
                        picked = false;
                if (launch_option) {
                    *launch_option = val;
                    continue;
                }
                const tk_param *p = find_param(def, name);
                const tk_type *t = NULL;
                if (!p || !annotation_type(c, p->annotation, &t) || t) {
                    sema_error(c, name_loc, "'%s' is not a constexpr parameter of '%s'", name, def->name);
                    ok = false;
                    continue;
                }
                if (is_type_param(c, name)) {
                    sema_error(c, name_loc, "'%s' is a dtype parameter of '%s', fixed per instance (each has its "
                               "own launcher): list its dtypes in @kernel(dtypes={'%s': [...]}) rather than "
                               "in autotune configs", name, def->name, name);
                    ok = false;
                    continue;
                }
                add_constexpr(c, &v, name, val, tk_loc_span(name_loc, val.loc), "comes from this autotune config");
            }
            v.config_text = text;
            if (ok && picked) tk_vec_push(c->arena, &variants, v);
            any_config |= ok;
        }
        if (any_config && !variants.len)
            sema_error(c, k.configs->loc, "no autotune config of '%s' has the values the -D options give", def->name);
    }
    if (k.configs) {
        if (k.prune && variants.len && !prune_configs(c, &k, variants.data, &variants.len)) return;
        if (k.key) {
            if (k.key->kind != TK_EXPR_LIST && k.key->kind != TK_EXPR_TUPLE) {
                sema_error(c, k.key->loc, "key= is a list of parameter names");
            } else {
                for (uint32_t i = 0; i < k.key->u.items.len; i++) {
                    const tk_expr *e = k.key->u.items.data[i];
                    const char *name = e->kind == TK_EXPR_NAME ? e->u.name
                                       : e->kind == TK_EXPR_STRING ? tk_intern(c->names, e->u.string.text, e->u.string.len)
                                       : NULL;
                    const tk_param *p = name ? find_param(def, name) : NULL;
                    const tk_type *t = NULL;
                    /* a constexpr or a pointer keys on what is fixed per compiled
                     * kernel (its value, its element type), as in Triton */
                    if (!p) {
                        sema_error(c, e->loc, "autotune key entries name parameters of '%s'", def->name);
                    } else if (annotation_type(c, p->annotation, &t) && t && t->kind != TK_TYPE_SCALAR &&
                               t->kind != TK_TYPE_POINTER) {
                        sema_error(c, e->loc, "autotune key '%s' must be a scalar, a pointer or a constexpr "
                                   "parameter, not %s", name, tk_type_str(c->arena, t));
                    }
                }
            }
        }
    } else {
        tk_vec_push(c->arena, &variants, base);
    }
    /* an optional pointer doubles the variants: None in one, a pointer in
     * the other (before @heuristics, which may ask `args['B'] is not None`) */
    for (uint32_t j = 0; j < def->params.len; j++) {
        if (def->params.data[j].promise != TK_PROMISE_OPTIONAL) continue;
        if (j >= 64) {
            sema_error(c, def->params.data[j].promise_loc, "only the first 64 parameters may be None");
            return;
        }
        TK_VEC(variant) next = {0};
        for (uint32_t i = 0; i < variants.len; i++)
            for (int absent = 0; absent < 2; absent++) {
                variant v = copy_variant(c, &variants.data[i]);
                if (absent) v.absent |= 1ull << j;
                tk_vec_push(c->arena, &next, v);
            }
        variants.data = next.data;
        variants.len = next.len;
        variants.cap = next.cap;
    }
    /* heuristics: a constexpr result binds; a runtime boolean doubles the variants */
    for (uint32_t h = 0; h < k.heuristics.len; h++) {
        const tk_expr *kw = k.heuristics.data[h];
        const char *name = kw->u.keyword.name;
        const tk_param *p = find_param(def, name);
        const tk_type *t = NULL;
        if (!p || !annotation_type(c, p->annotation, &t) || t) {
            sema_error(c, kw->u.keyword.name_loc, "@heuristics sets constexpr parameters; '%s' is "
                       "not one of '%s'", name, def->name);
            return;
        }
        if (is_type_param(c, name)) {
            sema_error(c, kw->u.keyword.name_loc, "'%s' is a dtype parameter of '%s', fixed per instance (each "
                       "has its own launcher); @heuristics cannot set it: list its dtypes in "
                       "@kernel(dtypes={'%s': [...]})", name, def->name, name);
            return;
        }
        TK_VEC(variant) next = {0};
        int computed = -1; /* a run-time integer in the variants so far (1), a constant (0) */
        for (uint32_t i = 0; i < variants.len; i++) {
            frame f;
            uint32_t counter = 0;
            setup_kernel_frame(c, &k, &variants.data[i], &f, NULL, &counter);
            value r = eval_host(c, kw->u.keyword.value);
            c->frame = NULL;
            if (r.kind == V_ERROR) return;
            bool runtime_number = r.kind == V_RT && r.u.rt->type->kind == TK_TYPE_SCALAR && r.u.rt->type->dtype != TK_I1;
            if (runtime_number) {
                if (computed == 0) goto mixed;
                computed = 1;
            } else if (v_is_const(&r)) {
                if (computed == 1) goto mixed;
                computed = 0;
            }
            if (v_is_const(&r)) {
                variant v = copy_variant(c, &variants.data[i]);
                add_constexpr(c, &v, name, r, kw->loc, "comes from @heuristics");
                tk_vec_push(c->arena, &next, v);
                continue;
            }
            const tk_type *rt = r.u.rt->type;
            const tk_sema_var *ptr;
            if (rt->kind != TK_TYPE_SCALAR || sx_uses_pointer(r.u.rt, &ptr)) {
                sema_error(c, kw->u.keyword.value->loc, "a heuristic that depends on runtime "
                           "arguments must be a boolean or a number over scalar parameters; this one is %s",
                           tk_type_str(c->arena, rt));
                return;
            }
            if (!host_printable(c, r.u.rt, "a heuristic")) return;
            if (rt->dtype != TK_I1) {
                /* a number: computed by the launcher, a run-time value in the kernel */
                variant v = copy_variant(c, &variants.data[i]);
                struct computed_param cp = {name, r.u.rt, kw->loc};
                tk_vec_push(c->arena, &v.computed, cp);
                tk_vec_push(c->arena, &next, v);
                continue;
            }
            for (int truth = 1; truth >= 0; truth--) {
                variant v = copy_variant(c, &variants.data[i]);
                add_constexpr(c, &v, name, v_bool(kw->loc, truth), kw->loc, "comes from @heuristics");
                struct tk_sema_condition cond = {r.u.rt, truth, name};
                tk_vec_push(c->arena, &v.conditions, cond);
                tk_vec_push(c->arena, &next, v);
            }
        }
        variants.data = next.data;
        variants.len = next.len;
        variants.cap = next.cap;
        continue;
    mixed:
        sema_error(c, kw->u.keyword.value->loc, "the heuristic for '%s' is a run-time number for some autotune "
                   "configs and a compile-time value for others; the launcher needs one or the other", name);
        return;
    }
    if (variants.len > 64) {
        sema_error(c, def->name_loc, "'%s' would be compiled in %u variants; the limit is 64",
                   def->name, variants.len);
        return;
    }
    for (uint32_t i = 0; i < variants.len; i++) {
        const variant *v = &variants.data[i];
        bool complete = true;
        for (uint32_t j = 0; j < def->params.len; j++) {
            const tk_param *p = &def->params.data[j];
            const tk_type *t;
            if (!annotation_type(c, p->annotation, &t) || t) continue;
            bool found = false;
            for (uint32_t m = 0; m < v->constexprs.len; m++) found |= v->constexprs.data[m].name == p->name;
            for (uint32_t m = 0; m < v->computed.len; m++) found |= v->computed.data[m].name == p->name;
            if (!found) {
                sema_error(c, p->loc, "constexpr parameter '%s' has no value: give it a default, "
                           "set it with -D %s=..., or list it in every autotune config", p->name, p->name);
                complete = false;
            }
        }
        if (!complete) return;
        int errors_before = c->diag->error_count;
        check_variant(c, &k, v, i);
        if (c->diag->error_count > errors_before && variants.len > 1) {
            char *desc = "";
            for (uint32_t m = 0; m < v->constexprs.len; m++)
                desc = tk_arena_printf(c->arena, "%s%s%s=%s", desc, m ? ", " : "", v->constexprs.data[m].name,
                                       const_text(c, &v->constexprs.data[m].val));
            for (uint32_t j = 0; j < def->params.len && j < 64; j++)
                if (def->params.data[j].promise == TK_PROMISE_OPTIONAL)
                    desc = tk_arena_printf(c->arena, "%s%s%s %s None", desc, *desc ? ", " : "",
                                           def->params.data[j].name, v->absent >> j & 1 ? "is" : "is not");
            tk_note(c->diag, def->name_loc, "in the variant of '%s' with %s", def->name, desc);
            return; /* the other variants would mostly repeat these errors */
        }
    }
}


/* ---- kernels generic over dtypes --------------------------------------- */

/* Does annotation `a` name `name`, alone or as a pointee (*DT)? */
static bool annotation_mentions(const tk_expr *a, const char *name) {
    while (a && a->kind == TK_EXPR_POINTER_TYPE) a = a->u.pointee;
    return a && a->kind == TK_EXPR_NAME && a->u.name == name;
}

/* @kernel(dtypes=...)'s value, or NULL. */
static const tk_expr *dtypes_option(checker *c, const tk_def *def) {
    for (uint32_t i = 0; i < def->decorators.len; i++) {
        const tk_expr *d = def->decorators.data[i].expr;
        const char *name = decorator_name(c, d);
        if (!name || strcmp(name, "kernel") != 0 || d->kind != TK_EXPR_CALL) continue;
        for (uint32_t j = 0; j < d->u.call.args.len; j++) {
            const tk_expr *a = d->u.call.args.data[j];
            if (a->kind == TK_EXPR_KEYWORD && strcmp(a->u.keyword.name, "dtypes") == 0) return a->u.keyword.value;
        }
    }
    return NULL;
}

/* A dtype parameter of a kernel: a constexpr that types its run-time
 * parameters (`x: *DT`), annotated `dtype`, or listed in dtypes=; with
 * the dtypes this build compiles it for. */
typedef struct dtype_param {
    const tk_param *param;
    TK_VEC(tk_dtype) dtypes;
    bool listed;       /* from dtypes=: the launchers' names say which */
} dtype_param;
typedef TK_VEC(dtype_param) dtype_param_list;

static bool dtype_value(checker *c, const value *v, const char *name, tk_dtype *out) {
    if (v->kind == V_ERROR) return false;
    if (v->kind != V_DTYPE || v->count) {
        sema_error(c, v->loc, "'%s' is a dtype parameter: its values are dtypes such as tl.float16, not %s",
                   name, v_describe(c, v));
        return false;
    }
    *out = v->u.dtype;
    return true;
}

/* The dtype parameters of def and their dtypes, from dtypes=, -D and the
 * defaults; false after reporting an error. */
static bool collect_dtype_params(checker *c, const tk_def *def, dtype_param_list *out) {
    bool ok = true;
    for (uint32_t i = 0; i < def->params.len; i++) {
        const tk_param *p = &def->params.data[i];
        if (!p->annotation || !annotation_is_constexpr(p->annotation)) continue;
        bool typing = p->annotation->kind == TK_EXPR_NAME && strcmp(p->annotation->u.name, "dtype") == 0;
        if (p->annotation->kind == TK_EXPR_ATTR && strcmp(p->annotation->u.attr.name, "dtype") == 0) typing = true;
        for (uint32_t j = 0; j < def->params.len && !typing; j++)
            typing = j != i && annotation_mentions(def->params.data[j].annotation, p->name);
        dtype_param dp = {0};
        dp.param = p;
        if (typing) tk_vec_push(c->arena, out, dp);
    }
    const tk_expr *list = dtypes_option(c, def);
    if (list && list->kind != TK_EXPR_DICT) {
        sema_error(c, list->loc, "dtypes= is a dict from dtype parameter names to lists of dtypes: "
                   "dtypes={'DT': [tl.float16, tl.bfloat16]}");
        return false;
    }
    for (uint32_t j = 0; list && j + 1 < list->u.items.len; j += 2) {
        const tk_expr *key = list->u.items.data[j];
        if (key->kind != TK_EXPR_STRING) {
            sema_error(c, key->loc, "the keys of dtypes= are parameter names in quotes ('DT')");
            ok = false;
            continue;
        }
        const char *name = tk_intern(c->names, key->u.string.text, key->u.string.len);
        const tk_param *p = find_param(def, name);
        if (!p || !p->annotation || !annotation_is_constexpr(p->annotation)) {
            sema_error(c, key->loc, "dtypes= lists the dtypes of constexpr parameters; '%s' is not one of '%s'",
                       name, def->name);
            ok = false;
            continue;
        }
        dtype_param *dp = NULL;
        for (uint32_t i = 0; i < out->len; i++)
            if (out->data[i].param == p) dp = &out->data[i];
        if (!dp) {
            dtype_param fresh = {0};
            fresh.param = p;
            tk_vec_push(c->arena, out, fresh);
            dp = &out->data[out->len - 1];
        }
        if (dp->listed) {
            sema_error(c, key->loc, "dtypes= lists '%s' twice", name);
            ok = false;
            continue;
        }
        dp->listed = true;
        value v = eval_global(c, list->u.items.data[j + 1]);
        if (v.kind == V_ERROR) {
            ok = false;
            continue;
        }
        if (v.kind != V_TUPLE || !v.count) {
            sema_error(c, v.loc, "dtypes={'%s': ...} is a non-empty list of dtypes, not %s", name, v_describe(c, &v));
            ok = false;
            continue;
        }
        for (uint32_t m = 0; m < v.count; m++) {
            tk_dtype d;
            if (!dtype_value(c, &v.items[m], name, &d)) {
                ok = false;
                continue;
            }
            bool repeated = false;
            for (uint32_t n = 0; n < dp->dtypes.len; n++) repeated |= dp->dtypes.data[n] == d;
            if (repeated) {
                sema_error(c, v.items[m].loc, "dtypes= lists %s twice for '%s'", tk_dtype_name(d), name);
                ok = false;
                continue;
            }
            tk_vec_push(c->arena, &dp->dtypes, d);
        }
    }
    if (!ok) return false;
    /* -D picks one of the listed dtypes, or sets an unlisted one; the
     * default gives an unlisted one its dtype */
    for (uint32_t i = 0; i < out->len; i++) {
        dtype_param *dp = &out->data[i];
        const char *name = dp->param->name;
        const tk_sema_define *define = NULL;
        for (uint32_t j = 0; j < c->options->defines.len; j++)
            if (tk_intern_cstr(c->names, c->options->defines.data[j].name) == name) define = &c->options->defines.data[j];
        tk_dtype d;
        if (define) {
            value dv = define_value(c, define->value, dp->param->loc, true);
            if (!dtype_value(c, &dv, name, &d)) {
                ok = false;
                continue;
            }
            bool found = !dp->listed;
            for (uint32_t n = 0; n < dp->dtypes.len; n++) found |= dp->dtypes.data[n] == d;
            if (!found) {
                sema_error(c, dp->param->loc, "-D %s=%s is not among the dtypes that @kernel(dtypes=...) lists "
                           "for '%s'", define->name, define->value, name);
                ok = false;
                continue;
            }
            dp->dtypes.len = 0;
            tk_vec_push(c->arena, &dp->dtypes, d);
        } else if (!dp->listed) {
            if (!dp->param->default_value) {
                sema_error(c, dp->param->loc, "dtype parameter '%s' has no dtype: give it a default (%s: dtype = "
                           "tl.float16), set it with -D %s=bf16, or list its dtypes in @kernel(dtypes={'%s': "
                           "[...]})", name, name, name, name);
                ok = false;
                continue;
            }
            value dv = eval_global(c, dp->param->default_value);
            if (!dtype_value(c, &dv, name, &d)) {
                ok = false;
                continue;
            }
            tk_vec_push(c->arena, &dp->dtypes, d);
        }
    }
    return ok;
}

bool check_kernel(checker *c, const tk_def *def, const char *only_instance) {
    dtype_param_list params = {0};
    if (!collect_dtype_params(c, def, &params)) return true;
    bool matched = !only_instance;
    uint64_t instances = 1;
    for (uint32_t i = 0; i < params.len; i++) {
        instances *= params.data[i].dtypes.len;
        if (instances > 64) {
            sema_error(c, def->name_loc, "'%s' would be compiled for more than 64 combinations of dtypes",
                       def->name);
            return true;
        }
    }
    for (uint64_t n = 0; n < instances; n++) {
        kernel_decl instance = {0};
        instance.suffix = "";
        c->type_params.len = 0;
        const char *desc = "";
        uint64_t rest = n;
        for (uint32_t i = 0; i < params.len; i++) {
            const dtype_param *dp = &params.data[i];
            struct type_param tp = {dp->param->name, dp->dtypes.data[rest % dp->dtypes.len]};
            rest /= dp->dtypes.len;
            tk_vec_push(c->arena, &c->type_params, tp);
            desc = tk_arena_printf(c->arena, "%s%s%s=%s", desc, i ? ", " : "", tp.name, tk_dtype_name(tp.dtype));
            if (!dp->listed) continue;
            tk_vec_push(c->arena, &instance.listed, tp);
            instance.suffix = tk_arena_printf(c->arena, "%s_%s", instance.suffix, tk_dtype_name(tp.dtype));
        }
        instance.name = *instance.suffix ? tk_arena_printf(c->arena, "%s%s", def->name, instance.suffix) : def->name;
        if (only_instance && strcmp(only_instance, instance.name) != 0) continue;
        matched = true;
        int errors_before = c->diag->error_count;
        check_kernel_instance(c, def, &instance);
        if (c->diag->error_count > errors_before) {
            if (instances > 1) tk_note(c->diag, def->name_loc, "in the instance of '%s' with %s", def->name, desc);
            break; /* the other instances would mostly repeat these errors */
        }
    }
    c->type_params.len = 0;
    return matched;
}
