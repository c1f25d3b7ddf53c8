/* The scanner. re2c matches one raw token at a time (scan_raw); the layout
 * logic around it (tk_lex_source) turns line starts into INDENT/DEDENT,
 * drops newlines inside brackets and blank lines, and keeps going after
 * errors. Needs: a NUL-terminated source (tk_source guarantees it); the NUL
 * at src->len is the sentinel re2c's EOF rule checks against YYLIMIT. */
#include "lexer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
    tk_arena *arena;
    tk_interner *names;
    tk_diag *diag;
    const tk_source *src;
    const unsigned char *base, *cursor, *limit;
    tk_token_list out;
    int bracket_depth;
    /* open brackets, for "unclosed '(' here" */
    tk_loc brackets[64];
    tk_tok bracket_kinds[64];
    /* indentation of each open block, as the exact whitespace it used */
    /* reported: this level's indentation was already reported as
     * inconsistent, so lines compared with it are not reported again */
    struct { uint32_t begin, len; bool reported; } indents[128];
    int indent_depth;
} lexer;

typedef enum raw {
    RAW_TOKEN, RAW_NEWLINE, RAW_SKIP, RAW_EOF, RAW_ERROR
} raw;

static const char *const spellings[] = {
#define TK_TOK_SPELL(name, spelling) spelling,
    TK_TOKENS(TK_TOK_SPELL)
#undef TK_TOK_SPELL
};

static const char *const kind_names[] = {
#define TK_TOK_NAME(name, spelling) #name,
    TK_TOKENS(TK_TOK_NAME)
#undef TK_TOK_NAME
};

const char *tk_lex_token_spelling(tk_tok kind) {
    return kind < TK_TOK_COUNT ? spellings[kind] : "?";
}

const char *tk_lex_token_kind_name(tk_tok kind) {
    return kind < TK_TOK_COUNT ? kind_names[kind] : "?";
}

static tk_loc loc_of(lexer *lx, const unsigned char *from, const unsigned char *to) {
    return tk_loc_at(lx->src, (uint32_t)(from - lx->base), (uint32_t)(to - from));
}

static tk_token *emit(lexer *lx, tk_tok kind, const unsigned char *from,
                      const unsigned char *to) {
    tk_token t = {0};
    t.kind = kind;
    t.loc = loc_of(lx, from, to);
    tk_vec_push(lx->arena, &lx->out, t);
    return &lx->out.data[lx->out.len - 1];
}

static const struct { const char *word; tk_tok kind; } keywords[] = {
    {"def", TK_TOK_KW_DEF}, {"return", TK_TOK_KW_RETURN}, {"if", TK_TOK_KW_IF},
    {"elif", TK_TOK_KW_ELIF}, {"else", TK_TOK_KW_ELSE}, {"for", TK_TOK_KW_FOR},
    {"in", TK_TOK_KW_IN}, {"while", TK_TOK_KW_WHILE}, {"break", TK_TOK_KW_BREAK},
    {"continue", TK_TOK_KW_CONTINUE}, {"pass", TK_TOK_KW_PASS},
    {"assert", TK_TOK_KW_ASSERT}, {"and", TK_TOK_KW_AND}, {"or", TK_TOK_KW_OR},
    {"not", TK_TOK_KW_NOT}, {"is", TK_TOK_KW_IS}, {"lambda", TK_TOK_KW_LAMBDA},
    {"None", TK_TOK_KW_NONE}, {"True", TK_TOK_KW_TRUE}, {"False", TK_TOK_KW_FALSE},
    {"import", TK_TOK_KW_IMPORT}, {"from", TK_TOK_KW_FROM}, {"as", TK_TOK_KW_AS},
    {"raise", TK_TOK_KW_RAISE},
};

