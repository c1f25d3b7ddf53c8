/* `--emit=tir` and `--emit=tir-gpu`: one op a line, `%N` values, regions
 * indented with their block arguments; the gpu form adds each tile's
 * layout and the axis facts (contiguity/divisibility/constancy) of integer
 * and pointer values. Stable: golden tests pin it. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

static const char *const binop_names[TK_BINOP_COUNT] = {
    [TK_BINOP_ADD] = "add", [TK_BINOP_SUB] = "sub", [TK_BINOP_MUL] = "mul",
    [TK_BINOP_DIV] = "div", [TK_BINOP_FLOORDIV] = "div", [TK_BINOP_MOD] = "rem",
    [TK_BINOP_SHL] = "shl", [TK_BINOP_SHR] = "shr", [TK_BINOP_AND] = "and", [TK_BINOP_OR] = "or",
    [TK_BINOP_XOR] = "xor", [TK_BINOP_LT] = "lt", [TK_BINOP_GT] = "gt", [TK_BINOP_LE] = "le",
    [TK_BINOP_GE] = "ge", [TK_BINOP_EQ] = "eq", [TK_BINOP_NE] = "ne",
};

static void indent(FILE *out, int depth) {
    for (int i = 0; i < depth; i++) fputs("  ", out);
}

static void print_facts(FILE *out, const tk_tir_value *v) {
    if (!v->has_axis) return;
    uint32_t rank = tir_rank(v->type), n = rank ? rank : 1;
    const char *names[3] = {"contig", "div", "const"};
    const int64_t *vals[3] = {v->contiguity, v->divisibility, v->constancy};
    fputs(" {", out);
    for (int k = 0; k < 3; k++) {
        fprintf(out, "%s%s=", k ? " " : "", names[k]);
        for (uint32_t d = 0; d < n; d++) fprintf(out, "%s%" PRId64, d ? "," : "", vals[k][d]);
    }
    fputc('}', out);
}

/* a tile's layout; before assignment (--emit=tir-after=layout-propagation)
 * the one propagation chose, as "prefers LAYOUT" */
static void print_layout(FILE *out, const tk_tir_value *v, bool gpu) {
    if (!gpu || v->type->kind != TK_TYPE_TILE || !(v->layout || v->preferred)) return;
    fputs(v->layout ? " " : " prefers ", out);
    tk_ll_print(out, v->layout ? v->layout : v->preferred);
}

static void print_value_decl(FILE *out, const tk_tir_value *v, bool gpu) {
    fprintf(out, "%%%u: ", v->id);
    tk_type_print(out, v->type);
    print_layout(out, v, gpu);
    if (gpu) print_facts(out, v);
}

static void print_block(FILE *out, const tk_tir_block *blk, int depth, bool gpu);

static void print_op(FILE *out, const tk_tir_op *op, int depth, bool gpu) {
    indent(out, depth);
    for (uint32_t i = 0; i < op->results.len; i++) fprintf(out, "%s%%%u", i ? ", " : "", op->results.data[i]->id);
    if (op->results.len) fputs(" = ", out);
    fputs(tk_tir_opcode_name(op->code), out);
    switch (op->code) {
    case TIR_UNARY: fputs(op->sub == TIR_NEG ? ".neg" : ".not", out); break;
    case TIR_BINARY:
    case TIR_CMP:
        fprintf(out, ".%s", binop_names[op->sub] ? binop_names[op->sub] : "?");
        break;
    case TIR_MATH:
    case TIR_REDUCE:
    case TIR_HINT:
    case TIR_BUILTIN: fprintf(out, ".%s", tk_sema_builtin_name(op->sub)); break;
    case TIR_DESC_FIELD: fputs(op->sub == TIR_DESC_DATA ? ".data" : op->sub == TIR_DESC_SHAPE ? ".shape" : ".stride", out); break;
    default: break;
    }
    if (op->code == TIR_CONST) {
        const tk_type *t = op->results.data[0]->type;
        if (tk_dtype_is_float(t->dtype)) {
            char buf[64];
            tk_format_double(buf, sizeof buf, op->value.f);
            fprintf(out, " %s", buf);
        } else {
            fprintf(out, " %" PRId64, op->value.i);
        }
    }
    for (uint32_t i = 0; i < op->operands.len; i++) fprintf(out, "%s%%%u", i ? ", " : " ", op->operands.data[i]->id);
    if (op->attrs.len) {
        fputs(" {", out);
        for (uint32_t i = 0; i < op->attrs.len; i++) {
            const struct tk_sema_attr *a = &op->attrs.data[i];
            if (a->text) fprintf(out, "%s%s=\"%s\"", i ? ", " : "", a->name, a->text);
            else fprintf(out, "%s%s=%" PRId64, i ? ", " : "", a->name, a->i);
        }
        fputc('}', out);
    }
    /* how a conversion is done (conversion.c): registers, shuffles, shared */
    if (gpu && op->code == TIR_CONVERT_LAYOUT && op->operands.data[0]->layout && op->results.data[0]->layout)
        fprintf(out, " via=%s", tk_tir_conversion_name(tk_tir_conversion_kind_of(op->operands.data[0]->layout,
                                                                                 op->results.data[0]->layout)));
    if (gpu && op->scratch_bytes) fprintf(out, " scratch[%u, %u)", op->scratch_offset, op->scratch_offset + op->scratch_bytes);
    if (gpu && op->scratch_layout) {
        /* a swizzled one only: the plain layout is the default */
        tk_ll plain;
        const tk_ll *s = op->scratch_layout;
        tk_ll_shared(&plain, s->rank, s->shape, 1, 1, 1);
        if (!tk_ll_equal(&plain, s)) {
            fputc(' ', out);
            tk_ll_print(out, s);
        }
    }
    if (op->results.len) {
        fputs(" : ", out);
        for (uint32_t i = 0; i < op->results.len; i++) {
            if (i) fputs(", ", out);
            tk_type_print(out, op->results.data[i]->type);
            print_layout(out, op->results.data[i], gpu);
            if (gpu) print_facts(out, op->results.data[i]);
        }
    }
    fputc('\n', out);
    for (uint32_t r = 0; r < op->regions.len; r++) print_block(out, op->regions.data[r], depth + 1, gpu);
}

