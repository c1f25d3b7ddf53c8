/* AST constructors called by the grammar's actions, and the parse entry.
 * Needs: an arena that lives as long as the tree. Guarantees: every node has
 * the source range of all its tokens. */
#include "internal.h"
#include "grammar.h"

#include <string.h>

int tk_yyparse(tk_parser *p);

tk_expr *tk_ast_expr(tk_parser *p, tk_expr_kind kind, tk_loc loc) {
    tk_expr *e = TK_NEW(p->arena, tk_expr);
    e->kind = kind;
    e->loc = loc;
    e->depth = 1;
    return e;
}

/* e holds child: e's depth is at least one more than child's. Past
 * TK_MAX_EXPR_DEPTH the program is refused here, so no later stage
 * recurses that deep. */
static void nest(tk_parser *p, tk_expr *e, const tk_expr *child) {
    if (!child || child->depth + 1 <= e->depth) return;
    e->depth = child->depth + 1;
    if (e->depth > TK_MAX_EXPR_DEPTH && !p->reported_depth) {
        p->reported_depth = true;
        tk_error(p->diag, e->loc, "this expression nests more than %d levels deep; split it into "
                 "named parts", TK_MAX_EXPR_DEPTH);
    }
}

static void nest_all(tk_parser *p, tk_expr *e, const tk_expr_list *children) {
    for (uint32_t i = 0; i < children->len; i++) nest(p, e, children->data[i]);
}

void tk_ast_check_block_depth(tk_parser *p, tk_loc loc) {
    if (p->indent_depth > TK_MAX_BLOCK_DEPTH && !p->reported_depth) {
        p->reported_depth = true;
        tk_error(p->diag, loc, "blocks nest more than %d levels deep here; move inner parts into "
                 "@func functions", TK_MAX_BLOCK_DEPTH);
    }
}

tk_expr *tk_ast_name(tk_parser *p, tk_loc loc, const char *name) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_NAME, loc);
    e->u.name = name;
    return e;
}

tk_expr *tk_ast_int(tk_parser *p, tk_loc loc, uint64_t value) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_INT, loc);
    e->u.int_value = value;
    return e;
}

tk_expr *tk_ast_float(tk_parser *p, tk_loc loc, double value) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_FLOAT, loc);
    e->u.float_value = value;
    return e;
}

tk_expr *tk_ast_string(tk_parser *p, tk_loc loc, const char *text, uint32_t len) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_STRING, loc);
    e->u.string.text = text;
    e->u.string.len = len;
    return e;
}

tk_expr *tk_ast_string_concat(tk_parser *p, tk_expr *a, tk_loc loc, const char *text,
                              uint32_t len) {
    char *joined = tk_arena_alloc(p->arena, a->u.string.len + len + 1);
    memcpy(joined, a->u.string.text, a->u.string.len);
    memcpy(joined + a->u.string.len, text, len);
    return tk_ast_string(p, loc, joined, a->u.string.len + len);
}

tk_expr *tk_ast_bool(tk_parser *p, tk_loc loc, bool value) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_BOOL, loc);
    e->u.bool_value = value;
    return e;
}

tk_expr *tk_ast_unary(tk_parser *p, tk_loc loc, tk_unop op, tk_expr *operand) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_UNARY, loc);
    e->u.unary.op = op;
    e->u.unary.operand = operand;
    nest(p, e, operand);
    return e;
}

tk_expr *tk_ast_binary(tk_parser *p, tk_loc loc, tk_binop op, tk_expr *lhs, tk_expr *rhs) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_BINARY, loc);
    e->u.binary.op = op;
    e->u.binary.lhs = lhs;
    e->u.binary.rhs = rhs;
    nest(p, e, lhs);
    nest(p, e, rhs);
    return e;
}

tk_expr *tk_ast_compare(tk_parser *p, tk_loc loc, tk_expr *lhs, tk_binop op, tk_expr *rhs) {
    tk_expr *e = lhs;
    if (lhs->kind != TK_EXPR_COMPARE) {
        e = tk_ast_expr(p, TK_EXPR_COMPARE, loc);
        tk_vec_push(p->arena, &e->u.compare.operands, lhs);
    }
    e->loc = loc;
    tk_vec_push(p->arena, &e->u.compare.ops, op);
    tk_vec_push(p->arena, &e->u.compare.operands, rhs);
    nest(p, e, lhs);
    nest(p, e, rhs);
    return e;
}

tk_expr *tk_ast_ternary(tk_parser *p, tk_loc loc, tk_expr *then, tk_expr *cond,
                        tk_expr *otherwise) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_TERNARY, loc);
    e->u.ternary.cond = cond;
    e->u.ternary.then = then;
    e->u.ternary.otherwise = otherwise;
    nest(p, e, cond);
    nest(p, e, then);
    nest(p, e, otherwise);
    return e;
}