static void emit_name(lexer *lx, const unsigned char *from, const unsigned char *to) {
    size_t len = (size_t)(to - from);
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++) {
        if (strlen(keywords[i].word) == len && memcmp(keywords[i].word, from, len) == 0) {
            emit(lx, keywords[i].kind, from, to);
            return;
        }
    }
    tk_token *t = emit(lx, TK_TOK_NAME, from, to);
    t->u.text = tk_intern(lx->names, (const char *)from, len);
}

static void emit_int(lexer *lx, const unsigned char *from, const unsigned char *to) {
    unsigned base = 10;
    const unsigned char *p = from;
    if (to - from > 2 && p[0] == '0') {
        switch (p[1] | 0x20) {
        case 'x': base = 16; p += 2; break;
        case 'b': base = 2; p += 2; break;
        case 'o': base = 8; p += 2; break;
        }
    }
    uint64_t value = 0;
    bool overflow = false;
    for (; p < to; p++) {
        if (*p == '_') continue;
        unsigned digit = *p <= '9' ? (unsigned)(*p - '0') : (unsigned)((*p | 0x20) - 'a' + 10);
        if (value > (UINT64_MAX - digit) / base) overflow = true;
        value = value * base + digit;
    }
    tk_token *t = emit(lx, TK_TOK_INT, from, to);
    t->u.int_value = value;
    if (overflow)
        tk_error(lx->diag, t->loc, "integer literal does not fit in 64 bits");
}

static void emit_float(lexer *lx, const unsigned char *from, const unsigned char *to) {
    char buf[128];
    size_t n = 0;
    for (const unsigned char *p = from; p < to && n + 1 < sizeof buf; p++)
        if (*p != '_') buf[n++] = (char)*p;
    buf[n] = 0;
    tk_token *t = emit(lx, TK_TOK_FLOAT, from, to);
    t->u.float_value = strtod(buf, NULL);
    if (isinf(t->u.float_value))
        tk_error(lx->diag, t->loc, "floating-point literal is too large; write float('inf') for infinity");
}

/* Decodes the escapes of a string literal whose quotes are `quote_len` long. */
static void emit_string(lexer *lx, const unsigned char *from, const unsigned char *to,
                        int quote_len) {
    tk_token *t = emit(lx, TK_TOK_STRING, from, to);
    const unsigned char *p = from + quote_len, *end = to - quote_len;
    char *text = tk_arena_alloc(lx->arena, (size_t)(end - p) + 1);
    size_t n = 0;
    while (p < end) {
        if (*p != '\\') {
            text[n++] = (char)*p++;
            continue;
        }
        p++;
        switch (*p) {
        case 'n': text[n++] = '\n'; break;
        case 't': text[n++] = '\t'; break;
        case 'r': text[n++] = '\r'; break;
        case '0': text[n++] = '\0'; break;
        case '\\': text[n++] = '\\'; break;
        case '\'': text[n++] = '\''; break;
        case '"': text[n++] = '"'; break;
        case '\n': break; /* line continuation inside a string */
        default:
            tk_error(lx->diag, loc_of(lx, p - 1, p + 1),
                     "unknown escape sequence '\\%c' in string", *p >= 32 && *p < 127 ? *p : '?');
            text[n++] = (char)*p;
        }
        p++;
    }
    text[n] = 0;
    t->u.text = text;
    t->text_len = (uint32_t)n;
}

/* Emits a closer for every open bracket, so one mistake (an unclosed
 * bracket, an unterminated string) does not become several. */
static void close_brackets(lexer *lx, const unsigned char *at) {
    for (int i = lx->bracket_depth - 1; i >= 0; i--) {
        if (i >= (int)(sizeof lx->brackets / sizeof lx->brackets[0])) continue;
        tk_tok open = lx->bracket_kinds[i];
        emit(lx, open == TK_TOK_LPAREN ? TK_TOK_RPAREN
                 : open == TK_TOK_LBRACKET ? TK_TOK_RBRACKET : TK_TOK_RBRACE, at, at);
    }
    lx->bracket_depth = 0;
}

static raw punct(lexer *lx, tk_tok kind, const unsigned char *start) {
    emit(lx, kind, start, lx->cursor);
    return RAW_TOKEN;
}

