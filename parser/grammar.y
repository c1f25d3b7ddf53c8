/* The .tk grammar: Python's statement and expression syntax, restricted to
 * what kernels use, plus the annotation forms of kernel signatures
 * (`*f16 % 16`, `i32 == 1`, `constexpr = 1024`). Actions are one-line calls
 * to the constructors in ast.c. Needs: the token list of lexer/, which ends
 * with EOF and has balanced INDENT/DEDENT. */
%code requires {
#include "internal.h"
}

%code provides {
int tk_yylex(TK_YYSTYPE *value, tk_loc *loc, tk_parser *p);
}

%define api.prefix {tk_yy}
%define api.pure full
%define api.location.type {tk_loc}
%define parse.error custom
%locations
%param {tk_parser *p}
%expect 0

%code {
#include <string.h>

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                           \
    do {                                                                      \
        if (N) {                                                              \
            int first_ = 1, last_ = N;                                        \
            while (first_ < (int)(N) &&                                       \
                   YYRHSLOC(Rhs, first_).begin == YYRHSLOC(Rhs, first_).end)  \
                first_++;                                                     \
            while (last_ > first_ &&                                          \
                   YYRHSLOC(Rhs, last_).begin == YYRHSLOC(Rhs, last_).end)    \
                last_--;                                                      \
            (Cur) = tk_loc_span(YYRHSLOC(Rhs, first_), YYRHSLOC(Rhs, last_)); \
        } else {                                                              \
            (Cur) = YYRHSLOC(Rhs, 0);                                         \
            (Cur).begin = (Cur).end;                                          \
        }                                                                     \
    } while (0)
static const tk_stmt_list no_stmts;
/* Bison's own messages (stack exhaustion on absurdly deep nesting). */
static void tk_yyerror(tk_loc *loc, tk_parser *p, const char *message) {
    tk_error(p->diag, *loc, "%s: the expression or block nesting is too deep", message);
}
static const tk_expr_list no_exprs;
}

%union {
    tk_token tok;
    tk_expr *expr;
    tk_stmt *stmt;
    tk_expr_list exprs;
    tk_stmt_list stmts;
    tk_param param;
    tk_param_list params;
    tk_decorator_list decorators;
    tk_binop binop;
    struct { tk_expr_list items; bool trailing_comma; } seq;
}

%token <tok> T_EOF 0 "end of file"
%token <tok> T_NEWLINE "end of line" T_INDENT "indent" T_DEDENT "dedent"
%token <tok> T_NAME "name" T_INT "integer" T_FLOAT "number" T_STRING "string"
%token <tok> T_KW_DEF "def" T_KW_RETURN "return" T_KW_IF "if" T_KW_ELIF "elif"
%token <tok> T_KW_ELSE "else" T_KW_FOR "for" T_KW_IN "in" T_KW_WHILE "while"
%token <tok> T_KW_BREAK "break" T_KW_CONTINUE "continue" T_KW_PASS "pass"
%token <tok> T_KW_ASSERT "assert" T_KW_AND "and" T_KW_OR "or" T_KW_NOT "not"
%token <tok> T_KW_IS "is" T_KW_LAMBDA "lambda" T_KW_NONE "None" T_KW_TRUE "True"
%token <tok> T_KW_FALSE "False" T_KW_IMPORT "import" T_KW_FROM "from" T_KW_AS "as"
%token <tok> T_KW_RAISE "raise"
%token <tok> T_LPAREN "(" T_RPAREN ")" T_LBRACKET "[" T_RBRACKET "]"
%token <tok> T_LBRACE "{" T_RBRACE "}" T_COMMA "," T_COLON ":" T_DOT "."
%token <tok> T_SEMI ";" T_ARROW "->" T_AT "@" T_ASSIGN "="
%token <tok> T_PLUS "+" T_MINUS "-" T_STAR "*" T_SLASH "/" T_DSLASH "//"
%token <tok> T_PERCENT "%" T_POW "**" T_SHL "<<" T_SHR ">>" T_AMP "&"
%token <tok> T_PIPE "|" T_CARET "^" T_TILDE "~"
%token <tok> T_LT "<" T_GT ">" T_LE "<=" T_GE ">=" T_EQ "==" T_NE "!="
%token <tok> T_PLUS_ASSIGN "+=" T_MINUS_ASSIGN "-=" T_STAR_ASSIGN "*="
%token <tok> T_SLASH_ASSIGN "/=" T_DSLASH_ASSIGN "//=" T_PERCENT_ASSIGN "%="
%token <tok> T_POW_ASSIGN "**=" T_AT_ASSIGN "@=" T_SHL_ASSIGN "<<="
%token <tok> T_SHR_ASSIGN ">>=" T_AMP_ASSIGN "&=" T_PIPE_ASSIGN "|="
%token <tok> T_CARET_ASSIGN "^="

