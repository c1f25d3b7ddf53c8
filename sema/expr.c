/* Expressions: runtime arithmetic (Triton's promotion and pointer
 * arithmetic), the short-circuit forms, names, attributes, subscripts,
 * calls, comparisons and the ternary. Needs: value.c, scope.c, fold.c;
 * builtins.c for tl.* calls, call.c for @func calls. Guarantees: a
 * runtime result has one type; an erroneous operand gives V_ERROR without
 * a second message. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

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
    /* a runtime value (a pointer, a tile) is never None, as in Triton: what
     * may be None is known per compiled variant (`*T | None`) */
    if ((op == TK_BINOP_IS || op == TK_BINOP_IS_NOT) && (a.kind == V_NONE || b.kind == V_NONE) &&
        (a.kind == V_RT || b.kind == V_RT))
        return v_bool(loc, op == TK_BINOP_IS_NOT);
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
            if (v->origin.src && v->origin_name) tk_note(c->diag, v->origin, "%s", v->origin_name);
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
    if (!c->frame) return eval(c, e); /* what it would emit is refused there */
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
        if (b->var) {
            v = v_rt(sx_var(c, b->var, e->loc));
            v.origin = b->val.origin; /* a parameter @heuristics computes: where */
            v.origin_name = b->val.origin_name;
        } else {
            v.loc = e->loc;
        }
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


/* dtype.is_fp16() and the like: bound here, answered by eval_call */
static value dtype_predicate_method(checker *c, value dtype, int predicate, tk_loc loc) {
    value m = {.kind = V_METHOD, .loc = loc, .count = 2};
    m.u.builtin = TK_B_DTYPE_PREDICATE;
    m.items = TK_NEW_ARRAY(c->arena, value, 2);
    m.items[0] = dtype;
    m.items[1] = v_int(loc, predicate);
    return m;
}

/* .shape (a tuple) or .numel of a tile type */
/* builtin id bound to its receiver, called later as receiver.name(...) */
static value bound_method(checker *c, value receiver, int id, tk_loc loc) {
    value v = {.kind = V_METHOD, .loc = loc};
    v.u.builtin = id;
    v.items = TK_NEW(c->arena, value);
    v.items[0] = receiver;
    v.count = 1;
    return v;
}

/* A tensor descriptor's methods (load, store, the atomics, gather,
 * scatter), its run-time attributes (shape, strides) and its constant ones
 * (block_shape, dtype). */
static value descriptor_attribute(checker *c, value obj, const char *name, tk_loc name_loc, tk_loc loc) {
    const tk_type *t = obj.u.rt->type;
    static const struct { const char *name; int id; } methods[] = {
        {"load", TK_B_LOAD_TENSOR_DESCRIPTOR}, {"store", TK_B_STORE_TENSOR_DESCRIPTOR},
        {"atomic_add", TK_B_DESC_ATOMIC_ADD},   {"atomic_min", TK_B_DESC_ATOMIC_MIN},
        {"atomic_max", TK_B_DESC_ATOMIC_MAX},   {"atomic_and", TK_B_DESC_ATOMIC_AND},
        {"atomic_or", TK_B_DESC_ATOMIC_OR},     {"atomic_xor", TK_B_DESC_ATOMIC_XOR},
        {"gather", TK_B_DESC_GATHER},           {"scatter", TK_B_DESC_SCATTER},
    };
    int method = -1;
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (!strcmp(name, methods[i].name)) method = methods[i].id;
    if (method >= 0) return bound_method(c, obj, method, loc);
    if (!strcmp(name, "block_shape")) {
        value v = v_tuple(c, loc, t->rank);
        for (uint32_t d = 0; d < t->rank; d++) v.items[d] = v_int(loc, t->shape[d]);
        return v;
    }
    if (!strcmp(name, "dtype")) {
        value v = {.kind = V_DTYPE, .loc = loc};
        v.u.dtype = t->elem->dtype;
        return v;
    }
    if (!strcmp(name, "shape") || !strcmp(name, "strides")) {
        /* a tuple of the sizes (i32) or the strides (i64), read when used */
        bool sizes = name[1] == 'h';
        value v = v_tuple(c, loc, t->rank);
        for (uint32_t d = 0; d < t->rank; d++) {
            tk_sx *x = sx_new(c, TK_SX_BUILTIN, tk_type_scalar(c->arena, sizes ? TK_I32 : TK_I64), loc);
            x->builtin = TK_B_DESC_FIELD;
            sx_add_arg(c, x, obj.u.rt);
            sx_add_attr_int(c, x, "field", (sizes ? 1 : 1 + t->rank) + d);
            v.items[d] = v_rt(x);
        }
        return v;
    }
    static const char *const later[] = {"block_type"};
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
        if (!strcmp(name, later[i])) {
            sema_error(c, name_loc, "a tensor descriptor's '%s' is not supported yet", name);
            return v_error();
        }
    sema_error(c, name_loc,
               "a tensor descriptor has .load, .store, .atomic_add (_min, _max, _and, _or, _xor), .gather, .scatter, "
               ".shape, .strides, .block_shape and .dtype, not '%s'", name);
    return v_error();
}