static raw open_bracket(lexer *lx, tk_tok kind, const unsigned char *start) {
    tk_token *t = emit(lx, kind, start, lx->cursor);
    if (lx->bracket_depth < (int)(sizeof lx->brackets / sizeof lx->brackets[0])) {
        lx->brackets[lx->bracket_depth] = t->loc;
        lx->bracket_kinds[lx->bracket_depth] = kind;
    }
    lx->bracket_depth++;
    return RAW_TOKEN;
}

static raw close_bracket(lexer *lx, tk_tok kind, const unsigned char *start) {
    emit(lx, kind, start, lx->cursor);
    /* A stray closer is the parser's to report; depth never goes negative so
     * the layout of the following lines stays right. */
    if (lx->bracket_depth > 0) lx->bracket_depth--;
    return RAW_TOKEN;
}

/*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = "lx->cursor";
    re2c:define:YYLIMIT = "lx->limit";
    re2c:define:YYMARKER = "marker";
    re2c:yyfill:enable = 0;
    re2c:eof = 0;

    digitpart  = [0-9] ("_"? [0-9])*;
    decimal    = [1-9] ("_"? [0-9])* | "0" ("_"? "0")*;
    hex        = "0" [xX] ("_"? [0-9a-fA-F])+;
    binary     = "0" [bB] ("_"? [01])+;
    octal      = "0" [oO] ("_"? [0-7])+;
    exponent   = [eE] [+-]? digitpart;
    pointfloat = digitpart? "." digitpart | digitpart ".";
    float      = pointfloat exponent? | digitpart exponent;
    name       = [a-zA-Z_] [a-zA-Z0-9_]*;
    newline    = "\r\n" | "\n" | "\r";
    sq_item    = [^'\\\n\r\x00] | "\\" [^\x00];
    dq_item    = [^"\\\n\r\x00] | "\\" [^\x00];
    tsq_item   = [^'\\\x00] | "\\" [^\x00] | "'" [^'\x00] | "''" [^'\x00];
    tdq_item   = [^"\\\x00] | "\\" [^\x00] | "\"" [^"\x00] | "\"\"" [^"\x00];
*/

