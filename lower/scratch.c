/* Scratch: the shared memory an op uses while it runs, one function per
 * family (tk_scratch_kind, from ops.def and sema/builtins.def). The
 * shared-memory pass (smem.c) sizes and places scratch with these, and
 * codegen addresses it with the slot size they give (op->scratch_slot),
 * so the two never disagree on where an element goes.
 * Needs: layouts. Allocates a conversion's shared layout in the arena. */
#include "internal.h"

#include <string.h>

static int64_t numel(const tk_type *t) {
    int64_t n = 1;
    for (uint32_t i = 0; t->kind == TK_TYPE_TILE && i < t->rank; i++) n *= t->shape[i];
    return n;
}

uint32_t tk_tir_scratch_word_bytes(const tk_type *t) {
    const tk_type *e = tir_elem(t);
    if (e->kind == TK_TYPE_POINTER) return 8;
    uint32_t b = (tk_dtype_bits(e->dtype) + 7) / 8;
    return b < 4 ? 4 : b; /* scratch words are at least 32 bits */
}

uint32_t tir_convert_word_bytes(const tk_type *t) {
    const tk_type *e = tir_elem(t);
    if (e->kind != TK_TYPE_POINTER && tk_dtype_bits(e->dtype) == 16) return 2;
    return tk_tir_scratch_word_bytes(t);
}

/* does a warp bit of l select along `axis` (work crosses warps)? */
static bool crosses_warps(const tk_ll *l, int64_t axis) {
    uint32_t dim = axis < 0 ? 0 : (uint32_t)axis;
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (l->warp[i] && tk_ll_coord(l, l->warp[i], dim) != 0) return true;
    return false;
}

/* Does l give some element to more than one thread or register? */
static bool replicates(const tk_ll *l) {
    tk_ll_copies copies = tk_ll_copy_bits(l);
    return copies.reg || copies.lane || copies.warp;
}

/* A layout conversion (or a broadcast) that neither registers nor warp
 * shuffles can do: the whole tile, laid out plain or swizzled, whichever
 * costs the fewest bank wavefronts for its writes and reads together. */
static tk_tir_scratch scratch_convert(tk_arena *arena, const tk_tir_op *op) {
    tk_tir_scratch s = {0};
    const tk_tir_value *in = op->operands.data[0], *out = op->results.data[0];
    if (!in->layout || !out->layout || tk_tir_conversion_kind_of(in->layout, out->layout) != TK_CONVERT_SHARED)
        return s;
    s.slot_bytes = tir_convert_word_bytes(in->type);
    tk_ll *shared = TK_NEW(arena, tk_ll);
    tk_ll_conversion_scratch(shared, in->layout, out->layout, s.slot_bytes);
    s.layout = shared;
    s.bytes = (uint64_t)numel(in->type) * s.slot_bytes;
    return s;
}

/* A reduction across warps: each warp's partial state of every result
 * element, a slot of TK_TIR_SCRATCH_VALUE_BYTES per value it carries
 * ((value, index) for argmax/argmin, each operand of a tuple reduce). */
static tk_tir_scratch scratch_reduce(const tk_tir_op *op) {
    tk_tir_scratch s = {0};
    const tk_tir_value *in = op->operands.data[0];
    if (!in->layout || !crosses_warps(in->layout, tk_tir_attr_int(op, "axis", 0))) return s;
    uint32_t values = op->sub == TK_B_ARGMAX || op->sub == TK_B_ARGMIN ? 2 : op->operands.len;
    s.slot_bytes = TK_TIR_SCRATCH_VALUE_BYTES * values;
    s.bytes = (uint64_t)numel(op->results.data[0]->type) << in->layout->warp_bits;
    s.bytes *= s.slot_bytes;
    return s;
}

/* A scan across warps: every thread's running state of every register,
 * TK_TIR_SCRATCH_VALUE_BYTES a value (several for a tuple scan). */
static tk_tir_scratch scratch_scan(const tk_tir_op *op) {
    tk_tir_scratch s = {0};
    const tk_ll *l = op->operands.data[0]->layout;
    if (!l || !crosses_warps(l, tk_tir_attr_int(op, "axis", 0))) return s;
    s.slot_bytes = TK_TIR_SCRATCH_VALUE_BYTES;
    s.bytes = ((uint64_t)32 << l->warp_bits) * tk_ll_num_regs(l) * s.slot_bytes * op->operands.len;
    return s;
}

/* An atomic's old values: one copy of each element (one thread for a
 * scalar) acts, the others read what it got here. Only where the result
 * is used and held by more than one thread or register. */
static tk_tir_scratch scratch_atomic(const tk_tir_op *op, bool result_used) {
    tk_tir_scratch s = {0};
    if (!op->results.len || !result_used) return s;
    const tk_tir_value *r = op->results.data[0];
    if (r->type->kind == TK_TYPE_TILE && (!r->layout || !replicates(r->layout))) return s;
    s.slot_bytes = tk_tir_scratch_word_bytes(r->type);
    s.bytes = (uint64_t)numel(r->type) * s.slot_bytes;
    return s;
}

