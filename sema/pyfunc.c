/* Plain functions (a module-level def with no decorator), evaluated at
 * compile time where they are called: Triton code builds its autotune
 * configs in such functions (`def get_configs(): return [...]`, or a list
 * appended to in loops). Their bodies run over compile-time values only:
 * assignments, augmented assignments, NAME.append(x) and NAME.extend(xs),
 * if on a compile-time condition, for over a compile-time sequence,
 * return, pass and docstrings. Names resolve to the function's own
 * locals, then the module's globals (not the caller's).
 *
 * Bounded: a call nests at most PYFUNC_DEPTH_LIMIT deep and runs at most
 * PYFUNC_STEPS_LIMIT statements, so no input hangs or exhausts the
 * compiler. Needs: expr.c's eval, comprehension.c's const_sequence.
 * Guarantees: the returned value (None without a return), or V_ERROR
 * reported. */
#include "internal.h"

#include <string.h>

enum { PYFUNC_DEPTH_LIMIT = 32, PYFUNC_STEPS_LIMIT = 1 << 16 };

typedef struct pyframe {
    bool returned, failed;
    value result;
} pyframe;

/* name's binding among the function's locals (c->comp_names), made if new */
static binding *local(checker *c, const char *name, tk_loc loc) {
    binding *b = lookup_in(&c->comp_names, name);
    if (b) return b;
    binding nb = {0};
    nb.name = name;
    nb.def_loc = loc;
    tk_vec_push(c->arena, &c->comp_names, nb);
    return &c->comp_names.data[c->comp_names.len - 1];
}

static bool assign(checker *c, const tk_expr *target, value v) {
    if (target->kind == TK_EXPR_NAME) {
        local(c, target->u.name, target->loc)->val = v;
        return true;
    }
    if (target->kind == TK_EXPR_TUPLE || target->kind == TK_EXPR_LIST) {
        if (v.kind != V_TUPLE || v.count != target->u.items.len) {
            sema_error(c, target->loc, "cannot unpack %s into %u names", v_describe(c, &v), target->u.items.len);
            return false;
        }
        for (uint32_t i = 0; i < v.count; i++)
            if (!assign(c, target->u.items.data[i], v.items[i])) return false;
        return true;
    }
    sema_error(c, target->loc, "a function evaluated at compile time assigns names, or tuples of names");
    return false;
}

/* NAME.append(x) / NAME.extend(xs): NAME rebound to a longer tuple */
static bool list_method(checker *c, const tk_expr *e, bool *handled) {
    *handled = false;
    if (e->kind != TK_EXPR_CALL || e->u.call.callee->kind != TK_EXPR_ATTR) return true;
    const tk_expr *obj = e->u.call.callee->u.attr.object;
    const char *method = e->u.call.callee->u.attr.name;
    bool append = strcmp(method, "append") == 0, extend = strcmp(method, "extend") == 0;
    if ((!append && !extend) || obj->kind != TK_EXPR_NAME) return true;
    *handled = true;
    binding *b = lookup_in(&c->comp_names, obj->u.name);
    if (!b || b->val.kind != V_TUPLE) {
        sema_error(c, obj->loc, "'%s' is not a list of this function%s", obj->u.name,
                   b ? "" : " (assign it first: NAME = [])");
        return false;
    }
    if (e->u.call.args.len != 1 || e->u.call.args.data[0]->kind == TK_EXPR_KEYWORD) {
        sema_error(c, e->loc, "%s() takes one argument", method);
        return false;
    }
    value x = eval(c, e->u.call.args.data[0]);
    if (x.kind == V_ERROR) return false;
    if (extend && x.kind != V_TUPLE) {
        sema_error(c, e->u.call.args.data[0]->loc, "extend() takes a list or tuple, not %s", v_describe(c, &x));
        return false;
    }
    uint32_t add = extend ? x.count : 1;
    value t = v_tuple(c, b->val.loc, b->val.count + add);
    memcpy(t.items, b->val.items, sizeof(value) * b->val.count);
    if (extend) memcpy(t.items + b->val.count, x.items, sizeof(value) * add);
    else t.items[b->val.count] = x;
    b = lookup_in(&c->comp_names, obj->u.name); /* eval may have grown the scope */
    b->val = t;
    return true;
}

static void run_block(checker *c, const tk_stmt_list *body, pyframe *f);