%type <stmts> file_input stmts stmt simple_stmt small_stmts block else_part
%type <stmts> import_names from_items
%type <stmt> small_stmt expr_stmt compound_stmt if_stmt for_stmt while_stmt funcdef
%type <expr> test or_test and_test not_test comparison bor bxor band shift arith
%type <expr> term factor power primary atom strings testlist lambdef
%type <expr> arg subscript test_opt type_expr annotation_opt default_opt returns_opt
%type <expr> exprlist dotted comp_clauses
%type <exprs> assign_targets args_opt args subscripts lambda_params dict_items
%type <seq> test_seq expr_seq
%type <binop> comp_op augop
%type <param> param
%type <params> params params_opt
%type <decorators> decorators

%start file_input

%%

file_input
    : %empty                { $$ = no_stmts; }
    | file_input stmt       { $$ = tk_ast_stmt_list_cat(p, $1, $2); p->module->body = $$; }
    ;

stmts
    : stmt                  { $$ = $1; }
    | stmts stmt            { $$ = tk_ast_stmt_list_cat(p, $1, $2); }
    ;

stmt
    : simple_stmt           { $$ = $1; }
    | compound_stmt         { $$ = tk_ast_stmt_list1(p, $1); }
    | error T_NEWLINE       { $$ = no_stmts; yyerrok; p->drop_next_indent = true; }
    ;

simple_stmt
    : small_stmts T_NEWLINE         { $$ = $1; }
    | small_stmts T_SEMI T_NEWLINE  { $$ = $1; }
    ;

small_stmts
    : small_stmt                    { $$ = tk_ast_stmt_list1(p, $1); }
    | import_names                  { $$ = $1; }
    | small_stmts T_SEMI small_stmt { $$ = tk_ast_stmt_list_add(p, $1, $3); }
    ;

small_stmt
    : expr_stmt                     { $$ = $1; }
    | T_KW_PASS                     { $$ = tk_ast_stmt(p, TK_STMT_PASS, @$); }
    | T_KW_BREAK                    { $$ = tk_ast_stmt(p, TK_STMT_BREAK, @$); }
    | T_KW_CONTINUE                 { $$ = tk_ast_stmt(p, TK_STMT_CONTINUE, @$); }
    | T_KW_RETURN                   { $$ = tk_ast_return(p, @$, NULL); }
    | T_KW_RETURN testlist          { $$ = tk_ast_return(p, @$, $2); }
    | T_KW_ASSERT test              { $$ = tk_ast_assert(p, @$, $2, NULL); }
    | T_KW_ASSERT test T_COMMA test { $$ = tk_ast_assert(p, @$, $2, $4); }
    | T_KW_RAISE                    { $$ = tk_ast_raise(p, @$, NULL); }
    | T_KW_RAISE test               { $$ = tk_ast_raise(p, @$, $2); }
    | T_KW_RAISE test T_KW_FROM test { $$ = tk_ast_raise(p, @$, $2); }
    ;

import_names
    : T_KW_IMPORT dotted                    { $$ = tk_ast_stmt_list1(p, tk_ast_import(p, @$, $2, NULL, NULL)); }
    | T_KW_IMPORT dotted T_KW_AS T_NAME     { $$ = tk_ast_stmt_list1(p, tk_ast_import(p, @$, $2, NULL, &$4)); }
    | T_KW_FROM dotted T_KW_IMPORT from_items                       { $$ = tk_ast_import_from(p, $2, $4); }
    | T_KW_FROM dotted T_KW_IMPORT T_LPAREN from_items T_RPAREN     { $$ = tk_ast_import_from(p, $2, $5); }
    | T_KW_FROM dotted T_KW_IMPORT T_LPAREN from_items T_COMMA T_RPAREN { $$ = tk_ast_import_from(p, $2, $5); }
    ;

