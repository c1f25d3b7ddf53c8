/* Where a tile's elements live and how they move between threads: the
 * flat index of a thread's register in its layout, the one thread that
 * acts for a replicated element, warp shuffles, the scratch of the op
 * being emitted, and conversions between layouts (as lower/conversion.c
 * plans them: registers, warp shuffles or shared memory).
 * Needs: layouts and their register and shuffle maps from lower/layout.c;
 * each op's scratch range from lower/smem.c and slot size from
 * lower/scratch.c (c->scratch_op); barriers between ops from
 * lower/barriers.c. Guarantees: every scratch address is relative to the
 * emitted op's range; an op given none is reported as an internal compiler
 * error, once. Within an op, writes to scratch pass a barrier before the
 * reads; the reads are left pending for barriers.c. */
#include "internal.h"

/* ---- a thread's registers in a layout ----------------------------------- */

/* The thread's part of a layout's flat index (XOR of the lane and warp
 * bases its lane and warp select); computed once per layout, in the entry. */
static LLVMValueRef thread_flat(cg *c, const tk_ll *l) {
    if (!l) return cg_i32(c, 0);
    for (uint32_t i = 0; i < c->nflats; i++)
        if (c->flats[i].l == l || tk_ll_equal(c->flats[i].l, l)) return c->flats[i].flat;
    LLVMBasicBlockRef here = LLVMGetInsertBlock(c->b);
    LLVMPositionBuilderBefore(c->b, c->entry_br);
    LLVMValueRef f = cg_i32(c, 0);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (!l->lane[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->lane, cg_i32(c, i), ""), cg_i32(c, 1), "");
        f = LLVMBuildXor(c->b, f, LLVMBuildMul(c->b, bit, cg_i32(c, (int64_t)l->lane[i]), ""), "");
    }
    for (uint32_t i = 0; i < l->warp_bits; i++) {
        if (!l->warp[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->warp, cg_i32(c, i), ""), cg_i32(c, 1), "");
        f = LLVMBuildXor(c->b, f, LLVMBuildMul(c->b, bit, cg_i32(c, (int64_t)l->warp[i]), ""), "");
    }
    LLVMPositionBuilderAtEnd(c->b, here);
    if (c->nflats < 64) {
        c->flats[c->nflats].l = l;
        c->flats[c->nflats].flat = f;
        c->nflats++;
    }
    return f;
}

/* Flat index of register r of layout l in this thread. The register's
 * bits that no lane or warp basis touches are added, not XORed, so they
 * fold into an address's immediate offset. */
LLVMValueRef cg_reg_flat(cg *c, const tk_ll *l, uint64_t r) {
    uint64_t thread_bits = 0, index = tk_ll_reg_index(l, r);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) thread_bits |= l->lane[i];
    for (uint32_t i = 0; i < l->warp_bits; i++) thread_bits |= l->warp[i];
    LLVMValueRef f = thread_flat(c, l);
    if (index & thread_bits) f = LLVMBuildXor(c->b, f, cg_i32(c, (int64_t)(index & thread_bits)), "");
    return LLVMBuildAdd(c->b, f, cg_i32(c, (int64_t)(index & ~thread_bits)), "");
}

/* Is this the program's first thread (lane 0 of warp 0)? Scalar stores
 * and atomics act there alone. */
LLVMValueRef cg_is_first_thread(cg *c) {
    return LLVMBuildICmp(c->b, LLVMIntEQ, LLVMBuildOr(c->b, c->lane, c->warp, ""), cg_i32(c, 0), "");
}

/* Whether this thread owns register r of layout l: of the holders of an
 * element, the one whose copy bits (tk_ll_copy_bits) are all 0, so that a
 * store or an atomic acts exactly once per element. */
LLVMValueRef cg_owner(cg *c, const tk_ll *l, uint32_t r) {
    LLVMValueRef yes = LLVMConstInt(c->t_i1, 1, 0);
    if (!l) return yes;
    tk_ll_copies copies = tk_ll_copy_bits(l);
    if (copies.reg & r) return LLVMConstInt(c->t_i1, 0, 0);
    /* one test a bit: a mask of several bits keeps warp & mask alive
     * across the kernel once LLVM shares it (8 more bytes spilled in
     * attention.tk) */
    LLVMValueRef p = yes;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (!(copies.lane >> i & 1)) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, c->lane, cg_i32(c, 1 << i), "");
        p = LLVMBuildAnd(c->b, p, LLVMBuildICmp(c->b, LLVMIntEQ, bit, cg_i32(c, 0), ""), "");
    }
    for (uint32_t i = 0; i < l->warp_bits; i++) {
        if (!(copies.warp >> i & 1)) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, c->warp, cg_i32(c, 1 << i), "");
        p = LLVMBuildAnd(c->b, p, LLVMBuildICmp(c->b, LLVMIntEQ, bit, cg_i32(c, 0), ""), "");
    }
    return p;
}