/* Scans one raw token starting at lx->cursor. */
static raw scan_raw(lexer *lx) {
    const unsigned char *start, *marker = lx->cursor;
    (void)marker;
    for (;;) {
        start = lx->cursor;
        /*!re2c
        $ { return RAW_EOF; }
        [ \t\f]+ { continue; }
        "#" [^\n\r\x00]* { continue; }
        "\\" newline { continue; }
        "\\" { tk_error(lx->diag, loc_of(lx, start, lx->cursor),
                        "a backslash continues a line only as the line's last character");
               return RAW_ERROR; }
        newline { return RAW_NEWLINE; }

        decimal | hex | binary | octal { emit_int(lx, start, lx->cursor); return RAW_TOKEN; }
        float { emit_float(lx, start, lx->cursor); return RAW_TOKEN; }
        [0-9] [0-9a-zA-Z_]* {
            tk_error(lx->diag, loc_of(lx, start, lx->cursor), "invalid number literal '%.*s'",
                     (int)(lx->cursor - start), (const char *)start);
            emit(lx, TK_TOK_INT, start, lx->cursor); /* stands in, so parsing goes on */
            return RAW_TOKEN; }
        name { emit_name(lx, start, lx->cursor); return RAW_TOKEN; }

        "'" sq_item* "'"   { emit_string(lx, start, lx->cursor, 1); return RAW_TOKEN; }
        "\"" dq_item* "\"" { emit_string(lx, start, lx->cursor, 1); return RAW_TOKEN; }
        "'''" tsq_item* "'''"         { emit_string(lx, start, lx->cursor, 3); return RAW_TOKEN; }
        "\"\"\"" tdq_item* "\"\"\"" { emit_string(lx, start, lx->cursor, 3); return RAW_TOKEN; }
        "'''" | "\"\"\"" {
            tk_error(lx->diag, loc_of(lx, start, lx->cursor), "unterminated triple-quoted string");
            lx->cursor = lx->limit;
            return RAW_ERROR; }
        "'" | "\"" {
            tk_error(lx->diag, loc_of(lx, start, lx->cursor),
                     "unterminated string: the closing quote is missing on this line");
            while (lx->cursor < lx->limit && *lx->cursor != '\n' && *lx->cursor != '\r') lx->cursor++;
            /* the rest of the line is the string: close what it left open */
            tk_token *t = emit(lx, TK_TOK_STRING, start, lx->cursor);
            t->u.text = "";
            close_brackets(lx, lx->cursor);
            return RAW_TOKEN; }

        "(" { return open_bracket(lx, TK_TOK_LPAREN, start); }
        "[" { return open_bracket(lx, TK_TOK_LBRACKET, start); }
        "{" { return open_bracket(lx, TK_TOK_LBRACE, start); }
        ")" { return close_bracket(lx, TK_TOK_RPAREN, start); }
        "]" { return close_bracket(lx, TK_TOK_RBRACKET, start); }
        "}" { return close_bracket(lx, TK_TOK_RBRACE, start); }
        "," { return punct(lx, TK_TOK_COMMA, start); }
        ":" { return punct(lx, TK_TOK_COLON, start); }
        "." { return punct(lx, TK_TOK_DOT, start); }
        ";" { return punct(lx, TK_TOK_SEMI, start); }
        "->" { return punct(lx, TK_TOK_ARROW, start); }
        "@" { return punct(lx, TK_TOK_AT, start); }
        "=" { return punct(lx, TK_TOK_ASSIGN, start); }
        "+" { return punct(lx, TK_TOK_PLUS, start); }
        "-" { return punct(lx, TK_TOK_MINUS, start); }
        "*" { return punct(lx, TK_TOK_STAR, start); }
        "/" { return punct(lx, TK_TOK_SLASH, start); }
        "//" { return punct(lx, TK_TOK_DSLASH, start); }
        "%" { return punct(lx, TK_TOK_PERCENT, start); }
        "**" { return punct(lx, TK_TOK_POW, start); }
        "<<" { return punct(lx, TK_TOK_SHL, start); }
        ">>" { return punct(lx, TK_TOK_SHR, start); }
        "&" { return punct(lx, TK_TOK_AMP, start); }
        "|" { return punct(lx, TK_TOK_PIPE, start); }
        "^" { return punct(lx, TK_TOK_CARET, start); }
        "~" { return punct(lx, TK_TOK_TILDE, start); }
        "<" { return punct(lx, TK_TOK_LT, start); }
        ">" { return punct(lx, TK_TOK_GT, start); }
        "<=" { return punct(lx, TK_TOK_LE, start); }
        ">=" { return punct(lx, TK_TOK_GE, start); }
        "==" { return punct(lx, TK_TOK_EQ, start); }
        "!=" { return punct(lx, TK_TOK_NE, start); }
        "+=" { return punct(lx, TK_TOK_PLUS_ASSIGN, start); }
        "-=" { return punct(lx, TK_TOK_MINUS_ASSIGN, start); }
        "*=" { return punct(lx, TK_TOK_STAR_ASSIGN, start); }
        "/=" { return punct(lx, TK_TOK_SLASH_ASSIGN, start); }
        "//=" { return punct(lx, TK_TOK_DSLASH_ASSIGN, start); }
        "%=" { return punct(lx, TK_TOK_PERCENT_ASSIGN, start); }
        "**=" { return punct(lx, TK_TOK_POW_ASSIGN, start); }
        "@=" { return punct(lx, TK_TOK_AT_ASSIGN, start); }
        "<<=" { return punct(lx, TK_TOK_SHL_ASSIGN, start); }
        ">>=" { return punct(lx, TK_TOK_SHR_ASSIGN, start); }
        "&=" { return punct(lx, TK_TOK_AMP_ASSIGN, start); }
        "|=" { return punct(lx, TK_TOK_PIPE_ASSIGN, start); }
        "^=" { return punct(lx, TK_TOK_CARET_ASSIGN, start); }

        [\x80-\xff]+ {
            tk_error(lx->diag, loc_of(lx, start, lx->cursor),
                     "non-ASCII character outside a string or comment");
            return RAW_ERROR; }
        * {
            unsigned char c = *start;
            if (c >= 32 && c < 127)
                tk_error(lx->diag, loc_of(lx, start, lx->cursor), "unexpected character '%c'", c);
            else
                tk_error(lx->diag, loc_of(lx, start, lx->cursor), "unexpected byte 0x%02x", c);
            return RAW_ERROR; }
        */
    }
}

