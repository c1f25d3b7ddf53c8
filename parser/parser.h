/* parser: tokens -> AST (prefix tk_parse_, tk_ast_).
 *
 * A Bison LALR(1) grammar (pure, with locations) builds the tree below in an
 * arena; every node carries the exact source range it came from. Syntax
 * errors name what was expected, the parser recovers at the next statement
 * and reports more than one error per file. */
#ifndef TK_PARSER_H
#define TK_PARSER_H

#include "../lexer/lexer.h"

typedef struct tk_expr tk_expr;
typedef struct tk_stmt tk_stmt;

typedef TK_VEC(tk_expr *) tk_expr_list;
typedef TK_VEC(tk_stmt *) tk_stmt_list;

typedef enum tk_unop { TK_UNOP_NEG, TK_UNOP_POS, TK_UNOP_INVERT, TK_UNOP_NOT } tk_unop;

/* Binary operators, in the order of their spelling table (tk_ast_binop_spelling). */
typedef enum tk_binop {
    TK_BINOP_ADD, TK_BINOP_SUB, TK_BINOP_MUL, TK_BINOP_DIV, TK_BINOP_FLOORDIV,
    TK_BINOP_MOD, TK_BINOP_POW, TK_BINOP_MATMUL, TK_BINOP_SHL, TK_BINOP_SHR,
    TK_BINOP_AND, TK_BINOP_OR, TK_BINOP_XOR,
    /* comparisons */
    TK_BINOP_LT, TK_BINOP_GT, TK_BINOP_LE, TK_BINOP_GE, TK_BINOP_EQ, TK_BINOP_NE,
    TK_BINOP_IS, TK_BINOP_IS_NOT, TK_BINOP_IN, TK_BINOP_NOT_IN,
    /* short-circuit logic */
    TK_BINOP_LOGICAL_AND, TK_BINOP_LOGICAL_OR,
    TK_BINOP_COUNT
} tk_binop;

typedef enum tk_expr_kind {
    TK_EXPR_NAME, TK_EXPR_INT, TK_EXPR_FLOAT, TK_EXPR_STRING, TK_EXPR_BOOL,
    TK_EXPR_NONE, TK_EXPR_UNARY, TK_EXPR_BINARY, TK_EXPR_COMPARE, TK_EXPR_TERNARY,
    TK_EXPR_LAMBDA, TK_EXPR_CALL, TK_EXPR_ATTR, TK_EXPR_SUBSCRIPT, TK_EXPR_SLICE,
    TK_EXPR_TUPLE, TK_EXPR_LIST, TK_EXPR_KEYWORD, TK_EXPR_STARRED,
    /* {key: value, ...}: items are the keys and values, alternating */
    TK_EXPR_DICT,
    /* a type in a parameter annotation: `*f16`, `f32`, `constexpr` */
    TK_EXPR_POINTER_TYPE,
    /* [element for target in iterable if cond ...]: a list comprehension */
    TK_EXPR_COMPREHENSION
} tk_expr_kind;

/* One `for target in iterable` (target set) or `if cond` (target NULL)
 * of a comprehension, in the order written. */
typedef struct tk_comp_clause {
    tk_expr *target;  /* a NAME, or a TUPLE of names; NULL for an if */
    tk_expr *value;   /* the iterable, or the if's condition */
} tk_comp_clause;

/* Limits every later stage can walk recursively (sema's evaluator, the
 * lowering, the printers) within a thread's stack, with room to spare;
 * Python's own parser stops at 200 nested parentheses. */
enum { TK_MAX_EXPR_DEPTH = 256, TK_MAX_BLOCK_DEPTH = 100 };