/* ---- shared memory scratch ---------------------------------------------- */

/* An address in the scratch of the op being emitted; byte_offset is
 * relative to its range, which barriers.c has ordered against other ops. */
LLVMValueRef cg_smem_addr(cg *c, LLVMValueRef byte_offset) {
    if (!c->smem || !c->scratch_op || !c->scratch_op->scratch_bytes) {
        /* the shared-memory pass gave this op none: a compiler bug, reported once */
        if (!c->failed)
            tk_internal_error(c->diag, c->scratch_op ? c->scratch_op->loc : (tk_loc){0},
                              "shared memory used but not allocated");
        c->failed = true;
        if (!c->smem) c->smem = LLVMAddGlobalInAddressSpace(c->mod, c->t_i8, "tk_smem_missing", 3);
    }
    if (c->scratch_op && c->scratch_op->scratch_offset)
        byte_offset = LLVMBuildAdd(c->b, byte_offset, cg_i32(c, c->scratch_op->scratch_offset), "");
    LLVMValueRef idx[1] = {byte_offset};
    return LLVMBuildGEP2(c->b, c->t_i8, c->smem, idx, 1, "");
}

/* values travel through shared memory as at least 32-bit words */
LLVMTypeRef cg_scratch_type(cg *c, LLVMTypeRef t) {
    if (t == c->t_i1 || t == c->t_i8 || t == c->t_i16) return c->t_i32;
    if (t == c->t_f16 || t == c->t_bf16) return c->t_f32;
    return t;
}

LLVMValueRef cg_to_scratch(cg *c, LLVMValueRef v) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->t_i1 || t == c->t_i8 || t == c->t_i16) return LLVMBuildZExt(c->b, v, c->t_i32, "");
    if (t == c->t_f16 || t == c->t_bf16) return LLVMBuildFPExt(c->b, v, c->t_f32, "");
    return v;
}

LLVMValueRef cg_from_scratch(cg *c, LLVMValueRef v, LLVMTypeRef t) {
    if (t == c->t_i1 || t == c->t_i8 || t == c->t_i16) return LLVMBuildTrunc(c->b, v, t, "");
    if (t == c->t_f16 || t == c->t_bf16) return LLVMBuildFPTrunc(c->b, v, t, "");
    return v;
}

/* The bytes of one slot of the emitted op's scratch (lower/scratch.c);
 * an op given none reports an internal error at its first access. */
unsigned cg_scratch_slot(cg *c) {
    return c->scratch_op && c->scratch_op->scratch_slot ? c->scratch_op->scratch_slot : 4;
}

/* Stores (or loads, where value is NULL) registers [r, r + vec) of a tile
 * at the shared-memory offsets `offsets` gives them, as one access. */
static LLVMValueRef smem_vector(cg *c, const tk_ll *offsets, uint32_t r, uint32_t vec, LLVMTypeRef st,
                                unsigned word_bytes, const LLVMValueRef *value) {
    LLVMValueRef addr = cg_smem_addr(c, LLVMBuildMul(c->b, cg_reg_flat(c, offsets, r), cg_i32(c, word_bytes), ""));
    LLVMTypeRef vt = vec > 1 ? LLVMVectorType(st, vec) : st;
    LLVMValueRef access;
    if (value) {
        LLVMValueRef v = value[0];
        if (vec > 1) {
            v = LLVMGetUndef(vt);
            for (uint32_t i = 0; i < vec; i++) v = LLVMBuildInsertElement(c->b, v, value[i], cg_i32(c, i), "");
        }
        access = LLVMBuildStore(c->b, v, addr);
    } else {
        access = LLVMBuildLoad2(c->b, vt, addr, "");
    }
    LLVMSetAlignment(access, vec * word_bytes);
    return access;
}

