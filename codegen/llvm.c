/* Tile IR -> LLVM IR for NVPTX.
 * Needs: a tile IR program after the gpu passes (layouts, axis info,
 * shared memory). Guarantees: one ptx_kernel function per kernel variant;
 * every op the back end does not handle yet is reported at its source
 * position ("not supported by code generation yet") and nothing is built
 * for that kernel. Tile values become per-thread register arrays in the
 * order of their layout's register bits. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct cgval {
    uint32_t n;
    LLVMValueRef *r;
} cgval;

typedef struct cg {
    tk_arena *arena;
    tk_diag *diag;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    const tk_tir_kernel *k;
    cgval *vals;
    LLVMBasicBlockRef entry;   /* thread indices and per-layout offsets live here */
    LLVMValueRef entry_br;
    LLVMValueRef tid, lane, warp;
    LLVMValueRef smem;
    const tk_tir_op *scratch_op;   /* the op being emitted: its scratch range (smem.c) */
    struct { const tk_ll *l; LLVMValueRef flat; } flats[64];
    uint32_t nflats;
    bool failed;
    /* -g / -lineinfo: line tables pointing into the .tk file */
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_file, di_sp;
    bool debug;   /* device_assert checks */
    const tk_target *target;
    tk_loc user_asm; /* first inline_asm_elementwise, for ptxas errors */
    const tk_tir_block *combine_fn; /* the reduce or scan being emitted, when it has one */
    LLVMTypeRef t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_bf16, t_f32, t_f64, t_ptr1, t_ptr3, t_void;
} cg;

/* ---- types and small helpers --------------------------------------------- */

static LLVMTypeRef dtype_type(cg *c, tk_dtype d) {
    switch (d) {
    case TK_I1: return c->t_i1;
    case TK_I8: case TK_U8: case TK_F8E4M3: case TK_F8E5M2: return c->t_i8;
    case TK_I16: case TK_U16: return c->t_i16;
    case TK_I32: case TK_U32: return c->t_i32;
    case TK_I64: case TK_U64: return c->t_i64;
    case TK_F16: return c->t_f16;
    case TK_BF16: return c->t_bf16;
    case TK_F32: return c->t_f32;
    case TK_F64: return c->t_f64;
    default: return c->t_i32;
    }
}

static const tk_type *elem_of(const tk_type *t) { return t->kind == TK_TYPE_TILE ? t->elem : t; }

static LLVMTypeRef elem_type(cg *c, const tk_type *t) {
    const tk_type *e = elem_of(t);
    return e->kind == TK_TYPE_POINTER ? c->t_ptr1 : dtype_type(c, e->dtype);
}

static unsigned elem_bytes(const tk_type *e) {
    if (e->kind == TK_TYPE_POINTER) return 8;
    unsigned b = (tk_dtype_bits(e->dtype) + 7) / 8;
    return b ? b : 1;
}

static bool is_float(const tk_type *t) {
    const tk_type *e = elem_of(t);
    return e->kind == TK_TYPE_SCALAR && tk_dtype_is_float(e->dtype);
}

static bool is_signed(const tk_type *t) {
    const tk_type *e = elem_of(t);
    return e->kind == TK_TYPE_SCALAR && tk_dtype_is_signed(e->dtype) && e->dtype != TK_I1;
}

static uint32_t nregs(const tk_tir_value *v) {
    return v->type->kind == TK_TYPE_TILE && v->layout ? (uint32_t)tk_ll_num_regs(v->layout) : 1;
}

static void not_yet(cg *c, const tk_tir_op *op, const char *what) {
    if (!c->failed)
        tk_error(c->diag, op->loc, "%s is not supported by code generation yet", what);
    c->failed = true;
}

static cgval newval(cg *c, uint32_t n) {
    cgval v = {n, TK_NEW_ARRAY(c->arena, LLVMValueRef, n ? n : 1)};
    return v;
}

static cgval *get(cg *c, const tk_tir_value *v) { return &c->vals[v->id]; }

/* defined further down, used by several op families */
static void emit_block(cg *c, const tk_tir_block *blk);
static LLVMValueRef opnd(cg *c, const tk_tir_op *op, uint32_t i, uint32_t r);
static LLVMValueRef owner(cg *c, const tk_ll *l, uint32_t r);

static LLVMValueRef ci32(cg *c, int64_t v) { return LLVMConstInt(c->t_i32, (unsigned long long)v, 1); }

static LLVMValueRef declare(cg *c, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n) {
    LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
    if (f) return f;
    return LLVMAddFunction(c->mod, name, LLVMFunctionType(ret, params, n, 0));
}

static LLVMValueRef call(cg *c, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned n) {
    LLVMTypeRef params[8];
    for (unsigned i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMValueRef f = declare(c, name, ret, params, n);
    return LLVMBuildCall2(c->b, LLVMFunctionType(ret, params, n, 0), f, args, n, "");
}

static LLVMValueRef asm_call(cg *c, LLVMTypeRef ret, const char *text, const char *constraints,
                             LLVMValueRef *args, unsigned n, bool side_effects) {
    LLVMTypeRef params[128]; /* inline_asm_elementwise: 8 inputs of 8 registers at pack 8 */
    for (unsigned i = 0; i < n && i < 128; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, n, 0);
    LLVMValueRef a = LLVMGetInlineAsm(fty, text, strlen(text), constraints, strlen(constraints),
                                      side_effects, 0, LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(c->b, fty, a, args, n, "");
}

static LLVMValueRef sreg(cg *c, const char *name) {
    char full[96];
    snprintf(full, sizeof full, "llvm.nvvm.read.ptx.sreg.%s", name);
    return call(c, full, c->t_i32, NULL, 0);
}

static void barrier(cg *c) {
    LLVMValueRef zero = ci32(c, 0);
    call(c, "llvm.nvvm.barrier.cta.sync.aligned.all", c->t_void, &zero, 1);
}

/* The thread's part of a layout's flat index (XOR of the lane and warp
 * bases its lane and warp select); computed once per layout, in the entry. */
static LLVMValueRef thread_flat(cg *c, const tk_ll *l) {
    if (!l) return ci32(c, 0);
    for (uint32_t i = 0; i < c->nflats; i++)
        if (c->flats[i].l == l || tk_ll_equal(c->flats[i].l, l)) return c->flats[i].flat;
    LLVMBasicBlockRef here = LLVMGetInsertBlock(c->b);
    LLVMPositionBuilderBefore(c->b, c->entry_br);
    LLVMValueRef f = ci32(c, 0);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (!l->lane[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->lane, ci32(c, i), ""), ci32(c, 1), "");
        f = LLVMBuildXor(c->b, f, LLVMBuildMul(c->b, bit, ci32(c, (int64_t)l->lane[i]), ""), "");
    }
    for (uint32_t i = 0; i < l->warp_bits; i++) {
        if (!l->warp[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->warp, ci32(c, i), ""), ci32(c, 1), "");
        f = LLVMBuildXor(c->b, f, LLVMBuildMul(c->b, bit, ci32(c, (int64_t)l->warp[i]), ""), "");
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
static LLVMValueRef reg_flat(cg *c, const tk_ll *l, uint64_t r) {
    uint64_t thread_bits = 0, index = tk_ll_reg_index(l, r);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) thread_bits |= l->lane[i];
    for (uint32_t i = 0; i < l->warp_bits; i++) thread_bits |= l->warp[i];
    LLVMValueRef f = thread_flat(c, l);
    if (index & thread_bits) f = LLVMBuildXor(c->b, f, ci32(c, (int64_t)(index & thread_bits)), "");
    return LLVMBuildAdd(c->b, f, ci32(c, (int64_t)(index & ~thread_bits)), "");
}

/* Is this the program's first thread (lane 0 of warp 0)? Scalar stores
 * and atomics act there alone. */
static LLVMValueRef is_first_thread(cg *c) {
    return LLVMBuildICmp(c->b, LLVMIntEQ, LLVMBuildOr(c->b, c->lane, c->warp, ""), ci32(c, 0), "");
}

static LLVMValueRef splat_const(LLVMTypeRef t, bool flt, double f, int64_t i) {
    return flt ? LLVMConstReal(t, f) : LLVMConstInt(t, (unsigned long long)i, 1);
}

/* ---- shared memory scratch --------------------------------------------- */

/* An address in the scratch of the op being emitted; byte_offset is
 * relative to its range, which barriers.c has ordered against other ops. */
static LLVMValueRef smem_addr(cg *c, LLVMValueRef byte_offset) {
    if (!c->smem || !c->scratch_op || !c->scratch_op->scratch_bytes) {
        /* the shared-memory pass gave this op none: a compiler bug, reported once */
        if (!c->failed)
            tk_error(c->diag, c->scratch_op ? c->scratch_op->loc : (tk_loc){0},
                     "internal compiler error: shared memory used but not allocated");
        c->failed = true;
        if (!c->smem) c->smem = LLVMAddGlobalInAddressSpace(c->mod, c->t_i8, "tk_smem_missing", 3);
    }
    if (c->scratch_op && c->scratch_op->scratch_offset)
        byte_offset = LLVMBuildAdd(c->b, byte_offset, ci32(c, c->scratch_op->scratch_offset), "");
    LLVMValueRef idx[1] = {byte_offset};
    return LLVMBuildGEP2(c->b, c->t_i8, c->smem, idx, 1, "");
}

/* values travel through shared memory as at least 32-bit words */
static LLVMTypeRef scratch_type(cg *c, LLVMTypeRef t) {
    if (t == c->t_i1 || t == c->t_i8 || t == c->t_i16) return c->t_i32;
    if (t == c->t_f16 || t == c->t_bf16) return c->t_f32;
    return t;
}

static LLVMValueRef to_scratch(cg *c, LLVMValueRef v) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->t_i1 || t == c->t_i8 || t == c->t_i16) return LLVMBuildZExt(c->b, v, c->t_i32, "");
    if (t == c->t_f16 || t == c->t_bf16) return LLVMBuildFPExt(c->b, v, c->t_f32, "");
    return v;
}

static LLVMValueRef from_scratch(cg *c, LLVMValueRef v, LLVMTypeRef t) {
    if (t == c->t_i1 || t == c->t_i8 || t == c->t_i16) return LLVMBuildTrunc(c->b, v, t, "");
    if (t == c->t_f16 || t == c->t_bf16) return LLVMBuildFPTrunc(c->b, v, t, "");
    return v;
}

/* The bytes of one slot of the emitted op's scratch (lower/scratch.c);
 * an op given none reports an internal error at its first access. */
static unsigned scratch_slot(cg *c) {
    return c->scratch_op && c->scratch_op->scratch_slot ? c->scratch_op->scratch_slot : 4;
}

/* Stores (or loads, where value is NULL) registers [r, r + vec) of a tile
 * at the shared-memory offsets `offsets` gives them, as one access. */
static LLVMValueRef smem_vector(cg *c, const tk_ll *offsets, uint32_t r, uint32_t vec, LLVMTypeRef st,
                                unsigned word_bytes, const LLVMValueRef *value) {
    LLVMValueRef addr = smem_addr(c, LLVMBuildMul(c->b, reg_flat(c, offsets, r), ci32(c, word_bytes), ""));
    LLVMTypeRef vt = vec > 1 ? LLVMVectorType(st, vec) : st;
    LLVMValueRef access;
    if (value) {
        LLVMValueRef v = value[0];
        if (vec > 1) {
            v = LLVMGetUndef(vt);
            for (uint32_t i = 0; i < vec; i++) v = LLVMBuildInsertElement(c->b, v, value[i], ci32(c, i), "");
        }
        access = LLVMBuildStore(c->b, v, addr);
    } else {
        access = LLVMBuildLoad2(c->b, vt, addr, "");
    }
    LLVMSetAlignment(access, vec * word_bytes);
    return access;
}

/* Moves a tile between layouts (or broadcasts it) through shared memory,
 * laid out there as the shared-memory pass chose (plain or swizzled):
 * every thread writes the elements it holds, as wide as the layouts allow,
 * then reads the ones the destination layout gives it (a broadcast's
 * destination reads its source's element). Like every scratch use, it
 * leaves reads pending: barriers.c puts a barrier before the next op that
 * writes where they read. */
static cgval convert_via_smem(cg *c, const tk_tir_value *src, const cgval *sv, const tk_ll *dst) {
    LLVMTypeRef t = elem_type(c, src->type), st = scratch_type(c, t);
    unsigned wb = scratch_slot(c);
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
    /* reg_flat caches per layout: give these arena copies */
    tk_ll *w = TK_NEW(c->arena, tk_ll), *rd = TK_NEW(c->arena, tk_ll);
    *w = writes;
    *rd = reads;
    uint32_t wv = tk_ll_smem_vector(w, wb);
    LLVMValueRef words[4];
    for (uint32_t r = 0; r < sv->n; r += wv) {
        for (uint32_t i = 0; i < wv; i++) words[i] = to_scratch(c, sv->r[r + i]);
        smem_vector(c, w, r, wv, st, wb, words);
    }
    barrier(c);
    uint32_t n = (uint32_t)tk_ll_num_regs(dst), rv = tk_ll_smem_vector(rd, wb);
    cgval out = newval(c, n);
    for (uint32_t r = 0; r < n; r += rv) {
        LLVMValueRef v = smem_vector(c, rd, r, rv, st, wb, NULL);
        for (uint32_t i = 0; i < rv; i++)
            out.r[r + i] = from_scratch(c, rv > 1 ? LLVMBuildExtractElement(c->b, v, ci32(c, i), "") : v, t);
    }
    return out;
}

static LLVMValueRef shuffle(cg *c, LLVMValueRef v, const char *mode, LLVMValueRef lane);

/* Moves a tile between layouts that differ within warps only: destination
 * register r is one shuffle of source register src_reg[r] (lower/layout.c
 * finds the lanes). */
static cgval convert_via_shuffles(cg *c, const cgval *sv, uint32_t n, const uint32_t *src_reg,
                                  const uint32_t *lane_const, const uint32_t *lane_xor) {
    LLVMValueRef from = ci32(c, 0);
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (!lane_xor[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->lane, ci32(c, i), ""), ci32(c, 1), "");
        from = LLVMBuildXor(c->b, from, LLVMBuildMul(c->b, bit, ci32(c, lane_xor[i]), ""), "");
    }
    cgval out = newval(c, n);
    for (uint32_t r = 0; r < n; r++)
        out.r[r] = shuffle(c, sv->r[src_reg[r]], "idx", LLVMBuildXor(c->b, from, ci32(c, lane_const[r]), ""));
    return out;
}

/* src -> dst layout: register reuse where the maps allow it, else warp
 * shuffles, else shared memory */
static cgval relayout(cg *c, const tk_tir_value *src, const tk_ll *dst) {
    cgval *sv = get(c, src);
    if (src->type->kind != TK_TYPE_TILE) {
        uint32_t n = dst ? (uint32_t)tk_ll_num_regs(dst) : 1;
        cgval out = newval(c, n);
        for (uint32_t r = 0; r < n; r++) out.r[r] = sv->r[0];
        return out;
    }
    uint32_t n = (uint32_t)tk_ll_num_regs(dst);
    uint32_t *map = TK_NEW_ARRAY(c->arena, uint32_t, n), *lane_const = TK_NEW_ARRAY(c->arena, uint32_t, n);
    uint32_t lane_xor[TK_LL_LANE_BITS];
    if (tk_ll_register_map(src->layout, dst, map)) {
        cgval out = newval(c, n);
        for (uint32_t r = 0; r < n; r++) out.r[r] = sv->r[map[r]];
        return out;
    }
    if (tk_ll_shuffle_map(src->layout, dst, map, lane_const, lane_xor))
        return convert_via_shuffles(c, sv, n, map, lane_const, lane_xor);
    return convert_via_smem(c, src, sv, dst);
}