struct tk_expr {
    tk_expr_kind kind;
    tk_loc loc;
    uint32_t depth;    /* 1 + its deepest operand's */
    union {
        const char *name;                      /* NAME (interned) */
        uint64_t int_value;                    /* INT */
        double float_value;                    /* FLOAT */
        struct { const char *text; uint32_t len; } string; /* STRING */
        bool bool_value;                       /* BOOL */
        struct { tk_unop op; tk_expr *operand; } unary;
        struct { tk_binop op; tk_expr *lhs, *rhs; } binary;
        /* a < b <= c: operands[0] ops[0] operands[1] ... */
        struct { tk_expr_list operands; TK_VEC(tk_binop) ops; } compare;
        struct { tk_expr *cond, *then, *otherwise; } ternary;
        struct { TK_VEC(const char *) params; tk_expr *body; } lambda;
        /* args hold positional arguments, then KEYWORD nodes */
        struct { tk_expr *callee; tk_expr_list args; } call;
        struct { tk_expr *object; const char *name; tk_loc name_loc; } attr;
        struct { tk_expr *object; tk_expr_list indices; } subscript;
        struct { tk_expr *lo, *hi, *step; } slice;  /* each may be NULL */
        tk_expr_list items;                    /* TUPLE, LIST, DICT */
        struct { const char *name; tk_loc name_loc; tk_expr *value; } keyword;
        tk_expr *starred;                      /* STARRED: *args in a call */
        tk_expr *pointee;                      /* POINTER_TYPE */
        struct { tk_expr *element; TK_VEC(tk_comp_clause) clauses; } comp; /* COMPREHENSION */
    } u;
};

typedef enum tk_stmt_kind {
    TK_STMT_EXPR, TK_STMT_ASSIGN, TK_STMT_AUGASSIGN, TK_STMT_IF, TK_STMT_FOR,
    TK_STMT_WHILE, TK_STMT_RETURN, TK_STMT_PASS, TK_STMT_BREAK, TK_STMT_CONTINUE,
    TK_STMT_ASSERT, TK_STMT_DEF, TK_STMT_IMPORT,
    TK_STMT_RAISE   /* raise EXC: the exception in u.expr (NULL for a bare raise) */
} tk_stmt_kind;

/* What a parameter's annotation promises about its value at run time
 * (OPTIONAL: `*T | None`, a pointer that may be None, that is NULL). */
typedef enum tk_promise { TK_PROMISE_NONE, TK_PROMISE_DIVISIBLE, TK_PROMISE_EQUAL, TK_PROMISE_OPTIONAL } tk_promise;

typedef struct tk_param {
    const char *name;
    tk_loc loc;
    tk_expr *annotation;  /* NULL when absent */
    tk_promise promise;
    uint64_t promise_value;
    tk_loc promise_loc;
    tk_expr *default_value;  /* NULL when absent */
} tk_param;

typedef struct tk_decorator {
    tk_expr *expr;  /* a NAME/ATTR, or a CALL of one */
    tk_loc loc;
} tk_decorator;

typedef struct tk_def {
    const char *name;
    tk_loc name_loc;
    TK_VEC(tk_param) params;
    TK_VEC(tk_decorator) decorators;
    tk_expr *returns;  /* `-> T`, may be NULL */
    tk_stmt_list body;
} tk_def;

struct tk_stmt {
    tk_stmt_kind kind;
    tk_loc loc;
    union {
        tk_expr *expr;                                   /* EXPR, RETURN (may be NULL) */
        /* a = b = value: targets in order */
        /* annotation: `NAME: tl.constexpr = value` (NULL without one) */
        struct { tk_expr_list targets; tk_expr *value, *annotation; } assign;
        struct { tk_binop op; tk_expr *target, *value; } augassign;
        /* elif chains are nested IFs in otherwise */
        struct { tk_expr *cond; tk_stmt_list then, otherwise; } if_;
        struct { tk_expr *target, *iter; tk_stmt_list body; } for_;
        struct { tk_expr *cond; tk_stmt_list body; } while_;
        struct { tk_expr *cond, *message; } assert_;
        tk_def *def;
        /* import a.b as c / from a.b import c as d */
        struct { const char *module, *name, *alias; } import;
    } u;
};

typedef struct tk_module {
    const tk_source *src;
    tk_stmt_list body;
} tk_module;

/* Parses tokens into a module. Reports syntax errors to diag; returns the
 * (possibly partial) module either way. */
tk_module *tk_parse_tokens(tk_arena *arena, tk_interner *names, tk_diag *diag,
                           const tk_source *src, const tk_token_list *tokens);

const char *tk_ast_binop_spelling(tk_binop op);
const char *tk_ast_unop_spelling(tk_unop op);
/* The stable, indented dump of `tkc --emit=ast`. */
void tk_ast_print(FILE *out, const tk_module *module);
/* Python-like source text of an expression (for messages and dumps). */
void tk_ast_print_expr(FILE *out, const tk_expr *expr);

#endif