/* Register r of a value of type t in layout l reads slot flat * mul + add. */
cgval cg_scratch_read(cg *c, const tk_type *t, const tk_ll *l, int64_t mul, int64_t add, unsigned slot) {
    uint32_t n = l ? (uint32_t)tk_ll_num_regs(l) : 1;
    LLVMTypeRef et = cg_elem_type(c, t), st = cg_scratch_type(c, et);
    cgval out = cg_newval(c, n);
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef flat = l ? cg_reg_flat(c, l, r) : cg_i32(c, 0);
        LLVMValueRef idx = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, flat, cg_i32(c, mul), ""), cg_i32(c, add), "");
        out.r[r] = cg_from_scratch(c, LLVMBuildLoad2(c->b, st, cg_smem_addr(c, LLVMBuildMul(c->b, idx, cg_i32(c, slot), "")), ""), et);
    }
    return out;
}

void cg_scratch_write_regs(cg *c, const tk_ll *layout, LLVMValueRef *regs, uint32_t n, unsigned slot) {
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef flat = layout ? cg_reg_flat(c, layout, r) : cg_i32(c, 0);
        LLVMBuildStore(c->b, cg_to_scratch(c, regs[r]), cg_smem_addr(c, LLVMBuildMul(c->b, flat, cg_i32(c, slot), "")));
    }
}

void cg_scratch_write(cg *c, const tk_tir_value *v, unsigned slot) {
    cgval *vals = cg_get(c, v);
    cg_scratch_write_regs(c, v->layout, vals->r, vals->n, slot);
}

/* ---- warp shuffles ------------------------------------------------------ */

/* A warp shuffle of any register type (64-bit ones as two halves); mode
 * "bfly" (lane = XOR mask) or "idx" (lane = source lane). */
LLVMValueRef cg_shuffle(cg *c, LLVMValueRef v, const char *mode, LLVMValueRef lane) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->t_i64 || t == c->t_f64 || t == c->t_ptr1) {
        LLVMValueRef bits = t == c->t_ptr1 ? LLVMBuildPtrToInt(c->b, v, c->t_i64, "") : LLVMBuildBitCast(c->b, v, c->t_i64, "");
        LLVMValueRef lo = LLVMBuildTrunc(c->b, bits, c->t_i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, bits, LLVMConstInt(c->t_i64, 32, 0), ""), c->t_i32, "");
        lo = cg_shuffle(c, lo, mode, lane);
        hi = cg_shuffle(c, hi, mode, lane);
        LLVMValueRef r = LLVMBuildOr(c->b, LLVMBuildZExt(c->b, lo, c->t_i64, ""),
                                     LLVMBuildShl(c->b, LLVMBuildZExt(c->b, hi, c->t_i64, ""), LLVMConstInt(c->t_i64, 32, 0), ""), "");
        return t == c->t_ptr1 ? LLVMBuildIntToPtr(c->b, r, t, "") : LLVMBuildBitCast(c->b, r, t, "");
    }
    char name[48];
    if (t == c->t_f32) {
        LLVMValueRef args[4] = {cg_i32(c, -1), v, lane, cg_i32(c, 31)};
        snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.f32", mode);
        return cg_call(c, name, c->t_f32, args, 4);
    }
    LLVMValueRef w = cg_to_scratch(c, v);
    if (LLVMTypeOf(w) == c->t_f32) w = LLVMBuildBitCast(c->b, w, c->t_i32, "");
    LLVMValueRef args[4] = {cg_i32(c, -1), w, lane, cg_i32(c, 31)};
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.i32", mode);
    LLVMValueRef r = cg_call(c, name, c->t_i32, args, 4);
    if (t == c->t_f16 || t == c->t_bf16) return LLVMBuildFPTrunc(c->b, LLVMBuildBitCast(c->b, r, c->t_f32, ""), t, "");
    return cg_from_scratch(c, r, t);
}

/* ---- layout conversions ------------------------------------------------- */

/* Moves a tile between layouts (or broadcasts it) through shared memory,
 * laid out there as the shared-memory pass chose (plain or swizzled):
 * every thread writes the elements it holds, as wide as the layouts allow,
 * then reads the ones the destination layout gives it (a broadcast's
 * destination reads its source's element). Like every scratch use, it
 * leaves reads pending: barriers.c puts a barrier before the next op that
 * writes where they read. */