/* the names of `from M import a, b as c`: one import statement each, at
 * its name (tk_ast_import_from fills in the module) */
from_items
    : T_NAME                                { $$ = tk_ast_stmt_list1(p, tk_ast_import(p, @$, NULL, tk_ast_name(p, @1, $1.u.text), NULL)); }
    | T_NAME T_KW_AS T_NAME                 { $$ = tk_ast_stmt_list1(p, tk_ast_import(p, @$, NULL, tk_ast_name(p, @1, $1.u.text), &$3)); }
    | from_items T_COMMA T_NAME             { $$ = tk_ast_stmt_list_add(p, $1, tk_ast_import(p, @3, NULL, tk_ast_name(p, @3, $3.u.text), NULL)); }
    | from_items T_COMMA T_NAME T_KW_AS T_NAME { $$ = tk_ast_stmt_list_add(p, $1, tk_ast_import(p, tk_loc_span(@3, @5), NULL, tk_ast_name(p, @3, $3.u.text), &$5)); }
    ;

dotted
    : T_NAME                { $$ = tk_ast_name(p, @$, $1.u.text); }
    | dotted T_DOT T_NAME   { $$ = tk_ast_attr(p, @$, $1, &$3); }
    ;

expr_stmt
    : testlist                      { $$ = tk_ast_expr_stmt(p, @$, $1); }
    | assign_targets testlist       { $$ = tk_ast_assign(p, @$, $1, $2); }
    | T_NAME T_COLON type_expr T_ASSIGN testlist
        { $$ = tk_ast_annotated_assign(p, @$, tk_ast_name(p, @1, $1.u.text), $3, $5); }
    | testlist augop testlist       { $$ = tk_ast_augassign(p, @$, $1, $2, $3); }
    ;

assign_targets
    : testlist T_ASSIGN                 { $$ = tk_ast_expr_list1(p, $1); }
    | assign_targets testlist T_ASSIGN  { $$ = tk_ast_expr_list_add(p, $1, $2); }
    ;

augop
    : T_PLUS_ASSIGN     { $$ = TK_BINOP_ADD; }
    | T_MINUS_ASSIGN    { $$ = TK_BINOP_SUB; }
    | T_STAR_ASSIGN     { $$ = TK_BINOP_MUL; }
    | T_SLASH_ASSIGN    { $$ = TK_BINOP_DIV; }
    | T_DSLASH_ASSIGN   { $$ = TK_BINOP_FLOORDIV; }
    | T_PERCENT_ASSIGN  { $$ = TK_BINOP_MOD; }
    | T_POW_ASSIGN      { $$ = TK_BINOP_POW; }
    | T_AT_ASSIGN       { $$ = TK_BINOP_MATMUL; }
    | T_SHL_ASSIGN      { $$ = TK_BINOP_SHL; }
    | T_SHR_ASSIGN      { $$ = TK_BINOP_SHR; }
    | T_AMP_ASSIGN      { $$ = TK_BINOP_AND; }
    | T_PIPE_ASSIGN     { $$ = TK_BINOP_OR; }
    | T_CARET_ASSIGN    { $$ = TK_BINOP_XOR; }
    ;

compound_stmt
    : if_stmt       { $$ = $1; }
    | for_stmt      { $$ = $1; }
    | while_stmt    { $$ = $1; }
    | funcdef       { $$ = $1; }
    ;

if_stmt
    : T_KW_IF test T_COLON block else_part  { $$ = tk_ast_if(p, @$, $2, $4, $5); }
    ;

else_part
    : %empty                                    { $$ = no_stmts; }
    | T_KW_ELSE T_COLON block                   { $$ = $3; }
    | T_KW_ELIF test T_COLON block else_part    { $$ = tk_ast_stmt_list1(p, tk_ast_if(p, @$, $2, $4, $5)); }
    ;

for_stmt
    : T_KW_FOR exprlist T_KW_IN testlist T_COLON block  { $$ = tk_ast_for(p, @$, $2, $4, $6); }
    ;