/* ---- element-wise ------------------------------------------------------ */

static LLVMValueRef binary(cg *c, int op, const tk_type *t, LLVMValueRef a, LLVMValueRef b, bool arith_shift) {
    bool f = is_float(t), s = is_signed(t);
    switch (op) {
    case TK_BINOP_ADD: return f ? LLVMBuildFAdd(c->b, a, b, "") : LLVMBuildAdd(c->b, a, b, "");
    case TK_BINOP_SUB: return f ? LLVMBuildFSub(c->b, a, b, "") : LLVMBuildSub(c->b, a, b, "");
    case TK_BINOP_MUL: return f ? LLVMBuildFMul(c->b, a, b, "") : LLVMBuildMul(c->b, a, b, "");
    case TK_BINOP_DIV:
        if (LLVMTypeOf(a) == c->t_f32) {
            /* as Triton: f32 '/' is div.full.f32 (at most 2 ulp); tl.div_rn
             * and tl.fdiv give the IEEE division */
            LLVMValueRef args[2] = {a, b};
            return asm_call(c, c->t_f32, "div.full.f32 $0, $1, $2;", "=f,f,f", args, 2, false);
        }
        return LLVMBuildFDiv(c->b, a, b, "");
    case TK_BINOP_FLOORDIV: return s ? LLVMBuildSDiv(c->b, a, b, "") : LLVMBuildUDiv(c->b, a, b, "");
    case TK_BINOP_MOD:
        if (f) return LLVMBuildFRem(c->b, a, b, "");
        return s ? LLVMBuildSRem(c->b, a, b, "") : LLVMBuildURem(c->b, a, b, "");
    case TK_BINOP_AND: return LLVMBuildAnd(c->b, a, b, "");
    case TK_BINOP_OR: return LLVMBuildOr(c->b, a, b, "");
    case TK_BINOP_XOR: return LLVMBuildXor(c->b, a, b, "");
    case TK_BINOP_SHL: return LLVMBuildShl(c->b, a, b, "");
    case TK_BINOP_SHR: return arith_shift ? LLVMBuildAShr(c->b, a, b, "") : LLVMBuildLShr(c->b, a, b, "");
    default: return NULL;
    }
}

static LLVMValueRef compare(cg *c, int op, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    if (is_float(t)) {
        LLVMRealPredicate p = op == TK_BINOP_LT ? LLVMRealOLT : op == TK_BINOP_GT ? LLVMRealOGT
                            : op == TK_BINOP_LE ? LLVMRealOLE : op == TK_BINOP_GE ? LLVMRealOGE
                            : op == TK_BINOP_EQ ? LLVMRealOEQ : LLVMRealUNE;
        return LLVMBuildFCmp(c->b, p, a, b, "");
    }
    bool s = is_signed(t);
    LLVMIntPredicate p = op == TK_BINOP_LT ? (s ? LLVMIntSLT : LLVMIntULT)
                       : op == TK_BINOP_GT ? (s ? LLVMIntSGT : LLVMIntUGT)
                       : op == TK_BINOP_LE ? (s ? LLVMIntSLE : LLVMIntULE)
                       : op == TK_BINOP_GE ? (s ? LLVMIntSGE : LLVMIntUGE)
                       : op == TK_BINOP_EQ ? LLVMIntEQ : LLVMIntNE;
    return LLVMBuildICmp(c->b, p, a, b, "");
}

static LLVMValueRef cast(cg *c, const tk_type *from, const tk_type *to, LLVMValueRef v) {
    const tk_type *fe = elem_of(from), *te = elem_of(to);
    LLVMTypeRef tt = elem_type(c, to);
    if (fe->kind == TK_TYPE_POINTER) return LLVMBuildPtrToInt(c->b, v, tt, "");
    tk_dtype fd = fe->dtype, td = te->dtype;
    bool ff = tk_dtype_is_float(fd), tf = tk_dtype_is_float(td);
    if (td == TK_I1) {
        return ff ? LLVMBuildFCmp(c->b, LLVMRealUNE, v, LLVMConstReal(LLVMTypeOf(v), 0), "")
                  : LLVMBuildICmp(c->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    }
    if (!ff && !tf) {
        unsigned fb = tk_dtype_bits(fd), tb = tk_dtype_bits(td);
        if (fb == tb) return v;
        if (fb > tb) return LLVMBuildTrunc(c->b, v, tt, "");
        return tk_dtype_is_signed(fd) && fd != TK_I1 ? LLVMBuildSExt(c->b, v, tt, "") : LLVMBuildZExt(c->b, v, tt, "");
    }
    if (!ff && tf)
        return tk_dtype_is_signed(fd) && fd != TK_I1 ? LLVMBuildSIToFP(c->b, v, tt, "") : LLVMBuildUIToFP(c->b, v, tt, "");
    if (ff && !tf)
        return tk_dtype_is_signed(td) ? LLVMBuildFPToSI(c->b, v, tt, "") : LLVMBuildFPToUI(c->b, v, tt, "");
    unsigned fb = tk_dtype_bits(fd), tb = tk_dtype_bits(td);
    if (fd == TK_F16 && td == TK_BF16) return LLVMBuildFPTrunc(c->b, LLVMBuildFPExt(c->b, v, c->t_f32, ""), tt, "");
    if (fd == TK_BF16 && td == TK_F16) return LLVMBuildFPTrunc(c->b, LLVMBuildFPExt(c->b, v, c->t_f32, ""), tt, "");
    return fb < tb ? LLVMBuildFPExt(c->b, v, tt, "") : fb > tb ? LLVMBuildFPTrunc(c->b, v, tt, "") : v;
}

static const char *fsuffix(cg *c, LLVMTypeRef t) {
    return t == c->t_f64 ? "f64" : t == c->t_f16 ? "f16" : t == c->t_bf16 ? "bf16" : "f32";
}

/* Triton's fast paths: exp and log through ex2/lg2.approx, in f32 */
static LLVMValueRef math1(cg *c, const tk_tir_op *op, const tk_type *t, LLVMValueRef x) {
    int id = op->sub;
    const char *name = tk_sema_builtin_name(id);
    LLVMTypeRef lt = LLVMTypeOf(x);
    char buf[64];
    bool f32 = lt == c->t_f32;
    if (id == TK_B_EXP2 && f32) return call(c, "llvm.nvvm.ex2.approx.f32", lt, &x, 1);
    if (id == TK_B_EXP && f32) {
        LLVMValueRef y = LLVMBuildFMul(c->b, x, LLVMConstReal(lt, 1.4426950408889634), "");
        return call(c, "llvm.nvvm.ex2.approx.f32", lt, &y, 1);
    }
    if (id == TK_B_LOG2 && f32) return call(c, "llvm.nvvm.lg2.approx.f", lt, &x, 1);
    if (id == TK_B_LOG && f32) {
        LLVMValueRef y = call(c, "llvm.nvvm.lg2.approx.f", lt, &x, 1);
        return LLVMBuildFMul(c->b, y, LLVMConstReal(lt, 0.6931471805599453), "");
    }
    if (id == TK_B_SQRT || id == TK_B_SQRT_RN) {
        snprintf(buf, sizeof buf, "llvm.sqrt.%s", fsuffix(c, lt));
        return call(c, buf, lt, &x, 1);
    }
    if (id == TK_B_RSQRT && f32) return call(c, "llvm.nvvm.rsqrt.approx.f", lt, &x, 1);
    if (id == TK_B_SIN && f32) return call(c, "llvm.nvvm.sin.approx.f", lt, &x, 1);
    if (id == TK_B_COS && f32) return call(c, "llvm.nvvm.cos.approx.f", lt, &x, 1);
    if (id == TK_B_FLOOR || id == TK_B_CEIL) {
        snprintf(buf, sizeof buf, "llvm.%s.%s", name, fsuffix(c, lt));
        return call(c, buf, lt, &x, 1);
    }
    if (id == TK_B_ABS) {
        if (is_float(t)) {
            snprintf(buf, sizeof buf, "llvm.fabs.%s", fsuffix(c, lt));
            return call(c, buf, lt, &x, 1);
        }
        if (!is_signed(t)) return x;
        LLVMValueRef neg = LLVMBuildNeg(c->b, x, "");
        return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, x, LLVMConstNull(lt), ""), neg, x, "");
    }
    if (id == TK_B_SIGMOID && f32) {
        LLVMValueRef y = LLVMBuildFMul(c->b, x, LLVMConstReal(lt, -1.4426950408889634), "");
        LLVMValueRef e = call(c, "llvm.nvvm.ex2.approx.f32", lt, &y, 1);
        return LLVMBuildFDiv(c->b, LLVMConstReal(lt, 1.0), LLVMBuildFAdd(c->b, LLVMConstReal(lt, 1.0), e, ""), "");
    }
    if (lt == c->t_f32 || lt == c->t_f64) {
        /* everything else from libdevice (linked by target.c): __nv_erff, __nv_exp, ... */
        static const tk_builtin libdevice[] = {TK_B_EXP, TK_B_EXP2, TK_B_LOG, TK_B_LOG2,
                                               TK_B_RSQRT, TK_B_SIN, TK_B_COS, TK_B_ERF};
        for (size_t i = 0; i < sizeof libdevice / sizeof libdevice[0]; i++) {
            if ((int)libdevice[i] != id) continue;
            snprintf(buf, sizeof buf, "__nv_%s%s", name, f32 ? "f" : "");
            return call(c, buf, lt, &x, 1);
        }
        if (id == TK_B_SIGMOID) {
            LLVMValueRef neg = LLVMBuildFNeg(c->b, x, "");
            LLVMValueRef e = call(c, "__nv_exp", lt, &neg, 1);
            return LLVMBuildFDiv(c->b, LLVMConstReal(lt, 1.0), LLVMBuildFAdd(c->b, LLVMConstReal(lt, 1.0), e, ""), "");
        }
    }
    not_yet(c, op, tk_arena_printf(c->arena, "tl.%s on %s", name, tk_type_str(c->arena, t)));
    return LLVMGetPoison(lt);
}

/* On floats: the number when one operand is NaN (maxnum, Triton's
 * default), or NaN when either is (propagate_nan=ALL: llvm.maximum). */
static LLVMValueRef minmax_nan(cg *c, bool is_max, bool nan, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef lt = LLVMTypeOf(a);
    if (is_float(t)) {
        char buf[48];
        snprintf(buf, sizeof buf, "llvm.%s.%s", is_max ? (nan ? "maximum" : "maxnum") : (nan ? "minimum" : "minnum"),
                 fsuffix(c, lt));
        LLVMValueRef args[2] = {a, b};
        return call(c, buf, lt, args, 2);
    }
    bool s = is_signed(t);
    LLVMIntPredicate p = is_max ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT);
    return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, p, a, b, ""), a, b, "");
}

static LLVMValueRef minmax(cg *c, bool is_max, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    return minmax_nan(c, is_max, false, t, a, b);
}

static LLVMValueRef math_n(cg *c, const tk_tir_op *op, const tk_type *t, LLVMValueRef *x) {
    int id = op->sub;
    if (id == TK_B_LIBDEVICE_CALL) {
        /* sema chose the __nv_ function and converted the arguments to its
         * types; target.c links libdevice */
        uint32_t n = op->operands.len < 3 ? op->operands.len : 3;
        return call(c, tk_tir_attr_text(op, "symbol"), elem_type(c, t), x, n);
    }
    const char *prop = tk_tir_attr_text(op, "propagate_nan");
    bool nan = prop && (!strcmp(prop, "all") || !strcmp(prop, "ALL"));
    if (id == TK_B_MAXIMUM) return minmax_nan(c, true, nan, t, x[0], x[1]);
    if (id == TK_B_MINIMUM) return minmax_nan(c, false, nan, t, x[0], x[1]);
    if (id == TK_B_CLAMP) return minmax_nan(c, false, nan, t, minmax_nan(c, true, nan, t, x[0], x[1]), x[2]);
    if (id == TK_B_FDIV || id == TK_B_DIV_RN) return LLVMBuildFDiv(c->b, x[0], x[1], "");
    if (id == TK_B_FMA) {
        char buf[48];
        snprintf(buf, sizeof buf, "llvm.fma.%s", fsuffix(c, LLVMTypeOf(x[0])));
        return call(c, buf, LLVMTypeOf(x[0]), x, 3);
    }
    if (id == TK_B_UMULHI) {
        LLVMTypeRef lt = LLVMTypeOf(x[0]);
        unsigned bits = LLVMGetIntTypeWidth(lt);
        LLVMTypeRef wide = LLVMIntTypeInContext(c->ctx, bits * 2);
        /* the high half of the unsigned product, for signed types too (Triton) */
        LLVMValueRef a = LLVMBuildZExt(c->b, x[0], wide, "");
        LLVMValueRef b = LLVMBuildZExt(c->b, x[1], wide, "");
        LLVMValueRef p = LLVMBuildMul(c->b, a, b, "");
        return LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, p, LLVMConstInt(wide, bits, 0), ""), lt, "");
    }
    return math1(c, op, t, x[0]);
}

/* ---- loads and stores ---------------------------------------------------- */

/* The memory type of an element: i1 is a byte in memory. */
static LLVMTypeRef mem_type(cg *c, const tk_type *pointee) {
    if (pointee->kind == TK_TYPE_POINTER) return c->t_ptr1;
    return pointee->dtype == TK_I1 ? c->t_i8 : dtype_type(c, pointee->dtype);
}

/* the cache modifier and eviction hint of a load or store, as PTX
 * qualifiers: ".cg", ".L1::evict_first", ... */
static const char *cache_suffix(const tk_tir_op *op) {
    const char *cache = tk_tir_attr_text(op, "cache");
    const char *evict = tk_tir_attr_text(op, "eviction");
    if (evict && !strcmp(evict, "evict_first")) return cache && !strcmp(cache, ".cg") ? ".cg" : ".L1::evict_first";
    if (evict && !strcmp(evict, "evict_last")) return cache && !strcmp(cache, ".cg") ? ".cg" : ".L1::evict_last";
    if (!cache) return "";
    if (!strcmp(cache, ".ca")) return ".ca";
    if (!strcmp(cache, ".cg")) return ".cg";
    if (!strcmp(cache, ".cv")) return ".cv";
    if (!strcmp(cache, ".cs")) return ".cs";
    if (!strcmp(cache, ".wt")) return ".wt";
    if (!strcmp(cache, ".wb")) return ".wb";
    return "";
}

/* How many registers one access covers: consecutive registers holding
 * consecutive elements, limited by the pointer's contiguity and alignment
 * and by 16 bytes. */
static uint32_t access_width(const tk_tir_value *ptr, unsigned bytes) {
    if (ptr->type->kind != TK_TYPE_TILE || !ptr->layout) return 1;
    uint32_t w = tk_ll_contiguous_regs(ptr->layout);
    uint32_t last = ptr->type->rank - 1;
    uint32_t cap = 16 / bytes;
    if (w > cap) w = cap;
    if (ptr->has_axis) {
        while (w > 1 && ptr->contiguity[last] < (int64_t)w) w /= 2;
        while (w > 1 && ptr->divisibility[last] < (int64_t)(w * bytes)) w /= 2;
    } else {
        w = 1;
    }
    return w ? w : 1;
}

