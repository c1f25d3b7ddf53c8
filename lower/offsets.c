/* The int32 offset check (a warning, not a transformation).
 * Needs: constants folded. Keeps: everything.
 *
 * Triton computes `offs * stride` in i32 when both are i32, and the
 * product silently wraps once a tensor passes 2^31 elements: the load then
 * reads far from where the user meant. The trap is a product of two
 * values only known at run time (a row index and a stride), computed in
 * 32 bits and used in a pointer offset. A product with a constant (pid *
 * BLOCK) or of tile-local indices (arange) is bounded by the tile or the
 * grid and stays quiet. Each source position warns once, however many
 * variants share it. */
#include "internal.h"

static bool fixed(const tk_tir_value *v, int depth) {
    const tk_tir_op *def = v->def;
    if (!def || depth > 64) return false;
    switch (def->code) {
    case TIR_CONST:
    case TIR_MAKE_RANGE:
        return true;
    case TIR_SPLAT: case TIR_BROADCAST: case TIR_RESHAPE: case TIR_PERMUTE: case TIR_HINT: case TIR_CAST:
    case TIR_UNARY: case TIR_BINARY:
        for (uint32_t i = 0; i < def->operands.len; i++)
            if (!fixed(def->operands.data[i], depth + 1)) return false;
        return true;
    default:
        return false;
    }
}

typedef struct offset_ctx {
    tk_diag *diag;
    tk_arena *arena;
    tk_tir_warned *warned;
} offset_ctx;

static bool warned_before(offset_ctx *c, tk_loc loc) {
    for (uint32_t i = 0; i < c->warned->len; i++)
        if (c->warned->data[i].line == loc.line && c->warned->data[i].col == loc.col) return true;
    tk_vec_push(c->arena, c->warned, loc);
    return false;
}

static void check_offset(offset_ctx *c, const tk_tir_value *v, int depth) {
    const tk_tir_op *def = v->def;
    if (!def || depth > 64) return;
    switch (def->code) {
    case TIR_SPLAT: case TIR_BROADCAST: case TIR_RESHAPE: case TIR_PERMUTE: case TIR_HINT: case TIR_CAST:
        check_offset(c, def->operands.data[0], depth + 1);
        return;
    case TIR_BINARY:
        if (def->sub == TK_BINOP_MUL) {
            const tk_type *e = tir_elem(v->type);
            const tk_tir_value *a = def->operands.data[0], *b = def->operands.data[1];
            if (e->kind == TK_TYPE_SCALAR && tk_dtype_is_int(e->dtype) && tk_dtype_bits(e->dtype) == 32 &&
                !fixed(a, 0) && !fixed(b, 0) && !warned_before(c, def->loc)) {
                tk_warning(c->diag, TK_W_INT32_OFFSET, def->loc,
                           "this pointer offset multiplies two run-time values in %s: past 2^31 it wraps",
                           tk_dtype_name(e->dtype));
                tk_note_plain(c->diag, "compute it in 64 bits where the tensor may be that large, e.g. "
                                       "row.to(tl.int64) * stride; a comment `# tkc: no-int32-offset` on the "
                                       "line silences it there, -Wno-int32-offset everywhere");
            }
        }
        if (def->sub == TK_BINOP_MUL || def->sub == TK_BINOP_ADD || def->sub == TK_BINOP_SUB)
            for (uint32_t i = 0; i < def->operands.len; i++) check_offset(c, def->operands.data[i], depth + 1);
        return;
    default:
        return;
    }
}

static void visit(tk_tir_op *op, void *ctx) {
    if (op->code == TIR_ADDPTR && op->operands.len == 2) check_offset(ctx, op->operands.data[1], 0);
}

void tir_check_offsets(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k, tk_tir_warned *warned) {
    offset_ctx c = {diag, arena, warned};
    tir_walk(k->body, visit, &c);
}