/* join, split and cat whose elements change threads: the joined (or
 * split) tile, one word an element. */
static tk_tir_scratch scratch_shape(const tk_tir_op *op) {
    tk_tir_scratch s = {0};
    if (!op->operands.len || !op->operands.data[0]->layout || tk_tir_join_split_cat_in_registers(op)) return s;
    const tk_tir_value *whole = op->sub == TK_B_SPLIT ? op->operands.data[0] : op->results.data[0];
    s.slot_bytes = tk_tir_scratch_word_bytes(op->operands.data[0]->type);
    s.bytes = (uint64_t)numel(whole->type) * tk_tir_scratch_word_bytes(whole->type);
    return s;
}

/* A matrix product by FMAs (impl "fma", dot.c): both operands, one word of
 * the compute type an element, a's [batch, M, K] then b's [batch, K, N]. */
static tk_tir_scratch scratch_dot(const tk_tir_op *op) {
    tk_tir_scratch s = {0};
    if (tk_tir_dot_impl(op) != TK_DOT_FMA) return s; /* mma.sync: operands in registers */
    const tk_tir_value *a = op->operands.data[0], *b = op->operands.data[1];
    s.slot_bytes = tk_tir_scratch_word_bytes(a->type);
    s.bytes = (uint64_t)(numel(a->type) + numel(b->type)) * s.slot_bytes;
    return s;
}

/* tl.histogram: its bins, one 32-bit counter each. */
static tk_tir_scratch scratch_histogram(const tk_tir_op *op) {
    tk_tir_scratch s = {0};
    if (!op->results.len) return s;
    s.slot_bytes = 4;
    s.bytes = (uint64_t)numel(op->results.data[0]->type) * 4;
    return s;
}

/* tl.gather's source, and tl.sort's and tl.topk's input (sorted in
 * place): the whole first operand, row-major, one scratch word an element. */
static tk_tir_scratch scratch_whole_operand(const tk_tir_op *op) {
    tk_tir_scratch s = {0};
    if (!op->operands.len) return s;
    s.slot_bytes = tk_tir_scratch_word_bytes(op->operands.data[0]->type);
    s.bytes = (uint64_t)numel(op->operands.data[0]->type) * s.slot_bytes;
    return s;
}

tk_tir_scratch tk_tir_scratch_need(tk_arena *arena, const tk_tir_op *op, bool result_used) {
    switch (tk_tir_scratch_kind(op)) {
    case TK_SCRATCH_CONVERT: return scratch_convert(arena, op);
    case TK_SCRATCH_REDUCE: return scratch_reduce(op);
    case TK_SCRATCH_SCAN: return scratch_scan(op);
    case TK_SCRATCH_ATOMIC: return scratch_atomic(op, result_used);
    case TK_SCRATCH_SHAPE: return scratch_shape(op);
    case TK_SCRATCH_DOT: return scratch_dot(op);
    case TK_SCRATCH_HISTOGRAM: return scratch_histogram(op);
    case TK_SCRATCH_GATHER: return scratch_whole_operand(op);
    case TK_SCRATCH_SORT: return tk_tir_sorted_in_place(op) ? (tk_tir_scratch){0} : scratch_whole_operand(op);
    case TK_SCRATCH_NONE: break;
    }
    return (tk_tir_scratch){0};
}

bool tk_tir_sorted_in_place(const tk_tir_op *op) {
    if (op->code != TIR_BUILTIN || op->sub != TK_B_SORT || !op->operands.len || !op->results.len) return false;
    const tk_tir_value *x = op->operands.data[0], *r = op->results.data[0];
    if (!x->layout || !r->layout || x->type->kind != TK_TYPE_TILE || !tk_ll_equal(x->layout, r->layout)) return false;
    return tk_ll_rows_in_warps(x->layout, x->type->shape[x->type->rank - 1]);
}

bool tk_tir_join_split_cat_in_registers(const tk_tir_op *op) {
    if (op->code != TIR_BUILTIN || !op->operands.len || !op->results.len) return false;
    const tk_tir_value *a = op->operands.data[0], *r = op->results.data[0];
    if (!a->layout || !r->layout || a->type->kind != TK_TYPE_TILE || r->type->kind != TK_TYPE_TILE) return false;
    tk_ll l;
    uint32_t pair_bit;
    if (op->sub == TK_B_SPLIT) return tk_ll_split(&l, a->layout, &pair_bit) && tk_ll_equal(&l, r->layout);
    if (op->sub != TK_B_JOIN && op->sub != TK_B_CAT) return false;
    const tk_tir_value *b = op->operands.data[1];
    if (!b->layout || !tk_ll_equal(a->layout, b->layout)) return false;
    if (op->sub == TK_B_JOIN) tk_ll_join(&l, a->layout);
    else tk_ll_cat(&l, a->layout);
    return tk_ll_equal(&l, r->layout);
}