/* elements <-> 32-bit words (w * bytes must be a multiple of 4) */
static void pack_words(cg *c, LLVMValueRef *elems, uint32_t w, LLVMTypeRef et, LLVMValueRef *words, uint32_t nw) {
    LLVMTypeRef vt = LLVMVectorType(et, w);
    LLVMValueRef v = LLVMGetPoison(vt);
    for (uint32_t i = 0; i < w; i++) v = LLVMBuildInsertElement(c->b, v, elems[i], ci32(c, i), "");
    LLVMValueRef wv = LLVMBuildBitCast(c->b, v, LLVMVectorType(c->t_i32, nw), "");
    for (uint32_t i = 0; i < nw; i++) words[i] = LLVMBuildExtractElement(c->b, wv, ci32(c, i), "");
}

static void unpack_words(cg *c, LLVMValueRef *words, uint32_t nw, LLVMTypeRef et, LLVMValueRef *elems, uint32_t w) {
    LLVMValueRef v = LLVMGetPoison(LLVMVectorType(c->t_i32, nw));
    for (uint32_t i = 0; i < nw; i++) v = LLVMBuildInsertElement(c->b, v, words[i], ci32(c, i), "");
    LLVMValueRef ev = LLVMBuildBitCast(c->b, v, LLVMVectorType(et, w), "");
    for (uint32_t i = 0; i < w; i++) elems[i] = LLVMBuildExtractElement(c->b, ev, ci32(c, i), "");
}

/* One element through inline PTX, predicated: scalar path of masked access. */
static const char *word_ptx(unsigned bytes, const char **constraint, LLVMTypeRef *t, cg *c) {
    switch (bytes) {
    case 8: *constraint = "l"; *t = c->t_i64; return "b64";
    case 4: *constraint = "r"; *t = c->t_i32; return "b32";
    case 2: *constraint = "h"; *t = c->t_i16; return "b16";
    default: *constraint = "h"; *t = c->t_i16; return "b8";
    }
}

static LLVMValueRef elem_to_bits(cg *c, LLVMValueRef v, LLVMTypeRef bits_t) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->t_ptr1) return LLVMBuildPtrToInt(c->b, v, c->t_i64, "");
    if (t == c->t_i8) return LLVMBuildZExt(c->b, v, bits_t, "");
    if (t == bits_t) return v;
    return LLVMBuildBitCast(c->b, v, bits_t, "");
}

static LLVMValueRef bits_to_elem(cg *c, LLVMValueRef v, LLVMTypeRef et) {
    if (et == c->t_ptr1) return LLVMBuildIntToPtr(c->b, v, et, "");
    if (et == c->t_i8) return LLVMBuildTrunc(c->b, v, et, "");
    if (LLVMTypeOf(v) == et) return v;
    return LLVMBuildBitCast(c->b, v, et, "");
}

static LLVMValueRef masked_load_scalar(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                                       LLVMValueRef other, LLVMTypeRef et, unsigned bytes) {
    const char *cons;
    LLVMTypeRef wt;
    const char *w = word_ptx(bytes, &cons, &wt, c);
    char text[160], constraints[32];
    snprintf(text, sizeof text, "mov.%s $0, $3;\n\t@$2 ld.global%s.%s $0, [ $1 + 0 ];",
             bytes == 1 ? "b16" : w, cache_suffix(op), w);
    snprintf(constraints, sizeof constraints, "=%s,l,b,%s", cons, cons);
    LLVMValueRef args[3] = {addr, pred, elem_to_bits(c, other, wt)};
    return bits_to_elem(c, asm_call(c, wt, text, constraints, args, 3, true), et);
}

static void masked_store_scalar(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                                LLVMValueRef value, unsigned bytes) {
    const char *cons;
    LLVMTypeRef wt;
    const char *w = word_ptx(bytes, &cons, &wt, c);
    char text[128], constraints[32];
    snprintf(text, sizeof text, "@$0 st.global%s.%s [ $1 + 0 ], $2;", cache_suffix(op), w);
    snprintf(constraints, sizeof constraints, "b,l,%s", cons);
    LLVMValueRef args[3] = {pred, addr, elem_to_bits(c, value, wt)};
    asm_call(c, c->t_void, text, constraints, args, 3, true);
}

static LLVMValueRef masked_load_words(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                                      LLVMValueRef *other_words, uint32_t nw, LLVMValueRef *out_words) {
    char text[512], constraints[128];
    size_t n = 0, m = 0;
    for (uint32_t i = 0; i < nw; i++) n += (size_t)snprintf(text + n, sizeof text - n, "mov.b32 $%u, $%u;\n\t", i, nw + 2 + i);
    n += (size_t)snprintf(text + n, sizeof text - n, "@$%u ld.global%s%s.b32 ", nw + 1, cache_suffix(op),
                          nw == 1 ? "" : nw == 2 ? ".v2" : ".v4");
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "{");
    for (uint32_t i = 0; i < nw; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%s$%u", i ? ", " : "", i);
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "}");
    snprintf(text + n, sizeof text - n, ", [ $%u + 0 ];", nw);
    for (uint32_t i = 0; i < nw; i++) m += (size_t)snprintf(constraints + m, sizeof constraints - m, "=r,");
    m += (size_t)snprintf(constraints + m, sizeof constraints - m, "l,b");
    for (uint32_t i = 0; i < nw; i++) m += (size_t)snprintf(constraints + m, sizeof constraints - m, ",r");
    LLVMValueRef args[8];
    args[0] = addr;
    args[1] = pred;
    for (uint32_t i = 0; i < nw; i++) args[2 + i] = other_words[i];
    LLVMTypeRef rt = c->t_i32;
    if (nw > 1) {
        LLVMTypeRef fields[4] = {c->t_i32, c->t_i32, c->t_i32, c->t_i32};
        rt = LLVMStructTypeInContext(c->ctx, fields, nw, 0);
    }
    LLVMValueRef r = asm_call(c, rt, text, constraints, args, 2 + nw, true);
    for (uint32_t i = 0; i < nw; i++) out_words[i] = nw > 1 ? LLVMBuildExtractValue(c->b, r, i, "") : r;
    return r;
}

static void masked_store_words(cg *c, const tk_tir_op *op, LLVMValueRef addr, LLVMValueRef pred,
                               LLVMValueRef *words, uint32_t nw) {
    char text[256], constraints[64];
    size_t n = (size_t)snprintf(text, sizeof text, "@$0 st.global%s%s.b32 [ $1 + 0 ], ", cache_suffix(op),
                                nw == 1 ? "" : nw == 2 ? ".v2" : ".v4");
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "{");
    for (uint32_t i = 0; i < nw; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%s$%u", i ? ", " : "", 2 + i);
    if (nw > 1) n += (size_t)snprintf(text + n, sizeof text - n, "}");
    snprintf(text + n, sizeof text - n, ";");
    size_t m = (size_t)snprintf(constraints, sizeof constraints, "b,l");
    for (uint32_t i = 0; i < nw; i++) m += (size_t)snprintf(constraints + m, sizeof constraints - m, ",r");
    LLVMValueRef args[8];
    args[0] = pred;
    args[1] = addr;
    for (uint32_t i = 0; i < nw; i++) args[2 + i] = words[i];
    asm_call(c, c->t_void, text, constraints, args, 2 + nw, true);
}

/* One access of w elements under pred: a scalar access, or the elements
 * packed into 32-bit words for one predicated vector access. */
static void predicated_access(cg *c, const tk_tir_op *op, bool is_load, LLVMValueRef addr, LLVMValueRef pred,
                              LLVMValueRef *elems, LLVMValueRef *others, uint32_t w, LLVMTypeRef et,
                              unsigned bytes) {
    if (w == 1) {
        if (is_load) elems[0] = masked_load_scalar(c, op, addr, pred, others[0], et, bytes);
        else masked_store_scalar(c, op, addr, pred, elems[0], bytes);
        return;
    }
    uint32_t nw = w * bytes / 4;
    LLVMValueRef words[4];
    if (is_load) {
        LLVMValueRef other_words[4];
        pack_words(c, others, w, et, other_words, nw);
        masked_load_words(c, op, addr, pred, other_words, nw, words);
        unpack_words(c, words, nw, et, elems, w);
    } else {
        pack_words(c, elems, w, et, words, nw);
        masked_store_words(c, op, addr, pred, words, nw);
    }
}

/* Loads and stores, w registers an access. Without a mask: plain vector
 * accesses LLVM can see through. With a mask uniform over each vector: one
 * predicated vector access. Otherwise the vector access runs when the whole
 * vector is in bounds and element accesses cover the partial vector. */
static void emit_memory(cg *c, const tk_tir_op *op) {
    bool is_load = op->code == TIR_LOAD;
    const tk_tir_value *ptr = op->operands.data[0];
    if (ptr->type->kind == TK_TYPE_BLOCK_PTR || (ptr->type->kind == TK_TYPE_TILE && !ptr->layout)) {
        not_yet(c, op, "a block-pointer load or store");
        return;
    }
    const tk_type *pointee = elem_of(ptr->type)->elem;
    if (pointee->kind != TK_TYPE_SCALAR) {
        not_yet(c, op, "loading or storing this element type");
        return;
    }
    LLVMTypeRef et = mem_type(c, pointee);
    LLVMTypeRef vt = dtype_type(c, pointee->dtype);
    unsigned bytes = elem_bytes(pointee);
    cgval *pv = get(c, ptr);
    const tk_tir_value *mask = NULL, *other = NULL, *value = NULL;
    if (is_load) {
        if (op->operands.len > 1) mask = op->operands.data[1];
        if (op->operands.len > 2) other = op->operands.data[2];
    } else {
        value = op->operands.data[1];
        if (op->operands.len > 2) mask = op->operands.data[2];
    }
    cgval *mv = mask ? get(c, mask) : NULL;
    cgval *ov = other ? get(c, other) : NULL;
    cgval *vv = value ? get(c, value) : NULL;
    uint32_t n = pv->n;
    uint32_t w = access_width(ptr, bytes);
    if (w * bytes < 4) w = 1;
    uint32_t last = ptr->type->kind == TK_TYPE_TILE ? ptr->type->rank - 1 : 0;
    bool uniform = !mask || w == 1 || (mask->has_axis && mask->constancy[last] >= (int64_t)w);
    cgval out = newval(c, n);
    /* a store acts once per element, as Triton: a scalar from the first
     * thread, a replicated layout from one copy (owner); the copies would
     * store the same value, but late, over another program's newer one */
    bool scalar = ptr->type->kind != TK_TYPE_TILE;
    LLVMValueRef first_thread =
        !is_load && scalar ? is_first_thread(c)
                           : NULL;
    for (uint32_t r0 = 0; r0 < n; r0 += w) {
        LLVMValueRef addr = pv->r[r0];
        LLVMValueRef own = is_load ? NULL : scalar ? first_thread : owner(c, ptr->layout, r0);
        if (own && LLVMIsAConstantInt(own) && LLVMConstIntGetZExtValue(own) == 1) own = NULL;
        LLVMValueRef elems[16];
        if (!is_load)
            for (uint32_t i = 0; i < w; i++) {
                LLVMValueRef x = vv->r[r0 + i];
                elems[i] = pointee->dtype == TK_I1 ? LLVMBuildZExt(c->b, x, c->t_i8, "") : x;
            }
        LLVMValueRef others[16];
        if (is_load)
            for (uint32_t i = 0; i < w; i++) {
                LLVMValueRef o = ov ? ov->r[r0 + i] : LLVMConstNull(vt);
                others[i] = pointee->dtype == TK_I1 ? LLVMBuildZExt(c->b, o, c->t_i8, "") : o;
            }
        if (!mask && (*cache_suffix(op) || own)) {
            /* a hint: PTX has the qualifier, LLVM's load does not */
            predicated_access(c, op, is_load, addr, own ? own : LLVMConstInt(c->t_i1, 1, 0), elems, others, w, et,
                              bytes);
        } else if (!mask) {
            if (w == 1) {
                if (is_load) {
                    LLVMValueRef l = LLVMBuildLoad2(c->b, et, addr, "");
                    LLVMSetAlignment(l, bytes);
                    elems[0] = l;
                } else {
                    LLVMSetAlignment(LLVMBuildStore(c->b, elems[0], addr), bytes);
                }
            } else {
                LLVMTypeRef vec = LLVMVectorType(et, w);
                if (is_load) {
                    LLVMValueRef l = LLVMBuildLoad2(c->b, vec, addr, "");
                    LLVMSetAlignment(l, w * bytes);
                    for (uint32_t i = 0; i < w; i++) elems[i] = LLVMBuildExtractElement(c->b, l, ci32(c, i), "");
                } else {
                    LLVMValueRef v = LLVMGetPoison(vec);
                    for (uint32_t i = 0; i < w; i++) v = LLVMBuildInsertElement(c->b, v, elems[i], ci32(c, i), "");
                    LLVMSetAlignment(LLVMBuildStore(c->b, v, addr), w * bytes);
                }
            }
        } else {
            LLVMValueRef pred = mv->r[r0];
            if (!uniform)
                for (uint32_t i = 1; i < w; i++) pred = LLVMBuildAnd(c->b, pred, mv->r[r0 + i], "");
            predicated_access(c, op, is_load, addr, own ? LLVMBuildAnd(c->b, pred, own, "") : pred, elems, others, w,
                              et, bytes);
            if (!uniform) {
                /* the partial vector, element by element */
                LLVMValueRef not_all = LLVMBuildNot(c->b, pred, "");
                for (uint32_t i = 0; i < w; i++) {
                    LLVMValueRef p = LLVMBuildAnd(c->b, mv->r[r0 + i], not_all, "");
                    if (own) p = LLVMBuildAnd(c->b, p, own, "");
                    LLVMValueRef a = i ? LLVMBuildGEP2(c->b, et, addr, (LLVMValueRef[]){ci32(c, i)}, 1, "") : addr;
                    if (is_load) elems[i] = masked_load_scalar(c, op, a, p, elems[i], et, bytes);
                    else masked_store_scalar(c, op, a, p, elems[i], bytes);
                }
            }
        }
        if (is_load)
            for (uint32_t i = 0; i < w; i++)
                out.r[r0 + i] = pointee->dtype == TK_I1 ? LLVMBuildTrunc(c->b, elems[i], c->t_i1, "") : elems[i];
    }
    if (is_load) *get(c, op->results.data[0]) = out;
}

/* ---- reductions -------------------------------------------------------------- */

/* A warp shuffle of any register type (64-bit ones as two halves); mode
 * "bfly" (lane = XOR mask) or "idx" (lane = source lane). */
