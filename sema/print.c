/* The `--emit=sema` dump: each kernel variant with its constexpr values,
 * parameters, grid and body, then each @func instance. Every expression
 * node shows its type after ':'; variables print as name.id and carry their
 * type where they are assigned. Stable: golden tests pin it. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

static const char *const binop_names[TK_BINOP_COUNT] = {
    [TK_BINOP_ADD] = "add", [TK_BINOP_SUB] = "sub", [TK_BINOP_MUL] = "mul",
    [TK_BINOP_DIV] = "div", [TK_BINOP_FLOORDIV] = "floordiv", [TK_BINOP_MOD] = "mod",
    [TK_BINOP_POW] = "pow", [TK_BINOP_MATMUL] = "matmul", [TK_BINOP_SHL] = "shl",
    [TK_BINOP_SHR] = "shr", [TK_BINOP_AND] = "and", [TK_BINOP_OR] = "or",
    [TK_BINOP_XOR] = "xor", [TK_BINOP_LT] = "lt", [TK_BINOP_GT] = "gt", [TK_BINOP_LE] = "le",
    [TK_BINOP_GE] = "ge", [TK_BINOP_EQ] = "eq", [TK_BINOP_NE] = "ne",
};

static void print_sx(FILE *out, const tk_sx *x);

static void print_args(FILE *out, const tk_sx *x) {
    for (uint32_t i = 0; i < x->args.len; i++) {
        if (i) fputs(", ", out);
        print_sx(out, x->args.data[i]);
    }
}

static void print_attrs(FILE *out, const tk_sx *x, bool first) {
    for (uint32_t i = 0; i < x->attrs.len; i++) {
        const struct tk_sema_attr *a = &x->attrs.data[i];
        fputs(first && i == 0 ? "" : ", ", out);
        if (a->text) fprintf(out, "%s=\"%s\"", a->name, a->text);
        else fprintf(out, "%s=%" PRId64, a->name, a->i);
    }
}

static void print_float(FILE *out, double f) {
    char buf[64];
    tk_format_double(buf, sizeof buf, f);
    fputs(buf, out);
}

static void print_sx(FILE *out, const tk_sx *x) {
    if (!x) {
        fputs("<error>", out);
        return;
    }
    switch (x->kind) {
    case TK_SX_CONST:
        if (tk_dtype_is_float(x->type->dtype)) print_float(out, x->value.f);
        else fprintf(out, "%" PRId64, x->value.i);
        break;
    case TK_SX_VAR: fprintf(out, "%s.%u", x->var->name, x->var->id); return;
    case TK_SX_UNARY:
        fprintf(out, "%s(", x->op == TK_UNOP_NEG ? "neg" : x->op == TK_UNOP_NOT ? "not" : x->op == TK_UNOP_INVERT ? "invert" : "pos");
        print_args(out, x);
        fputc(')', out);
        break;
    case TK_SX_BINARY:
        fprintf(out, "%s(", binop_names[x->op] ? binop_names[x->op] : "?");
        print_args(out, x);
        print_attrs(out, x, false);
        fputc(')', out);
        break;
    case TK_SX_CAST:
        fputs(x->bitcast ? "bitcast(" : "cast(", out);
        print_args(out, x);
        print_attrs(out, x, false);
        fputc(')', out);
        break;
    case TK_SX_BROADCAST:
        fputs("broadcast(", out);
        print_args(out, x);
        fputc(')', out);
        break;
    case TK_SX_SELECT:
        fputs("select(", out);
        print_args(out, x);
        fputc(')', out);
        break;
    case TK_SX_BUILTIN:
        fprintf(out, "%s(", tk_sema_builtin_name(x->builtin));
        print_args(out, x);
        if (x->func) fprintf(out, "%scombine=%s#%u", x->args.len ? ", " : "", x->func->name, x->func->instance);
        print_attrs(out, x, x->args.len == 0 && !x->func);
        fputc(')', out);
        break;
    case TK_SX_CALL:
        fprintf(out, "call %s#%u(", x->func->name, x->func->instance);
        print_args(out, x);
        fputc(')', out);
        break;
    case TK_SX_TUPLE:
        fputc('(', out);
        print_args(out, x);
        fputc(')', out);
        break;
    case TK_SX_TUPLE_GET:
        print_sx(out, x->args.data[0]);
        fprintf(out, "[%u]", x->index);
        break;
    }
    fputc(':', out);
    tk_type_print(out, x->type);
}

static void indent(FILE *out, int depth) {
    for (int i = 0; i < depth; i++) fputs("  ", out);
}

static void print_block(FILE *out, const tk_ss_list *body, int depth);

static void print_ss(FILE *out, const tk_ss *s, int depth) {
    indent(out, depth);
    switch (s->kind) {
    case TK_SS_ASSIGN:
        fprintf(out, "%s.%u: ", s->var->name, s->var->id);
        tk_type_print(out, s->var->type);
        fputs(" = ", out);
        print_sx(out, s->value);
        fputc('\n', out);
        break;
    case TK_SS_EXPR:
        print_sx(out, s->value);
        fputc('\n', out);
        break;
    case TK_SS_IF:
        fputs("if ", out);
        print_sx(out, s->value);
        fputs(":\n", out);
        print_block(out, &s->then, depth + 1);
        if (s->otherwise.len) {
            indent(out, depth);
            fputs("else:\n", out);
            print_block(out, &s->otherwise, depth + 1);
        }
        break;
    case TK_SS_FOR:
        fprintf(out, "for %s.%u: ", s->var->name, s->var->id);
        tk_type_print(out, s->var->type);
        fputs(" in range(", out);
        print_sx(out, s->lo);
        fputs(", ", out);
        print_sx(out, s->hi);
        fputs(", ", out);
        print_sx(out, s->step);
        fputc(')', out);
        if (s->num_stages >= 0) fprintf(out, " num_stages=%" PRId64, s->num_stages);
        fputs(":\n", out);
        print_block(out, &s->then, depth + 1);
        break;
    case TK_SS_WHILE:
        fputs("while ", out);
        if (s->otherwise.len) {
            /* the work of the condition, redone before each test */
            fputs("each test after:\n", out);
            print_block(out, &s->otherwise, depth + 2);
            indent(out, depth + 1);
            fputs("test ", out);
        }
        print_sx(out, s->value);
        fputs(":\n", out);
        print_block(out, &s->then, depth + 1);
        break;
    case TK_SS_RETURN:
        fputs("return", out);
        if (s->value) {
            fputc(' ', out);
            print_sx(out, s->value);
        }
        fputc('\n', out);
        break;
    case TK_SS_BREAK: fputs("break\n", out); break;
    case TK_SS_CONTINUE: fputs("continue\n", out); break;
    }
}

