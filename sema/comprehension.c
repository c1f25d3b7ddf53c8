/* List comprehensions, evaluated at compile time:
 *     [element for target in iterable if condition ...]
 * (autotune's config lists are the use Triton code makes of them). Each
 * iterable is a compile-time tuple or list, or range() of constant
 * bounds; each condition a compile-time value. The variables shadow every
 * other name while the comprehension runs and are gone after it, as in
 * Python 3. The trips of one comprehension are bounded, so no input
 * exhausts the compiler.
 *
 * Needs: expr.c's eval, scope.c's lookup (which reads c->comp_names
 * first). Guarantees: a V_TUPLE of the elements, or V_ERROR reported. */
#include "internal.h"

enum { COMPREHENSION_TRIPS_LIMIT = 1 << 16 };

typedef TK_VEC(value) value_list;

/* Binds target (a name, or a tuple of targets) to v in c->comp_names. */
static bool bind_target(checker *c, const tk_expr *target, const value *v) {
    if (target->kind == TK_EXPR_NAME) {
        binding b = {0};
        b.name = target->u.name;
        b.val = *v;
        b.def_loc = target->loc;
        tk_vec_push(c->arena, &c->comp_names, b);
        return true;
    }
    if (target->kind == TK_EXPR_TUPLE || target->kind == TK_EXPR_LIST) {
        if (v->kind != V_TUPLE || v->count != target->u.items.len) {
            sema_error(c, target->loc, "cannot unpack %s into %u names", v_describe(c, v), target->u.items.len);
            return false;
        }
        for (uint32_t i = 0; i < v->count; i++)
            if (!bind_target(c, target->u.items.data[i], &v->items[i])) return false;
        return true;
    }
    sema_error(c, target->loc, "a comprehension's for binds names, or a tuple of names");
    return false;
}

/* range(end), range(start, end[, step]) of constants, made a tuple */
static value range_items(checker *c, const tk_expr *iter) {
    const tk_expr_list *args = &iter->u.call.args;
    int64_t b[3];
    if (args->len < 1 || args->len > 3) {
        sema_error(c, iter->loc, "range() here takes 1 to 3 arguments");
        return v_error();
    }
    for (uint32_t i = 0; i < args->len; i++) {
        if (args->data[i]->kind == TK_EXPR_KEYWORD) {
            sema_error(c, args->data[i]->loc, "range() here takes positional bounds only");
            return v_error();
        }
        value v = eval(c, args->data[i]);
        if (v.kind == V_ERROR) return v;
        if (v.kind != V_INT && v.kind != V_BOOL) {
            sema_error(c, args->data[i]->loc, "range() bounds here must be compile-time integers, not %s",
                       v_describe(c, &v));
            return v_error();
        }
        b[i] = v_as_int(&v);
    }
    int64_t lo = args->len > 1 ? b[0] : 0, hi = args->len > 1 ? b[1] : b[0], step = args->len > 2 ? b[2] : 1;
    if (step == 0) {
        sema_error(c, args->data[2]->loc, "range step cannot be zero");
        return v_error();
    }
    /* in 128 bits: hi - lo overflows 64 for bounds near the ends */
    __int128 span = step > 0 ? (__int128)hi - lo : (__int128)lo - hi, size = step > 0 ? step : -(__int128)step;
    __int128 n = span > 0 ? (span + size - 1) / size : 0;
    if (n > COMPREHENSION_TRIPS_LIMIT) {
        sema_error(c, iter->loc, "this range() has more than %d items", COMPREHENSION_TRIPS_LIMIT);
        return v_error();
    }
    value t = v_tuple(c, iter->loc, (uint32_t)n);
    for (uint32_t k = 0; k < (uint32_t)n; k++) t.items[k] = v_int(iter->loc, lo + (int64_t)k * step);
    return t;
}

value const_sequence(checker *c, const tk_expr *iter) {
    if (iter->kind == TK_EXPR_CALL) {
        value callee = eval(c, iter->u.call.callee);
        if (callee.kind == V_ERROR) return callee;
        if (callee.kind == V_BUILTIN && (callee.u.builtin == TK_B_RANGE || callee.u.builtin == TK_B_STATIC_RANGE))
            return range_items(c, iter);
    }
    value it = eval(c, iter);
    if (it.kind != V_TUPLE && it.kind != V_ERROR) {
        sema_error(c, iter->loc, "this loop iterates over a compile-time tuple, list or range(), not %s",
                   v_describe(c, &it));
        return v_error();
    }
    return it;
}

static bool run_clauses(checker *c, const tk_expr *e, uint32_t at, value_list *out, uint32_t *trips);

static bool one_trip(checker *c, const tk_expr *e, uint32_t at, const tk_expr *target, const value *item,
                     value_list *out, uint32_t *trips) {
    if (++*trips > COMPREHENSION_TRIPS_LIMIT) {
        sema_error(c, e->loc, "this comprehension runs more than %d trips (nested fors multiply)",
                   COMPREHENSION_TRIPS_LIMIT);
        return false;
    }
    uint32_t saved = c->comp_names.len;
    bool ok = bind_target(c, target, item) && run_clauses(c, e, at + 1, out, trips);
    c->comp_names.len = saved;
    return ok;
}

static bool run_clauses(checker *c, const tk_expr *e, uint32_t at, value_list *out, uint32_t *trips) {
    if (at == e->u.comp.clauses.len) {
        value v = eval(c, e->u.comp.element);
        if (v.kind == V_ERROR) return false;
        tk_vec_push(c->arena, out, v);
        return true;
    }
    const tk_comp_clause *cl = &e->u.comp.clauses.data[at];
    if (!cl->target) {
        value cond = eval(c, cl->value);
        if (cond.kind == V_ERROR) return false;
        if (!v_is_const(&cond)) {
            sema_error(c, cl->value->loc, "a comprehension's condition must be a compile-time value, not %s",
                       v_describe(c, &cond));
            return false;
        }
        return !v_truth(&cond) || run_clauses(c, e, at + 1, out, trips);
    }
    value it = const_sequence(c, cl->value);
    if (it.kind == V_ERROR) return false;
    for (uint32_t k = 0; k < it.count; k++)
        if (!one_trip(c, e, at, cl->target, &it.items[k], out, trips)) return false;
    return true;
}

value eval_comprehension(checker *c, const tk_expr *e) {
    value_list items = {0};
    uint32_t trips = 0;
    uint32_t saved = c->comp_names.len;
    bool ok = run_clauses(c, e, 0, &items, &trips);
    c->comp_names.len = saved;
    if (!ok) return v_error();
    value t = v_tuple(c, e->loc, items.len);
    for (uint32_t i = 0; i < items.len; i++) t.items[i] = items.data[i];
    return t;
}