static LLVMValueRef shuffle(cg *c, LLVMValueRef v, const char *mode, LLVMValueRef lane) {
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == c->t_i64 || t == c->t_f64 || t == c->t_ptr1) {
        LLVMValueRef bits = t == c->t_ptr1 ? LLVMBuildPtrToInt(c->b, v, c->t_i64, "") : LLVMBuildBitCast(c->b, v, c->t_i64, "");
        LLVMValueRef lo = LLVMBuildTrunc(c->b, bits, c->t_i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, bits, LLVMConstInt(c->t_i64, 32, 0), ""), c->t_i32, "");
        lo = shuffle(c, lo, mode, lane);
        hi = shuffle(c, hi, mode, lane);
        LLVMValueRef r = LLVMBuildOr(c->b, LLVMBuildZExt(c->b, lo, c->t_i64, ""),
                                     LLVMBuildShl(c->b, LLVMBuildZExt(c->b, hi, c->t_i64, ""), LLVMConstInt(c->t_i64, 32, 0), ""), "");
        return t == c->t_ptr1 ? LLVMBuildIntToPtr(c->b, r, t, "") : LLVMBuildBitCast(c->b, r, t, "");
    }
    char name[48];
    if (t == c->t_f32) {
        LLVMValueRef args[4] = {ci32(c, -1), v, lane, ci32(c, 31)};
        snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.f32", mode);
        return call(c, name, c->t_f32, args, 4);
    }
    LLVMValueRef w = to_scratch(c, v);
    if (LLVMTypeOf(w) == c->t_f32) w = LLVMBuildBitCast(c->b, w, c->t_i32, "");
    LLVMValueRef args[4] = {ci32(c, -1), w, lane, ci32(c, 31)};
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.i32", mode);
    LLVMValueRef r = call(c, name, c->t_i32, args, 4);
    if (t == c->t_f16 || t == c->t_bf16) return LLVMBuildFPTrunc(c->b, LLVMBuildBitCast(c->b, r, c->t_f32, ""), t, "");
    return from_scratch(c, r, t);
}

static LLVMValueRef shfl_xor(cg *c, LLVMValueRef v, uint32_t lane_mask) {
    return shuffle(c, v, "bfly", ci32(c, lane_mask));
}

/* A user combine function (tl.reduce, tl.associative_scan): its region is
 * emitted afresh with a and b as its arguments; the yield is the result. */
/* A combine function of k values: a[0..k) and b[0..k) in, the k combined
 * values out in a (tl.reduce / associative_scan over tuples). */
static void combine_region_n(cg *c, const tk_tir_block *region, LLVMValueRef *a, const LLVMValueRef *b, uint32_t k) {
    for (uint32_t i = 0; i < 2 * k && i < region->args.len; i++) {
        cgval v = newval(c, 1);
        v.r[0] = i < k ? a[i] : b[i - k];
        *get(c, region->args.data[i]) = v;
    }
    emit_block(c, region);
    const tk_tir_op *y = NULL;
    for (uint32_t i = region->ops.len; i-- > 0 && !y;)
        if (!region->ops.data[i]->dead && region->ops.data[i]->code == TIR_YIELD) y = region->ops.data[i];
    for (uint32_t i = 0; y && i < k && i < y->operands.len; i++) {
        /* after an error the region stops early and leaves its yield unset */
        const cgval *v = get(c, y->operands.data[i]);
        if (v->r && v->r[0]) a[i] = v->r[0];
    }
}

static LLVMValueRef combine_region(cg *c, const tk_tir_block *region, LLVMValueRef a, LLVMValueRef b) {
    combine_region_n(c, region, &a, &b, 1);
    return a;
}

static LLVMValueRef combine(cg *c, int kind, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    if (kind == TK_B_REDUCE || kind == TK_B_ASSOCIATIVE_SCAN) return combine_region(c, c->combine_fn, a, b);
    if (kind == TK_B_SUM) return is_float(t) ? LLVMBuildFAdd(c->b, a, b, "") : LLVMBuildAdd(c->b, a, b, "");
    if (kind == TK_B_XOR_SUM) return LLVMBuildXor(c->b, a, b, "");
    return minmax(c, kind == TK_B_MAX, t, a, b);
}

static bool along(const tk_ll *l, uint64_t basis, uint32_t axis) {
    return basis && tk_ll_coord(l, basis, axis) != 0;
}

static bool only_along(const tk_ll *l, uint64_t basis, uint32_t axis) {
    for (uint32_t d = 0; d < l->rank; d++)
        if (d != axis && tk_ll_coord(l, basis, d) != 0) return false;
    return true;
}

/* (value, index) pairs for argmax/argmin: the larger (smaller) value, the
 * smaller index on ties (tie_break_left, Triton's default). */
static void combine_arg(cg *c, bool is_max, const tk_type *t, LLVMValueRef *v, LLVMValueRef *i,
                        LLVMValueRef v2, LLVMValueRef i2) {
    LLVMValueRef better, equal;
    if (is_float(t)) {
        better = LLVMBuildFCmp(c->b, is_max ? LLVMRealOGT : LLVMRealOLT, v2, *v, "");
        equal = LLVMBuildFCmp(c->b, LLVMRealOEQ, v2, *v, "");
    } else {
        bool s = is_signed(t);
        better = LLVMBuildICmp(c->b, is_max ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT), v2, *v, "");
        equal = LLVMBuildICmp(c->b, LLVMIntEQ, v2, *v, "");
    }
    LLVMValueRef left = LLVMBuildICmp(c->b, LLVMIntSLT, i2, *i, "");
    LLVMValueRef take = LLVMBuildOr(c->b, better, LLVMBuildAnd(c->b, equal, left, ""), "");
    *v = LLVMBuildSelect(c->b, take, v2, *v, "");
    *i = LLVMBuildSelect(c->b, take, i2, *i, "");
}

/* One step of a reduction on states of k values: (value, index) for
 * argmax/argmin, the operands' values for a tuple reduce, one value else. */
static void combine_state(cg *c, const tk_tir_op *op, int kind, bool arg, bool arg_max, const tk_type *t,
                          LLVMValueRef *x, LLVMValueRef *y, uint32_t k) {
    if (arg) combine_arg(c, arg_max, t, &x[0], &x[1], y[0], y[1]);
    else if (k > 1) combine_region_n(c, op->regions.data[0], x, y, k);
    else x[0] = combine(c, kind, t, x[0], y[0]);
}

static void emit_reduce(cg *c, const tk_tir_op *op) {
    int kind = op->sub;
    bool arg = kind == TK_B_ARGMAX || kind == TK_B_ARGMIN;
    bool arg_max = kind == TK_B_ARGMAX;
    const tk_tir_value *in = op->operands.data[0], *res = op->results.data[0];
    const tk_ll *l = in->layout;
    uint32_t axis = (uint32_t)tk_tir_attr_int(op, "axis", 0);
    bool all = tk_tir_attr_int(op, "axis", -1) < 0;
    if (all && l->rank != 1) {
        not_yet(c, op, "a reduction over all dimensions of a tile of rank above 1");
        return;
    }
    /* the state each element carries: k values */
    uint32_t nin = op->operands.len, k = arg ? 2 : nin;
    if (k > 8) {
        not_yet(c, op, "a reduction of more than 8 tiles at once");
        return;
    }
    const tk_type *t = arg ? in->type : res->type;
    c->combine_fn = op->regions.len ? op->regions.data[0] : NULL;
    cgval *iv[8];
    for (uint32_t j = 0; j < nin && j < 8; j++) iv[j] = get(c, op->operands.data[j]);
    /* register bits: along the axis (combined), replicated (skipped), kept */
    uint32_t kept_bits[TK_LL_MAX_REG_BITS], nkept = 0;
    uint64_t skip_mask = 0;
    for (uint32_t i = 0; i < l->reg_bits; i++) {
        if (!l->reg[i]) skip_mask |= 1ull << i;
        else if (!along(l, l->reg[i], axis)) kept_bits[nkept++] = i;
        else if (!only_along(l, l->reg[i], axis)) {
            not_yet(c, op, "a reduction over this layout");
            return;
        }
    }
    /* an element's index along the axis (argmax/argmin) */
    uint64_t stride = 1;
    for (uint32_t d = axis + 1; d < l->rank; d++) stride *= (uint64_t)l->shape[d];
    uint32_t nout = 1u << nkept;
    cgval acc[8];
    for (uint32_t j = 0; j < k; j++) acc[j] = newval(c, nout);
    /* each output's registers, combined as a balanced tree: depth log n,
     * not a chain of n dependent operations */
    LLVMValueRef *group = TK_NEW_ARRAY(c->arena, LLVMValueRef, (iv[0]->n + 1) * k);
    for (uint32_t o = 0; o < nout; o++) {
        uint32_t m = 0;
        for (uint32_t r = 0; r < iv[0]->n; r++) {
            if (r & skip_mask) continue;
            uint32_t oo = 0;
            for (uint32_t b = 0; b < nkept; b++) oo |= ((r >> kept_bits[b]) & 1u) << b;
            if (oo != o) continue;
            if (arg) {
                group[m * k] = iv[0]->r[r];
                group[m * k + 1] = LLVMBuildAnd(c->b, LLVMBuildUDiv(c->b, reg_flat(c, l, r), ci32(c, (int64_t)stride), ""),
                                                ci32(c, l->shape[axis] - 1), "");
            } else {
                for (uint32_t j = 0; j < k; j++) group[m * k + j] = iv[j]->r[r];
            }
            m++;
        }
        while (m > 1) {
            uint32_t half = (m + 1) / 2;
            for (uint32_t i = 0; i + half < m; i++)
                combine_state(c, op, kind, arg, arg_max, t, &group[i * k], &group[(i + half) * k], k);
            m = half;
        }
        for (uint32_t j = 0; j < k; j++) acc[j].r[o] = group[j];
    }
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (!along(l, l->lane[i], axis)) continue;
        for (uint32_t o = 0; o < nout; o++) {
            LLVMValueRef x[8], y[8];
            for (uint32_t j = 0; j < k; j++) {
                x[j] = acc[j].r[o];
                y[j] = shfl_xor(c, x[j], 1u << i);
            }
            combine_state(c, op, kind, arg, arg_max, t, x, y, k);
            for (uint32_t j = 0; j < k; j++) acc[j].r[o] = x[j];
        }
    }
    uint32_t warp_axis[TK_LL_MAX_WARP_BITS], nwa = 0;
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (along(l, l->warp[i], axis)) warp_axis[nwa++] = i;
    if (nwa) {
        uint32_t groups = 1u << nwa;
        LLVMValueRef g = ci32(c, 0);
        for (uint32_t b = 0; b < nwa; b++) {
            LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->warp, ci32(c, warp_axis[b]), ""), ci32(c, 1), "");
            g = LLVMBuildOr(c->b, g, LLVMBuildShl(c->b, bit, ci32(c, b), ""), "");
        }
        const tk_ll *ol = res->type->kind == TK_TYPE_TILE ? res->layout : NULL;
        /* a slot for the k values of a state (lower/scratch.c) */
        unsigned slot_bytes = scratch_slot(c), value_bytes = TK_TIR_SCRATCH_VALUE_BYTES;
        for (uint32_t o = 0; o < nout; o++) {
            LLVMValueRef f = ol ? reg_flat(c, ol, o) : ci32(c, 0);
            LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, f, ci32(c, groups), ""), g, "");
            LLVMValueRef off = LLVMBuildMul(c->b, slot, ci32(c, slot_bytes), "");
            for (uint32_t j = 0; j < k; j++)
                LLVMBuildStore(c->b, to_scratch(c, acc[j].r[o]),
                               smem_addr(c, LLVMBuildAdd(c->b, off, ci32(c, value_bytes * j), "")));
        }
        barrier(c);
        for (uint32_t o = 0; o < nout; o++) {
            LLVMValueRef f = ol ? reg_flat(c, ol, o) : ci32(c, 0);
            LLVMValueRef r[8], x[8];
            for (uint32_t q = 0; q < groups; q++) {
                LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, f, ci32(c, groups), ""), ci32(c, q), "");
                LLVMValueRef off = LLVMBuildMul(c->b, slot, ci32(c, slot_bytes), "");
                for (uint32_t j = 0; j < k; j++) {
                    LLVMTypeRef vt = LLVMTypeOf(acc[j].r[o]);
                    LLVMValueRef at = smem_addr(c, LLVMBuildAdd(c->b, off, ci32(c, value_bytes * j), ""));
                    x[j] = from_scratch(c, LLVMBuildLoad2(c->b, scratch_type(c, vt), at, ""), vt);
                }
                if (q == 0) {
                    for (uint32_t j = 0; j < k; j++) r[j] = x[j];
                } else {
                    combine_state(c, op, kind, arg, arg_max, t, r, x, k);
                }
            }
            for (uint32_t j = 0; j < k; j++) acc[j].r[o] = r[j];
        }
    }
    uint32_t want = nregs(res);
    if (want != nout) {
        not_yet(c, op, "a reduction whose result layout differs from the reduced registers");
        return;
    }
    if (arg) {
        *get(c, res) = acc[1];
        return;
    }
    for (uint32_t j = 0; j < k && j < op->results.len; j++) *get(c, op->results.data[j]) = acc[j];
}

/* ---- random numbers: Triton's Philox 4x32, 10 rounds by default ---------- */

static LLVMValueRef cu32(cg *c, uint32_t v) { return LLVMConstInt(c->t_i32, v, 0); }

static LLVMValueRef mulhi32(cg *c, uint32_t a, LLVMValueRef b) {
    LLVMValueRef p = LLVMBuildMul(c->b, LLVMConstInt(c->t_i64, a, 0), LLVMBuildZExt(c->b, b, c->t_i64, ""), "");
    return LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, p, LLVMConstInt(c->t_i64, 32, 0), ""), c->t_i32, "");
}

/* u32 -> f32 in [0, 1), as Triton: the bits as i32, negatives folded */
static LLVMValueRef uniform(cg *c, LLVMValueRef x) {
    LLVMValueRef neg = LLVMBuildICmp(c->b, LLVMIntSLT, x, ci32(c, 0), "");
    LLVMValueRef folded = LLVMBuildSub(c->b, LLVMBuildNeg(c->b, x, ""), ci32(c, 1), "");
    LLVMValueRef v = LLVMBuildSelect(c->b, neg, folded, x, "");
    return LLVMBuildFMul(c->b, LLVMBuildSIToFP(c->b, v, c->t_f32, ""), LLVMConstReal(c->t_f32, 4.6566127342e-10), "");
}