tk_expr *tk_ast_lambda(tk_parser *p, tk_loc loc, tk_expr_list *params, tk_expr *body) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_LAMBDA, loc);
    for (uint32_t i = 0; params && i < params->len; i++)
        tk_vec_push(p->arena, &e->u.lambda.params, params->data[i]->u.name);
    e->u.lambda.body = body;
    nest(p, e, body);
    return e;
}

tk_expr *tk_ast_call(tk_parser *p, tk_loc loc, tk_expr *callee, tk_expr_list args) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_CALL, loc);
    e->u.call.callee = callee;
    e->u.call.args = args;
    nest(p, e, callee);
    nest_all(p, e, &args);
    bool seen_keyword = false;
    for (uint32_t i = 0; i < args.len; i++) {
        if (args.data[i]->kind == TK_EXPR_KEYWORD) {
            seen_keyword = true;
        } else if (seen_keyword) {
            tk_error(p->diag, args.data[i]->loc,
                     "positional argument follows a keyword argument");
            break;
        }
    }
    return e;
}

tk_expr *tk_ast_attr(tk_parser *p, tk_loc loc, tk_expr *object, const tk_token *name) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_ATTR, loc);
    e->u.attr.object = object;
    e->u.attr.name = name->u.text;
    e->u.attr.name_loc = name->loc;
    nest(p, e, object);
    return e;
}

tk_expr *tk_ast_subscript(tk_parser *p, tk_loc loc, tk_expr *object, tk_expr_list indices) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_SUBSCRIPT, loc);
    e->u.subscript.object = object;
    e->u.subscript.indices = indices;
    nest(p, e, object);
    nest_all(p, e, &indices);
    return e;
}

tk_expr *tk_ast_slice(tk_parser *p, tk_loc loc, tk_expr *lo, tk_expr *hi, tk_expr *step) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_SLICE, loc);
    e->u.slice.lo = lo;
    e->u.slice.hi = hi;
    e->u.slice.step = step;
    nest(p, e, lo);
    nest(p, e, hi);
    nest(p, e, step);
    return e;
}

tk_expr *tk_ast_keyword(tk_parser *p, tk_loc loc, tk_expr *name, tk_expr *value) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_KEYWORD, loc);
    if (name->kind != TK_EXPR_NAME) {
        tk_error(p->diag, name->loc, "a keyword argument needs a plain name before '='");
        e->u.keyword.name = "?";
    } else {
        e->u.keyword.name = name->u.name;
    }
    e->u.keyword.name_loc = name->loc;
    e->u.keyword.value = value;
    nest(p, e, value);
    return e;
}

tk_expr *tk_ast_starred(tk_parser *p, tk_loc loc, tk_expr *value) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_STARRED, loc);
    e->u.starred = value;
    nest(p, e, value);
    return e;
}

/* A comprehension's clauses are gathered into a COMPREHENSION node (comp,
 * NULL for the first clause) before its element is known. */
tk_expr *tk_ast_comp_clause(tk_parser *p, tk_loc loc, tk_expr *comp, tk_expr *target, tk_expr *value) {
    if (!comp) comp = tk_ast_expr(p, TK_EXPR_COMPREHENSION, loc);
    comp->loc = tk_loc_span(comp->loc, loc);
    tk_comp_clause clause = {target, value};
    tk_vec_push(p->arena, &comp->u.comp.clauses, clause);
    nest(p, comp, target);
    nest(p, comp, value);
    return comp;
}

tk_expr *tk_ast_comprehension(tk_parser *p, tk_loc loc, tk_expr *element, tk_expr *comp) {
    comp->loc = loc;
    comp->u.comp.element = element;
    nest(p, comp, element);
    return comp;
}

tk_expr *tk_ast_pointer_type(tk_parser *p, tk_loc loc, tk_expr *pointee) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_POINTER_TYPE, loc);
    e->u.pointee = pointee;
    nest(p, e, pointee);
    return e;
}

tk_expr *tk_ast_tuple_or_expr(tk_parser *p, tk_loc loc, tk_expr_list items,
                              bool trailing_comma) {
    if (items.len == 1 && !trailing_comma) {
        /* a parenthesized expression keeps its own range, so carets point at it */
        return items.data[0];
    }
    tk_expr *e = tk_ast_expr(p, TK_EXPR_TUPLE, loc);
    e->u.items = items;
    nest_all(p, e, &items);
    return e;
}

tk_expr *tk_ast_list(tk_parser *p, tk_loc loc, tk_expr_list items) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_LIST, loc);
    e->u.items = items;
    nest_all(p, e, &items);
    return e;
}

