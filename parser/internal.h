/* Private to parser/: the parser's state and the AST constructors that the
 * grammar's one-line actions call. */
#ifndef TK_PARSER_INTERNAL_H
#define TK_PARSER_INTERNAL_H

#include "parser.h"

typedef struct tk_parser {
    tk_arena *arena;
    tk_interner *names;
    tk_diag *diag;
    const tk_source *src;
    const tk_token_list *tokens;
    uint32_t pos;
    /* first token of the logical line being parsed: names the construct in
     * messages like "expected ':' after the for header" */
    tk_tok line_start_kind;
    tk_loc line_start_loc;
    tk_module *module;
    /* Error recovery: after a broken block header, the INDENT/DEDENT of its
     * body are dropped so the body's statements are still checked. */
    bool drop_next_indent;
    int indent_depth;
    int dropped[64];
    int dropped_count;
    bool reported_depth;   /* too deep an expression or block, said once */
} tk_parser;

/* the bracketed pair [begin, end) of a (possibly empty) list of tokens */
tk_expr *tk_ast_expr(tk_parser *p, tk_expr_kind kind, tk_loc loc);
tk_expr *tk_ast_name(tk_parser *p, tk_loc loc, const char *name);
tk_expr *tk_ast_int(tk_parser *p, tk_loc loc, uint64_t value);
tk_expr *tk_ast_float(tk_parser *p, tk_loc loc, double value);
tk_expr *tk_ast_string(tk_parser *p, tk_loc loc, const char *text, uint32_t len);
tk_expr *tk_ast_string_concat(tk_parser *p, tk_expr *a, tk_loc loc, const char *text,
                              uint32_t len);
tk_expr *tk_ast_bool(tk_parser *p, tk_loc loc, bool value);
tk_expr *tk_ast_unary(tk_parser *p, tk_loc loc, tk_unop op, tk_expr *operand);
tk_expr *tk_ast_binary(tk_parser *p, tk_loc loc, tk_binop op, tk_expr *lhs, tk_expr *rhs);
tk_expr *tk_ast_compare(tk_parser *p, tk_loc loc, tk_expr *lhs, tk_binop op, tk_expr *rhs);
tk_expr *tk_ast_ternary(tk_parser *p, tk_loc loc, tk_expr *then, tk_expr *cond,
                        tk_expr *otherwise);
tk_expr *tk_ast_lambda(tk_parser *p, tk_loc loc, tk_expr_list *params, tk_expr *body);
tk_expr *tk_ast_call(tk_parser *p, tk_loc loc, tk_expr *callee, tk_expr_list args);
tk_expr *tk_ast_attr(tk_parser *p, tk_loc loc, tk_expr *object, const tk_token *name);
tk_expr *tk_ast_subscript(tk_parser *p, tk_loc loc, tk_expr *object, tk_expr_list indices);
tk_expr *tk_ast_slice(tk_parser *p, tk_loc loc, tk_expr *lo, tk_expr *hi, tk_expr *step);
tk_expr *tk_ast_keyword(tk_parser *p, tk_loc loc, tk_expr *name, tk_expr *value);
tk_expr *tk_ast_starred(tk_parser *p, tk_loc loc, tk_expr *value);
tk_expr *tk_ast_pointer_type(tk_parser *p, tk_loc loc, tk_expr *pointee);
tk_expr *tk_ast_comp_clause(tk_parser *p, tk_loc loc, tk_expr *comp, tk_expr *target, tk_expr *value);
tk_expr *tk_ast_comprehension(tk_parser *p, tk_loc loc, tk_expr *element, tk_expr *comp);
/* (items) with `trailing_comma` telling `(a,)` from `(a)` */
tk_expr *tk_ast_tuple_or_expr(tk_parser *p, tk_loc loc, tk_expr_list items,
                              bool trailing_comma);
tk_expr *tk_ast_list(tk_parser *p, tk_loc loc, tk_expr_list items);
tk_expr_list tk_ast_expr_list1(tk_parser *p, tk_expr *e);
tk_expr_list tk_ast_expr_list_add(tk_parser *p, tk_expr_list list, tk_expr *e);

tk_stmt *tk_ast_annotated_assign(tk_parser *p, tk_loc loc, tk_expr *target, tk_expr *annotation,
                                 tk_expr *value);
tk_expr *tk_ast_dict(tk_parser *p, tk_loc loc, tk_expr_list items);
tk_stmt *tk_ast_stmt(tk_parser *p, tk_stmt_kind kind, tk_loc loc);
/* Reports blocks nested past TK_MAX_BLOCK_DEPTH (once). */
void tk_ast_check_block_depth(tk_parser *p, tk_loc loc);
tk_stmt *tk_ast_expr_stmt(tk_parser *p, tk_loc loc, tk_expr *e);
tk_stmt *tk_ast_return(tk_parser *p, tk_loc loc, tk_expr *e);
tk_stmt *tk_ast_raise(tk_parser *p, tk_loc loc, tk_expr *e);
tk_stmt *tk_ast_assign(tk_parser *p, tk_loc loc, tk_expr_list targets, tk_expr *value);
tk_stmt *tk_ast_augassign(tk_parser *p, tk_loc loc, tk_expr *target, tk_binop op,
                          tk_expr *value);
tk_stmt *tk_ast_if(tk_parser *p, tk_loc loc, tk_expr *cond, tk_stmt_list then,
                   tk_stmt_list otherwise);
tk_stmt *tk_ast_for(tk_parser *p, tk_loc loc, tk_expr *target, tk_expr *iter,
                    tk_stmt_list body);
tk_stmt *tk_ast_while(tk_parser *p, tk_loc loc, tk_expr *cond, tk_stmt_list body);
tk_stmt *tk_ast_assert(tk_parser *p, tk_loc loc, tk_expr *cond, tk_expr *message);
tk_stmt *tk_ast_import(tk_parser *p, tk_loc loc, tk_expr *module, tk_expr *name,
                       const tk_token *alias);
tk_stmt_list tk_ast_stmt_list1(tk_parser *p, tk_stmt *s);
/* `from MODULE import ...`: the module of each import statement in names */
tk_stmt_list tk_ast_import_from(tk_parser *p, tk_expr *module, tk_stmt_list names);
tk_stmt_list tk_ast_stmt_list_add(tk_parser *p, tk_stmt_list list, tk_stmt *s);
tk_stmt_list tk_ast_stmt_list_cat(tk_parser *p, tk_stmt_list a, tk_stmt_list b);

typedef TK_VEC(tk_param) tk_param_list;
typedef TK_VEC(tk_decorator) tk_decorator_list;
tk_param tk_ast_param(tk_parser *p, const tk_token *name, tk_expr *annotation,
                      tk_promise promise, const tk_token *promise_value, tk_loc promise_loc,
                      tk_expr *default_value);
tk_param_list tk_ast_param_list_add(tk_parser *p, tk_param_list list, tk_param param);
tk_decorator_list tk_ast_decorator_add(tk_parser *p, tk_decorator_list list, tk_loc loc,
                                       tk_expr *e);
tk_stmt *tk_ast_def(tk_parser *p, tk_loc loc, tk_decorator_list decorators,
                    const tk_token *name, tk_param_list params, tk_expr *returns,
                    tk_stmt_list body);

/* The dotted name a.b.c of NAME/ATTR chains, or NULL. */
const char *tk_ast_dotted_name(tk_parser *p, const tk_expr *e);

#endif