static void print_block(FILE *out, const tk_ss_list *body, int depth) {
    if (body->len == 0) {
        indent(out, depth);
        fputs("pass\n", out);
    }
    for (uint32_t i = 0; i < body->len; i++) print_ss(out, body->data[i], depth);
}

static void print_kernel(FILE *out, const tk_sema_kernel *k) {
    fprintf(out, "kernel %s variant %u\n", k->name, k->variant);
    for (uint32_t i = 0; i < k->constexprs.len; i++)
        fprintf(out, "  constexpr %s = %s\n", k->constexprs.data[i].name, k->constexprs.data[i].value_text);
    for (uint32_t i = 0; i < k->params.len; i++) {
        const tk_sema_param *p = &k->params.data[i];
        if (p->is_constexpr) continue;
        fprintf(out, "  param %s.%u: ", p->name, p->var->id);
        tk_type_print(out, p->type);
        if (p->promise == TK_PROMISE_DIVISIBLE) fprintf(out, " %% %llu", (unsigned long long)p->promise_value);
        if (p->promise == TK_PROMISE_EQUAL) fprintf(out, " == %llu", (unsigned long long)p->promise_value);
        if (p->promise == TK_PROMISE_OPTIONAL) fputs(p->absent ? " | None (None here)" : " | None", out);
        if (p->python_int) fputs(" (int: the launcher takes i64 and checks it fits)", out);
        if (p->num_sms) fputs(" = num_sms() (the launcher reads it from the device)", out);
        if (p->computed) {
            fputs(" = computed by the launcher: ", out);
            print_sx(out, p->computed);
        }
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < k->conditions.len; i++) {
        const tk_sx *cond = k->conditions.data[i].cond;
        if (cond->type->kind == TK_TYPE_POINTER) {
            fprintf(out, "  when %s.%u is %sNone\n", cond->var->name, cond->var->id,
                    k->conditions.data[i].value ? "not " : "");
            continue;
        }
        fprintf(out, "  when %s: ", k->conditions.data[i].value ? "true" : "false");
        print_sx(out, k->conditions.data[i].cond);
        fprintf(out, "  (sets %s)\n", k->conditions.data[i].name);
    }
    if (k->autotune_key.len) {
        fputs("  autotune key", out);
        for (uint32_t i = 0; i < k->autotune_key.len; i++)
            fprintf(out, "%s%s", i ? ", " : " ", k->autotune_key.data[i] ? k->autotune_key.data[i] : "?");
        fputc('\n', out);
    }
    if (k->tune_warmup_ms >= 0) fprintf(out, "  timed with warmup=%g ms\n", k->tune_warmup_ms);
    if (k->tune_rep_ms >= 0) fprintf(out, "  timed with rep=%g ms\n", k->tune_rep_ms);
    if (k->prune_keep) {
        fputs("  timed where ", out);
        print_sx(out, k->prune_keep);
        fputc('\n', out);
    }
    if (k->prune_estimate) {
        fprintf(out, "  timed among the %u lowest of ", k->prune_top_k);
        print_sx(out, k->prune_estimate);
        fputc('\n', out);
    }
    if (k->launcher_name) fprintf(out, "  launcher %s\n", k->launcher_name);
    if (k->launch_pdl) fprintf(out, "  launch_pdl\n");
    if (!k->fp_fusion) fprintf(out, "  enable_fp_fusion False\n");
    for (uint32_t i = 0; i < k->requires.len; i++) {
        fprintf(out, "  requires %s: ", k->requires.data[i].text);
        print_sx(out, k->requires.data[i].cond);
        fputc('\n', out);
    }
    fputs("  grid (", out);
    for (uint32_t i = 0; i < k->grid_rank; i++) {
        if (i) fputs(", ", out);
        print_sx(out, k->grid[i]);
    }
    fputs(")\n", out);
    fprintf(out, "  num_warps %" PRId64 ", num_stages %" PRId64, k->num_warps, k->num_stages);
    if (k->maxnreg) fprintf(out, ", maxnreg %" PRId64, k->maxnreg);
    fputc('\n', out);
    fputs("  body:\n", out);
    print_block(out, &k->body, 2);
}

static void print_func(FILE *out, const tk_sema_func *f) {
    fprintf(out, "func %s#%u(", f->name, f->instance);
    for (uint32_t i = 0; i < f->params.len; i++) {
        fprintf(out, "%s%s.%u: ", i ? ", " : "", f->params.data[i]->name, f->params.data[i]->id);
        tk_type_print(out, f->params.data[i]->type);
    }
    fputs(") -> ", out);
    tk_type_print(out, f->result);
    fputc('\n', out);
    for (uint32_t i = 0; i < f->constexprs.len; i++)
        fprintf(out, "  constexpr %s = %s\n", f->constexprs.data[i].name, f->constexprs.data[i].value_text);
    fputs("  body:\n", out);
    print_block(out, &f->body, 2);
}

void tk_sema_print(FILE *out, const tk_sema_program *program) {
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        if (i) fputc('\n', out);
        print_kernel(out, program->kernels.data[i]);
    }
    for (uint32_t i = 0; i < program->funcs.len; i++) {
        fputc('\n', out);
        print_func(out, program->funcs.data[i]);
    }
}