while_stmt
    : T_KW_WHILE test T_COLON block     { $$ = tk_ast_while(p, @$, $2, $4); }
    ;

block
    : simple_stmt                       { $$ = $1; }
    | T_NEWLINE T_INDENT stmts T_DEDENT { $$ = $3; }
    ;

funcdef
    : decorators T_KW_DEF T_NAME T_LPAREN params_opt T_RPAREN returns_opt T_COLON block
        { $$ = tk_ast_def(p, @$, $1, &$3, $5, $7, $9); }
    ;

decorators
    : %empty                            { $$ = (tk_decorator_list){0}; }
    | decorators T_AT test T_NEWLINE    { $$ = tk_ast_decorator_add(p, $1, @3, $3); }
    ;

returns_opt
    : %empty                { $$ = NULL; }
    | T_ARROW type_expr     { $$ = $2; }
    ;

params_opt
    : %empty                { $$ = (tk_param_list){0}; }
    | params                { $$ = $1; }
    | params T_COMMA        { $$ = $1; }
    ;

params
    : param                     { $$ = tk_ast_param_list_add(p, (tk_param_list){0}, $1); }
    | params T_COMMA param      { $$ = tk_ast_param_list_add(p, $1, $3); }
    ;

param
    : T_NAME annotation_opt default_opt
        { $$ = tk_ast_param(p, &$1, $2, TK_PROMISE_NONE, NULL, @1, $3); }
    | T_NAME T_COLON type_expr T_PERCENT T_INT default_opt
        { $$ = tk_ast_param(p, &$1, $3, TK_PROMISE_DIVISIBLE, &$5, tk_loc_span(@4, @5), $6); }
    | T_NAME T_COLON type_expr T_EQ T_INT default_opt
        { $$ = tk_ast_param(p, &$1, $3, TK_PROMISE_EQUAL, &$5, tk_loc_span(@4, @5), $6); }
    | T_NAME T_COLON type_expr T_PIPE T_KW_NONE default_opt
        { $$ = tk_ast_param(p, &$1, $3, TK_PROMISE_OPTIONAL, NULL, tk_loc_span(@4, @5), $6); }
    | T_NAME T_COLON type_expr T_PERCENT T_INT T_PIPE T_KW_NONE default_opt
        { tk_error(p->diag, tk_loc_span(@4, @5), "a pointer that may be None takes no '%%' promise "
                   "(not supported yet): drop it, or make the pointer required");
          $$ = tk_ast_param(p, &$1, $3, TK_PROMISE_OPTIONAL, NULL, tk_loc_span(@6, @7), $8); }
    ;

annotation_opt
    : %empty                { $$ = NULL; }
    | T_COLON type_expr     { $$ = $2; }
    ;

default_opt
    : %empty                { $$ = NULL; }
    | T_ASSIGN test         { $$ = $2; }
    ;

type_expr
    : dotted                { $$ = $1; }
    | dotted T_LBRACKET subscripts T_RBRACKET  { $$ = tk_ast_subscript(p, @$, $1, $3); }
    | T_STAR type_expr      { $$ = tk_ast_pointer_type(p, @$, $2); }
    | T_POW type_expr       { $$ = tk_ast_pointer_type(p, @$, tk_ast_pointer_type(p, @$, $2)); }
    ;

/* ---- expressions, Python's precedence from loosest to tightest ---- */

testlist
    : test_seq              { $$ = tk_ast_tuple_or_expr(p, @$, $1.items, $1.trailing_comma); }
    ;

test_seq
    : test                      { $$.items = tk_ast_expr_list1(p, $1); $$.trailing_comma = false; }
    | test_seq T_COMMA          { $$ = $1; $$.trailing_comma = true; }
    | test_seq T_COMMA test     { $$.items = tk_ast_expr_list_add(p, $1.items, $3); $$.trailing_comma = false; }
    ;

/* for-loop targets stop below comparisons, so `in` is not an operator there */
exprlist
    : expr_seq              { $$ = tk_ast_tuple_or_expr(p, @$, $1.items, $1.trailing_comma); }
    ;

expr_seq
    : bor                       { $$.items = tk_ast_expr_list1(p, $1); $$.trailing_comma = false; }
    | expr_seq T_COMMA          { $$ = $1; $$.trailing_comma = true; }
    | expr_seq T_COMMA bor      { $$.items = tk_ast_expr_list_add(p, $1.items, $3); $$.trailing_comma = false; }
    ;