static bool is_blank_line_rest(const unsigned char *p) {
    return *p == '\n' || *p == '\r' || *p == '#';
}

/* The width of indentation as an editor shows it: tabs to multiples of 8. */
static uint32_t visual_width(const char *text, uint32_t len) {
    uint32_t w = 0;
    for (uint32_t i = 0; i < len; i++) w = text[i] == '\t' ? (w / 8 + 1) * 8 : w + 1;
    return w;
}

/* Called at the start of a logical line outside brackets: measures the
 * indentation and emits INDENT/DEDENT. Returns false for a blank or
 * comment-only line, which the caller skips without any token.
 * Errors: indentation that mixes tabs and spaces in one step or that is
 * inconsistent with the enclosing block's; a dedent to no enclosing level.
 * Recovery follows the visual widths, so the block structure stays sane. */
static bool handle_indentation(lexer *lx) {
    const unsigned char *line = lx->cursor, *p = line;
    while (*p == ' ' || *p == '\t' || *p == '\f') p++;
    if (is_blank_line_rest(p) || (p == lx->limit)) return false;
    uint32_t begin = (uint32_t)(line - lx->base), len = (uint32_t)(p - line);
    const char *text = lx->src->text + begin;
    int top = lx->indent_depth - 1;
    uint32_t top_len = top >= 0 ? lx->indents[top].len : 0;
    const char *top_text = top >= 0 ? lx->src->text + lx->indents[top].begin : "";
    tk_loc here = loc_of(lx, line, p);
    uint32_t common = len < top_len ? len : top_len;
    bool consistent = memcmp(text, top_text, common) == 0;
    bool already_reported = top >= 0 && lx->indents[top].reported;
    if (!consistent && !already_reported)
        tk_error(lx->diag, here, "inconsistent use of tabs and spaces in indentation; use spaces only");
    uint32_t width = visual_width(text, len), top_width = visual_width(top_text, top_len);
    if (width > top_width) {
        bool spaces = false, tabs = false;
        for (uint32_t i = consistent ? top_len : 0; i < len; i++) {
            if (text[i] == '\t') tabs = true; else spaces = true;
        }
        if (consistent && spaces && tabs)
            tk_error(lx->diag, here, "indentation mixes tabs and spaces in one step; use spaces only");
        if (lx->indent_depth == (int)(sizeof lx->indents / sizeof lx->indents[0])) {
            tk_error(lx->diag, here, "blocks are nested too deeply");
            return true;
        }
        lx->indents[lx->indent_depth].begin = begin;
        lx->indents[lx->indent_depth].len = len;
        lx->indents[lx->indent_depth].reported = !consistent;
        lx->indent_depth++;
        emit(lx, TK_TOK_INDENT, line, p);
        return true;
    }
    int level = top;
    while (level >= 0 && visual_width(lx->src->text + lx->indents[level].begin, lx->indents[level].len) > width)
        level--;
    uint32_t level_width = level >= 0 ? visual_width(lx->src->text + lx->indents[level].begin,
                                                      lx->indents[level].len) : 0;
    if (level_width != width && consistent && !already_reported)
        tk_error(lx->diag, here, "this line's indentation matches no enclosing block");
    while (lx->indent_depth - 1 > level) {
        lx->indent_depth--;
        emit(lx, TK_TOK_DEDENT, p, p);
    }
    return true;
}

