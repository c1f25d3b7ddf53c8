/* How a tile moves from one layout to another, decided here and nowhere
 * else: the scratch of a conversion (scratch.c), its code (codegen's
 * cg_relayout), its kind in --emit=tir-gpu (print.c) and the counts of
 * --stats all ask tk_tir_plan_conversion. The cheapest way the
 * linear-layout algebra allows, in order: registers only (the source
 * registers renumbered), one warp shuffle per destination register, or
 * shared memory (every element written and read back, the last resort).
 * Needs: layouts of the same shape, or a destination broadcast from the
 * source's shape. */
#include "internal.h"

#include <stdlib.h>

const char *tk_tir_conversion_name(tk_tir_conversion_kind kind) {
    switch (kind) {
    case TK_CONVERT_REGISTERS: return "registers";
    case TK_CONVERT_SHUFFLES: return "shuffles";
    case TK_CONVERT_SHARED: return "shared";
    default: return "?";
    }
}

/* plan's maps in the caller's buffers (n destination registers each) */
static tk_tir_conversion_kind plan_into(const tk_ll *from, const tk_ll *to, uint32_t *src_reg, uint32_t *lane_const,
                                        uint32_t lane_xor[TK_LL_LANE_BITS]) {
    if (tk_ll_register_map(from, to, src_reg)) return TK_CONVERT_REGISTERS;
    if (tk_ll_shuffle_map(from, to, src_reg, lane_const, lane_xor)) return TK_CONVERT_SHUFFLES;
    return TK_CONVERT_SHARED;
}

tk_tir_conversion tk_tir_plan_conversion(tk_arena *arena, const tk_ll *from, const tk_ll *to) {
    tk_tir_conversion p = {0};
    p.registers = (uint32_t)tk_ll_num_regs(to);
    p.src_reg = TK_NEW_ARRAY(arena, uint32_t, p.registers);
    p.lane_const = TK_NEW_ARRAY(arena, uint32_t, p.registers);
    p.kind = plan_into(from, to, p.src_reg, p.lane_const, p.lane_xor);
    return p;
}

tk_tir_conversion_kind tk_tir_conversion_kind_of(const tk_ll *from, const tk_ll *to) {
    uint64_t n = tk_ll_num_regs(to);
    uint32_t *src_reg = malloc(sizeof(uint32_t) * n), *lane_const = malloc(sizeof(uint32_t) * n);
    uint32_t lane_xor[TK_LL_LANE_BITS];
    /* out of memory: the cautious answer */
    tk_tir_conversion_kind kind =
        src_reg && lane_const ? plan_into(from, to, src_reg, lane_const, lane_xor) : TK_CONVERT_SHARED;
    free(src_reg);
    free(lane_const);
    return kind;
}

/* ---- counts for --stats -------------------------------------------------- */

typedef struct count_ctx {
    tk_tir_conversion_counts *counts;
} count_ctx;

static bool inside_loop(const tk_tir_op *op) {
    for (const tk_tir_block *b = op->parent; b && b->parent; b = b->parent->parent)
        if (b->parent->code == TIR_FOR || b->parent->code == TIR_WHILE) return true;
    return false;
}

static void count_op(tk_tir_op *op, void *ctx_) {
    count_ctx *c = ctx_;
    if (op->dead || op->code != TIR_CONVERT_LAYOUT) return;
    const tk_tir_value *in = op->operands.data[0], *out = op->results.data[0];
    if (!in->layout || !out->layout) return;
    tk_tir_conversion_kind kind = tk_tir_conversion_kind_of(in->layout, out->layout);
    c->counts->total[kind]++;
    if (inside_loop(op)) c->counts->in_loops[kind]++;
}

tk_tir_conversion_counts tk_tir_count_conversions(const tk_tir_kernel *k) {
    tk_tir_conversion_counts counts = {0};
    count_ctx c = {&counts};
    tir_walk(k->body, count_op, &c);
    return counts;
}