test
    : or_test                               { $$ = $1; }
    | or_test T_KW_IF or_test T_KW_ELSE test { $$ = tk_ast_ternary(p, @$, $1, $3, $5); }
    | lambdef                               { $$ = $1; }
    ;

lambdef
    : T_KW_LAMBDA lambda_params T_COLON test    { $$ = tk_ast_lambda(p, @$, &$2, $4); }
    | T_KW_LAMBDA T_COLON test                  { $$ = tk_ast_lambda(p, @$, NULL, $3); }
    ;

lambda_params
    : T_NAME                            { $$ = tk_ast_expr_list1(p, tk_ast_name(p, @1, $1.u.text)); }
    | lambda_params T_COMMA T_NAME      { $$ = tk_ast_expr_list_add(p, $1, tk_ast_name(p, @3, $3.u.text)); }
    ;

or_test
    : and_test                          { $$ = $1; }
    | or_test T_KW_OR and_test          { $$ = tk_ast_binary(p, @$, TK_BINOP_LOGICAL_OR, $1, $3); }
    ;

and_test
    : not_test                          { $$ = $1; }
    | and_test T_KW_AND not_test        { $$ = tk_ast_binary(p, @$, TK_BINOP_LOGICAL_AND, $1, $3); }
    ;

not_test
    : comparison                        { $$ = $1; }
    | T_KW_NOT not_test                 { $$ = tk_ast_unary(p, @$, TK_UNOP_NOT, $2); }
    ;

comparison
    : bor                               { $$ = $1; }
    | comparison comp_op bor            { $$ = tk_ast_compare(p, @$, $1, $2, $3); }
    ;

comp_op
    : T_LT                  { $$ = TK_BINOP_LT; }
    | T_GT                  { $$ = TK_BINOP_GT; }
    | T_LE                  { $$ = TK_BINOP_LE; }
    | T_GE                  { $$ = TK_BINOP_GE; }
    | T_EQ                  { $$ = TK_BINOP_EQ; }
    | T_NE                  { $$ = TK_BINOP_NE; }
    | T_KW_IN               { $$ = TK_BINOP_IN; }
    | T_KW_NOT T_KW_IN      { $$ = TK_BINOP_NOT_IN; }
    | T_KW_IS               { $$ = TK_BINOP_IS; }
    | T_KW_IS T_KW_NOT      { $$ = TK_BINOP_IS_NOT; }
    ;

bor
    : bxor                  { $$ = $1; }
    | bor T_PIPE bxor       { $$ = tk_ast_binary(p, @$, TK_BINOP_OR, $1, $3); }
    ;

bxor
    : band                  { $$ = $1; }
    | bxor T_CARET band     { $$ = tk_ast_binary(p, @$, TK_BINOP_XOR, $1, $3); }
    ;

band
    : shift                 { $$ = $1; }
    | band T_AMP shift      { $$ = tk_ast_binary(p, @$, TK_BINOP_AND, $1, $3); }
    ;

shift
    : arith                 { $$ = $1; }
    | shift T_SHL arith     { $$ = tk_ast_binary(p, @$, TK_BINOP_SHL, $1, $3); }
    | shift T_SHR arith     { $$ = tk_ast_binary(p, @$, TK_BINOP_SHR, $1, $3); }
    ;

arith
    : term                  { $$ = $1; }
    | arith T_PLUS term     { $$ = tk_ast_binary(p, @$, TK_BINOP_ADD, $1, $3); }
    | arith T_MINUS term    { $$ = tk_ast_binary(p, @$, TK_BINOP_SUB, $1, $3); }
    ;

term
    : factor                { $$ = $1; }
    | term T_STAR factor    { $$ = tk_ast_binary(p, @$, TK_BINOP_MUL, $1, $3); }
    | term T_SLASH factor   { $$ = tk_ast_binary(p, @$, TK_BINOP_DIV, $1, $3); }
    | term T_DSLASH factor  { $$ = tk_ast_binary(p, @$, TK_BINOP_FLOORDIV, $1, $3); }
    | term T_PERCENT factor { $$ = tk_ast_binary(p, @$, TK_BINOP_MOD, $1, $3); }
    | term T_AT factor      { $$ = tk_ast_binary(p, @$, TK_BINOP_MATMUL, $1, $3); }
    ;

