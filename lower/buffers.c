/* Shared-memory buffers for the tensor cores' operands: how a tile is
 * laid out there and whether wgmma can read it. The pipeliner
 * (pipeline_dot.c) fills such buffers by cp.async ahead of the dot; the
 * dot-operands pass (dot_operands.c) stores a wgmma's B into one from
 * registers; dot.c asks before choosing wgmma whether the buffer its B
 * will get is one wgmma reads.
 * Needs: axis info, for the orientation of loaded tiles. */
#include "internal.h"

/* the widest swizzle whose rows (along the contiguous dimension) fit the
 * tile's (0: plain) */
uint32_t tir_swizzle_for(const tk_type *t, bool transposed) {
    int64_t row_bytes = t->shape[transposed ? 0 : 1] * (int64_t)tk_dtype_bits(tir_elem(t)->dtype) / 8;
    if (t->shape[transposed ? 1 : 0] < 8) return 0;
    for (uint32_t s = 128; s >= 32; s /= 2)
        if (row_bytes >= s) return s;
    return 0;
}

uint32_t tir_add_buffer(tk_arena *arena, tk_tir_kernel *k, const tk_type *tile, uint32_t stages, bool transposed,
                        const tk_tir_op *loop, tk_loc loc) {
    tk_tir_buffer b = {0};
    b.tile = tile;
    b.stages = stages;
    b.loc = loc;
    b.transposed = transposed;
    b.loop = loop;
    tk_ll *l = TK_NEW(arena, tk_ll);
    uint32_t bits = tk_dtype_bits(tir_elem(b.tile)->dtype);
    if (tile->rank == 1) { /* a row (pipeline_dot.c's row_load): in order */
        tk_ll_shared(l, 1, tile->shape, 1, 1, 1);
        b.layout = l;
        b.stage_bytes = (uint32_t)(tile->shape[0] * bits / 8);
        tk_vec_push(arena, &k->buffers, b);
        return k->buffers.len - 1;
    }
    b.swizzle_bytes = tir_swizzle_for(b.tile, b.transposed);
    if (!b.swizzle_bytes || !tk_ll_nvmma_shared(l, b.tile->shape, bits, b.swizzle_bytes, b.transposed)) {
        b.swizzle_bytes = 0;
        int64_t rows_first[2] = {b.tile->shape[1], b.tile->shape[0]};
        const uint32_t swap[2] = {1, 0};
        tk_ll plain;
        tk_ll_shared(&plain, 2, b.transposed ? rows_first : b.tile->shape, 1, 1, 1);
        if (b.transposed) tk_ll_permute(l, &plain, swap);
        else *l = plain;
    }
    b.layout = l;
    b.stage_bytes = (uint32_t)(b.tile->shape[0] * b.tile->shape[1] * bits / 8);
    tk_vec_push(arena, &k->buffers, b);
    return k->buffers.len - 1;
}

void tir_buffer_for_fragments(tk_arena *arena, tk_tir_buffer *b) {
    tk_ll *l = TK_NEW(arena, tk_ll);
    tk_ll_fragment_shared(l, b->tile->shape, b->transposed);
    b->layout = l;
    b->swizzle_bytes = 0;
}

bool tir_tma_box(const tk_type *tile, bool trans, uint32_t *box, uint32_t *swizzle_bytes) {
    if (tile->rank != 2) return false;
    /* the buffer tir_add_buffer gives the staged tile (the load's, or its
     * transpose laid out as the load lies) */
    int64_t staged_shape[2] = {tile->shape[trans ? 1 : 0], tile->shape[trans ? 0 : 1]};
    tk_type staged = {0};
    staged.kind = TK_TYPE_TILE;
    staged.elem = tile->elem;
    staged.rank = 2;
    staged.shape[0] = staged_shape[0];
    staged.shape[1] = staged_shape[1];
    uint32_t bits = tk_dtype_bits(tile->elem->dtype), sw = tir_swizzle_for(&staged, trans);
    int64_t rows = tile->shape[0], cols = tile->shape[1];
    if (!sw || bits < 8 || rows > 256) return false;
    int64_t width = sw * 8 / bits; /* a box's columns: one swizzle span */
    if (cols % width) return false;
    tk_ll buffer, box_layout, expected = {0};
    if (!tk_ll_nvmma_shared(&buffer, staged_shape, bits, sw, trans)) return false;
    int64_t box_shape[2] = {rows, width};
    if (!tk_ll_nvmma_shared(&box_layout, box_shape, bits, sw, false)) return false;
    /* what TMA writes: boxes of one span each, one after another along
     * the columns, each box's rows swizzled as the buffer's */
    expected.rank = 2;
    expected.shape[0] = rows;
    expected.shape[1] = cols;
    expected.shared = true;
    uint32_t n = 0;
    for (uint32_t i = 0; i < box_layout.reg_bits; i++) {
        uint64_t f = box_layout.reg[i];
        expected.reg[n++] = (f / (uint64_t)width) * (uint64_t)cols + f % (uint64_t)width;
    }
    for (int64_t p = width; p < cols; p *= 2) expected.reg[n++] = (uint64_t)p;
    expected.reg_bits = n;
    if (trans) {
        const uint32_t swap[2] = {1, 0};
        tk_ll flipped;
        tk_ll_permute(&flipped, &expected, swap);
        expected = flipped;
    }
    if (!tk_ll_equal(&expected, &buffer)) return false;
    box[0] = (uint32_t)rows;
    box[1] = (uint32_t)width;
    *swizzle_bytes = sw;
    return true;
}

/* Does the tile `load` reads (or, trans, its tl.trans) lie down its
 * columns in memory: its first dimension contiguous, its rows not? A B
 * given K-major (Triton's tutorial feeds fp8 as b.T), or a tl.trans of a
 * row-major load (attention's K). */
bool tir_loaded_column_major(const tk_tir_op *load, bool trans) {
    if (load->code == TIR_DESC_LOAD) return trans; /* a descriptor's last dimension is contiguous */
    const tk_tir_value *p = load->operands.data[0];
    uint32_t down = trans ? 1 : 0; /* the load's dimension that is the operand's first */
    return p->has_axis && p->contiguity[down] > 1 && p->contiguity[1 - down] == 1;
}

const tk_tir_op *tir_operand_load(const tk_tir_value *v, bool *trans) {
    *trans = v->def && tir_is_transpose(v->def);
    if (*trans) v = v->def->operands.data[0];
    const tk_tir_op *load = v->def;
    return load && load->code == TIR_LOAD && tir_rank(v->type) == 2 ? load : NULL;
}

bool tir_wgmma_reads(tk_dtype in, uint32_t operand, bool transposed, uint32_t swizzle_bytes) {
    bool sixteen = in == TK_F16 || in == TK_BF16;
    return swizzle_bytes && (sixteen || transposed == (operand == 1));
}