static void emit_random(cg *c, const tk_tir_op *op) {
    int id = op->sub;
    const tk_tir_value *seed_v = op->operands.data[0], *off_v = op->operands.data[1], *res = op->results.data[0];
    int64_t rounds = tk_tir_attr_int(op, "n_rounds", 10);
    LLVMValueRef seed = get(c, seed_v)->r[0];
    /* the seed as u64: its low and high words are the two keys */
    LLVMValueRef seed64 = LLVMGetIntTypeWidth(LLVMTypeOf(seed)) == 64 ? seed
                          : is_signed(seed_v->type) ? LLVMBuildSExt(c->b, seed, c->t_i64, "")
                                                    : LLVMBuildZExt(c->b, seed, c->t_i64, "");
    LLVMValueRef key_lo = LLVMBuildTrunc(c->b, seed64, c->t_i32, "");
    LLVMValueRef key_hi = LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, seed64, LLVMConstInt(c->t_i64, 32, 0), ""), c->t_i32, "");
    cgval *ov = get(c, off_v);
    uint32_t n = nregs(res);
    /* the 4x forms return all four words; the others the first */
    uint32_t words = id == TK_B_RANDINT4X || id == TK_B_RAND4X || id == TK_B_RANDN4X ? 4 : 1;
    cgval outs[4];
    for (uint32_t w = 0; w < words; w++) outs[w] = newval(c, n);
    bool wide = LLVMGetIntTypeWidth(LLVMTypeOf(ov->r[0])) == 64;
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef o = ov->r[ov->n == 1 ? 0 : r];
        LLVMValueRef c0 = wide ? LLVMBuildTrunc(c->b, o, c->t_i32, "") : o;
        LLVMValueRef c1 = wide ? LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, o, LLVMConstInt(c->t_i64, 32, 0), ""), c->t_i32, "")
                               : cu32(c, 0);
        LLVMValueRef c2 = cu32(c, 0), c3 = cu32(c, 0), k0 = key_lo, k1 = key_hi;
        for (int64_t i = 0; i < rounds; i++) {
            LLVMValueRef a0 = c0, a2 = c2;
            c0 = LLVMBuildXor(c->b, LLVMBuildXor(c->b, mulhi32(c, 0xCD9E8D57u, a2), c1, ""), k0, "");
            c2 = LLVMBuildXor(c->b, LLVMBuildXor(c->b, mulhi32(c, 0xD2511F53u, a0), c3, ""), k1, "");
            c1 = LLVMBuildMul(c->b, cu32(c, 0xCD9E8D57u), a2, "");
            c3 = LLVMBuildMul(c->b, cu32(c, 0xD2511F53u), a0, "");
            k0 = LLVMBuildAdd(c->b, k0, cu32(c, 0x9E3779B9u), "");
            k1 = LLVMBuildAdd(c->b, k1, cu32(c, 0xBB67AE85u), "");
        }
        LLVMValueRef word[4] = {c0, c1, c2, c3};
        if (id == TK_B_RANDINT || id == TK_B_RANDINT4X) {
            for (uint32_t w = 0; w < words; w++) outs[w].r[r] = word[w];
        } else if (id == TK_B_RANDN || id == TK_B_RANDN4X) {
            /* Box-Muller on each pair of words: cos, then sin */
            for (uint32_t w = 0; w < words; w += 2) {
                LLVMValueRef u1 = uniform(c, word[w]), u2 = uniform(c, word[w + 1]);
                LLVMValueRef args2[2] = {LLVMConstReal(c->t_f32, 1.0e-7), u1};
                u1 = call(c, "llvm.maxnum.f32", c->t_f32, args2, 2);
                LLVMValueRef th = LLVMBuildFMul(c->b, LLVMConstReal(c->t_f32, 6.283185307179586), u2, "");
                LLVMValueRef lg = call(c, "__nv_logf", c->t_f32, &u1, 1);
                LLVMValueRef rr = LLVMBuildFMul(c->b, LLVMConstReal(c->t_f32, -2.0), lg, "");
                LLVMValueRef rad = call(c, "llvm.sqrt.f32", c->t_f32, &rr, 1);
                outs[w].r[r] = LLVMBuildFMul(c->b, rad, call(c, "__nv_cosf", c->t_f32, &th, 1), "");
                if (w + 1 < words) outs[w + 1].r[r] = LLVMBuildFMul(c->b, rad, call(c, "__nv_sinf", c->t_f32, &th, 1), "");
            }
        } else {
            for (uint32_t w = 0; w < words; w++) outs[w].r[r] = uniform(c, word[w]);
        }
    }
    for (uint32_t w = 0; w < words && w < op->results.len; w++) *get(c, op->results.data[w]) = outs[w];
}

/* ---- join, split, cat: in registers, or through shared memory where the
 * layouts make elements change threads ---- */

/* Element e of v (flat index in v's shape) goes to scratch slot e * mul + add. */
static void scratch_write(cg *c, const tk_tir_value *v, int64_t mul, int64_t add, unsigned slot) {
    cgval *vv = get(c, v);
    for (uint32_t r = 0; r < vv->n; r++) {
        LLVMValueRef flat = v->type->kind == TK_TYPE_TILE ? reg_flat(c, v->layout, r) : ci32(c, 0);
        LLVMValueRef idx = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, flat, ci32(c, mul), ""), ci32(c, add), "");
        LLVMBuildStore(c->b, to_scratch(c, vv->r[r]), smem_addr(c, LLVMBuildMul(c->b, idx, ci32(c, slot), "")));
    }
}

/* Register r of a value of type t in layout l reads slot flat * mul + add. */
static cgval scratch_read(cg *c, const tk_type *t, const tk_ll *l, int64_t mul, int64_t add, unsigned slot) {
    uint32_t n = l ? (uint32_t)tk_ll_num_regs(l) : 1;
    LLVMTypeRef et = elem_type(c, t), st = scratch_type(c, et);
    cgval out = newval(c, n);
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef flat = l ? reg_flat(c, l, r) : ci32(c, 0);
        LLVMValueRef idx = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, flat, ci32(c, mul), ""), ci32(c, add), "");
        out.r[r] = from_scratch(c, LLVMBuildLoad2(c->b, st, smem_addr(c, LLVMBuildMul(c->b, idx, ci32(c, slot), "")), ""), et);
    }
    return out;
}

/* join, split and cat in the layouts lower/layout.c gives them: each
 * element stays in its thread, only registers are renumbered */
static void emit_shuffle_in_registers(cg *c, const tk_tir_op *op) {
    const tk_tir_value *a = op->operands.data[0];
    const cgval *av = get(c, a);
    if (op->sub == TK_B_SPLIT) {
        tk_ll half;
        uint32_t pair_bit = 0;
        tk_ll_split(&half, a->layout, &pair_bit);
        uint64_t low = (1ull << pair_bit) - 1;
        for (uint32_t k = 0; k < 2; k++) {
            cgval out = newval(c, (uint32_t)tk_ll_num_regs(&half));
            for (uint32_t r = 0; r < out.n; r++)
                out.r[r] = av->r[(r & low) | (uint64_t)k << pair_bit | (r & ~low) << 1];
            *get(c, op->results.data[k]) = out;
        }
        return;
    }
    const cgval *bv = get(c, op->operands.data[1]);
    cgval out = newval(c, av->n * 2);
    for (uint32_t r = 0; r < out.n; r++) {
        if (op->sub == TK_B_JOIN) out.r[r] = (r & 1 ? bv : av)->r[r >> 1];
        else out.r[r] = r < av->n ? av->r[r] : bv->r[r - av->n];
    }
    *get(c, op->results.data[0]) = out;
}

static void emit_shuffle_op(cg *c, const tk_tir_op *op) {
    const tk_tir_value *a = op->operands.data[0];
    if (tk_tir_join_split_cat_in_registers(op)) {
        emit_shuffle_in_registers(c, op);
        return;
    }
    if (op->sub == TK_B_JOIN && a->type->kind != TK_TYPE_TILE) {
        /* two scalars: every thread holds both, so each register picks
         * its element (smem.c gives this no scratch) */
        const tk_tir_value *res = op->results.data[0];
        LLVMValueRef first = get(c, a)->r[0], second = get(c, op->operands.data[1])->r[0];
        cgval out = newval(c, (uint32_t)tk_ll_num_regs(res->layout));
        for (uint32_t r = 0; r < out.n; r++) {
            LLVMValueRef is_first = LLVMBuildICmp(c->b, LLVMIntEQ, reg_flat(c, res->layout, r), ci32(c, 0), "");
            out.r[r] = LLVMBuildSelect(c->b, is_first, first, second, "");
        }
        *get(c, res) = out;
        return;
    }
    unsigned slot = scratch_slot(c);
    if (op->sub == TK_B_JOIN) {
        const tk_tir_value *res = op->results.data[0];
        scratch_write(c, a, 2, 0, slot);
        scratch_write(c, op->operands.data[1], 2, 1, slot);
        barrier(c);
        *get(c, res) = scratch_read(c, res->type, res->layout, 1, 0, slot);
    } else if (op->sub == TK_B_SPLIT) {
        scratch_write(c, a, 1, 0, slot);
        barrier(c);
        for (uint32_t i = 0; i < 2; i++) {
            const tk_tir_value *res = op->results.data[i];
            *get(c, res) = scratch_read(c, res->type, res->type->kind == TK_TYPE_TILE ? res->layout : NULL, 2, i, slot);
        }
    } else { /* cat: a's elements, then b's */
        const tk_tir_value *res = op->results.data[0];
        scratch_write(c, a, 1, 0, slot);
        scratch_write(c, op->operands.data[1], 1, a->type->shape[0], slot);
        barrier(c);
        *get(c, res) = scratch_read(c, res->type, res->layout, 1, 0, slot);
    }
}

/* ---- inline_asm_elementwise ------------------------------------------------ */

/* The user's PTX once per `pack` registers of a thread: sema checked the
 * constraints against the operands' dtypes and every $N, so LLVM gets a
 * well-formed asm. A value narrower than 32 bits goes k elements to an
 * integer register (Triton's packing); several outputs come back as a
 * struct. Past the thread's last register the inputs are undef. */
static unsigned scalar_bits(LLVMTypeRef t) {
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t)
         : LLVMGetTypeKind(t) == LLVMHalfTypeKind || LLVMGetTypeKind(t) == LLVMBFloatTypeKind ? 16
         : LLVMGetTypeKind(t) == LLVMDoubleTypeKind ? 64 : 32;
}

static uint32_t asm_elems_per_reg(LLVMTypeRef t, uint32_t pack) {
    unsigned bits = scalar_bits(t);
    uint32_t n = bits < 32 ? 32 / bits : 1;
    return n < pack ? n : pack;
}

static void emit_inline_asm(cg *c, const tk_tir_op *op) {
    const char *text = tk_tir_attr_text(op, "asm"), *cons = tk_tir_attr_text(op, "constraints");
    bool effects = tk_tir_attr_int(op, "side_effects", 0) != 0;
    uint32_t pack = (uint32_t)tk_tir_attr_int(op, "pack", 1);
    if (!c->user_asm.src) c->user_asm = op->loc;
    uint32_t nout = op->results.len, nin = op->operands.len, n = nregs(op->results.data[0]);
    enum { MAX_VALUES = 8, MAX_REGS = 16 * 8 };
    LLVMTypeRef out_elem[MAX_VALUES], reg_types[MAX_REGS];
    uint32_t nret = 0;
    for (uint32_t i = 0; i < nout && i < MAX_VALUES; i++) {
        out_elem[i] = elem_type(c, op->results.data[i]->type);
        uint32_t per = asm_elems_per_reg(out_elem[i], pack);
        LLVMTypeRef reg = per == 1 ? out_elem[i] : LLVMIntTypeInContext(c->ctx, per * scalar_bits(out_elem[i]));
        for (uint32_t k = 0; k < pack / per && nret < MAX_REGS; k++) reg_types[nret++] = reg;
    }
    LLVMTypeRef ret = nret == 1 ? reg_types[0] : LLVMStructTypeInContext(c->ctx, reg_types, nret, 0);
    cgval outs[MAX_VALUES];
    for (uint32_t i = 0; i < nout && i < MAX_VALUES; i++) outs[i] = newval(c, n);
    for (uint32_t r = 0; r < n; r += pack) {
        LLVMValueRef args[MAX_REGS];
        uint32_t nargs = 0;
        for (uint32_t i = 0; i < nin && i < MAX_VALUES; i++) {
            LLVMTypeRef et = elem_type(c, op->operands.data[i]->type);
            uint32_t per = asm_elems_per_reg(et, pack);
            for (uint32_t j = 0; j < pack && nargs < MAX_REGS; j += per) {
                if (per == 1) {
                    args[nargs++] = r + j < n ? opnd(c, op, i, r + j) : LLVMGetUndef(et);
                    continue;
                }
                LLVMValueRef vec = LLVMGetUndef(LLVMVectorType(et, per));
                for (uint32_t e = 0; e < per; e++)
                    if (r + j + e < n)
                        vec = LLVMBuildInsertElement(c->b, vec, opnd(c, op, i, r + j + e),
                                                     LLVMConstInt(c->t_i32, e, 0), "");
                args[nargs++] = LLVMBuildBitCast(c->b, vec, LLVMIntTypeInContext(c->ctx, per * scalar_bits(et)), "");
            }
        }
        LLVMValueRef v = asm_call(c, ret, text, cons, args, nargs, effects);
        uint32_t reg = 0;
        for (uint32_t i = 0; i < nout && i < MAX_VALUES; i++) {
            uint32_t per = asm_elems_per_reg(out_elem[i], pack);
            for (uint32_t j = 0; j < pack; j += per, reg++) {
                LLVMValueRef x = nret == 1 ? v : LLVMBuildExtractValue(c->b, v, reg, "");
                if (per == 1) {
                    if (r + j < n) outs[i].r[r + j] = x;
                    continue;
                }
                LLVMValueRef vec = LLVMBuildBitCast(c->b, x, LLVMVectorType(out_elem[i], per), "");
                for (uint32_t e = 0; e < per; e++)
                    if (r + j + e < n)
                        outs[i].r[r + j + e] = LLVMBuildExtractElement(c->b, vec, LLVMConstInt(c->t_i32, e, 0), "");
            }
        }
    }
    for (uint32_t i = 0; i < nout && i < MAX_VALUES; i++) *get(c, op->results.data[i]) = outs[i];
}

/* ---- device_print and device_assert -------------------------------------- */

/* A constant C string in global memory, as the generic pointer vprintf and
 * __assertfail take. */
static LLVMValueRef cstring(cg *c, const char *text) {
    size_t len = strlen(text);
    LLVMValueRef init = LLVMConstStringInContext2(c->ctx, text, len, 0);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(c->mod, LLVMTypeOf(init), "tk_str", 1);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    return LLVMBuildAddrSpaceCast(c->b, g, LLVMPointerTypeInContext(c->ctx, 0), "");
}

/* Each element once (its owner thread): "PREFIX pid (x, y, z) idx (i, j) VALUE". */
static void emit_print(cg *c, const tk_tir_op *op) {
    const char *prefix = tk_tir_attr_text(op, "prefix");
    bool hex = tk_tir_attr_int(op, "hex", 0) != 0;
    LLVMTypeRef ptr0 = LLVMPointerTypeInContext(c->ctx, 0);
    LLVMTypeRef params[2] = {ptr0, ptr0};
    LLVMValueRef vprintf = declare(c, "vprintf", c->t_i32, params, 2);
    LLVMTypeRef vty = LLVMFunctionType(c->t_i32, params, 2, 0);
    LLVMValueRef pid[3] = {sreg(c, "ctaid.x"), sreg(c, "ctaid.y"), sreg(c, "ctaid.z")};
    for (uint32_t a = 0; a < op->operands.len; a++) {
        const tk_tir_value *v = op->operands.data[a];
        cgval *vv = get(c, v);
        const tk_type *e = elem_of(v->type);
        bool flt = e->kind == TK_TYPE_SCALAR && tk_dtype_is_float(e->dtype);
        bool wide = e->kind == TK_TYPE_POINTER || (!flt && tk_dtype_bits(e->dtype) == 64);
        uint32_t rank = v->type->kind == TK_TYPE_TILE ? v->type->rank : 0;
        char fmt[256];
        size_t n = (size_t)snprintf(fmt, sizeof fmt, "%s pid (%%d, %%d, %%d)", prefix ? prefix : "");
        if (rank) {
            n += (size_t)snprintf(fmt + n, sizeof fmt - n, " idx (");
            for (uint32_t d = 0; d < rank; d++) n += (size_t)snprintf(fmt + n, sizeof fmt - n, "%s%%d", d ? ", " : "");
            n += (size_t)snprintf(fmt + n, sizeof fmt - n, ")");
        }
        snprintf(fmt + n, sizeof fmt - n, " %s\n",
                 flt ? "%f" : hex ? (wide ? "0x%llx" : "0x%x") : (wide ? "%lld" : "%d"));
        LLVMValueRef fmt_ptr = cstring(c, fmt);
        for (uint32_t r = 0; r < vv->n; r++) {
            LLVMValueRef own = owner(c, rank ? v->layout : NULL, r);
            LLVMBasicBlockRef act = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "print");
            LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "print.end");
            LLVMBuildCondBr(c->b, own, act, join);
            LLVMPositionBuilderAtEnd(c->b, act);
            /* the argument buffer: ints as i32/i64, floats as double */
            LLVMTypeRef fields[16];
            LLVMValueRef vals[16];
            uint32_t nf = 0;
            for (int k = 0; k < 3; k++) {
                fields[nf] = c->t_i32;
                vals[nf++] = pid[k];
            }
            for (uint32_t d = 0; d < rank; d++) {
                uint64_t stride = 1;
                for (uint32_t q = d + 1; q < rank; q++) stride *= (uint64_t)v->type->shape[q];
                fields[nf] = c->t_i32;
                vals[nf++] = LLVMBuildAnd(c->b, LLVMBuildUDiv(c->b, reg_flat(c, v->layout, r), ci32(c, (int64_t)stride), ""),
                                          ci32(c, v->type->shape[d] - 1), "");
            }
            LLVMValueRef x = vv->r[r];
            if (flt) x = LLVMBuildFPExt(c->b, x, c->t_f64, "");
            else if (LLVMTypeOf(x) == c->t_ptr1) x = LLVMBuildPtrToInt(c->b, x, c->t_i64, "");
            else if (!wide) x = is_signed(v->type) ? LLVMBuildSExt(c->b, x, c->t_i32, "") : LLVMBuildZExt(c->b, x, c->t_i32, "");
            if (LLVMTypeOf(x) == c->t_i1) x = LLVMBuildZExt(c->b, x, c->t_i32, "");
            fields[nf] = LLVMTypeOf(x);
            vals[nf++] = x;
            LLVMTypeRef st = LLVMStructTypeInContext(c->ctx, fields, nf, 0);
            LLVMValueRef buf = LLVMBuildAlloca(c->b, st, "");
            for (uint32_t k = 0; k < nf; k++) LLVMBuildStore(c->b, vals[k], LLVMBuildStructGEP2(c->b, st, buf, k, ""));
            LLVMValueRef args[2] = {fmt_ptr, LLVMBuildAddrSpaceCast(c->b, buf, ptr0, "")};
            LLVMBuildCall2(c->b, vty, vprintf, args, 2, "");
            LLVMBuildBr(c->b, join);
            LLVMPositionBuilderAtEnd(c->b, join);
        }
    }
}

