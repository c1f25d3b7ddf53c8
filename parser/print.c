/* The `--emit=ast` dump: one statement a line with its position, nested
 * blocks indented, expressions as source text with every binary operation
 * parenthesized so the tree's shape is visible. Stable: golden tests pin it. */
#include "parser.h"

static const char *const binop_spelling[TK_BINOP_COUNT] = {
    "+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^",
    "<", ">", "<=", ">=", "==", "!=", "is", "is not", "in", "not in", "and", "or",
};

const char *tk_ast_binop_spelling(tk_binop op) {
    return op < TK_BINOP_COUNT ? binop_spelling[op] : "?";
}

const char *tk_ast_unop_spelling(tk_unop op) {
    switch (op) {
    case TK_UNOP_NEG: return "-";
    case TK_UNOP_POS: return "+";
    case TK_UNOP_INVERT: return "~";
    case TK_UNOP_NOT: return "not ";
    }
    return "?";
}

static void print_string(FILE *out, const char *text, uint32_t len) {
    fputc('"', out);
    for (uint32_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c == '\n') fputs("\\n", out);
        else if (c == '\t') fputs("\\t", out);
        else if (c < 32 || c >= 127) fprintf(out, "\\x%02x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

static void print_list(FILE *out, const tk_expr_list *items) {
    for (uint32_t i = 0; i < items->len; i++) {
        if (i) fputs(", ", out);
        tk_ast_print_expr(out, items->data[i]);
    }
}

void tk_ast_print_expr(FILE *out, const tk_expr *e) {
    if (!e) {
        fputs("<missing>", out);
        return;
    }
    switch (e->kind) {
    case TK_EXPR_NAME: fputs(e->u.name, out); break;
    case TK_EXPR_INT: fprintf(out, "%llu", (unsigned long long)e->u.int_value); break;
    case TK_EXPR_FLOAT: {
        char buf[64];
        tk_format_double(buf, sizeof buf, e->u.float_value);
        fputs(buf, out);
        break;
    }
    case TK_EXPR_STRING: print_string(out, e->u.string.text, e->u.string.len); break;
    case TK_EXPR_BOOL: fputs(e->u.bool_value ? "True" : "False", out); break;
    case TK_EXPR_NONE: fputs("None", out); break;
    case TK_EXPR_UNARY:
        fprintf(out, "(%s", tk_ast_unop_spelling(e->u.unary.op));
        tk_ast_print_expr(out, e->u.unary.operand);
        fputc(')', out);
        break;
    case TK_EXPR_BINARY:
        fputc('(', out);
        tk_ast_print_expr(out, e->u.binary.lhs);
        fprintf(out, " %s ", tk_ast_binop_spelling(e->u.binary.op));
        tk_ast_print_expr(out, e->u.binary.rhs);
        fputc(')', out);
        break;
    case TK_EXPR_COMPARE:
        fputc('(', out);
        tk_ast_print_expr(out, e->u.compare.operands.data[0]);
        for (uint32_t i = 0; i < e->u.compare.ops.len; i++) {
            fprintf(out, " %s ", tk_ast_binop_spelling(e->u.compare.ops.data[i]));
            tk_ast_print_expr(out, e->u.compare.operands.data[i + 1]);
        }
        fputc(')', out);
        break;
    case TK_EXPR_TERNARY:
        fputc('(', out);
        tk_ast_print_expr(out, e->u.ternary.then);
        fputs(" if ", out);
        tk_ast_print_expr(out, e->u.ternary.cond);
        fputs(" else ", out);
        tk_ast_print_expr(out, e->u.ternary.otherwise);
        fputc(')', out);
        break;
    case TK_EXPR_LAMBDA:
        fputs("(lambda", out);
        for (uint32_t i = 0; i < e->u.lambda.params.len; i++)
            fprintf(out, "%s%s", i ? ", " : " ", e->u.lambda.params.data[i]);
        fputs(": ", out);
        tk_ast_print_expr(out, e->u.lambda.body);
        fputc(')', out);
        break;
    case TK_EXPR_CALL:
        tk_ast_print_expr(out, e->u.call.callee);
        fputc('(', out);
        print_list(out, &e->u.call.args);
        fputc(')', out);
        break;
    case TK_EXPR_ATTR:
        tk_ast_print_expr(out, e->u.attr.object);
        fprintf(out, ".%s", e->u.attr.name);
        break;
    case TK_EXPR_SUBSCRIPT:
        tk_ast_print_expr(out, e->u.subscript.object);
        fputc('[', out);
        print_list(out, &e->u.subscript.indices);
        fputc(']', out);
        break;
    case TK_EXPR_SLICE:
        if (e->u.slice.lo) tk_ast_print_expr(out, e->u.slice.lo);
        fputc(':', out);
        if (e->u.slice.hi) tk_ast_print_expr(out, e->u.slice.hi);
        if (e->u.slice.step) {
            fputc(':', out);
            tk_ast_print_expr(out, e->u.slice.step);
        }
        break;
    case TK_EXPR_TUPLE:
        fputc('(', out);
        print_list(out, &e->u.items);
        if (e->u.items.len == 1) fputc(',', out);
        fputc(')', out);
        break;
    case TK_EXPR_LIST:
        fputc('[', out);
        print_list(out, &e->u.items);
        fputc(']', out);
        break;
    case TK_EXPR_DICT:
        fputc('{', out);
        for (uint32_t i = 0; i + 1 < e->u.items.len; i += 2) {
            if (i) fputs(", ", out);
            tk_ast_print_expr(out, e->u.items.data[i]);
            fputs(": ", out);
            tk_ast_print_expr(out, e->u.items.data[i + 1]);
        }
        fputc('}', out);
        break;
    case TK_EXPR_KEYWORD:
        fprintf(out, "%s=", e->u.keyword.name);
        tk_ast_print_expr(out, e->u.keyword.value);
        break;
    case TK_EXPR_STARRED:
        fputc('*', out);
        tk_ast_print_expr(out, e->u.starred);
        break;
    case TK_EXPR_POINTER_TYPE:
        fputc('*', out);
        tk_ast_print_expr(out, e->u.pointee);
        break;
    case TK_EXPR_COMPREHENSION:
        fputc('[', out);
        tk_ast_print_expr(out, e->u.comp.element);
        for (uint32_t i = 0; i < e->u.comp.clauses.len; i++) {
            const tk_comp_clause *cl = &e->u.comp.clauses.data[i];
            if (cl->target) {
                fputs(" for ", out);
                tk_ast_print_expr(out, cl->target);
                fputs(" in ", out);
            } else {
                fputs(" if ", out);
            }
            tk_ast_print_expr(out, cl->value);
        }
        fputc(']', out);
        break;
    }
}

static void print_block(FILE *out, const tk_stmt_list *body, int depth);

static void indent(FILE *out, int depth) {
    for (int i = 0; i < depth; i++) fputs("  ", out);
}

static void print_stmt(FILE *out, const tk_stmt *s, int depth) {
    indent(out, depth);
    fprintf(out, "%u:%u ", s->loc.line, s->loc.col);
    switch (s->kind) {
    case TK_STMT_EXPR:
        fputs("expr ", out);
        tk_ast_print_expr(out, s->u.expr);
        fputc('\n', out);
        break;
    case TK_STMT_ASSIGN:
        fputs("assign ", out);
        for (uint32_t i = 0; i < s->u.assign.targets.len; i++) {
            tk_ast_print_expr(out, s->u.assign.targets.data[i]);
            if (s->u.assign.annotation) {
                fputs(": ", out);
                tk_ast_print_expr(out, s->u.assign.annotation);
            }
            fputs(" = ", out);
        }
        tk_ast_print_expr(out, s->u.assign.value);
        fputc('\n', out);
        break;
    case TK_STMT_AUGASSIGN:
        fputs("augassign ", out);
        tk_ast_print_expr(out, s->u.augassign.target);
        fprintf(out, " %s= ", tk_ast_binop_spelling(s->u.augassign.op));
        tk_ast_print_expr(out, s->u.augassign.value);
        fputc('\n', out);
        break;
    case TK_STMT_IF:
        fputs("if ", out);
        tk_ast_print_expr(out, s->u.if_.cond);
        fputc('\n', out);
        print_block(out, &s->u.if_.then, depth + 1);
        if (s->u.if_.otherwise.len) {
            indent(out, depth);
            fputs("else\n", out);
            print_block(out, &s->u.if_.otherwise, depth + 1);
        }
        break;
    case TK_STMT_FOR:
        fputs("for ", out);
        tk_ast_print_expr(out, s->u.for_.target);
        fputs(" in ", out);
        tk_ast_print_expr(out, s->u.for_.iter);
        fputc('\n', out);
        print_block(out, &s->u.for_.body, depth + 1);
        break;
    case TK_STMT_WHILE:
        fputs("while ", out);
        tk_ast_print_expr(out, s->u.while_.cond);
        fputc('\n', out);
        print_block(out, &s->u.while_.body, depth + 1);
        break;
    case TK_STMT_RETURN:
        fputs("return", out);
        if (s->u.expr) {
            fputc(' ', out);
            tk_ast_print_expr(out, s->u.expr);
        }
        fputc('\n', out);
        break;
    case TK_STMT_RAISE:
        fputs("raise", out);
        if (s->u.expr) {
            fputc(' ', out);
            tk_ast_print_expr(out, s->u.expr);
        }
        fputc('\n', out);
        break;
    case TK_STMT_PASS: fputs("pass\n", out); break;
    case TK_STMT_BREAK: fputs("break\n", out); break;
    case TK_STMT_CONTINUE: fputs("continue\n", out); break;
    case TK_STMT_ASSERT:
        fputs("assert ", out);
        tk_ast_print_expr(out, s->u.assert_.cond);
        if (s->u.assert_.message) {
            fputs(", ", out);
            tk_ast_print_expr(out, s->u.assert_.message);
        }
        fputc('\n', out);
        break;
    case TK_STMT_IMPORT:
        if (s->u.import.name)
            fprintf(out, "from %s import %s", s->u.import.module, s->u.import.name);
        else
            fprintf(out, "import %s", s->u.import.module);
        if (s->u.import.alias) fprintf(out, " as %s", s->u.import.alias);
        fputc('\n', out);
        break;
    case TK_STMT_DEF: {
        const tk_def *d = s->u.def;
        fprintf(out, "def %s\n", d->name);
        for (uint32_t i = 0; i < d->decorators.len; i++) {
            indent(out, depth + 1);
            fputs("decorator ", out);
            tk_ast_print_expr(out, d->decorators.data[i].expr);
            fputc('\n', out);
        }
        for (uint32_t i = 0; i < d->params.len; i++) {
            const tk_param *param = &d->params.data[i];
            indent(out, depth + 1);
            fprintf(out, "param %s", param->name);
            if (param->annotation) {
                fputs(": ", out);
                tk_ast_print_expr(out, param->annotation);
            }
            if (param->promise == TK_PROMISE_DIVISIBLE)
                fprintf(out, " %% %llu", (unsigned long long)param->promise_value);
            else if (param->promise == TK_PROMISE_EQUAL)
                fprintf(out, " == %llu", (unsigned long long)param->promise_value);
            else if (param->promise == TK_PROMISE_OPTIONAL)
                fputs(" | None", out);
            if (param->default_value) {
                fputs(" = ", out);
                tk_ast_print_expr(out, param->default_value);
            }
            fputc('\n', out);
        }
        if (d->returns) {
            indent(out, depth + 1);
            fputs("returns ", out);
            tk_ast_print_expr(out, d->returns);
            fputc('\n', out);
        }
        print_block(out, &d->body, depth + 1);
        break;
    }
    }
}

static void print_block(FILE *out, const tk_stmt_list *body, int depth) {
    for (uint32_t i = 0; i < body->len; i++) print_stmt(out, body->data[i], depth);
}

void tk_ast_print(FILE *out, const tk_module *module) {
    print_block(out, &module->body, 0);
}
