/* Python's builtins a kernel may call (float, int, bool, len, min, max,
 * print), tl.constexpr(...), and range / static_range outside a for.
 * Needs: builtin.h's argument readers. Guarantees: compile-time values stay
 * compile-time where Python would give a constant. */
#include "builtin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

value b_py_float(checker *c, call *k) {
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

value b_py_int(checker *c, call *k) {
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

value b_py_bool(checker *c, call *k) {
    value *v = &k->args[0];
    if (v_is_number(v)) return v_bool(k->loc, v->kind == V_FLOAT ? v->u.f != 0 : v->kind == V_BOOL ? v->u.b : v->u.i != 0);
    /* of a run-time scalar (a heuristic's `bool(a['n'] % 16 == 0)`): != 0 */
    if (v->kind == V_RT && v->u.rt->type->kind == TK_TYPE_SCALAR && v->u.rt->type->dtype != TK_F16 &&
        v->u.rt->type->dtype != TK_BF16) {
        if (v->u.rt->type->dtype == TK_I1) return *v;
        return arith(c, TK_BINOP_NE, *v, tk_dtype_is_float(v->u.rt->type->dtype) ? v_float(k->loc, 0) : v_int(k->loc, 0),
                     k->loc);
    }
    if (v->kind != V_ERROR) sema_error(c, v->loc, "bool() converts constants and scalars, not %s", v_describe(c, v));
    return v_error();
}

value b_py_len(checker *c, call *k) {
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

value b_py_min(checker *c, call *k) { return py_minmax(c, k, false); }
value b_py_max(checker *c, call *k) { return py_minmax(c, k, true); }

value b_constexpr(checker *c, call *k) {
    (void)c;
    return k->args[0];
}

value b_loop_only(checker *c, call *k) {
    sema_error(c, k->loc, "%s(...) is iterated by a for loop; it is not a value", k->name);
    return v_error();
}
