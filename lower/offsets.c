/* The int32 offset check (a warning, not a transformation).
 * Needs: constants folded. Keeps: everything.
 *
 * Triton computes `offs * stride` in i32 when both are i32, and the
 * product silently wraps once it passes 2^31: the load then reads far
 * from where the user meant. Nearly every Triton kernel multiplies a row
 * index by a run-time stride in i32, and whether that wraps depends on
 * the tensors it is given, so the check warns only where the wrap is
 * certain for some value the code can take: a product in a pointer offset
 * whose factors' ranges are known (constants, aranges, and sums and
 * products of them) and whose range leaves i32. Each source position
 * warns once, however many versions share it. */
#include "internal.h"

/* The range [lo, hi] a value takes, where it is known from constants and
 * aranges; false where it is not (a parameter, a load, program_id). */
typedef struct span { int64_t lo, hi; } span;

static int64_t mul_saturated(int64_t a, int64_t b) {
    int64_t p;
    if (!__builtin_mul_overflow(a, b, &p)) return p;
    return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

static bool range_of(const tk_tir_value *v, span *r, int depth) {
    const tk_tir_op *def = v->def;
    if (!def || depth > 64) return false;
    span a, b;
    switch (def->code) {
    case TIR_CONST:
        if (tk_dtype_is_float(tir_elem(v->type)->dtype)) return false;
        r->lo = r->hi = def->value.i;
        return true;
    case TIR_MAKE_RANGE:
        r->lo = tk_tir_attr_int(def, "start", 0);
        r->hi = tk_tir_attr_int(def, "end", 1) - 1;
        return r->hi >= r->lo;
    case TIR_SPLAT: case TIR_BROADCAST: case TIR_RESHAPE: case TIR_PERMUTE: case TIR_HINT:
        return range_of(def->operands.data[0], r, depth + 1);
    case TIR_BINARY:
        if (def->sub != TK_BINOP_ADD && def->sub != TK_BINOP_SUB && def->sub != TK_BINOP_MUL) return false;
        if (!range_of(def->operands.data[0], &a, depth + 1) || !range_of(def->operands.data[1], &b, depth + 1))
            return false;
        /* bounds within +-2^40 keep sums exact; a product that overflows saturates */
        if (a.lo < -(INT64_C(1) << 40) || a.hi > INT64_C(1) << 40 || b.lo < -(INT64_C(1) << 40) ||
            b.hi > INT64_C(1) << 40)
            return false;
        if (def->sub == TK_BINOP_ADD) *r = (span){a.lo + b.lo, a.hi + b.hi};
        else if (def->sub == TK_BINOP_SUB) *r = (span){a.lo - b.hi, a.hi - b.lo};
        else {
            int64_t p[4] = {mul_saturated(a.lo, b.lo), mul_saturated(a.lo, b.hi), mul_saturated(a.hi, b.lo),
                            mul_saturated(a.hi, b.hi)};
            *r = (span){p[0], p[0]};
            for (int i = 1; i < 4; i++) {
                if (p[i] < r->lo) r->lo = p[i];
                if (p[i] > r->hi) r->hi = p[i];
            }
        }
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
            span ra, rb;
            bool signed32 = tk_dtype_is_signed(e->dtype);
            int64_t min = signed32 ? INT32_MIN : 0, max = signed32 ? INT32_MAX : (int64_t)UINT32_MAX;
            if (e->kind == TK_TYPE_SCALAR && tk_dtype_is_int(e->dtype) && tk_dtype_bits(e->dtype) == 32 &&
                range_of(a, &ra, 0) && range_of(b, &rb, 0)) {
                span r;
                (void)range_of(v, &r, 0);
                if ((r.lo < min || r.hi > max) && !warned_before(c, def->loc)) {
                    tk_warning(c->diag, TK_W_INT32_OFFSET, def->loc,
                               "this pointer offset wraps: the product reaches %lld, past %s's range",
                               (long long)(r.hi > max ? r.hi : r.lo), tk_dtype_name(e->dtype));
                    tk_note_plain(c->diag, "compute it in 64 bits, e.g. offs.to(tl.int64) * STRIDE; a comment "
                                           "`# tkc: no-int32-offset` on the line silences it there, "
                                           "-Wno-int32-offset everywhere");
                }
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