factor
    : power                 { $$ = $1; }
    | T_PLUS factor         { $$ = tk_ast_unary(p, @$, TK_UNOP_POS, $2); }
    | T_MINUS factor        { $$ = tk_ast_unary(p, @$, TK_UNOP_NEG, $2); }
    | T_TILDE factor        { $$ = tk_ast_unary(p, @$, TK_UNOP_INVERT, $2); }
    ;

power
    : primary               { $$ = $1; }
    | primary T_POW factor  { $$ = tk_ast_binary(p, @$, TK_BINOP_POW, $1, $3); }
    ;

primary
    : atom                                      { $$ = $1; }
    | primary T_DOT T_NAME                      { $$ = tk_ast_attr(p, @$, $1, &$3); }
    | primary T_LPAREN args_opt T_RPAREN        { $$ = tk_ast_call(p, @$, $1, $3); }
    | primary T_LBRACKET subscripts T_RBRACKET  { $$ = tk_ast_subscript(p, @$, $1, $3); }
    ;

atom
    : T_NAME                            { $$ = tk_ast_name(p, @$, $1.u.text); }
    | T_INT                             { $$ = tk_ast_int(p, @$, $1.u.int_value); }
    | T_FLOAT                           { $$ = tk_ast_float(p, @$, $1.u.float_value); }
    | strings                           { $$ = $1; }
    | T_KW_TRUE                         { $$ = tk_ast_bool(p, @$, true); }
    | T_KW_FALSE                        { $$ = tk_ast_bool(p, @$, false); }
    | T_KW_NONE                         { $$ = tk_ast_expr(p, TK_EXPR_NONE, @$); }
    | T_LPAREN T_RPAREN                 { $$ = tk_ast_tuple_or_expr(p, @$, no_exprs, true); }
    | T_LPAREN test_seq T_RPAREN        { $$ = tk_ast_tuple_or_expr(p, @$, $2.items, $2.trailing_comma); }
    | T_LBRACKET T_RBRACKET             { $$ = tk_ast_list(p, @$, no_exprs); }
    | T_LBRACKET test_seq T_RBRACKET    { $$ = tk_ast_list(p, @$, $2.items); }
    | T_LBRACKET test comp_clauses T_RBRACKET { $$ = tk_ast_comprehension(p, @$, $2, $3); }
    | T_LBRACE T_RBRACE                 { $$ = tk_ast_dict(p, @$, no_exprs); }
    | T_LBRACE dict_items T_RBRACE      { $$ = tk_ast_dict(p, @$, $2); }
    | T_LBRACE dict_items T_COMMA T_RBRACE { $$ = tk_ast_dict(p, @$, $2); }
    ;

/* a list comprehension's clauses: `for` first, then `for` and `if` in any
 * order (the iterable and the condition stop below a conditional
 * expression, as in Python) */
comp_clauses
    : T_KW_FOR exprlist T_KW_IN or_test                { $$ = tk_ast_comp_clause(p, @$, NULL, $2, $4); }
    | comp_clauses T_KW_FOR exprlist T_KW_IN or_test   { $$ = tk_ast_comp_clause(p, @2, $1, $3, $5); }
    | comp_clauses T_KW_IF or_test                     { $$ = tk_ast_comp_clause(p, @2, $1, NULL, $3); }
    ;

dict_items
    : test T_COLON test                 { $$ = tk_ast_expr_list_add(p, tk_ast_expr_list1(p, $1), $3); }
    | dict_items T_COMMA test T_COLON test
        { $$ = tk_ast_expr_list_add(p, tk_ast_expr_list_add(p, $1, $3), $5); }
    ;

strings
    : T_STRING              { $$ = tk_ast_string(p, @$, $1.u.text, $1.text_len); }
    | strings T_STRING      { $$ = tk_ast_string_concat(p, $1, @$, $2.u.text, $2.text_len); }
    ;

args_opt
    : %empty                { $$ = no_exprs; }
    | args                  { $$ = $1; }
    | args T_COMMA          { $$ = $1; }
    ;

