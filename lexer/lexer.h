/* lexer: .tk source -> tokens (prefix tk_lex_).
 *
 * Python's layout rules: NEWLINE ends a logical line, INDENT/DEDENT bracket a
 * block, lines join implicitly inside (), [], {} and after a backslash;
 * blank and comment-only lines produce nothing. Every token carries its exact
 * location. Errors are reported through tk_diag and scanning goes on, so one
 * run reports several. */
#ifndef TK_LEXER_H
#define TK_LEXER_H

#include "../support/support.h"

/* X(name, spelling): spelling is what the user writes (or a description). */
#define TK_TOKENS(X)                                                            \
    X(EOF, "end of file") X(NEWLINE, "end of line") X(INDENT, "indent")         \
    X(DEDENT, "dedent") X(NAME, "name") X(INT, "integer") X(FLOAT, "number")    \
    X(STRING, "string")                                                         \
    X(KW_DEF, "def") X(KW_RETURN, "return") X(KW_IF, "if") X(KW_ELIF, "elif")   \
    X(KW_ELSE, "else") X(KW_FOR, "for") X(KW_IN, "in") X(KW_WHILE, "while")     \
    X(KW_BREAK, "break") X(KW_CONTINUE, "continue") X(KW_PASS, "pass")          \
    X(KW_ASSERT, "assert") X(KW_AND, "and") X(KW_OR, "or") X(KW_NOT, "not")     \
    X(KW_IS, "is") X(KW_LAMBDA, "lambda") X(KW_NONE, "None")                    \
    X(KW_TRUE, "True") X(KW_FALSE, "False") X(KW_IMPORT, "import")              \
    X(KW_FROM, "from") X(KW_AS, "as") X(KW_RAISE, "raise")                     \
    X(LPAREN, "(") X(RPAREN, ")") X(LBRACKET, "[") X(RBRACKET, "]")             \
    X(LBRACE, "{") X(RBRACE, "}") X(COMMA, ",") X(COLON, ":") X(DOT, ".")       \
    X(SEMI, ";") X(ARROW, "->") X(AT, "@") X(ASSIGN, "=")                       \
    X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(DSLASH, "//")       \
    X(PERCENT, "%") X(POW, "**") X(SHL, "<<") X(SHR, ">>") X(AMP, "&")          \
    X(PIPE, "|") X(CARET, "^") X(TILDE, "~")                                    \
    X(LT, "<") X(GT, ">") X(LE, "<=") X(GE, ">=") X(EQ, "==") X(NE, "!=")       \
    X(PLUS_ASSIGN, "+=") X(MINUS_ASSIGN, "-=") X(STAR_ASSIGN, "*=")             \
    X(SLASH_ASSIGN, "/=") X(DSLASH_ASSIGN, "//=") X(PERCENT_ASSIGN, "%=")       \
    X(POW_ASSIGN, "**=") X(AT_ASSIGN, "@=") X(SHL_ASSIGN, "<<=")                \
    X(SHR_ASSIGN, ">>=") X(AMP_ASSIGN, "&=") X(PIPE_ASSIGN, "|=")               \
    X(CARET_ASSIGN, "^=")

typedef enum tk_tok {
#define TK_TOK_ENUM(name, spelling) TK_TOK_##name,
    TK_TOKENS(TK_TOK_ENUM)
#undef TK_TOK_ENUM
    TK_TOK_COUNT
} tk_tok;

typedef struct tk_token {
    tk_tok kind;
    tk_loc loc;
    union {
        uint64_t int_value;  /* INT */
        double float_value;  /* FLOAT */
        const char *text;    /* NAME: interned; STRING: decoded contents */
    } u;
    uint32_t text_len;       /* STRING: decoded length (may hold NUL) */
} tk_token;

typedef struct tk_token_list {
    tk_token *data;
    uint32_t len, cap;
    /* byte offset of the outermost bracket never closed (already reported),
     * UINT32_MAX if none: syntax errors after it are its consequences */
    uint32_t unclosed_at;
} tk_token_list;

/* Scans all of src. Always ends the list with EOF, even after errors. */
tk_token_list tk_lex_source(tk_arena *arena, tk_interner *names, tk_diag *diag,
                            const tk_source *src);
/* "'('" for punctuation and keywords, a plain description otherwise. */
const char *tk_lex_token_spelling(tk_tok kind);
const char *tk_lex_token_kind_name(tk_tok kind); /* "LPAREN" */
/* The stable dump of `tkc --emit=tokens`: one token a line. */
void tk_lex_print(FILE *out, const tk_token_list *tokens);

#endif