tk_token_list tk_lex_source(tk_arena *arena, tk_interner *names, tk_diag *diag,
                            const tk_source *src) {
    lexer lx = {0};
    lx.arena = arena;
    lx.names = names;
    lx.diag = diag;
    lx.src = src;
    lx.base = (const unsigned char *)src->text;
    lx.cursor = lx.base;
    lx.limit = lx.base + src->len;
    lx.out.unclosed_at = UINT32_MAX;
    bool line_start = true;
    /* A logical line has content once it emitted something besides layout. */
    bool line_has_tokens = false;
    for (;;) {
        if (line_start && lx.bracket_depth == 0) {
            if (!handle_indentation(&lx)) {
                /* skip the blank or comment-only line */
                while (lx.cursor < lx.limit && *lx.cursor != '\n' && *lx.cursor != '\r')
                    lx.cursor++;
                if (lx.cursor >= lx.limit) break;
                if (*lx.cursor == '\r' && lx.cursor[1] == '\n') lx.cursor++;
                lx.cursor++;
                continue;
            }
            line_start = false;
        }
        uint32_t before = lx.out.len;
        raw r = scan_raw(&lx);
        if (r == RAW_EOF) break;
        if (r == RAW_TOKEN && lx.out.len > before) line_has_tokens = true;
        if (r == RAW_NEWLINE && lx.bracket_depth == 0) {
            if (line_has_tokens) emit(&lx, TK_TOK_NEWLINE, lx.cursor - 1, lx.cursor - 1);
            line_has_tokens = false;
            line_start = true;
        }
    }
    if (lx.bracket_depth > 0) {
        int shown = lx.bracket_depth - 1;
        if (shown >= (int)(sizeof lx.brackets / sizeof lx.brackets[0]))
            shown = (int)(sizeof lx.brackets / sizeof lx.brackets[0]) - 1;
        tk_loc open = lx.brackets[shown];
        tk_error(diag, open, "'%.*s' is never closed", 1, src->text + open.begin);
        lx.out.unclosed_at = lx.brackets[0].begin;
    }
    const unsigned char *end = lx.limit;
    close_brackets(&lx, end);
    if (line_has_tokens) emit(&lx, TK_TOK_NEWLINE, end, end);
    while (lx.indent_depth > 0) {
        lx.indent_depth--;
        emit(&lx, TK_TOK_DEDENT, end, end);
    }
    emit(&lx, TK_TOK_EOF, end, end);
    return lx.out;
}

void tk_lex_print(FILE *out, const tk_token_list *tokens) {
    for (uint32_t i = 0; i < tokens->len; i++) {
        const tk_token *t = &tokens->data[i];
        fprintf(out, "%u:%u\t%s", t->loc.line, t->loc.col, tk_lex_token_kind_name(t->kind));
        switch (t->kind) {
        case TK_TOK_NAME: fprintf(out, "\t%s", t->u.text); break;
        case TK_TOK_INT: fprintf(out, "\t%llu", (unsigned long long)t->u.int_value); break;
        case TK_TOK_FLOAT: {
            char buf[64];
            tk_format_double(buf, sizeof buf, t->u.float_value);
            fprintf(out, "\t%s", buf);
            break;
        }
        case TK_TOK_STRING:
            fputs("\t\"", out);
            for (uint32_t k = 0; k < t->text_len; k++) {
                unsigned char c = (unsigned char)t->u.text[k];
                if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
                else if (c == '\n') fputs("\\n", out);
                else if (c == '\t') fputs("\\t", out);
                else if (c < 32 || c >= 127) fprintf(out, "\\x%02x", c);
                else fputc(c, out);
            }
            fputc('"', out);
            break;
        default: break;
        }
        fputc('\n', out);
    }
}