args
    : arg                   { $$ = tk_ast_expr_list1(p, $1); }
    | args T_COMMA arg      { $$ = tk_ast_expr_list_add(p, $1, $3); }
    ;

arg
    : test                  { $$ = $1; }
    | test T_ASSIGN test    { $$ = tk_ast_keyword(p, @$, $1, $3); }
    | T_STAR test           { $$ = tk_ast_starred(p, @$, $2); }
    ;

subscripts
    : subscript                         { $$ = tk_ast_expr_list1(p, $1); }
    | subscripts T_COMMA subscript      { $$ = tk_ast_expr_list_add(p, $1, $3); }
    ;

subscript
    : test                                      { $$ = $1; }
    | test_opt T_COLON test_opt                 { $$ = tk_ast_slice(p, @$, $1, $3, NULL); }
    | test_opt T_COLON test_opt T_COLON test_opt { $$ = tk_ast_slice(p, @$, $1, $3, $5); }
    ;

test_opt
    : %empty                { $$ = NULL; }
    | test                  { $$ = $1; }
    ;

%%

/* Lexer kinds to Bison token numbers, and Bison symbols back to lexer kinds
 * (for messages). Both come from the one token table in lexer.h. */
static const int bison_token_of[TK_TOK_COUNT] = {
#define TK_TO_BISON(name, spelling) [TK_TOK_##name] = T_##name,
    TK_TOKENS(TK_TO_BISON)
#undef TK_TO_BISON
};

static int lexer_kind_of_symbol(yysymbol_kind_t sym) {
#define YYSYMBOL_T_EOF YYSYMBOL_YYEOF
#define TK_FROM_BISON(name, spelling) if (sym == YYSYMBOL_T_##name) return TK_TOK_##name;
    TK_TOKENS(TK_FROM_BISON)
#undef TK_FROM_BISON
    return -1;
}

/* Hands the parser the next token, less the layout tokens that error
 * recovery drops (see tk_parser.drop_next_indent). */
static const tk_token *next_token(tk_parser *p) {
    for (;;) {
        const tk_token *t = &p->tokens->data[p->pos];
        if (t->kind != TK_TOK_EOF) p->pos++;
        if (t->kind == TK_TOK_INDENT) {
            p->indent_depth++;
            tk_ast_check_block_depth(p, t->loc);
            if (p->drop_next_indent && p->dropped_count < 64) {
                p->dropped[p->dropped_count++] = p->indent_depth;
                p->drop_next_indent = false;
                continue;
            }
        } else if (t->kind == TK_TOK_DEDENT) {
            int depth = p->indent_depth--;
            if (p->dropped_count && p->dropped[p->dropped_count - 1] == depth) {
                p->dropped_count--;
                continue;
            }
        }
        p->drop_next_indent = false;
        return t;
    }
}

int tk_yylex(TK_YYSTYPE *value, tk_loc *loc, tk_parser *p) {
    const tk_token *t = next_token(p);
    bool at_line_start = p->pos <= 1;
    if (!at_line_start) {
        tk_tok prev = p->tokens->data[p->pos - 2].kind;
        at_line_start = prev == TK_TOK_NEWLINE || prev == TK_TOK_INDENT || prev == TK_TOK_DEDENT;
    }
    if (at_line_start && t->kind != TK_TOK_INDENT && t->kind != TK_TOK_DEDENT) {
        p->line_start_kind = t->kind;
        p->line_start_loc = t->loc;
    }
    value->tok = *t;
    *loc = t->loc;
    return bison_token_of[t->kind];
}

static bool starts_expression(int kind) {
    switch (kind) {
    case TK_TOK_NAME: case TK_TOK_INT: case TK_TOK_FLOAT: case TK_TOK_STRING:
    case TK_TOK_LPAREN: case TK_TOK_LBRACKET: case TK_TOK_LBRACE: case TK_TOK_MINUS: case TK_TOK_PLUS:
    case TK_TOK_TILDE: case TK_TOK_KW_NOT: case TK_TOK_KW_LAMBDA: case TK_TOK_KW_NONE:
    case TK_TOK_KW_TRUE: case TK_TOK_KW_FALSE:
        return true;
    default:
        return false;
    }
}