static void print_block(FILE *out, const tk_tir_block *blk, int depth, bool gpu) {
    indent(out, depth);
    fputs("^(", out);
    for (uint32_t i = 0; i < blk->args.len; i++) {
        if (i) fputs(", ", out);
        print_value_decl(out, blk->args.data[i], gpu);
    }
    fputs("):\n", out);
    for (uint32_t i = 0; i < blk->ops.len; i++)
        if (!blk->ops.data[i]->dead) print_op(out, blk->ops.data[i], depth + 1, gpu);
}

/* What a specialized version assumes of its parameters, each after `word`, separated by `sep`
   (before the first too when it starts with a space); returns how many. */
static unsigned print_assumptions(FILE *out, const tk_tir_kernel *kernel, const char *sep, const char *word) {
    unsigned count = 0, arg = 0;
    const char *before = sep[0] == ' ' ? sep : "";
    for (uint32_t i = 0; i < kernel->sema->params.len; i++) {
        const tk_sema_param *p = &kernel->sema->params.data[i];
        if (p->is_constexpr) continue;
        if (arg < 64 && (kernel->assume_one >> arg & 1)) fprintf(out, "%s%s%s == 1", count++ ? sep : before, word, p->name);
        if (arg < 64 && (kernel->assume_div16 >> arg & 1))
            fprintf(out, "%s%s%s %% 16 == 0", count++ ? sep : before, word, p->name);
        arg++;
    }
    return count;
}

void tk_tir_print_versions(FILE *out, const tk_tir_program *program) {
    fputs("\nversions of each variant, in the order the launcher tries them:\n", out);
    for (uint32_t k = 0; k < program->kernels.len; k++) {
        const tk_tir_kernel *kernel = program->kernels.data[k];
        bool first = k == 0 || program->kernels.data[k - 1]->sema != kernel->sema;
        if (first) fprintf(out, "  %s variant %u:", kernel->sema->name, kernel->sema->variant);
        else fputc(';', out);
        if (kernel->suffix[0]) {
            fprintf(out, " %s (", kernel->suffix);
            print_assumptions(out, kernel, ", ", "");
            fputc(')', out);
        } else {
            fputs(" general", out);
        }
        if (k + 1 == program->kernels.len || program->kernels.data[k + 1]->sema != kernel->sema) fputc('\n', out);
    }
}

void tk_tir_print(FILE *out, const tk_tir_program *program, bool gpu) {
    for (uint32_t k = 0; k < program->kernels.len; k++) {
        const tk_tir_kernel *kernel = program->kernels.data[k];
        if (k) fputc('\n', out);
        fprintf(out, "kernel %s variant %u%s num_warps=%u num_stages=%u", kernel->sema->name, kernel->sema->variant,
                kernel->suffix, kernel->num_warps, kernel->num_stages);
        if (kernel->sema->maxnreg) fprintf(out, " maxnreg=%u", (unsigned)kernel->sema->maxnreg);
        print_assumptions(out, kernel, " ", "assume ");
        if (gpu) fprintf(out, " shared=%u", kernel->shared_bytes);
        fputc('\n', out);
        for (uint32_t i = 0; gpu && i < kernel->buffers.len; i++) {
            const tk_tir_buffer *b = &kernel->buffers.data[i];
            fprintf(out, "buffer %u: %u x ", i, b->stages);
            tk_type_print(out, b->tile);
            fprintf(out, " at %u, %u bytes a stage, swizzle %u%s ", b->offset, b->stage_bytes, b->swizzle_bytes,
                    b->transposed ? ", column-major" : "");
            tk_ll_print(out, b->layout);
            fputc('\n', out);
        }
        print_block(out, kernel->body, 0, gpu);
    }
}
