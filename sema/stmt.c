/* Statements: assignment (names, tuples, subscripts), if (a constexpr
 * condition keeps only the branch taken; a runtime one merges its names),
 * for and while (static_range unrolled; runtime loops iterated to one type
 * per name), return, assert, and blocks. Needs: expr.c, scope.c.
 * Guarantees: a name has one type across the branches of a runtime if and
 * across the iterations of a runtime loop; unrolling and the statements
 * written stay within their budget. */
#include "internal.h"

#include <string.h>

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

void emit_assign(checker *c, tk_sema_var *var, tk_sx *rhs, tk_loc loc) {
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
 * all of them (reads == NULL), or those that read one of `reads`; v gets
 * arrays of its own. */
static void snapshot_items(checker *c, value *v, const char *name, const var_list *reads, tk_loc loc) {
    /* the items may be another binding's (`t = u`): write a copy of them */
    value *items = TK_NEW_ARRAY(c->arena, value, v->count + 1);
    memcpy(items, v->items, sizeof(value) * v->count);
    v->items = items;
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

static value copy_tuple(checker *c, const value *t) {
    value out = *t;
    out.items = TK_NEW_ARRAY(c->arena, value, t->count + 1);
    for (uint32_t i = 0; i < t->count; i++)
        out.items[i] = t->items[i].kind == V_TUPLE ? copy_tuple(c, &t->items[i]) : t->items[i];
    return out;
}

/* Each runtime item of tuple t that is not a variable's value, and each
 * number (as a constexpr number entering a loop does), goes into a
 * variable of its own. */
static void vars_for_items(checker *c, value *t, const char *name, tk_loc loc) {
    for (uint32_t i = 0; i < t->count; i++) {
        value *it = &t->items[i];
        if (it->kind == V_TUPLE) {
            vars_for_items(c, it, name, loc);
            continue;
        }
        tk_sx *x = it->kind == V_RT && !is_plain_var(it) ? it->u.rt : v_is_number(it) ? to_runtime(c, it, NULL) : NULL;
        if (!x || x->type->kind == TK_TYPE_VOID) continue;
        tk_sema_var *var = new_var(c, name, x->type, loc);
        emit_assign(c, var, x, loc);
        *it = v_rt(sx_var(c, var, loc));
    }
}

/* Inside a runtime loop, tuple `name` (have, its items in variables or
 * compile-time) takes v item by item: each variable keeps its type, each
 * compile-time item its value. */
static void assign_carried_tuple(checker *c, const char *name, const value *have, value *v, tk_loc loc,
                                 tk_loc loop_loc) {
    const char *what = name == c->n_return ? "the tuple returned" : tk_arena_printf(c->arena, "the tuple '%s'", name);
    if (v->kind != V_TUPLE || v->count != have->count) {
        sema_error(c, loc, "%s has %u items before the loop but is %s inside it; a loop-carried name must keep "
                   "its type", what, have->count, v_describe(c, v));
        tk_note(c->diag, loop_loc, "the loop is here");
        return;
    }
    for (uint32_t i = 0; i < have->count; i++) {
        const value *h = &have->items[i];
        value *n = &v->items[i];
        if (h->kind == V_TUPLE) {
            assign_carried_tuple(c, name, h, n, loc, loop_loc);
            continue;
        }
        if (!is_plain_var(h)) {
            if (v_is_const(n) && const_equal(n, h)) continue;
            sema_error(c, loc, "item %u of %s is %s before this runtime loop and %s inside it; a compile-time "
                       "item of a loop-carried tuple keeps its value", i, what, v_describe(c, h), v_describe(c, n));
            tk_note(c->diag, loop_loc, "the loop is here");
            continue;
        }
        const tk_sema_var *var = h->u.rt->var;
        tk_sx *x = n->kind == V_RT ? n->u.rt : v_is_number(n) ? adapt_const(c, n, var->type) : NULL;
        if (!x || !tk_type_equal(x->type, var->type)) {
            sema_error(c, loc, "item %u of %s is %s before the loop but %s inside it; a loop-carried name must "
                       "keep its type", i, what, tk_type_str(c->arena, var->type),
                       x ? tk_type_str(c->arena, x->type) : v_describe(c, n));
            tk_note(c->diag, loop_loc, "the loop is here");
            continue;
        }
        emit_assign(c, (tk_sema_var *)var, x, loc);
    }
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
        if (!b->var && b->val.kind == V_TUPLE) {
            if (v.kind == V_TUPLE) snapshot_items(c, &v, "tmp", NULL, loc); /* read all, then write */
            assign_carried_tuple(c, name, &b->val, &v, loc, b->fixed_loc);
            return;
        }
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

/* A zero of type t: the value a path that has not returned yet holds for
 * the hidden return value (never read there: n_returned is false). */
static tk_sx *float_zero(checker *c, tk_dtype d, tk_loc loc) {
    value zero = v_float(loc, 0.0);
    return sx_const(c, &zero, d, loc);
}

static tk_sx *zero_of(checker *c, const tk_type *t, tk_loc loc) {
    const tk_type *e = ty_elem(t);
    value zero = v_int(loc, 0);
    tk_sx *x = e->kind == TK_TYPE_POINTER ? sx_const(c, &zero, TK_I64, loc)
               : tk_dtype_is_float(e->dtype) ? float_zero(c, e->dtype, loc)
                                             : sx_const(c, &zero, e->dtype, loc);
    if (e->kind == TK_TYPE_POINTER) {
        tk_sx *p = sx_new(c, TK_SX_CAST, e, loc);
        sx_add_arg(c, p, x);
        x = p;
    }
    return broadcast_to_shape(c, x, ty_rank(t), ty_shape(t), loc);
}

static bool has_return_in_loop(const tk_stmt_list *body, bool in_loop);
static bool merge_tuple(checker *c, const char *name, const value *vt, const value *ve, tk_loc lt, tk_loc le,
                        tk_ss *if_stmt, value *out);

static bool is_loop_return_var(const frame *f, const tk_sema_var *var) {
    for (uint32_t i = 0; i < f->loop_return_vars.len; i++)
        if (f->loop_return_vars.data[i] == var) return true;
    return false;
}

/* A returned tuple whose runtime items all start before the outermost
 * runtime loop (set_loop_return_value). */
static bool tuple_started_before(const frame *f, const value *t) {
    for (uint32_t i = 0; i < t->count; i++) {
        const value *it = &t->items[i];
        if (it->kind == V_TUPLE ? !tuple_started_before(f, it)
                                : it->kind == V_RT && !(is_plain_var(it) && is_loop_return_var(f, it->u.rt->var)))
            return false;
    }
    return true;
}

/* What a path that has not returned holds for a returned tuple: zeros for
 * its runtime items, its compile-time items as they are. */
static value zero_like(checker *c, const value *t, tk_loc loc) {
    value z = v_tuple(c, loc, t->count);
    for (uint32_t i = 0; i < t->count; i++) {
        const value *it = &t->items[i];
        z.items[i] = it->kind == V_TUPLE ? zero_like(c, it, loc)
                     : it->kind == V_RT  ? v_rt(zero_of(c, it->u.rt->type, loc))
                                         : *it;
    }
    return z;
}

/* In a @func whose loop returns, the hidden return value set in one
 * branch only: the other branch holds a zero of its type, so the value
 * reaches the end whichever path returned. */
static bool merge_return_value(checker *c, binding *bt, binding *be, binding *bb, scope *merged, tk_ss *if_stmt) {
    bool t_ok = bt && bt->state == BOUND && (bt->val.kind == V_RT || bt->val.kind == V_TUPLE);
    bool e_ok = be && be->state == BOUND && (be->val.kind == V_RT || be->val.kind == V_TUPLE);
    if (t_ok == e_ok) return false; /* both (merged as any name) or neither */
    binding *set = t_ok ? bt : be;
    if (set->val.kind == V_TUPLE && !set->var) {
        binding nb = *set;
        if (c->frame->runtime_loop_depth == 0 || !tuple_started_before(c->frame, &set->val)) {
            value zero = zero_like(c, &set->val, if_stmt->loc);
            bool ok = t_ok ? merge_tuple(c, c->n_return, &set->val, &zero, set->def_loc, if_stmt->loc, if_stmt, &nb.val)
                           : merge_tuple(c, c->n_return, &zero, &set->val, if_stmt->loc, set->def_loc, if_stmt, &nb.val);
            if (!ok) nb.val = v_error();
        }
        if (bb) *bb = nb; else tk_vec_push(c->arena, merged, nb);
        return true;
    }
    if (c->frame->runtime_loop_depth > 0 && set->var && is_loop_return_var(c->frame, set->var)) {
        /* started before the outermost runtime loop, which holds this if:
         * it holds a value on every path */
        if (bb) *bb = *set; else tk_vec_push(c->arena, merged, *set);
        return true;
    }
    tk_sx *value_set = set->var ? sx_var(c, set->var, set->def_loc) : set->val.u.rt;
    const tk_type *type = value_set->type;
    tk_sema_var *var = new_var(c, c->n_return, type, if_stmt->loc);
    tk_ss *assign_set = ss_new(c, TK_SS_ASSIGN, set->def_loc), *assign_zero = ss_new(c, TK_SS_ASSIGN, if_stmt->loc);
    assign_set->var = assign_zero->var = var;
    assign_set->value = value_set;
    assign_zero->value = zero_of(c, type, if_stmt->loc);
    tk_vec_push(c->arena, t_ok ? &if_stmt->then : &if_stmt->otherwise, assign_set);
    tk_vec_push(c->arena, t_ok ? &if_stmt->otherwise : &if_stmt->then, assign_zero);
    binding nb = *set;
    nb.var = var;
    nb.val = v_rt(sx_var(c, var, if_stmt->loc));
    if (bb) *bb = nb; else tk_vec_push(c->arena, merged, nb);
    return true;
}

static void return_types_differ(checker *c, tk_loc here, const tk_type *t, tk_loc other, const tk_type *other_t) {
    sema_error(c, here, "this return gives %s, but another return of the @func gives %s; a @func returns "
               "one type (convert with .to())", tk_type_str(c->arena, t), tk_type_str(c->arena, other_t));
    tk_note(c->diag, other, "the other return is here");
}

static void return_refused(checker *c, tk_loc loc, const value *v) {
    sema_error(c, loc, "a return inside a runtime if or loop gives a runtime value or a tuple, not %s",
               v_describe(c, v));
}

/* A tuple bound in both branches of a runtime if, item by item: equal
 * constants stay, runtime items (and numbers that differ) become variables
 * assigned at the end of each branch. False after an error. */
static bool merge_tuple(checker *c, const char *name, const value *vt, const value *ve, tk_loc lt, tk_loc le,
                        tk_ss *if_stmt, value *out) {
    const char *what = name == c->n_return ? "the tuple returned" : tk_arena_printf(c->arena, "the tuple '%s'", name);
    if (vt->count != ve->count) {
        sema_error(c, le, "%s has %u items in one branch of the if and %u in the other; a name must have one "
                   "type after the if", what, vt->count, ve->count);
        tk_note(c->diag, lt, "%s has %u items here", what, vt->count);
        return false;
    }
    *out = v_tuple(c, if_stmt->loc, vt->count);
    for (uint32_t i = 0; i < vt->count; i++) {
        const value *a = &vt->items[i], *b = &ve->items[i];
        value *merged = &out->items[i];
        if (a->kind == V_TUPLE && b->kind == V_TUPLE) {
            if (!merge_tuple(c, name, a, b, lt, le, if_stmt, merged)) return false;
            continue;
        }
        if ((v_is_const(a) && v_is_const(b) && const_equal(a, b)) ||
            (is_plain_var(a) && is_plain_var(b) && a->u.rt->var == b->u.rt->var)) {
            *merged = *a;
            continue;
        }
        const tk_type *like = a->kind == V_RT ? a->u.rt->type : b->kind == V_RT ? b->u.rt->type : NULL;
        tk_sx *xt = a->kind == V_RT ? a->u.rt : v_is_number(a) ? (like ? adapt_const(c, a, like) : to_runtime(c, a, NULL)) : NULL;
        tk_sx *xe = b->kind == V_RT ? b->u.rt : v_is_number(b) && xt ? adapt_const(c, b, xt->type) : NULL;
        if (!xt || !xe) {
            sema_error(c, if_stmt->loc, "item %u of %s gets a different compile-time value in each branch of "
                       "this runtime if (%s and %s)", i, what, v_describe(c, a), v_describe(c, b));
            return false;
        }
        if (!tk_type_equal(xt->type, xe->type)) {
            sema_error(c, le, "item %u of %s is %s in one branch of the if and %s in the other; a name must have "
                       "one type after the if", i, what, tk_type_str(c->arena, xt->type),
                       tk_type_str(c->arena, xe->type));
            tk_note(c->diag, lt, "the other branch sets it here");
            return false;
        }
        tk_sema_var *var = new_var(c, name, xt->type, if_stmt->loc);
        tk_ss *st = ss_new(c, TK_SS_ASSIGN, lt), *se = ss_new(c, TK_SS_ASSIGN, le);
        st->var = se->var = var;
        st->value = xt;
        se->value = xe;
        tk_vec_push(c->arena, &if_stmt->then, st);
        tk_vec_push(c->arena, &if_stmt->otherwise, se);
        *merged = v_rt(sx_var(c, var, if_stmt->loc));
    }
    return true;
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
            if (name == c->n_return && c->frame->loop_returns && merge_return_value(c, bt, be, bb, &merged, if_stmt))
                continue;
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
            if (bt->state == BOUND && be->state == BOUND && bt->val.kind == V_TUPLE && be->val.kind == V_TUPLE &&
                !bt->var && !be->var) {
                binding nb = *bt;
                if (!merge_tuple(c, name, &bt->val, &be->val, bt->def_loc, be->def_loc, if_stmt, &nb.val))
                    nb.val = v_error();
                if (bb) *bb = nb; else tk_vec_push(c->arena, &merged, nb);
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
                if (name == c->n_return)
                    sema_error(c, if_stmt->loc, "the @func returns %s on one path and %s on another; a @func "
                               "returns one type", v_describe(c, &bt->val), v_describe(c, &be->val));
                else
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
                if (name == c->n_return) {
                    return_types_differ(c, be->def_loc, xe->type, bt->def_loc, xt->type);
                } else {
                    sema_error(c, be->def_loc, "'%s' is %s in one branch of the if and %s in the "
                               "other; a name must have one type after the if", name,
                               tk_type_str(c->arena, xt->type), tk_type_str(c->arena, xe->type));
                    tk_note(c->diag, bt->def_loc, "'%s' is %s here", name, tk_type_str(c->arena, xt->type));
                }
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

/* what a branch of a runtime if runs */
typedef void (*branch_fn)(checker *c, const void *arg);

static void run_block(checker *c, const void *body) { exec_block(c, body); }

/* A runtime if on the scalar i1 cx: each branch's statements, then the
 * names merged. */
static void runtime_if(checker *c, tk_loc loc, tk_sx *cx, branch_fn then_fn, const void *then_arg, branch_fn else_fn,
                       const void *else_arg) {
    tk_ss *st = ss_new(c, TK_SS_IF, loc);
    st->value = cx;
    scope before = copy_scope(c, &c->frame->names);
    tk_ss_list *out = c->frame->out;
    c->frame->runtime_branch_depth++;
    c->frame->out = &st->then;
    then_fn(c, then_arg);
    scope then_s = c->frame->names;
    bool then_ret = c->frame->returned;
    c->frame->returned = false;
    c->frame->names = copy_scope(c, &before);
    c->frame->out = &st->otherwise;
    if (else_fn) else_fn(c, else_arg);
    scope else_s = c->frame->names;
    bool else_ret = c->frame->returned;
    c->frame->runtime_branch_depth--;
    c->frame->out = out;
    emit_stmt(c, st);
    merge_branches(c, &before, &then_s, then_ret, &else_s, else_ret, st);
    c->frame->returned = then_ret && else_ret;
}

/* Runs then_fn only where the @func has not returned yet (loop_returns). */
static void unless_returned(checker *c, tk_loc loc, branch_fn then_fn, const void *arg) {
    binding *b = lookup_in(&c->frame->names, c->n_returned);
    if (!b || b->state != BOUND || b->val.kind != V_RT) {
        tk_internal_error(c->diag, loc, "the flag of a return inside a static loop is not bound");
        return;
    }
    value returned = b->var ? v_rt(sx_var(c, b->var, loc)) : b->val;
    value not_yet = arith(c, TK_BINOP_EQ, returned, v_int(loc, 0), loc);
    if (not_yet.kind != V_RT) return;
    runtime_if(c, loc, not_yet.u.rt, then_fn, arg, NULL, NULL);
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
        exec_block(c, v_truth(&cond) ? &s->u.if_.then : &s->u.if_.otherwise);
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
    runtime_if(c, s->loc, cx, run_block, &s->u.if_.then, run_block, &s->u.if_.otherwise);
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
    if (c->frame->loop_returns && has_return_in_loop(body, true)) {
        /* the hidden flag (and a value returned before) are loop-carried */
        tk_vec_push(c->arena, &names, c->n_returned);
        tk_vec_push(c->arena, &names, c->n_return);
    }
    if (c->frame->runtime_loop_depth == 0) c->frame->loop_preheader = c->frame->out;
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
        } else if (!b->var && b->val.kind == V_TUPLE) {
            /* loop-carried item by item: each runtime item in a variable */
            b->val = copy_tuple(c, &b->val);
            vars_for_items(c, &b->val, b->name, b->def_loc);
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
        if (b->state == BOUND && ((b->var && is_loop_return_var(c->frame, b->var)) ||
                                  (b->name == c->n_return && !b->var && b->val.kind == V_TUPLE &&
                                   tuple_started_before(c->frame, &b->val)))) {
            /* a value returned inside the loop: it starts before the loop */
            if (old) *old = *b; else tk_vec_push(c->arena, &result, *b);
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

typedef struct static_trips {
    const tk_stmt *s;
    const value *items;
    uint32_t from, count;
    int64_t lo, step;
    bool is_range;
} static_trips;

static void run_trips(checker *c, const void *trips);

static void exec_static_loop(checker *c, const tk_stmt *s, const value *items, uint32_t count,
                             int64_t lo, int64_t step, bool is_range) {
    static_trips t = {s, items, 0, count, lo, step, is_range};
    run_trips(c, &t);
}

/* trips t->from .. t->count - 1 of a static loop; after one whose runtime
 * if returned (in a @func), the rest only where it did not */
static void run_trips(checker *c, const void *trips) {
    const static_trips *t = trips;
    const tk_stmt *s = t->s;
    const value *items = t->items;
    uint32_t count = t->count;
    int64_t lo = t->lo, step = t->step;
    bool is_range = t->is_range;
    for (uint32_t k = t->from; k < count && !c->over_budget; k++) {
        uint32_t returns_before = c->frame->branch_returns;
        if (++c->unrolled_trips > UNROLLED_TRIPS_LIMIT) {
            c->over_budget = true;
            sema_error(c, s->loc, "tl.static_range loops here unroll more than %d trips in all (nested "
                       "loops multiply); use range() for a runtime loop", UNROLLED_TRIPS_LIMIT);
            return;
        }
        value iv = is_range ? v_int(s->u.for_.target->loc, lo + (int64_t)k * step) : items[k];
        assign_target(c, s->u.for_.target, iv, s->u.for_.target->loc);
        int errors_before = c->diag->error_count;
        exec_block(c, &s->u.for_.body);
        if (c->frame->returned) return;
        /* a trip with errors: the next ones would repeat them (and each
         * costs its diagnostics' work: nested loops multiply it) */
        if (c->diag->error_count != errors_before) return;
        if (c->frame->loop_returns && c->frame->branch_returns != returns_before && k + 1 < count) {
            static_trips rest = *t;
            rest.from = k + 1;
            unless_returned(c, s->loc, run_trips, &rest);
            return;
        }
    }
}

/* A runtime for loop of a @func that returns inside it: a while loop over
 * a hidden counter (range's bounds taken once, as Python does), which
 * ends as soon as the function has returned. `known_step`: the step where
 * it is a compile-time number, else 0. */
static void exec_for_returning(checker *c, const tk_stmt *s, const tk_ss *range, int64_t known_step) {
    tk_loc loc = s->loc;
    const tk_type *t = range->lo->type;
    tk_sema_var *next = new_var(c, tk_intern_cstr(c->names, "(next trip)"), t, loc);
    tk_sema_var *end = new_var(c, tk_intern_cstr(c->names, "(end)"), t, loc);
    tk_sema_var *step = new_var(c, tk_intern_cstr(c->names, "(step)"), t, loc);
    emit_assign(c, next, range->lo, loc);
    emit_assign(c, end, range->hi, loc);
    emit_assign(c, step, range->step, loc);
    loop_state ls = {0};
    enter_runtime_loop(c, &s->u.for_.body, loc, &ls);
    tk_ss *st = ss_new(c, TK_SS_WHILE, loc);
    tk_ss_list *out = c->frame->out;
    c->frame->out = &st->otherwise;
    value at = v_rt(sx_var(c, next, loc)), last = v_rt(sx_var(c, end, loc)), by = v_rt(sx_var(c, step, loc));
    value up = arith(c, TK_BINOP_LT, at, last, loc), down = arith(c, TK_BINOP_GT, at, last, loc);
    value in_range = known_step > 0 ? up : known_step < 0 ? down
                   : arith(c, TK_BINOP_OR, arith(c, TK_BINOP_AND, arith(c, TK_BINOP_GT, by, v_int(loc, 0), loc), up, loc),
                           arith(c, TK_BINOP_AND, arith(c, TK_BINOP_LT, by, v_int(loc, 0), loc), down, loc), loc);
    binding *flag = lookup_in(&c->frame->names, c->n_returned);
    if (!flag || !flag->var) {
        tk_internal_error(c->diag, loc, "the flag of a return inside a runtime loop is not bound");
        c->frame->out = out;
        return;
    }
    value not_yet = arith(c, TK_BINOP_EQ, v_rt(sx_var(c, flag->var, loc)), v_int(loc, 0), loc);
    value go_on = arith(c, TK_BINOP_AND, not_yet, in_range, loc);
    st->value = go_on.kind == V_RT ? go_on.u.rt : NULL;
    c->frame->out = &st->then;
    tk_sema_var *iv = new_var(c, s->u.for_.target->u.name, t, s->u.for_.target->loc);
    emit_assign(c, iv, sx_var(c, next, loc), loc);
    binding *b = bind(c, &c->frame->names, iv->name, v_rt(sx_var(c, iv, iv->loc)), iv->loc);
    b->var = iv;
    value stepped = arith(c, TK_BINOP_ADD, at, by, loc);
    if (stepped.kind == V_RT) emit_assign(c, next, stepped.u.rt, loc);
    exec_block(c, &s->u.for_.body);
    c->frame->out = out;
    leave_runtime_loop(c, &ls, loc);
    if (st->value) emit_stmt(c, st);
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
            bool warp_specialize = false, ok = true;
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
                        } else if (strcmp(kn, "warp_specialize") == 0) {
                            int64_t on = 0;
                            ok &= const_int_arg(c, &kv, &on, "warp_specialize");
                            warp_specialize = on != 0;
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
            if (c->frame->loop_returns && has_return_in_loop(&s->u.for_.body, true)) {
                exec_for_returning(c, s, st, v_is_number(&step) ? v_as_int(&step) : 0);
                return;
            }
            st->num_stages = num_stages;
            st->warp_specialize = warp_specialize;
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

/* A while condition as a scalar i1 (NULL after an error). */
static tk_sx *while_condition(checker *c, const tk_stmt *s, value cond) {
    if (cond.kind == V_ERROR) return NULL;
    if (cond.kind != V_RT) {
        tk_dtype b = TK_I1;
        return to_runtime(c, &cond, &b);
    }
    const tk_type *t = cond.u.rt->type;
    if (t->kind != TK_TYPE_SCALAR) {
        sema_error(c, s->u.while_.cond->loc, "a while condition must be a scalar, not %s", tk_type_str(c->arena, t));
        return NULL;
    }
    if (t->dtype == TK_I1) return cond.u.rt;
    value r = arith(c, TK_BINOP_NE, cond, v_int(cond.loc, 0), cond.loc);
    return r.kind == V_RT ? r.u.rt : NULL;
}

typedef struct while_test {
    const tk_stmt *s;
    tk_sema_var *goes_on;
} while_test;

static void test_while(checker *c, const void *test_) {
    const while_test *t = test_;
    tk_sx *cx = while_condition(c, t->s, eval(c, t->s->u.while_.cond));
    if (cx) emit_assign(c, t->goes_on, cx, t->s->loc);
}

static void exec_while(checker *c, const tk_stmt *s) {
    bool returns_inside = c->frame->loop_returns && has_return_in_loop(&s->u.while_.body, true);
    loop_state ls = {0};
    enter_runtime_loop(c, &s->u.while_.body, s->loc, &ls);
    tk_ss *st = ss_new(c, TK_SS_WHILE, s->loc);
    tk_ss_list *out = c->frame->out;
    /* statements the condition emits (an atomic's result, an inlined
     * @func) belong to every test, not only the first */
    c->frame->out = &st->otherwise;
    tk_sx *cx = NULL;
    if (returns_inside) {
        /* once the @func has returned, the loop ends without testing its
         * condition again (which may load or have effects) */
        value no = v_int(s->loc, 0);
        while_test t = {s, new_var(c, tk_intern_cstr(c->names, "(loop goes on)"), ty_scalar(c, TK_I1), s->loc)};
        emit_assign(c, t.goes_on, sx_const(c, &no, TK_I1, s->loc), s->loc);
        unless_returned(c, s->loc, test_while, &t);
        cx = sx_var(c, t.goes_on, s->loc);
    } else {
        value cond = eval(c, s->u.while_.cond);
        if (v_is_number(&cond) && !v_truth(&cond)) {
            c->frame->out = out;
            c->frame->runtime_loop_depth--;
            c->frame->names = ls.before;
            return;
        }
        cx = while_condition(c, s, cond);
    }
    st->value = cx;
    c->frame->out = &st->then;
    exec_block(c, &s->u.while_.body); /* only where not returned: the condition says so */
    c->frame->out = out;
    leave_runtime_loop(c, &ls, s->loc);
    if (cx) emit_stmt(c, st);
}

/* A variable for part of a value returned inside a runtime loop, set to
 * x: it starts (a zero) before the outermost loop. */
static tk_sema_var *start_before_loop(checker *c, tk_sx *x, tk_loc loc) {
    frame *f = c->frame;
    tk_sema_var *started = new_var(c, c->n_return, x->type, loc);
    tk_ss *init = ss_new(c, TK_SS_ASSIGN, loc);
    init->var = started;
    init->value = zero_of(c, x->type, loc);
    tk_vec_push(c->arena, f->loop_preheader, init);
    tk_vec_push(c->arena, &f->loop_return_vars, started);
    emit_assign(c, started, x, loc);
    return started;
}

/* Each runtime item (and number) of a tuple returned inside a runtime loop
 * in a variable of start_before_loop's. */
static void start_items_before_loop(checker *c, value *t, tk_loc loc) {
    for (uint32_t i = 0; i < t->count; i++) {
        value *it = &t->items[i];
        if (it->kind == V_TUPLE) {
            start_items_before_loop(c, it, loc);
            continue;
        }
        tk_sx *x = it->kind == V_RT ? it->u.rt : v_is_number(it) ? to_runtime(c, it, NULL) : NULL;
        if (x && x->type->kind != TK_TYPE_VOID) *it = v_rt(sx_var(c, start_before_loop(c, x, loc), loc));
    }
}

/* A value returned inside a runtime loop of a @func: it goes to a variable
 * that starts (a zero) before the outermost loop, so every loop around the
 * return carries it out (a tuple: a variable for each runtime item). */
static void set_loop_return_value(checker *c, value v, tk_loc loc) {
    frame *f = c->frame;
    binding *b = lookup_in(&f->names, c->n_return);
    bool bound = b && b->state == BOUND;
    if (bound && (v.kind == V_TUPLE) != (b->val.kind == V_TUPLE && !b->var)) {
        sema_error(c, loc, "this return gives %s, but another return of the @func gives %s; a @func returns one type",
                   v_describe(c, &v), v_describe(c, &b->val));
        tk_note(c->diag, b->def_loc, "the other return is here");
        return;
    }
    if (v.kind == V_TUPLE) {
        value t = copy_tuple(c, &v);
        snapshot_items(c, &t, "tmp", NULL, loc); /* read all, then write */
        if (bound) {
            assign_carried_tuple(c, c->n_return, &b->val, &t, loc, b->def_loc);
            return;
        }
        start_items_before_loop(c, &t, loc);
        bind(c, &f->names, c->n_return, t, loc);
        return;
    }
    tk_sema_var *var = b && b->state == BOUND ? b->var : NULL;
    tk_sx *x = v.kind == V_RT ? v.u.rt
               : v_is_number(&v) ? (var ? adapt_const(c, &v, var->type) : to_runtime(c, &v, NULL))
                                 : NULL;
    if (!x || x->type->kind == TK_TYPE_VOID) {
        return_refused(c, loc, &v);
        return;
    }
    if (!var) {
        tk_sema_var *started = start_before_loop(c, x, loc);
        binding *nb = bind(c, &f->names, c->n_return, v_rt(sx_var(c, started, loc)), loc);
        nb->var = started;
        return;
    }
    if (!tk_type_equal(x->type, var->type)) {
        return_types_differ(c, loc, x->type, b->def_loc, var->type);
        return;
    }
    emit_assign(c, var, x, loc);
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
    value v = s->u.expr ? eval(c, s->u.expr) : (value){.kind = V_NONE, .loc = s->loc};
    if (v.kind == V_ERROR) return;
    if (v.kind == V_NONE) f->bare_return = true;
    else f->value_return = true;
    if (f->runtime_branch_depth > 0 || f->runtime_loop_depth > 0) {
        /* exec_block moved what follows the if into the branches, so this
         * return ends its path: the value goes to a hidden name that the
         * branches merge like any other, and the call reads it at the end;
         * in a loop, the hidden flag skips what would run after it */
        f->return_loc = s->loc;
        f->branch_returns++;
        if (v.kind != V_NONE && f->runtime_loop_depth > 0) {
            set_loop_return_value(c, v, s->loc);
        } else if (v.kind != V_NONE) {
            if (v_is_number(&v)) v = v_rt(to_runtime(c, &v, NULL));
            if (v.kind == V_RT || v.kind == V_TUPLE) assign_name(c, c->n_return, v, s->loc);
            else return_refused(c, s->loc, &v);
        }
        if (f->loop_returns) {
            value yes = v_int(s->loc, 1);
            assign_name(c, c->n_returned, v_rt(sx_const(c, &yes, TK_I1, s->loc)), s->loc);
        }
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
        if (!v_truth(&cond)) {
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

/* The error a raise reached at compile time reports: the exception's
 * name and message, as Python would print them. */
const char *raise_message(checker *c, const tk_expr *e) {
    if (!e) return "raise without an exception (a bare raise re-raises, and nothing was raised)";
    const tk_expr *type = e->kind == TK_EXPR_CALL ? e->u.call.callee : e;
    const char *name = type->kind == TK_EXPR_NAME ? type->u.name : type->kind == TK_EXPR_ATTR ? type->u.attr.name
                                                                                                 : "exception";
    const char *text = "";
    if (e->kind == TK_EXPR_CALL && e->u.call.args.len && e->u.call.args.data[0]->kind != TK_EXPR_KEYWORD) {
        const tk_expr *a = e->u.call.args.data[0];
        value m = eval(c, a);
        if (m.kind == V_STR) text = tk_arena_printf(c->arena, ": %.*s", (int)m.u.str.len, m.u.str.text);
        else if (m.kind != V_ERROR && v_is_const(&m)) text = tk_arena_printf(c->arena, ": %s", const_text(c, &m));
    }
    return tk_arena_printf(c->arena, "%s%s (raised at compile time)", name, text);
}

/* raise: Triton code raises under conditions on constexprs, so a raise the
 * interpreter reaches is a compile-time error with the exception's
 * message (one in a branch not taken is never reached); inside a runtime
 * if or loop it is refused, since a kernel cannot raise at run time. */
static void exec_raise(checker *c, const tk_stmt *s) {
    if (c->frame->runtime_branch_depth || c->frame->runtime_loop_depth) {
        sema_error(c, s->loc, "'raise' inside a runtime if or loop: a kernel cannot raise at run time; "
                   "use tl.device_assert(cond, msg), or raise under a compile-time condition");
        return;
    }
    sema_error(c, s->loc, "%s", raise_message(c, s->u.expr));
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
        if (s->u.assign.annotation && !check_local_annotation(c, s, &v)) {
            /* bound to an error: its uses report nothing more */
            const tk_expr *target = s->u.assign.targets.data[0];
            if (c->frame && target->kind == TK_EXPR_NAME) bind(c, &c->frame->names, target->u.name, v_error(), target->loc);
            break;
        }
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
    case TK_STMT_RAISE: exec_raise(c, s); break;
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

typedef struct block_rest {
    const tk_stmt_list *body;
    uint32_t from;
} block_rest;

static void run_rest(checker *c, const void *rest_) {
    const block_rest *rest = rest_;
    tk_stmt_list tail = {0};
    for (uint32_t i = rest->from; i < rest->body->len; i++) tk_vec_push(c->arena, &tail, rest->body->data[i]);
    exec_block(c, &tail);
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
        uint32_t returns_before = c->frame->branch_returns;
        exec_stmt(c, s);
        if (c->frame->loop_returns && c->frame->branch_returns != returns_before && i + 1 < body->len &&
            !c->frame->returned) {
            block_rest rest = {body, i + 1};
            unless_returned(c, s->loc, run_rest, &rest);
            return;
        }
    }
}

/* ---- returns inside static loops of a @func ----------------------------- */

static bool has_return_in_loop(const tk_stmt_list *body, bool in_loop) {
    for (uint32_t i = 0; i < body->len; i++) {
        const tk_stmt *s = body->data[i];
        if (s->kind == TK_STMT_RETURN && in_loop) return true;
        if (s->kind == TK_STMT_IF &&
            (has_return_in_loop(&s->u.if_.then, in_loop) || has_return_in_loop(&s->u.if_.otherwise, in_loop)))
            return true;
        if (s->kind == TK_STMT_FOR && has_return_in_loop(&s->u.for_.body, true)) return true;
        if (s->kind == TK_STMT_WHILE && has_return_in_loop(&s->u.while_.body, true)) return true;
    }
    return false;
}

void begin_func_body(checker *c, const tk_stmt_list *body, tk_loc loc) {
    if (!has_return_in_loop(body, false)) return;
    c->frame->loop_returns = true;
    value no = v_int(loc, 0);
    assign_name(c, c->n_returned, v_rt(sx_const(c, &no, TK_I1, loc)), loc);
}

bool func_paths_return(checker *c, const tk_stmt_list *body) {
    const frame *f = c->frame;
    return !f->loop_returns || !f->value_return || f->has_return_value || always_returns(body);
}