static const char *header_name(tk_tok kind) {
    switch (kind) {
    case TK_TOK_KW_FOR: return "for";
    case TK_TOK_KW_IF: return "if";
    case TK_TOK_KW_ELIF: return "elif";
    case TK_TOK_KW_ELSE: return "else";
    case TK_TOK_KW_WHILE: return "while";
    case TK_TOK_KW_DEF: return "def";
    default: return NULL;
    }
}

static const char *describe_found(int kind) {
    switch (kind) {
    case TK_TOK_NEWLINE: return "the end of the line";
    case TK_TOK_EOF: return "the end of the file";
    case TK_TOK_INDENT: return "an indented line";
    case TK_TOK_DEDENT: return "the end of the block";
    case TK_TOK_NAME: return "a name";
    case TK_TOK_INT: return "an integer";
    case TK_TOK_FLOAT: return "a number";
    case TK_TOK_STRING: return "a string";
    default: return NULL;
    }
}

/* Reports "expected X before Y" in the user's terms: punctuation quoted,
 * expression starters folded into "an expression", the construct named when
 * a block header lacks its ':'. */
static int yyreport_syntax_error(const yypcontext_t *ctx, tk_parser *p) {
    yysymbol_kind_t expected_syms[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, expected_syms, YYNTOKENS);
    int found = lexer_kind_of_symbol(yypcontext_token(ctx));
    tk_loc loc = *yypcontext_location(ctx);
    if (loc.begin > p->tokens->unclosed_at) return 0; /* the unclosed bracket's doing */
    int expected[YYNTOKENS], count = 0;
    bool wants_expression = false, wants_colon = false;
    for (int i = 0; i < n; i++) {
        int k = lexer_kind_of_symbol(expected_syms[i]);
        if (k < 0) continue;
        if (starts_expression(k)) { wants_expression = true; continue; }
        if (k == TK_TOK_COLON) wants_colon = true;
        expected[count++] = k;
    }
    char found_text[96];
    const char *found_desc = found >= 0 ? describe_found(found) : NULL;
    if (!found_desc) {
        snprintf(found_text, sizeof found_text, "'%s'",
                 found >= 0 ? tk_lex_token_spelling((tk_tok)found) : "?");
        found_desc = found_text;
    }
    const char *header = header_name(p->line_start_kind);
    /* Python forms the language lacks, named rather than reported as a
     * stray token: a `for` inside a line is a comprehension */
    if (found == TK_TOK_KW_FOR && loc.begin != p->line_start_loc.begin) {
        tk_error(p->diag, loc, "generator expressions, and dict and set comprehensions, are not supported; "
                 "a list comprehension [x for x in ...] is, evaluated at compile time");
        return 0;
    }
    if (found == TK_TOK_INDENT) {
        tk_error(p->diag, loc, "unexpected indentation");
        return 0;
    }
    if (found == TK_TOK_ASSIGN && p->line_start_kind != TK_TOK_KW_DEF &&
        (header || p->line_start_kind == TK_TOK_KW_ASSERT)) {
        tk_error(p->diag, loc, "'=' is assignment; use '==' to compare");
        return 0;
    }
    if (wants_colon && header && (found == TK_TOK_NEWLINE || count <= 3)) {
        tk_error(p->diag, loc, "expected ':' after the %s header, found %s", header, found_desc);
        return 0;
    }
    char list[512];
    size_t len = 0;
    int shown = count > 4 ? 0 : count;
    if (wants_expression && shown < 4) {
        len += (size_t)snprintf(list + len, sizeof list - len, "an expression");
    }
    for (int i = 0; i < shown && len < sizeof list - 64; i++) {
        const char *sep = len == 0 ? "" : (i == shown - 1 ? " or " : ", ");
        int kind = expected[i];
        const char *desc = describe_found(kind);
        if (kind == TK_TOK_NEWLINE) desc = "the end of the line";
        if (desc)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", sep, desc);
        else
            len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", sep,
                                    tk_lex_token_spelling((tk_tok)kind));
    }
    if (len > 0)
        tk_error(p->diag, loc, "expected %s before %s", list, found_desc);
    else
        tk_error(p->diag, loc, "unexpected %s", found_desc);
    return 0;
}