tk_expr *tk_ast_dict(tk_parser *p, tk_loc loc, tk_expr_list items) {
    tk_expr *e = tk_ast_expr(p, TK_EXPR_DICT, loc);
    e->u.items = items;
    nest_all(p, e, &items);
    return e;
}

tk_expr_list tk_ast_expr_list1(tk_parser *p, tk_expr *e) {
    tk_expr_list list = {0};
    tk_vec_push(p->arena, &list, e);
    return list;
}

tk_expr_list tk_ast_expr_list_add(tk_parser *p, tk_expr_list list, tk_expr *e) {
    tk_vec_push(p->arena, &list, e);
    return list;
}

tk_stmt *tk_ast_stmt(tk_parser *p, tk_stmt_kind kind, tk_loc loc) {
    tk_stmt *s = TK_NEW(p->arena, tk_stmt);
    s->kind = kind;
    s->loc = loc;
    return s;
}

tk_stmt *tk_ast_expr_stmt(tk_parser *p, tk_loc loc, tk_expr *e) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_EXPR, loc);
    s->u.expr = e;
    return s;
}

tk_stmt *tk_ast_return(tk_parser *p, tk_loc loc, tk_expr *e) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_RETURN, loc);
    s->u.expr = e;
    return s;
}

tk_stmt *tk_ast_raise(tk_parser *p, tk_loc loc, tk_expr *e) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_RAISE, loc);
    s->u.expr = e;
    return s;
}

static bool is_assignable(const tk_expr *e) {
    switch (e->kind) {
    case TK_EXPR_NAME: return true;
    case TK_EXPR_TUPLE:
    case TK_EXPR_LIST:
        for (uint32_t i = 0; i < e->u.items.len; i++)
            if (!is_assignable(e->u.items.data[i])) return false;
        return e->u.items.len > 0;
    default: return false;
    }
}

static void check_target(tk_parser *p, const tk_expr *target) {
    if (is_assignable(target)) return;
    if (target->kind == TK_EXPR_SUBSCRIPT)
        tk_error(p->diag, target->loc,
                 "tiles are values and cannot be assigned element-wise; build a new tile "
                 "with tl.where");
    else if (target->kind == TK_EXPR_ATTR)
        tk_error(p->diag, target->loc, "cannot assign to an attribute");
    else
        tk_error(p->diag, target->loc, "cannot assign to this expression; expected a name");
}

tk_stmt *tk_ast_assign(tk_parser *p, tk_loc loc, tk_expr_list targets, tk_expr *value) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_ASSIGN, loc);
    for (uint32_t i = 0; i < targets.len; i++) check_target(p, targets.data[i]);
    s->u.assign.targets = targets;
    s->u.assign.value = value;
    return s;
}

tk_stmt *tk_ast_annotated_assign(tk_parser *p, tk_loc loc, tk_expr *target, tk_expr *annotation, tk_expr *value) {
    tk_stmt *s = tk_ast_assign(p, loc, tk_ast_expr_list1(p, target), value);
    s->u.assign.annotation = annotation;
    return s;
}

tk_stmt *tk_ast_augassign(tk_parser *p, tk_loc loc, tk_expr *target, tk_binop op,
                          tk_expr *value) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_AUGASSIGN, loc);
    if (target->kind != TK_EXPR_NAME) {
        if (target->kind == TK_EXPR_TUPLE)
            tk_error(p->diag, target->loc, "augmented assignment needs a single name");
        else
            check_target(p, target);
    }
    s->u.augassign.op = op;
    s->u.augassign.target = target;
    s->u.augassign.value = value;
    return s;
}

tk_stmt *tk_ast_if(tk_parser *p, tk_loc loc, tk_expr *cond, tk_stmt_list then,
                   tk_stmt_list otherwise) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_IF, loc);
    s->u.if_.cond = cond;
    s->u.if_.then = then;
    s->u.if_.otherwise = otherwise;
    return s;
}

tk_stmt *tk_ast_for(tk_parser *p, tk_loc loc, tk_expr *target, tk_expr *iter,
                    tk_stmt_list body) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_FOR, loc);
    check_target(p, target);
    s->u.for_.target = target;
    s->u.for_.iter = iter;
    s->u.for_.body = body;
    return s;
}

tk_stmt *tk_ast_while(tk_parser *p, tk_loc loc, tk_expr *cond, tk_stmt_list body) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_WHILE, loc);
    s->u.while_.cond = cond;
    s->u.while_.body = body;
    return s;
}

tk_stmt *tk_ast_assert(tk_parser *p, tk_loc loc, tk_expr *cond, tk_expr *message) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_ASSERT, loc);
    s->u.assert_.cond = cond;
    s->u.assert_.message = message;
    return s;
}