static value shape_attribute(checker *c, const tk_type *t, const char *name, tk_loc loc) {
    uint32_t r = ty_rank(t);
    if (name[0] == 'n') {
        int64_t n = 1;
        for (uint32_t i = 0; i < r; i++) n *= t->shape[i];
        return v_int(loc, n);
    }
    value v = v_tuple(c, loc, r);
    for (uint32_t i = 0; i < r; i++) v.items[i] = v_int(loc, t->shape[i]);
    return v;
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
        /* tl.extra.libdevice and tl.extra.cuda.libdevice */
        if (obj.u.module == c->n_tl && strcmp(name, "extra") == 0) {
            value v = obj;
            v.u.module = tk_intern_cstr(c->names, "triton.language.extra");
            return v;
        }
        if (strcmp(obj.u.module, "triton.language.extra") == 0 && strcmp(name, "cuda") == 0) {
            value v = obj;
            v.u.module = tk_intern_cstr(c->names, "triton.language.extra.cuda");
            return v;
        }
        if (strncmp(obj.u.module, "triton.language.extra", 21) == 0) {
            int cuda = obj.u.module[21] ? builtin_lookup_cuda(name) : -1;
            if (cuda >= 0) {
                value v = {.kind = V_BUILTIN, .loc = loc};
                v.u.builtin = cuda;
                return v;
            }
            if (strcmp(name, "libdevice") != 0) {
                sema_error(c, e->u.attr.name_loc, "%s has libdevice%s, not '%s'", obj.u.module,
                           obj.u.module[21] ? ", gdc_wait and gdc_launch_dependents" : " and cuda", name);
                return v_error();
            }
            value v = obj;
            v.u.module = c->n_libdevice;
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
    if (obj.kind == V_RT && obj.u.rt->type->kind == TK_TYPE_BLOCK_PTR && obj.u.rt->type->descriptor)
        return descriptor_attribute(c, obj, name, e->u.attr.name_loc, loc);
    if (obj.kind == V_RT) {
        const tk_type *t = obj.u.rt->type;
        if (strcmp(name, "T") == 0) {
            int id = TK_B_TRANS;
            return builtin_call(c, id, NULL, &obj, 1, NULL, NULL, NULL, 0, loc);
        }
        if (strcmp(name, "dtype") == 0 || strcmp(name, "type") == 0) {
            /* a pointer's dtype: its pointee's, one level of pointer in count
             * (only .element_ty takes it further); a scalar's .type is its
             * dtype too (Triton's ptr.type.element_ty) */
            value v = {.kind = V_DTYPE, .loc = loc};
            const tk_type *e2 = ty_elem(t);
            while (e2->kind == TK_TYPE_POINTER) {
                v.count++;
                e2 = e2->elem;
            }
            if (e2->kind == TK_TYPE_SCALAR) {
                v.u.dtype = e2->dtype;
                /* a tile's .type is its block type (.element_ty, .shape) */
                if (name[0] == 't' && t->kind == TK_TYPE_TILE) v.block = t;
                return v;
            }
        }
        if (strcmp(name, "shape") == 0 || strcmp(name, "numel") == 0) return shape_attribute(c, t, name, loc);
        int id = builtin_lookup(c, name, true);
        if (id >= 0 && builtin_is_method(id)) return bound_method(c, obj, id, loc);
        if (builtin_not_supported_yet(name))
            sema_error(c, e->u.attr.name_loc, "the method '%s' is not supported yet", name);
        else
            sema_error(c, e->u.attr.name_loc, "%s has no attribute or method '%s'",
                       v_describe(c, &obj), name);
        return v_error();
    }
    if (obj.kind == V_DTYPE && obj.block) {
        /* Triton's block_type: its element type, shape and size; its dtype
         * predicates hold for no element type (only is_block()) */
        if (strcmp(name, "element_ty") == 0 || strcmp(name, "scalar") == 0) {
            obj.block = NULL;
            obj.loc = loc;
            return obj;
        }
        if (strcmp(name, "shape") == 0 || strcmp(name, "numel") == 0) return shape_attribute(c, obj.block, name, loc);
        int predicate = dtype_predicate_index(name);
        if (predicate != -1) return dtype_predicate_method(c, obj, predicate, loc);
        sema_error(c, e->u.attr.name_loc, "a block type (a tile's .type) has .element_ty, .scalar, .shape, .numel "
                   "and the is_...() predicates, not '%s'", name);
        return v_error();
    }
    if (obj.kind == V_DTYPE) {
        if (strcmp(name, "element_ty") == 0 && obj.count) {
            obj.count--;
            obj.loc = loc;
            return obj;
        }
        int predicate = dtype_predicate_index(name);
        if (predicate != -1) return dtype_predicate_method(c, obj, predicate, loc);
        if (obj.count && strcmp(name, "primitive_bitwidth") == 0) return v_int(loc, 64);
        if (obj.count) {
            sema_error(c, e->u.attr.name_loc, "a pointer dtype has .element_ty (the pointee), "
                       ".primitive_bitwidth and the is_...() predicates, not '%s'", name);
            return v_error();
        }
        value attr;
        if (dtype_attribute(c, &obj, name, e->u.attr.name_loc, loc, &attr)) return attr;
    }
    /* Triton's constexpr objects: X.value is X's value */
    if (strcmp(name, "value") == 0 && obj.kind != V_RT && obj.kind != V_MODULE && v_is_const(&obj)) {
        obj.loc = loc;
        return obj;
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
    if (callee.kind == V_BUILTIN && (callee.u.builtin == TK_B_CONFIG || callee.u.builtin == TK_B_TRITON_CONFIG))
        return eval_config(c, e);
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
        if (callee.u.builtin == TK_B_DTYPE_PREDICATE)
            return dtype_predicate(c, &callee.items[0], (int)callee.items[1].u.i, ip + ik, e->loc);
        return builtin_call(c, callee.u.builtin, &callee.items[0], pos, ip, kwn, kwv, kwl, ik, e->loc);
    case V_FUNC:
        return call_func(c, callee.u.def, pos, ip, kwn, kwv, kwl, ik, e->loc);
    case V_PYFUNC:
        tk_vec_push(c->arena, &c->called_plain_funcs, callee.u.def);
        return call_pyfunc(c, callee.u.def, pos, ip, kwn, kwv, kwl, ik, e->loc);
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
        /* every item evaluated, so each one's errors are reported */
        value t = v_tuple(c, e->loc, e->u.items.len);
        bool failed = false;
        for (uint32_t i = 0; i < e->u.items.len; i++) {
            t.items[i] = eval(c, e->u.items.data[i]);
            failed |= t.items[i].kind == V_ERROR;
        }
        return failed ? v_error() : t;
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
    case TK_EXPR_COMPREHENSION: return eval_comprehension(c, e);
    }
    return v_error();
}