static void run_stmt(checker *c, const tk_stmt *s, pyframe *f) {
    if (++c->pyfunc_steps > PYFUNC_STEPS_LIMIT) {
        if (c->pyfunc_steps == PYFUNC_STEPS_LIMIT + 1)
            sema_error(c, s->loc, "a function evaluated at compile time ran more than %d statements",
                       PYFUNC_STEPS_LIMIT);
        f->failed = true;
        return;
    }
    switch (s->kind) {
    case TK_STMT_PASS: return;
    case TK_STMT_EXPR: {
        if (s->u.expr->kind == TK_EXPR_STRING) return; /* a docstring */
        bool handled;
        if (!list_method(c, s->u.expr, &handled)) f->failed = true;
        else if (!handled && eval(c, s->u.expr).kind == V_ERROR) f->failed = true;
        return;
    }
    case TK_STMT_ASSIGN: {
        value v = eval(c, s->u.assign.value);
        if (v.kind == V_ERROR) {
            f->failed = true;
            return;
        }
        for (uint32_t i = 0; i < s->u.assign.targets.len; i++)
            if (!assign(c, s->u.assign.targets.data[i], v)) f->failed = true;
        return;
    }
    case TK_STMT_AUGASSIGN: {
        const tk_expr *t = s->u.augassign.target;
        if (t->kind != TK_EXPR_NAME) {
            sema_error(c, t->loc, "a function evaluated at compile time updates names only");
            f->failed = true;
            return;
        }
        value r = arith(c, s->u.augassign.op, eval(c, t), eval(c, s->u.augassign.value), s->loc);
        if (r.kind == V_ERROR) f->failed = true;
        else local(c, t->u.name, t->loc)->val = r;
        return;
    }
    case TK_STMT_IF: {
        value cond = eval(c, s->u.if_.cond);
        if (cond.kind == V_ERROR) {
            f->failed = true;
            return;
        }
        if (!v_is_const(&cond)) {
            sema_error(c, s->u.if_.cond->loc, "this condition must be a compile-time value, not %s",
                       v_describe(c, &cond));
            f->failed = true;
            return;
        }
        run_block(c, v_truth(&cond) ? &s->u.if_.then : &s->u.if_.otherwise, f);
        return;
    }
    case TK_STMT_FOR: {
        value seq = const_sequence(c, s->u.for_.iter);
        if (seq.kind == V_ERROR) {
            f->failed = true;
            return;
        }
        for (uint32_t i = 0; i < seq.count && !f->returned && !f->failed; i++) {
            if (!assign(c, s->u.for_.target, seq.items[i])) f->failed = true;
            else run_block(c, &s->u.for_.body, f);
        }
        return;
    }
    case TK_STMT_RAISE:
        sema_error(c, s->loc, "%s", raise_message(c, s->u.expr));
        f->failed = true;
        return;
    case TK_STMT_RETURN:
        f->result = s->u.expr ? eval(c, s->u.expr) : (value){.kind = V_NONE, .loc = s->loc};
        if (f->result.kind == V_ERROR) f->failed = true;
        f->returned = true;
        return;
    default:
        sema_error(c, s->loc, "a function evaluated at compile time (no decorator) may assign, append, "
                   "branch on compile-time values, loop over them and return; not this statement");
        f->failed = true;
        return;
    }
}

static void run_block(checker *c, const tk_stmt_list *body, pyframe *f) {
    for (uint32_t i = 0; i < body->len && !f->returned && !f->failed; i++) run_stmt(c, body->data[i], f);
}

value call_pyfunc(checker *c, const tk_def *def, const value *args, uint32_t count, const char **kw_names,
                  const value *kw_values, const tk_loc *kw_locs, uint32_t kw_count, tk_loc loc) {
    if (c->pyfunc_depth >= PYFUNC_DEPTH_LIMIT) {
        sema_error(c, loc, "calls of functions evaluated at compile time nest more than %d deep here",
                   PYFUNC_DEPTH_LIMIT);
        return v_error();
    }
    if (count > def->params.len) {
        sema_error(c, loc, "'%s' takes %u arguments, not %u", def->name, def->params.len, count);
        return v_error();
    }
    /* the function's own scope: its locals, not the caller's */
    scope caller = c->comp_names;
    frame *caller_frame = c->frame;
    c->comp_names = (scope){0};
    c->frame = NULL;
    if (c->pyfunc_depth++ == 0) c->pyfunc_steps = 0;
    bool ok = true;
    for (uint32_t i = 0; i < def->params.len && ok; i++) {
        const tk_param *p = &def->params.data[i];
        value v = i < count ? args[i] : v_error();
        bool have = i < count;
        for (uint32_t k = 0; k < kw_count; k++)
            if (kw_names[k] == p->name) {
                if (have) {
                    sema_error(c, kw_locs[k], "'%s' of '%s' is given twice", p->name, def->name);
                    ok = false;
                }
                v = kw_values[k];
                have = true;
            }
        if (!have && p->default_value) {
            v = eval(c, p->default_value);
            have = v.kind != V_ERROR;
            ok &= have;
        }
        if (!have && ok) {
            sema_error(c, loc, "'%s' needs its argument '%s'", def->name, p->name);
            ok = false;
        }
        if (ok) local(c, p->name, p->loc)->val = v;
    }
    for (uint32_t k = 0; k < kw_count && ok; k++) {
        bool known = false;
        for (uint32_t i = 0; i < def->params.len; i++) known |= def->params.data[i].name == kw_names[k];
        if (!known) {
            sema_error(c, kw_locs[k], "'%s' has no parameter '%s'", def->name, kw_names[k]);
            ok = false;
        }
    }
    pyframe f = {.result = {.kind = V_NONE, .loc = loc}};
    if (ok) run_block(c, &def->body, &f);
    c->pyfunc_depth--;
    c->comp_names = caller;
    c->frame = caller_frame;
    if (!ok || f.failed) return v_error();
    value r = f.result;
    r.loc = loc;
    return r;
}