const char *tk_ast_dotted_name(tk_parser *p, const tk_expr *e) {
    if (e->kind == TK_EXPR_NAME) return e->u.name;
    if (e->kind != TK_EXPR_ATTR) return NULL;
    const char *object = tk_ast_dotted_name(p, e->u.attr.object);
    if (!object) return NULL;
    char *joined = tk_arena_printf(p->arena, "%s.%s", object, e->u.attr.name);
    return tk_intern_cstr(p->names, joined);
}

tk_stmt *tk_ast_import(tk_parser *p, tk_loc loc, tk_expr *module, tk_expr *name,
                       const tk_token *alias) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_IMPORT, loc);
    s->u.import.module = module ? tk_ast_dotted_name(p, module) : NULL;
    s->u.import.name = name ? name->u.name : NULL;
    s->u.import.alias = alias ? alias->u.text : NULL;
    return s;
}

tk_stmt_list tk_ast_import_from(tk_parser *p, tk_expr *module, tk_stmt_list names) {
    const char *dotted = tk_ast_dotted_name(p, module);
    for (uint32_t i = 0; i < names.len; i++) names.data[i]->u.import.module = dotted;
    return names;
}

tk_stmt_list tk_ast_stmt_list1(tk_parser *p, tk_stmt *s) {
    tk_stmt_list list = {0};
    tk_vec_push(p->arena, &list, s);
    return list;
}

tk_stmt_list tk_ast_stmt_list_add(tk_parser *p, tk_stmt_list list, tk_stmt *s) {
    tk_vec_push(p->arena, &list, s);
    return list;
}

tk_stmt_list tk_ast_stmt_list_cat(tk_parser *p, tk_stmt_list a, tk_stmt_list b) {
    for (uint32_t i = 0; i < b.len; i++) tk_vec_push(p->arena, &a, b.data[i]);
    return a;
}

tk_param tk_ast_param(tk_parser *p, const tk_token *name, tk_expr *annotation,
                      tk_promise promise, const tk_token *promise_value, tk_loc promise_loc,
                      tk_expr *default_value) {
    (void)p;
    tk_param param = {0};
    param.name = name->u.text;
    param.loc = name->loc;
    param.annotation = annotation;
    param.promise = promise;
    param.promise_loc = promise_loc;
    if (promise_value) param.promise_value = promise_value->u.int_value;
    param.default_value = default_value;
    return param;
}

tk_param_list tk_ast_param_list_add(tk_parser *p, tk_param_list list, tk_param param) {
    for (uint32_t i = 0; i < list.len; i++) {
        if (list.data[i].name == param.name) {
            tk_error(p->diag, param.loc, "duplicate parameter '%s'", param.name);
            tk_note(p->diag, list.data[i].loc, "'%s' first declared here", param.name);
            return list;
        }
    }
    tk_vec_push(p->arena, &list, param);
    return list;
}

tk_decorator_list tk_ast_decorator_add(tk_parser *p, tk_decorator_list list, tk_loc loc,
                                       tk_expr *e) {
    tk_decorator d = {e, loc};
    tk_vec_push(p->arena, &list, d);
    return list;
}

tk_stmt *tk_ast_def(tk_parser *p, tk_loc loc, tk_decorator_list decorators,
                    const tk_token *name, tk_param_list params, tk_expr *returns,
                    tk_stmt_list body) {
    tk_stmt *s = tk_ast_stmt(p, TK_STMT_DEF, loc);
    tk_def *def = TK_NEW(p->arena, tk_def);
    def->name = name->u.text;
    def->name_loc = name->loc;
    def->decorators.data = decorators.data;
    def->decorators.len = decorators.len;
    def->decorators.cap = decorators.cap;
    def->params.data = params.data;
    def->params.len = params.len;
    def->params.cap = params.cap;
    def->returns = returns;
    def->body = body;
    s->u.def = def;
    bool seen_default = false;
    for (uint32_t i = 0; i < params.len; i++) {
        if (params.data[i].default_value) seen_default = true;
        else if (seen_default)
            tk_error(p->diag, params.data[i].loc,
                     "parameter '%s' without a default follows one with a default",
                     params.data[i].name);
    }
    return s;
}

tk_module *tk_parse_tokens(tk_arena *arena, tk_interner *names, tk_diag *diag,
                           const tk_source *src, const tk_token_list *tokens) {
    tk_parser p = {0};
    p.arena = arena;
    p.names = names;
    p.diag = diag;
    p.src = src;
    p.tokens = tokens;
    p.module = TK_NEW(arena, tk_module);
    p.module->src = src;
    int rc = tk_yyparse(&p);
    if (rc == 2) tk_error(diag, (tk_loc){0}, "%s: the parser ran out of memory", src->name);
    return p.module;
}