/* Under -g/--debug: a false element stops the kernel with the message and
 * the .tk position (the CUDA error the launch then reports says so). */
static void emit_assert(cg *c, const tk_tir_op *op) {
    if (!c->debug) return;
    const tk_tir_value *cond = op->operands.data[0];
    const tk_tir_value *mask = op->operands.len > 1 ? op->operands.data[1] : NULL;
    const char *msg = tk_tir_attr_text(op, "message");
    LLVMTypeRef ptr0 = LLVMPointerTypeInContext(c->ctx, 0);
    LLVMTypeRef params[5] = {ptr0, ptr0, c->t_i32, ptr0, c->t_i64};
    LLVMValueRef fail = declare(c, "__assertfail", c->t_void, params, 5);
    LLVMTypeRef fty = LLVMFunctionType(c->t_void, params, 5, 0);
    const char *file = op->loc.src ? op->loc.src->name : "?";
    LLVMValueRef text = cstring(c, msg && *msg ? msg : "device_assert failed");
    LLVMValueRef file_ptr = cstring(c, file);
    LLVMValueRef fn_name = cstring(c, c->k->sema->name);
    cgval *cv = get(c, cond);
    for (uint32_t r = 0; r < cv->n; r++) {
        LLVMValueRef bad = LLVMBuildNot(c->b, cv->r[r], "");
        if (mask) bad = LLVMBuildAnd(c->b, bad, opnd(c, op, 1, r), "");
        LLVMBasicBlockRef act = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "assert.fail");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "assert.end");
        LLVMBuildCondBr(c->b, bad, act, join);
        LLVMPositionBuilderAtEnd(c->b, act);
        LLVMValueRef args[5] = {text, file_ptr, ci32(c, op->loc.line), fn_name, LLVMConstInt(c->t_i64, 1, 0)};
        LLVMBuildCall2(c->b, fty, fail, args, 5, "");
        LLVMBuildBr(c->b, join);
        LLVMPositionBuilderAtEnd(c->b, join);
    }
}

/* ---- scans -------------------------------------------------------------------- */

/* Inclusive scans along an axis. Each bit of the axis coordinate is
 * selected by one register, lane or warp bit of the layout; going from the
 * least significant, every element keeps the prefix within its block of
 * 2^k elements and that block's total, and merges with the block that
 * differs in bit k: another register, a shuffle partner, or (across warps)
 * shared memory. Replicated bits take no part. */
/* out = x combined with y (x first), on states of k values: cumsum and
 * cumprod add or multiply, a combine function takes 2k values. */
static void scan_combine(cg *c, int kind, const tk_type *t, const LLVMValueRef *x, const LLVMValueRef *y,
                         uint32_t k, LLVMValueRef *out) {
    if (k > 1) {
        /* out may be x or y itself */
        LLVMValueRef a[8], b[8];
        for (uint32_t j = 0; j < k; j++) a[j] = x[j], b[j] = y[j];
        combine_region_n(c, c->combine_fn, a, b, k);
        for (uint32_t j = 0; j < k; j++) out[j] = a[j];
        return;
    }
    bool f = is_float(t);
    if (kind == TK_B_CUMSUM) out[0] = f ? LLVMBuildFAdd(c->b, x[0], y[0], "") : LLVMBuildAdd(c->b, x[0], y[0], "");
    else if (kind == TK_B_CUMPROD) out[0] = f ? LLVMBuildFMul(c->b, x[0], y[0], "") : LLVMBuildMul(c->b, x[0], y[0], "");
    else out[0] = combine(c, kind, t, x[0], y[0]);
}

static void emit_scan(cg *c, const tk_tir_op *op) {
    const tk_tir_value *in = op->operands.data[0], *res = op->results.data[0];
    const tk_ll *l = in->layout;
    const tk_type *t = res->type;
    uint32_t axis = (uint32_t)tk_tir_attr_int(op, "axis", 0);
    bool reverse = tk_tir_attr_int(op, "reverse", 0) != 0;
    int kind = op->sub;
    c->combine_fn = op->regions.len ? op->regions.data[0] : NULL;
    /* each element carries a state of k values: one, or one of each tile
     * of a tuple scan; value j of register r is at [r * k + j] */
    uint32_t k = op->operands.len;
    if (k > 8) {
        not_yet(c, op, "a scan of more than 8 tiles at once");
        return;
    }
    uint32_t n = get(c, in)->n;
    LLVMValueRef *pre = TK_NEW_ARRAY(c->arena, LLVMValueRef, n * k), *tot = TK_NEW_ARRAY(c->arena, LLVMValueRef, n * k);
    for (uint32_t j = 0; j < k; j++) {
        const cgval *iv = get(c, op->operands.data[j]);
        for (uint32_t r = 0; r < n; r++) pre[r * k + j] = tot[r * k + j] = iv->r[r];
    }
    /* the bits along the axis, by the power of two they select */
    enum { IN_REG, IN_LANE, IN_WARP };
    struct level { int where; uint32_t bit; int64_t step; } levels[40];
    uint32_t nl = 0;
    const uint64_t *sets[3] = {l->reg, l->lane, l->warp};
    uint32_t counts[3] = {l->reg_bits, TK_LL_LANE_BITS, l->warp_bits};
    for (int s = 0; s < 3; s++)
        for (uint32_t i = 0; i < counts[s]; i++) {
            if (!along(l, sets[s][i], axis)) continue;
            if (!only_along(l, sets[s][i], axis)) {
                not_yet(c, op, "a scan over this layout");
                return;
            }
            levels[nl].where = s;
            levels[nl].bit = i;
            levels[nl].step = tk_ll_coord(l, sets[s][i], axis);
            nl++;
        }
    for (uint32_t a = 0; a < nl; a++)
        for (uint32_t b = a + 1; b < nl; b++)
            if (levels[b].step < levels[a].step) {
                struct level tmp = levels[a];
                levels[a] = levels[b];
                levels[b] = tmp;
            }
    bool scratch_read_pending = false;
    LLVMValueRef *partner = TK_NEW_ARRAY(c->arena, LLVMValueRef, n * k);
    for (uint32_t lvl = 0; lvl < nl; lvl++) {
        struct level lv = levels[lvl];
        if (lv.where == IN_REG) {
            for (uint32_t r = 0; r < n; r++) {
                if (r >> lv.bit & 1) continue;
                uint32_t hi = r | (1u << lv.bit);
                /* the earlier block in scan order comes first: the lower one,
                 * or the upper one in reverse (Triton's reverse scan is the
                 * forward scan of the flipped tile) */
                LLVMValueRef total[8];
                if (!reverse) {
                    scan_combine(c, kind, t, &tot[r * k], &tot[hi * k], k, total);
                    scan_combine(c, kind, t, &tot[r * k], &pre[hi * k], k, &pre[hi * k]);
                } else {
                    scan_combine(c, kind, t, &tot[hi * k], &tot[r * k], k, total);
                    scan_combine(c, kind, t, &tot[hi * k], &pre[r * k], k, &pre[r * k]);
                }
                for (uint32_t j = 0; j < k; j++) tot[r * k + j] = tot[hi * k + j] = total[j];
            }
            continue;
        }
        LLVMValueRef mine_is_upper;
        if (lv.where == IN_LANE) {
            mine_is_upper = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, c->lane, ci32(c, 1 << lv.bit), ""), ci32(c, 0), "");
            for (uint32_t r = 0; r < n * k; r++) partner[r] = shfl_xor(c, tot[r], 1u << lv.bit);
        } else {
            mine_is_upper = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, c->warp, ci32(c, 1 << lv.bit), ""), ci32(c, 0), "");
            LLVMValueRef me = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, c->warp, ci32(c, 32), ""), c->lane, "");
            LLVMValueRef other_warp = LLVMBuildXor(c->b, c->warp, ci32(c, 1 << lv.bit), "");
            LLVMValueRef other = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, other_warp, ci32(c, 32), ""), c->lane, "");
            /* the previous level's partners may still be reading these slots */
            if (scratch_read_pending) barrier(c);
            /* a slot a value, n * k a thread (lower/scratch.c) */
            for (uint32_t r = 0; r < n * k; r++) {
                LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, me, ci32(c, n * k), ""), ci32(c, r), "");
                LLVMBuildStore(c->b, to_scratch(c, tot[r]), smem_addr(c, LLVMBuildMul(c->b, slot, ci32(c, scratch_slot(c)), "")));
            }
            barrier(c);
            for (uint32_t r = 0; r < n * k; r++) {
                LLVMTypeRef vt = LLVMTypeOf(tot[r]);
                LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, other, ci32(c, n * k), ""), ci32(c, r), "");
                partner[r] = from_scratch(c, LLVMBuildLoad2(c->b, scratch_type(c, vt),
                                                            smem_addr(c, LLVMBuildMul(c->b, slot, ci32(c, scratch_slot(c)), "")), ""), vt);
            }
            scratch_read_pending = true;
        }
        for (uint32_t r = 0; r < n; r++) {
            /* the earlier block in scan order comes first (the lower one,
             * the upper in reverse), and it is the partner's total that
             * extends the later block's prefixes */
            LLVMValueRef partner_first[8], mine_first[8], extended[8];
            scan_combine(c, kind, t, &partner[r * k], &tot[r * k], k, partner_first);
            scan_combine(c, kind, t, &tot[r * k], &partner[r * k], k, mine_first);
            scan_combine(c, kind, t, &partner[r * k], &pre[r * k], k, extended);
            LLVMValueRef later = reverse ? LLVMBuildNot(c->b, mine_is_upper, "") : mine_is_upper;
            for (uint32_t j = 0; j < k; j++) {
                pre[r * k + j] = LLVMBuildSelect(c->b, later, extended[j], pre[r * k + j], "");
                tot[r * k + j] = LLVMBuildSelect(c->b, later, partner_first[j], mine_first[j], "");
            }
        }
    }
    for (uint32_t j = 0; j < k && j < op->results.len; j++) {
        cgval out = newval(c, n);
        for (uint32_t r = 0; r < n; r++) out.r[r] = pre[r * k + j];
        *get(c, op->results.data[j]) = out;
    }
}

/* ---- atomics ---------------------------------------------------------------- */

/* Whether this thread owns register r of layout l: where a layout
 * replicates (a zero basis), only the copy whose replicating bits are 0
 * acts, so an atomic happens once per element. */
static LLVMValueRef owner(cg *c, const tk_ll *l, uint32_t r) {
    LLVMValueRef yes = LLVMConstInt(c->t_i1, 1, 0);
    if (!l) return yes;
    for (uint32_t i = 0; i < l->reg_bits; i++)
        if (!l->reg[i] && (r >> i & 1)) return LLVMConstInt(c->t_i1, 0, 0);
    LLVMValueRef p = yes;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (l->lane[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, c->lane, ci32(c, 1 << i), "");
        p = LLVMBuildAnd(c->b, p, LLVMBuildICmp(c->b, LLVMIntEQ, bit, ci32(c, 0), ""), "");
    }
    for (uint32_t i = 0; i < l->warp_bits; i++) {
        if (l->warp[i]) continue;
        LLVMValueRef bit = LLVMBuildAnd(c->b, c->warp, ci32(c, 1 << i), "");
        p = LLVMBuildAnd(c->b, p, LLVMBuildICmp(c->b, LLVMIntEQ, bit, ci32(c, 0), ""), "");
    }
    return p;
}

static LLVMAtomicOrdering ordering_of(const tk_tir_op *op) {
    const char *sem = tk_tir_attr_text(op, "sem");
    if (!sem || !strcmp(sem, "acq_rel")) return LLVMAtomicOrderingAcquireRelease;
    if (!strcmp(sem, "acquire")) return LLVMAtomicOrderingAcquire;
    if (!strcmp(sem, "release")) return LLVMAtomicOrderingRelease;
    return LLVMAtomicOrderingMonotonic;
}

static unsigned scope_of(cg *c, const tk_tir_op *op) {
    const char *scope = tk_tir_attr_text(op, "scope");
    const char *name = !scope || !strcmp(scope, "gpu") ? "device" : !strcmp(scope, "cta") ? "block" : "";
    return LLVMGetSyncScopeID(c->ctx, name, strlen(name));
}

