/* Hints and debugging: multiple_of, max_contiguous, max_constancy,
 * assume; static_print, static_assert (at compile time), device_print,
 * device_assert and debug_barrier (at run time). Needs: builtin.h's
 * argument readers. */
#include "builtin.h"

/* tl.assume(cond): a promise to the compiler; checked for type, then used
 * for nothing (ignoring a hint is always correct) */
value b_assume(checker *c, call *k) {
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

/* ---- hints, debugging, random ------------------------------------------- */

value b_hint(checker *c, call *k) {
    tk_sx *x = rt_arg(c, k, 0);
    if (!x) return v_error();
    /* of a pointer, as in Triton: multiple_of counts bytes of its address */
    bool pointer = ty_elem(x->type)->kind == TK_TYPE_POINTER;
    if (!pointer && (ty_elem(x->type)->kind != TK_TYPE_SCALAR || !tk_dtype_is_int(elem_dtype(x)))) {
        sema_error(c, k->args[0].loc, "%s describes integers and pointers, not %s", k->name,
                   tk_type_str(c->arena, x->type));
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

value b_static_print(checker *c, call *k) {
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

value b_static_assert(checker *c, call *k) {
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

value b_device_print(checker *c, call *k) {
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

value b_device_assert(checker *c, call *k) {
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

value b_debug_barrier(checker *c, call *k) {
    return emit_effect(c, builtin_sx(c, k, ty_void(c)));
}

/* tl.extra.cuda.gdc_wait() and gdc_launch_dependents(): programmatic
 * dependent launch's waits and signals, effects that stay in place. */
value b_grid_dependency(checker *c, call *k) {
    return emit_effect(c, builtin_sx(c, k, ty_void(c)));
}