static cgval convert_via_smem(cg *c, const tk_tir_value *src, const cgval *sv, const tk_ll *dst) {
    unsigned wb = cg_scratch_slot(c);
    /* 16-bit values travel as they are where the op's slots are that wide
     * (lower/scratch.c, tir_convert_word_bytes) */
    LLVMTypeRef t = cg_elem_type(c, src->type);
    bool native = wb == 2 && (t == c->t_f16 || t == c->t_bf16 || t == c->t_i16);
    LLVMTypeRef st = native ? t : cg_scratch_type(c, t);
    const tk_ll *shared = c->scratch_op ? c->scratch_op->scratch_layout : NULL;
    tk_ll plain, inverse, writes, dst_here, reads;
    if (!shared) {
        tk_ll_shared(&plain, src->layout->rank, src->layout->shape, 1, 1, 1);
        shared = &plain;
    }
    tk_ll_invert(&inverse, shared);
    tk_ll_compose(&writes, &inverse, src->layout);
    tk_ll_project(&dst_here, dst, src->layout->shape);
    tk_ll_compose(&reads, &inverse, &dst_here);
    /* cg_reg_flat caches per layout: give these arena copies */
    tk_ll *w = TK_NEW(c->arena, tk_ll), *rd = TK_NEW(c->arena, tk_ll);
    *w = writes;
    *rd = reads;
    uint32_t wv = tk_ll_smem_vector(w, wb);
    LLVMValueRef words[8]; /* 16 bytes of 16-bit words at most */
    for (uint32_t r = 0; r < sv->n; r += wv) {
        for (uint32_t i = 0; i < wv; i++) words[i] = native ? sv->r[r + i] : cg_to_scratch(c, sv->r[r + i]);
        smem_vector(c, w, r, wv, st, wb, words);
    }
    cg_barrier(c);
    uint32_t n = (uint32_t)tk_ll_num_regs(dst), rv = tk_ll_smem_vector(rd, wb);
    cgval out = cg_newval(c, n);
    /* a dot operand's matrices by ldmatrix, as the scratch layout was
     * chosen for (tk_ll_conversion_scratch counts them so) */
    if (native && cg_load_by_ldmatrix(c, cg_smem_addr(c, cg_i32(c, 0)), shared, &dst_here, t, &out)) return out;
    for (uint32_t r = 0; r < n; r += rv) {
        LLVMValueRef v = smem_vector(c, rd, r, rv, st, wb, NULL);
        for (uint32_t i = 0; i < rv; i++)
            out.r[r + i] = native ? (rv > 1 ? LLVMBuildExtractElement(c->b, v, cg_i32(c, i), "") : v)
                                  : cg_from_scratch(c, rv > 1 ? LLVMBuildExtractElement(c->b, v, cg_i32(c, i), "") : v, t);
    }
    return out;
}

/* Moves a tile between layouts that differ within warps only: destination
 * register r is one shuffle of source register p->src_reg[r]. */
static cgval convert_via_shuffles(cg *c, const cgval *sv, const tk_tir_conversion *p) {
    LLVMValueRef from = cg_i32(c, 0);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (!p->lane_xor[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->lane, cg_i32(c, i), ""), cg_i32(c, 1), "");
        from = LLVMBuildXor(c->b, from, LLVMBuildMul(c->b, bit, cg_i32(c, p->lane_xor[i]), ""), "");
    }
    cgval out = cg_newval(c, p->registers);
    for (uint32_t r = 0; r < p->registers; r++)
        out.r[r] = cg_shuffle(c, sv->r[p->src_reg[r]], "idx", LLVMBuildXor(c->b, from, cg_i32(c, p->lane_const[r]), ""));
    return out;
}

/* src -> dst layout, the way lower/conversion.c plans it */
cgval cg_relayout(cg *c, const tk_tir_value *src, const tk_ll *dst) {
    cgval *sv = cg_get(c, src);
    if (src->type->kind != TK_TYPE_TILE) {
        uint32_t n = dst ? (uint32_t)tk_ll_num_regs(dst) : 1;
        cgval out = cg_newval(c, n);
        for (uint32_t r = 0; r < n; r++) out.r[r] = sv->r[0];
        return out;
    }
    tk_tir_conversion p = tk_tir_plan_conversion(c->arena, src->layout, dst);
    switch (p.kind) {
    case TK_CONVERT_REGISTERS: {
        cgval out = cg_newval(c, p.registers);
        for (uint32_t r = 0; r < p.registers; r++) out.r[r] = sv->r[p.src_reg[r]];
        return out;
    }
    case TK_CONVERT_SHUFFLES: return convert_via_shuffles(c, sv, &p);
    default: return convert_via_smem(c, src, sv, dst);
    }
}