static void emit_atomic(cg *c, const tk_tir_op *op) {
    int id = op->sub;
    bool cas = id == TK_B_ATOMIC_CAS;
    const tk_tir_value *ptr = op->operands.data[0], *res = op->results.data[0];
    const tk_type *t = res->type;
    bool f = is_float(t), s = is_signed(t);
    LLVMAtomicRMWBinOp rmw = LLVMAtomicRMWBinOpAdd;
    if (id == TK_B_ATOMIC_ADD) rmw = f ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
    else if (id == TK_B_ATOMIC_MAX) rmw = f ? LLVMAtomicRMWBinOpFMax : s ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
    else if (id == TK_B_ATOMIC_MIN) rmw = f ? LLVMAtomicRMWBinOpFMin : s ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
    else if (id == TK_B_ATOMIC_AND) rmw = LLVMAtomicRMWBinOpAnd;
    else if (id == TK_B_ATOMIC_OR) rmw = LLVMAtomicRMWBinOpOr;
    else if (id == TK_B_ATOMIC_XOR) rmw = LLVMAtomicRMWBinOpXor;
    else if (id == TK_B_ATOMIC_XCHG) rmw = LLVMAtomicRMWBinOpXchg;
    bool float_bits = f && rmw >= LLVMAtomicRMWBinOpAnd && rmw <= LLVMAtomicRMWBinOpXor;
    if (float_bits) {
        not_yet(c, op, "a bitwise atomic on floating-point values");
        return;
    }
    LLVMAtomicOrdering order = ordering_of(op);
    unsigned scope = scope_of(c, op);
    uint32_t n = nregs(res);
    cgval out = newval(c, n);
    const tk_tir_value *mask = !cas && op->operands.len > 2 ? op->operands.data[2] : NULL;
    /* a scalar atomic happens once per program, by its first thread */
    bool scalar = ptr->type->kind != TK_TYPE_TILE;
    LLVMValueRef first_thread =
        scalar ? is_first_thread(c) : NULL;
    /* the old values go to the copies that did not act through scratch
     * (smem.c gives it where the result is used and replicated) */
    LLVMTypeRef rt = elem_type(c, res->type);
    unsigned slot = scratch_slot(c);
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef pred = scalar ? first_thread : owner(c, ptr->layout, r);
        if (mask) pred = LLVMBuildAnd(c->b, pred, opnd(c, op, 2, r), "");
        LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
        LLVMBasicBlockRef act = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "atomic");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "atomic.end");
        LLVMBuildCondBr(c->b, pred, act, join);
        LLVMPositionBuilderAtEnd(c->b, act);
        LLVMValueRef old;
        if (cas) {
            LLVMAtomicOrdering fail = order == LLVMAtomicOrderingAcquireRelease || order == LLVMAtomicOrderingAcquire
                                          ? LLVMAtomicOrderingAcquire : LLVMAtomicOrderingMonotonic;
            /* cmpxchg compares bits: floats go as integers of their width */
            LLVMValueRef cmp = opnd(c, op, 1, r), val = opnd(c, op, 2, r);
            LLVMTypeRef bits = f ? LLVMIntTypeInContext(c->ctx, tk_dtype_bits(elem_of(t)->dtype)) : rt;
            if (f) {
                cmp = LLVMBuildBitCast(c->b, cmp, bits, "");
                val = LLVMBuildBitCast(c->b, val, bits, "");
            }
            LLVMValueRef pair = LLVMBuildAtomicCmpXchgSyncScope(c->b, opnd(c, op, 0, r), cmp, val, order, fail, scope);
            old = LLVMBuildExtractValue(c->b, pair, 0, "");
            if (f) old = LLVMBuildBitCast(c->b, old, rt, "");
        } else {
            old = LLVMBuildAtomicRMWSyncScope(c->b, rmw, opnd(c, op, 0, r), opnd(c, op, 1, r), order, scope);
        }
        if (op->scratch_bytes) {
            LLVMValueRef flat = scalar ? ci32(c, 0) : reg_flat(c, res->layout, r);
            LLVMBuildStore(c->b, to_scratch(c, old), smem_addr(c, LLVMBuildMul(c->b, flat, ci32(c, slot), "")));
        }
        LLVMBasicBlockRef act_end = LLVMGetInsertBlock(c->b);
        LLVMBuildBr(c->b, join);
        LLVMPositionBuilderAtEnd(c->b, join);
        LLVMValueRef phi = LLVMBuildPhi(c->b, LLVMTypeOf(old), "");
        LLVMValueRef poison = LLVMGetPoison(LLVMTypeOf(old));
        LLVMAddIncoming(phi, &old, &act_end, 1);
        LLVMAddIncoming(phi, &poison, &from, 1);
        out.r[r] = phi;
    }
    if (op->scratch_bytes) {
        barrier(c);
        out = scratch_read(c, res->type, scalar ? NULL : res->layout, 1, 0, slot);
    }
    *get(c, res) = out;
}

/* ---- fp8 and round-toward-zero conversions (PTX cvt, as Triton) -------- */

static const char *f8_name(tk_dtype d) { return d == TK_F8E4M3 ? "e4m3x2" : "e5m2x2"; }

/* fp8 values live in registers as their byte. To fp8: through f32 and
 * cvt.rn.satfinite (finite values saturate, as Triton); from fp8: cvt to
 * f16, then the ordinary conversion. */
static LLVMValueRef cast_f8(cg *c, tk_dtype from, bool f8_from, tk_dtype to, bool f8_to, const tk_type *ft,
                            const tk_type *tt, LLVMValueRef x) {
    char text[96];
    if (f8_from) {
        snprintf(text, sizeof text, "cvt.rn.f16x2.%s $0, $1;", f8_name(from));
        LLVMValueRef pair = asm_call(c, c->t_i32, text, "=r,h", (LLVMValueRef[]){LLVMBuildZExt(c->b, x, c->t_i16, "")},
                                     1, false);
        LLVMValueRef half = LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, pair, c->t_i16, ""), c->t_f16, "");
        tk_type h = {0};
        h.kind = TK_TYPE_SCALAR;
        h.dtype = TK_F16;
        if (f8_to) {
            x = half;
            from = TK_F16;
            ft = &h;
        } else {
            return cast(c, &h, tt, half);
        }
    }
    (void)ft;
    /* to fp8: from f32 */
    LLVMValueRef f = x;
    if (from == TK_F64) f = LLVMBuildFPTrunc(c->b, x, c->t_f32, "");
    else if (from == TK_F16 || from == TK_BF16) f = LLVMBuildFPExt(c->b, x, c->t_f32, "");
    else if (from != TK_F32) return LLVMGetPoison(c->t_i8);
    snprintf(text, sizeof text, "cvt.rn.satfinite.%s.f32 $0, $2, $1;", f8_name(to));
    LLVMValueRef args[2] = {f, LLVMConstReal(c->t_f32, 0.0)};
    LLVMValueRef pair = asm_call(c, c->t_i16, text, "=h,f,f", args, 2, false);
    (void)to;
    return LLVMBuildTrunc(c->b, pair, c->t_i8, "");
}

static LLVMValueRef cast_rtz(cg *c, const tk_tir_op *op, tk_dtype from, tk_dtype to, LLVMValueRef x) {
    const char *text = NULL, *cons = NULL;
    LLVMTypeRef rt = NULL;
    if (from == TK_F32 && to == TK_F16) { text = "cvt.rz.f16.f32 $0, $1;"; cons = "=h,f"; rt = c->t_i16; }
    else if (from == TK_F32 && to == TK_BF16) { text = "cvt.rz.bf16.f32 $0, $1;"; cons = "=h,f"; rt = c->t_i16; }
    else if (from == TK_F64 && to == TK_F32) { text = "cvt.rz.f32.f64 $0, $1;"; cons = "=f,d"; rt = c->t_f32; }
    if (!text) {
        not_yet(c, op, tk_arena_printf(c->arena, "fp_downcast_rounding=\"rtz\" from %s to %s",
                                       tk_dtype_name(from), tk_dtype_name(to)));
        return LLVMGetPoison(c->t_f32);
    }
    LLVMValueRef r = asm_call(c, rt, text, cons, &x, 1, false);
    if (to == TK_F16) return LLVMBuildBitCast(c->b, r, c->t_f16, "");
    if (to == TK_BF16) return LLVMBuildBitCast(c->b, r, c->t_bf16, "");
    return r;
}

/* ---- ops and control flow -------------------------------------------------- */

static void emit_block(cg *c, const tk_tir_block *blk);

/* Gives vs[first..] their registers from consecutive entries of values. */
static void bind_regs(cg *c, const tk_tir_values *vs, uint32_t first, LLVMValueRef *values) {
    uint32_t k = 0;
    for (uint32_t i = first; i < vs->len; i++) {
        const tk_tir_value *a = vs->data[i];
        uint32_t n = nregs(a);
        cgval v = newval(c, n);
        for (uint32_t r = 0; r < n; r++) v.r[r] = values[k++];
        *get(c, a) = v;
    }
}

static void bind_args(cg *c, const tk_tir_block *blk, uint32_t first, LLVMValueRef *values) {
    bind_regs(c, &blk->args, first, values);
}

static uint32_t count_regs(const tk_tir_values *vs, uint32_t first) {
    uint32_t n = 0;
    for (uint32_t i = first; i < vs->len; i++) n += nregs(vs->data[i]);
    return n;
}

static const tk_tir_op *terminator(const tk_tir_block *blk) {
    for (uint32_t i = blk->ops.len; i-- > 0;)
        if (!blk->ops.data[i]->dead) return blk->ops.data[i];
    return NULL;
}

/* registers of a region's yield (or condition) operands, from index first */
static void yielded(cg *c, const tk_tir_op *y, uint32_t first, LLVMValueRef *out) {
    uint32_t k = 0;
    for (uint32_t i = first; y && i < y->operands.len; i++) {
        cgval *v = get(c, y->operands.data[i]);
        for (uint32_t r = 0; r < v->n; r++) out[k++] = v->r[r];
    }
}

static LLVMTypeRef reg_type(cg *c, const tk_tir_value *v) { return elem_type(c, v->type); }

static void phis_for(cg *c, const tk_tir_values *vs, uint32_t first, LLVMValueRef *phis) {
    uint32_t k = 0;
    for (uint32_t i = first; i < vs->len; i++) {
        uint32_t n = nregs(vs->data[i]);
        for (uint32_t r = 0; r < n; r++) phis[k++] = LLVMBuildPhi(c->b, reg_type(c, vs->data[i]), "");
    }
}

static void add_incoming(LLVMValueRef *phis, LLVMValueRef *vals, uint32_t n, LLVMBasicBlockRef from) {
    for (uint32_t i = 0; i < n; i++) LLVMAddIncoming(phis[i], &vals[i], &from, 1);
}

static void emit_for(cg *c, const tk_tir_op *op) {
    LLVMValueRef lo = get(c, op->operands.data[0])->r[0], hi = get(c, op->operands.data[1])->r[0];
    LLVMValueRef step = get(c, op->operands.data[2])->r[0];
    const tk_type *ivt = op->operands.data[0]->type;
    uint32_t n = count_regs(&op->operands, 3);
    LLVMValueRef *init = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    yielded(c, op, 3, init);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef header = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "for.header");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "for.body");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "for.exit");
    LLVMBuildBr(c->b, header);
    LLVMPositionBuilderAtEnd(c->b, header);
    LLVMValueRef iv = LLVMBuildPhi(c->b, LLVMTypeOf(lo), "iv");
    LLVMValueRef *phis = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    phis_for(c, &op->results, 0, phis);
    add_incoming(&iv, &lo, 1, pre);
    add_incoming(phis, init, n, pre);
    LLVMValueRef up = compare(c, TK_BINOP_LT, ivt, iv, hi), down = compare(c, TK_BINOP_GT, ivt, iv, hi);
    LLVMValueRef positive = LLVMBuildICmp(c->b, LLVMIntSGT, step, LLVMConstNull(LLVMTypeOf(step)), "");
    LLVMBuildCondBr(c->b, LLVMBuildSelect(c->b, positive, up, down, ""), body, exit);
    LLVMPositionBuilderAtEnd(c->b, body);
    const tk_tir_block *region = op->regions.data[0];
    *get(c, region->args.data[0]) = (cgval){1, TK_NEW_ARRAY(c->arena, LLVMValueRef, 1)};
    get(c, region->args.data[0])->r[0] = iv;
    bind_args(c, region, 1, phis);
    emit_block(c, region);
    if (c->failed) return;
    LLVMValueRef *next = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    yielded(c, terminator(region), 0, next);
    LLVMValueRef iv_next = LLVMBuildAdd(c->b, iv, step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, header);
    add_incoming(&iv, &iv_next, 1, latch);
    add_incoming(phis, next, n, latch);
    LLVMPositionBuilderAtEnd(c->b, exit);
    bind_regs(c, &op->results, 0, phis);
}

static void emit_if(cg *c, const tk_tir_op *op) {
    LLVMValueRef cond = get(c, op->operands.data[0])->r[0];
    LLVMBasicBlockRef then_bb = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "if.then");
    LLVMBasicBlockRef else_bb = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "if.else");
    LLVMBasicBlockRef merge = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "if.end");
    LLVMBuildCondBr(c->b, cond, then_bb, else_bb);
    uint32_t n = count_regs(&op->results, 0);
    LLVMValueRef *vals[2];
    LLVMBasicBlockRef from[2];
    LLVMBasicBlockRef starts[2] = {then_bb, else_bb};
    for (int side = 0; side < 2; side++) {
        LLVMPositionBuilderAtEnd(c->b, starts[side]);
        emit_block(c, op->regions.data[side]);
        if (c->failed) return;
        vals[side] = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
        yielded(c, terminator(op->regions.data[side]), 0, vals[side]);
        from[side] = LLVMGetInsertBlock(c->b);
        LLVMBuildBr(c->b, merge);
    }
    LLVMPositionBuilderAtEnd(c->b, merge);
    LLVMValueRef *phis = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    phis_for(c, &op->results, 0, phis);
    for (int side = 0; side < 2; side++) add_incoming(phis, vals[side], n, from[side]);
    bind_regs(c, &op->results, 0, phis);
}

static void emit_while(cg *c, const tk_tir_op *op) {
    uint32_t n = count_regs(&op->operands, 0);
    LLVMValueRef *init = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    yielded(c, op, 0, init);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef header = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "while.header");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "while.body");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "while.exit");
    LLVMBuildBr(c->b, header);
    LLVMPositionBuilderAtEnd(c->b, header);
    LLVMValueRef *phis = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    phis_for(c, &op->operands, 0, phis);
    add_incoming(phis, init, n, pre);
    const tk_tir_block *before = op->regions.data[0], *after = op->regions.data[1];
    bind_args(c, before, 0, phis);
    emit_block(c, before);
    if (c->failed) return;
    const tk_tir_op *cond_op = terminator(before);
    LLVMValueRef *passed = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    yielded(c, cond_op, 1, passed);
    LLVMBuildCondBr(c->b, get(c, cond_op->operands.data[0])->r[0], body, exit);
    LLVMPositionBuilderAtEnd(c->b, body);
    bind_args(c, after, 0, passed);
    emit_block(c, after);
    if (c->failed) return;
    LLVMValueRef *next = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    yielded(c, terminator(after), 0, next);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, header);
    add_incoming(phis, next, n, latch);
    LLVMPositionBuilderAtEnd(c->b, exit);
    bind_regs(c, &op->results, 0, passed);
}

/* operand i of an element-wise op, register r */
static LLVMValueRef opnd(cg *c, const tk_tir_op *op, uint32_t i, uint32_t r) {
    cgval *v = get(c, op->operands.data[i]);
    return v->r[v->n == 1 ? 0 : r];
}

static void emit_op(cg *c, const tk_tir_op *op) {
    if (c->di_sp && op->loc.src)
        LLVMSetCurrentDebugLocation2(c->b, LLVMDIBuilderCreateDebugLocation(c->ctx, op->loc.line, op->loc.col,
                                                                            c->di_sp, NULL));
    const tk_tir_value *res = op->results.len ? op->results.data[0] : NULL;
    uint32_t n = res ? nregs(res) : 0;
    cgval out = newval(c, n);
    c->scratch_op = op;
    switch (op->code) {
    case TIR_BARRIER:
        barrier(c);
        return;
    case TIR_CONST: {
        LLVMTypeRef t = reg_type(c, res);
        out.r[0] = splat_const(t, is_float(res->type), op->value.f, op->value.i);
        break;
    }
    case TIR_UNDEF:
        for (uint32_t r = 0; r < n; r++) out.r[r] = LLVMGetPoison(reg_type(c, res));
        break;
    case TIR_PROGRAM_ID:
    case TIR_NUM_PROGRAMS: {
        static const char *const axes[3] = {"x", "y", "z"};
        int64_t axis = tk_tir_attr_int(op, "axis", 0);
        out.r[0] = sreg(c, tk_arena_printf(c->arena, "%s.%s", op->code == TIR_PROGRAM_ID ? "ctaid" : "nctaid",
                                            axes[axis < 0 || axis > 2 ? 0 : axis]));
        break;
    }
    case TIR_MAKE_RANGE: {
        int64_t start = tk_tir_attr_int(op, "start", 0);
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = LLVMBuildAdd(c->b, reg_flat(c, res->layout, r), ci32(c, start), "");
        break;
    }
    case TIR_SPLAT:
        for (uint32_t r = 0; r < n; r++) out.r[r] = get(c, op->operands.data[0])->r[0];
        break;
    case TIR_BROADCAST:
    case TIR_CONVERT_LAYOUT:
        out = relayout(c, op->operands.data[0], res->layout);
        break;
    case TIR_RESHAPE:
    case TIR_PERMUTE:
    case TIR_HINT:
        out = *get(c, op->operands.data[0]);
        break;
    case TIR_UNARY:
        for (uint32_t r = 0; r < n; r++) {
            LLVMValueRef a = opnd(c, op, 0, r);
            if (op->sub == TIR_NOT) out.r[r] = LLVMBuildNot(c->b, a, "");
            else out.r[r] = is_float(res->type) ? LLVMBuildFNeg(c->b, a, "") : LLVMBuildNeg(c->b, a, "");
        }
        break;
    case TIR_BINARY: {
        bool arith_shift = tk_tir_attr_int(op, "arithmetic", 0) != 0;
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = binary(c, op->sub, res->type, opnd(c, op, 0, r), opnd(c, op, 1, r), arith_shift);
        if (n && !out.r[0]) not_yet(c, op, "this operator");
        break;
    }
    case TIR_CMP:
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = compare(c, op->sub, op->operands.data[0]->type, opnd(c, op, 0, r), opnd(c, op, 1, r));
        break;
    case TIR_SELECT:
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = LLVMBuildSelect(c->b, opnd(c, op, 0, r), opnd(c, op, 1, r), opnd(c, op, 2, r), "");
        break;
    case TIR_CAST: {
        const tk_type *from = op->operands.data[0]->type;
        const tk_type *fe = elem_of(from), *te = elem_of(res->type);
        bool f8_from = fe->kind == TK_TYPE_SCALAR && (fe->dtype == TK_F8E4M3 || fe->dtype == TK_F8E5M2);
        bool f8_to = te->kind == TK_TYPE_SCALAR && (te->dtype == TK_F8E4M3 || te->dtype == TK_F8E5M2);
        const char *rounding = tk_tir_attr_text(op, "rounding");
        bool rtz = rounding && strcmp(rounding, "rtne") != 0;
        if ((f8_from || f8_to) && !c->target->has_fp8) {
            not_yet(c, op, tk_arena_printf(c->arena, "an fp8 conversion on %s (it needs sm_89 or newer)", c->target->name));
            break;
        }
        for (uint32_t r = 0; r < n && !c->failed; r++) {
            LLVMValueRef x = opnd(c, op, 0, r);
            if (f8_from || f8_to) out.r[r] = cast_f8(c, fe->dtype, f8_from, te->dtype, f8_to, from, res->type, x);
            else if (rtz) out.r[r] = cast_rtz(c, op, fe->dtype, te->dtype, x);
            else out.r[r] = cast(c, from, res->type, x);
        }
        break;
    }
    case TIR_BITCAST:
        for (uint32_t r = 0; r < n; r++) {
            LLVMValueRef a = opnd(c, op, 0, r);
            LLVMTypeRef t = reg_type(c, res);
            out.r[r] = LLVMTypeOf(a) == c->t_ptr1 ? LLVMBuildPtrToInt(c->b, a, t, "") : LLVMBuildBitCast(c->b, a, t, "");
        }
        break;
    case TIR_ADDPTR: {
        const tk_type *pointee = elem_of(res->type)->elem;
        LLVMTypeRef et = mem_type(c, pointee);
        bool sgn = is_signed(op->operands.data[1]->type);
        for (uint32_t r = 0; r < n; r++) {
            LLVMValueRef off = opnd(c, op, 1, r);
            if (LLVMGetIntTypeWidth(LLVMTypeOf(off)) < 64 && !sgn) off = LLVMBuildZExt(c->b, off, c->t_i64, "");
            out.r[r] = LLVMBuildGEP2(c->b, et, opnd(c, op, 0, r), &off, 1, "");
        }
        break;
    }
    case TIR_LOAD:
    case TIR_STORE:
        emit_memory(c, op);
        return;
    case TIR_MATH:
        for (uint32_t r = 0; r < n && !c->failed; r++) {
            LLVMValueRef xs[3];
            for (uint32_t i = 0; i < op->operands.len && i < 3; i++) xs[i] = opnd(c, op, i, r);
            out.r[r] = math_n(c, op, res->type, xs);
        }
        break;
    case TIR_REDUCE:
        emit_reduce(c, op);
        return;
    case TIR_BUILTIN: {
        switch (op->sub) {
        case TK_B_DEBUG_BARRIER: barrier(c); return;
        case TK_B_ATOMIC_ADD: case TK_B_ATOMIC_MAX: case TK_B_ATOMIC_MIN: case TK_B_ATOMIC_AND:
        case TK_B_ATOMIC_OR: case TK_B_ATOMIC_XOR: case TK_B_ATOMIC_XCHG: case TK_B_ATOMIC_CAS:
            emit_atomic(c, op);
            return;
        case TK_B_CUMSUM: case TK_B_CUMPROD: case TK_B_ASSOCIATIVE_SCAN: emit_scan(c, op); return;
        case TK_B_RAND: case TK_B_RANDN: case TK_B_RANDINT: case TK_B_RAND4X: case TK_B_RANDN4X:
        case TK_B_RANDINT4X:
            emit_random(c, op);
            return;
        case TK_B_JOIN: case TK_B_SPLIT: case TK_B_CAT: emit_shuffle_op(c, op); return;
        case TK_B_INLINE_ASM_ELEMENTWISE: emit_inline_asm(c, op); return;
        case TK_B_DEVICE_PRINT: emit_print(c, op); return;
        case TK_B_DEVICE_ASSERT: emit_assert(c, op); return;
        default:
            not_yet(c, op, tk_arena_printf(c->arena, "tl.%s", tk_sema_builtin_name(op->sub)));
            return;
        }
    }
    case TIR_FOR: emit_for(c, op); return;
    case TIR_IF: emit_if(c, op); return;
    case TIR_WHILE: emit_while(c, op); return;
    case TIR_YIELD:
    case TIR_CONDITION:
        return;
    case TIR_RETURN: {
        LLVMBuildRetVoid(c->b);
        /* whatever follows in this region is unreachable */
        LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->ctx, c->fn, "after.return"));
        return;
    }
    default:
        not_yet(c, op, tk_tir_opcode_name(op->code));
        return;
    }
    /* an op reported as not supported leaves registers unset: poison keeps
     * the ops after it well-formed until compilation stops */
    for (uint32_t r = 0; res && r < out.n; r++)
        if (!out.r[r]) out.r[r] = LLVMGetPoison(reg_type(c, res));
    if (res) *get(c, res) = out;
}

static void emit_block(cg *c, const tk_tir_block *blk) {
    /* a combine region runs in the middle of its reduce or scan, which goes
     * on using its own scratch afterwards */
    const tk_tir_op *outer = c->scratch_op;
    for (uint32_t i = 0; i < blk->ops.len && !c->failed; i++)
        if (!blk->ops.data[i]->dead) emit_op(c, blk->ops.data[i]);
    c->scratch_op = outer;
}

/* ---- kernels and the module ------------------------------------------------ */

static LLVMTypeRef param_type(cg *c, const tk_type *t) {
    if (t->kind == TK_TYPE_POINTER) return c->t_ptr1;
    if (t->dtype == TK_I1) return c->t_i8;
    return dtype_type(c, t->dtype);
}

const char *cg_entry_name(tk_arena *arena, const tk_tir_kernel *k, const tk_tir_program *program) {
    uint32_t same = 0;
    for (uint32_t i = 0; i < program->kernels.len; i++)
        same += strcmp(program->kernels.data[i]->sema->name, k->sema->name) == 0;
    uint32_t variants = 0;
    for (uint32_t i = 0; i < program->kernels.len; i++)
        variants += strcmp(program->kernels.data[i]->sema->name, k->sema->name) == 0 &&
                    program->kernels.data[i]->suffix[0] == 0;
    if (same <= 1) return k->sema->name;
    if (variants <= 1) return tk_arena_printf(arena, "%s%s", k->sema->name, k->suffix);
    return tk_arena_printf(arena, "%s__v%u%s", k->sema->name, k->sema->variant, k->suffix);
}

static bool emit_kernel(cg *c, const tk_tir_kernel *k, const char *entry) {
    c->k = k;
    c->failed = false;
    c->nflats = 0;
    c->vals = TK_NEW_ARRAY(c->arena, cgval, k->value_count + 1);
    const tk_tir_block *body = k->body;
    LLVMTypeRef params[128];
    uint32_t np = body->args.len < 128 ? body->args.len : 128;
    for (uint32_t i = 0; i < np; i++) params[i] = param_type(c, body->args.data[i]->type);
    LLVMValueRef fn = LLVMAddFunction(c->mod, entry, LLVMFunctionType(c->t_void, params, np, 0));
    LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
    /* the header launches exactly num_warps * 32 threads: .reqntid, which
     * ptxas may use (as Triton does), not just an upper bound */
    char threads[16];
    snprintf(threads, sizeof threads, "%u", k->num_warps * 32);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(c->ctx, "nvvm.reqntid", 12, threads, (unsigned)strlen(threads)));
    c->fn = fn;
    c->di_sp = NULL;
    if (c->dib) {
        LLVMMetadataRef type = LLVMDIBuilderCreateSubroutineType(c->dib, c->di_file, NULL, 0, LLVMDIFlagZero);
        unsigned line = k->sema->loc.line;
        c->di_sp = LLVMDIBuilderCreateFunction(c->dib, c->di_file, entry, strlen(entry), entry, strlen(entry),
                                               c->di_file, line, type, 0, 1, line, LLVMDIFlagZero, 1);
        LLVMSetSubprogram(fn, c->di_sp);
        LLVMSetCurrentDebugLocation2(c->b, LLVMDIBuilderCreateDebugLocation(c->ctx, line, k->sema->loc.col,
                                                                            c->di_sp, NULL));
    }
    /* dynamic shared memory: sized at launch (the header passes
     * k->shared_bytes), so more than the 48 KB of static memory works */
    c->smem = NULL;
    if (k->shared_bytes) {
        c->smem = LLVMGetNamedGlobal(c->mod, "tk_smem");
        if (!c->smem) {
            c->smem = LLVMAddGlobalInAddressSpace(c->mod, LLVMArrayType2(c->t_i8, 0), "tk_smem", 3);
            LLVMSetAlignment(c->smem, 16);
        }
    }
    c->entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry");
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->ctx, fn, "start");
    LLVMPositionBuilderAtEnd(c->b, c->entry);
    c->tid = sreg(c, "tid.x");
    c->lane = LLVMBuildAnd(c->b, c->tid, ci32(c, 31), "lane");
    c->warp = LLVMBuildLShr(c->b, c->tid, ci32(c, 5), "warp");
    c->entry_br = LLVMBuildBr(c->b, start);
    LLVMPositionBuilderAtEnd(c->b, start);
    for (uint32_t i = 0; i < np; i++) {
        const tk_tir_value *a = body->args.data[i];
        LLVMValueRef p = LLVMGetParam(fn, i);
        if (a->type->kind == TK_TYPE_SCALAR && a->type->dtype == TK_I1) p = LLVMBuildTrunc(c->b, p, c->t_i1, "");
        cgval v = newval(c, 1);
        v.r[0] = p;
        *get(c, a) = v;
    }
    emit_block(c, body);
    if (c->failed) {
        LLVMDeleteFunction(fn);
        return false;
    }
    LLVMBuildRetVoid(c->b);
    return true;
}

LLVMModuleRef cg_build_module(tk_arena *arena, tk_diag *diag, LLVMContextRef ctx,
                              const tk_tir_program *program, const tk_cg_options *options,
                              tk_cg_output *out) {
    bool line_info = options->line_info;
    cg c = {0};
    c.debug = options->debug;
    c.target = options->target;
    c.arena = arena;
    c.diag = diag;
    c.ctx = ctx;
    c.mod = LLVMModuleCreateWithNameInContext("tkc", ctx);
    c.b = LLVMCreateBuilderInContext(ctx);
    c.t_i1 = LLVMInt1TypeInContext(ctx);
    c.t_i8 = LLVMInt8TypeInContext(ctx);
    c.t_i16 = LLVMInt16TypeInContext(ctx);
    c.t_i32 = LLVMInt32TypeInContext(ctx);
    c.t_i64 = LLVMInt64TypeInContext(ctx);
    c.t_f16 = LLVMHalfTypeInContext(ctx);
    c.t_bf16 = LLVMBFloatTypeInContext(ctx);
    c.t_f32 = LLVMFloatTypeInContext(ctx);
    c.t_f64 = LLVMDoubleTypeInContext(ctx);
    c.t_ptr1 = LLVMPointerTypeInContext(ctx, 1);
    c.t_ptr3 = LLVMPointerTypeInContext(ctx, 3);
    c.t_void = LLVMVoidTypeInContext(ctx);
    if (line_info && program->kernels.len && program->kernels.data[0]->sema->loc.src) {
        const char *path = program->kernels.data[0]->sema->loc.src->name;
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        size_t dir_len = slash ? (size_t)(slash - path) : 1;
        c.dib = LLVMCreateDIBuilder(c.mod);
        c.di_file = LLVMDIBuilderCreateFile(c.dib, base, strlen(base), slash ? path : ".", dir_len);
        /* .file/.loc directives only (LLVM's DebugDirectivesOnly, which the
         * C enum does not name): no .debug sections and no ", debug"
         * target, so ptxas may still optimize */
        LLVMDIBuilderCreateCompileUnit(c.dib, LLVMDWARFSourceLanguageC, c.di_file, "tkc", 3, 1, "", 0, 0, "", 0,
                                       (LLVMDWARFEmissionKind)3, 0, 0, 0, "", 0, "", 0);
        LLVMAddModuleFlag(c.mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                          LLVMValueAsMetadata(LLVMConstInt(c.t_i32, LLVMDebugMetadataVersion(), 0)));
        LLVMAddModuleFlag(c.mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                          LLVMValueAsMetadata(LLVMConstInt(c.t_i32, 2, 0)));
    }
    bool ok = true;
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        const tk_tir_kernel *k = program->kernels.data[i];
        const char *entry = cg_entry_name(arena, k, program);
        if (emit_kernel(&c, k, entry)) {
            tk_cg_kernel_info info = {entry, k, -1, -1, (int)k->shared_bytes};
            tk_vec_push(arena, &out->kernels, info);
        } else {
            ok = false;
        }
    }
    if (c.dib) {
        LLVMDIBuilderFinalize(c.dib);
        LLVMDisposeDIBuilder(c.dib);
    }
    LLVMDisposeBuilder(c.b);
    out->user_asm = c.user_asm;
    if (!ok) {
        LLVMDisposeModule(c.mod);
        return NULL;
    }
    return c.mod;
}
