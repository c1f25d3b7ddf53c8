/* The shared-memory buffers of pipelined loops (lower/pipeline_dot.c).
 * local_view: one stage of a buffer, held as its address (one register,
 * a shared-memory pointer). async_copy: each thread copies the elements
 * its pointer registers name into the view, where the buffer's layout puts
 * them, as cp.async of 4, 8 or 16 bytes; a masked-off vector is zero-
 * filled (ignore-src), and where the mask keeps a prefix of each vector
 * (prefix_mask: a ragged K) only that prefix is copied. A vector whose mask
 * is neither all on nor all off nor such a prefix, or any copy whose
 * `other` is not 0, is loaded element by element and stored with st.shared
 * instead (never both for one vector: a zero-fill landing later would
 * overwrite it). async_commit and async_wait are
 * cp.async's commit_group and wait_group; the wait is followed by a
 * fence.proxy.async where lower/proxy_fences.c marked it (cp.async
 * writes are generic-proxy writes a wgmma reads through the async one)
 * and by the program's barrier. local_load reads a
 * view into the registers of its result's layout: by ldmatrix where the
 * layout is mma.sync's 16-bit operand layout (or anything else made of
 * ldmatrix's 8 x 8 matrices), else as wide as the layouts allow;
 * local_store writes registers into a view (a wgmma's B, dot_operands.c).
 * Needs: smem.c's buffer offsets, layouts (a view's is its buffer's). */
#include "internal.h"

#include <math.h>
#include <string.h>

static const tk_tir_buffer *buffer_of(cg *c, const tk_tir_op *op) {
    return &c->k->buffers.data[tk_tir_attr_int(op, "buffer", 0)];
}

static unsigned elem_bytes(const tk_type *t) {
    unsigned b = tk_dtype_bits(cg_elem_of(t)->dtype) / 8;
    return b ? b : 1;
}

/* thread bits -> element offsets in the view, for registers of layout l */
static const tk_ll *offsets_in(cg *c, const tk_ll *view, const tk_ll *l) {
    tk_ll inverse;
    tk_ll *out = TK_NEW(c->arena, tk_ll);
    tk_ll_invert(&inverse, view);
    tk_ll_compose(out, &inverse, l);
    return out;
}

static LLVMValueRef smem_at(cg *c, LLVMValueRef base, LLVMValueRef byte_offset) {
    return LLVMBuildGEP2(c->b, c->t_i8, base, &byte_offset, 1, "");
}

/* is register r a copy of a lower register (a zero basis among its bits)? */
static bool register_copy(const tk_ll *l, uint32_t r) {
    for (uint32_t i = 0; i < l->reg_bits; i++)
        if ((r >> i & 1) && !l->reg[i]) return true;
    return false;
}

/* is v a splat of the constant 0 (+0.0 for floats)? Also through a cast
 * (other=0.0 for fp8 operands: fold.c keeps the cast, and +0.0 or 0 is
 * all zero bits in every type) */
static bool is_zero(const tk_tir_value *v) {
    if (!v) return true;
    if (v->def && v->def->code == TIR_SPLAT) v = v->def->operands.data[0];
    if (v->def && v->def->code == TIR_CAST && !v->def->attrs.len) v = v->def->operands.data[0];
    if (!v->def || v->def->code != TIR_CONST) return false;
    if (tk_dtype_is_float(cg_elem_of(v->type)->dtype)) return v->def->value.f == 0.0 && !signbit(v->def->value.f);
    return v->def->value.i == 0;
}

static void emit_view(cg *c, const tk_tir_op *op) {
    const tk_tir_buffer *b = buffer_of(c, op);
    LLVMValueRef off = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, cg_operand(c, op, 0, 0), cg_i32(c, b->stage_bytes), ""),
                                    cg_i32(c, b->offset), "");
    cgval out = cg_newval(c, 1);
    out.r[0] = smem_at(c, c->smem, off);
    *cg_get(c, op->results.data[0]) = out;
}

static void cp_async(cg *c, LLVMValueRef dst, LLVMValueRef src, unsigned bytes, LLVMValueRef src_size) {
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.cp.async.%s.shared.global.%u.s", bytes == 16 ? "cg" : "ca", bytes);
    LLVMValueRef args[3] = {dst, src, src_size};
    cg_call(c, name, c->t_void, args, 3);
}

/* the same where `pred` holds (no branch: predicated PTX) */
static void cp_async_if(cg *c, LLVMValueRef pred, LLVMValueRef dst, LLVMValueRef src, unsigned bytes,
                        LLVMValueRef src_size) {
    char text[160];
    snprintf(text, sizeof text, "@$0 cp.async.%s.shared.global [ $1 + 0 ], [ $2 + 0 ], %u, $3;",
             bytes == 16 ? "cg" : "ca", bytes);
    LLVMValueRef args[4] = {pred, LLVMBuildAddrSpaceCast(c->b, dst, c->t_ptr3, ""), src, src_size};
    cg_asm_call(c, c->t_void, text, "b,r,l,r", args, 4, true);
}

/* the same, zero-filling dst where `ignore` holds (the ignore-src operand):
 * one predicate instead of a size chosen per vector, which LLVM would build
 * from the mask's `and`s as a chain of selects; only where `pred` holds
 * (NULL: everywhere) */
static void cp_async_unless(cg *c, LLVMValueRef pred, LLVMValueRef ignore, LLVMValueRef dst, LLVMValueRef src,
                            unsigned bytes) {
    char text[160];
    snprintf(text, sizeof text, "%scp.async.%s.shared.global [ $0 + 0 ], [ $1 + 0 ], %u, $2;", pred ? "@$3 " : "",
             bytes == 16 ? "cg" : "ca", bytes);
    LLVMValueRef args[4] = {LLVMBuildAddrSpaceCast(c->b, dst, c->t_ptr3, ""), src, ignore, pred};
    cg_asm_call(c, c->t_void, text, pred ? "r,l,b,b" : "r,l,b", args, pred ? 4 : 3, true);
}

/* elements [r, r + w) one by one where `pred` holds: each loaded where its
 * mask holds (else `other`), all stored to dst (predicated PTX, no branch) */
static void copy_elements(cg *c, const tk_tir_op *op, LLVMValueRef pred, LLVMValueRef dst, uint32_t r, uint32_t w,
                          unsigned bytes, LLVMTypeRef et) {
    const cgval *pv = cg_get(c, op->operands.data[1]);
    LLVMTypeRef bits = bytes == 8 ? c->t_i64 : bytes == 4 ? c->t_i32 : c->t_i16;
    for (uint32_t i = 0; i < w; i++) {
        LLVMValueRef m = op->operands.len > 2 ? cg_operand(c, op, 2, r + i) : LLVMConstInt(c->t_i1, 1, 0);
        LLVMValueRef other = op->operands.len > 3 ? cg_operand(c, op, 3, r + i) : LLVMConstNull(et);
        LLVMValueRef x = cg_masked_load_scalar(c, op, pv->r[r + i], LLVMBuildAnd(c->b, m, pred, ""), other, et, bytes);
        LLVMValueRef at = smem_at(c, dst, cg_i32(c, (int64_t)i * bytes));
        if (LLVMIsAConstantInt(pred) && LLVMConstIntGetZExtValue(pred)) {
            LLVMSetAlignment(LLVMBuildStore(c->b, x, at), bytes);
            continue;
        }
        /* st.shared.b8 takes a 16-bit register ("h") */
        LLVMValueRef v = et == c->t_i8 ? LLVMBuildZExt(c->b, x, c->t_i16, "") : LLVMBuildBitCast(c->b, x, bits, "");
        char text[96];
        snprintf(text, sizeof text, "@$0 st.shared.b%u [ $1 + 0 ], $2;", bytes == 1 ? 8 : bytes * 8);
        LLVMValueRef args[3] = {pred, LLVMBuildAddrSpaceCast(c->b, at, c->t_ptr3, ""), v};
        cg_asm_call(c, c->t_void, text, bytes == 8 ? "b,r,l" : bytes == 4 ? "b,r,r" : "b,r,h", args, 3, true);
    }
}

/* The dimension of op's operand that dimension d of its result is, for an
 * op that keeps elements in place along it: a broadcast (same rank), a
 * permute (tl.trans: the pipeline's transposed copies), a reshape that
 * only adds or drops dimensions of 1 (expand_dims), or any reshape keeping
 * the last dimension when d is the last; -1 otherwise. */
static int operand_dim(const tk_tir_op *op, uint32_t d) {
    const tk_type *out = op->results.data[0]->type, *in = op->operands.data[0]->type;
    if (in->kind != TK_TYPE_TILE || out->kind != TK_TYPE_TILE) return -1;
    if (op->code == TIR_PERMUTE) {
        uint32_t order[TK_MAX_RANK];
        return d < tk_tir_permute_order(op, order) ? (int)order[d] : -1;
    }
    if (d == out->rank - 1 && in->shape[in->rank - 1] == out->shape[d]) return (int)in->rank - 1;
    if (in->rank == out->rank) return in->shape[d] == out->shape[d] ? (int)d : -1;
    uint32_t i = 0, o = 0;
    for (;; i++, o++) {
        while (i < in->rank && in->shape[i] == 1) i++;
        while (o < out->rank && out->shape[o] == 1) o++;
        if (i == in->rank || o == out->rank) return -1;
        if (in->shape[i] != out->shape[o]) return -1;
        if (o == d) return (int)i;
    }
}

static uint32_t dim_or_0(const tk_tir_value *v, uint32_t d) { return v->type->kind == TK_TYPE_TILE ? d : 0; }

/* Is mask, in every run of w elements along dimension d that a vector
 * covers, true for a prefix of the run (and false after)? So it is when it
 * is an `and` of masks constant over such runs and of comparisons x < s,
 * x <= s (or s > x, s >= x) with x contiguous over the run (values one
 * apart, increasing) and s constant over it: matmul's `offs_k[None, :] <
 * K - k * BK` with any K (along d = 1; a B read down its columns has
 * `offs_k[:, None] < ...` along d = 0). Then a copy of the run's first n
 * elements, zero-filled after, is the masked load exactly, n being how
 * many of its mask bits are set. (x is taken not to wrap within a run:
 * offsets within 8 elements of 2^31.) */
static bool prefix_mask(const tk_tir_value *mask, uint32_t w, uint32_t d, int depth) {
    uint32_t dm = dim_or_0(mask, d);
    if (!mask->has_axis || depth > 16) return false;
    if (mask->constancy[dm] % w == 0) return true;
    const tk_tir_op *op = mask->def;
    if (!op) return false;
    if (op->code == TIR_BINARY && op->sub == TK_BINOP_AND)
        return prefix_mask(op->operands.data[0], w, d, depth + 1) && prefix_mask(op->operands.data[1], w, d, depth + 1);
    if (op->code == TIR_BROADCAST || op->code == TIR_RESHAPE || op->code == TIR_PERMUTE) {
        int in = operand_dim(op, dm);
        return in >= 0 && prefix_mask(op->operands.data[0], w, (uint32_t)in, depth + 1);
    }
    if (op->code != TIR_CMP) return false;
    const tk_tir_value *x = op->operands.data[0], *bound = op->operands.data[1];
    if (op->sub == TK_BINOP_GT || op->sub == TK_BINOP_GE) x = op->operands.data[1], bound = op->operands.data[0];
    else if (op->sub != TK_BINOP_LT && op->sub != TK_BINOP_LE) return false;
    if (tk_dtype_is_float(cg_elem_of(x->type)->dtype) || !x->has_axis || !bound->has_axis) return false;
    return x->contiguity[dim_or_0(x, d)] % w == 0 && bound->constancy[dim_or_0(bound, d)] % w == 0;
}

static LLVMValueRef umin(cg *c, LLVMValueRef a, LLVMValueRef b) {
    LLVMValueRef args[2] = {a, b};
    LLVMTypeRef t = LLVMTypeOf(a);
    char name[32];
    snprintf(name, sizeof name, "llvm.umin.i%u", LLVMGetIntTypeWidth(t));
    return cg_call(c, name, t, args, 2);
}

static bool is_instruction(LLVMValueRef v, LLVMOpcode code) {
    return LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == code;
}

/* How many elements of a run a prefix mask (prefix_mask above) keeps:
 * a few instructions instead of a select per element, so that what stays
 * live across a loop is one offset a run rather than one predicate an
 * element (ptxas spilled the general 256x128x64 matmul on sm_80 with the
 * selects). lv is the mask's register for the run's first element, reg its
 * index. Element-wise ops keep their operands' register indices, so an
 * `and` or a comparison reads its operands' registers at reg; a broadcast
 * within each thread maps reg to its operand's register. One that moves
 * values between threads leaves reg unknown (-1): below it, a comparison
 * is read back from the instruction lv is, and anything else but a
 * run-uniform value or a reshape gives NULL, as does an instruction that
 * is not the comparison: the caller then counts bit by bit. */
static LLVMValueRef prefix_count(cg *c, const tk_tir_value *mask, LLVMValueRef lv, int64_t reg, uint32_t w, uint32_t dim,
                                 int depth) {
    uint32_t dm = dim_or_0(mask, dim);
    LLVMValueRef all = cg_i32(c, w), none = cg_i32(c, 0);
    if (!mask->has_axis || depth > 16) return NULL;
    if (mask->constancy[dm] % w == 0) return LLVMBuildSelect(c->b, lv, all, none, "");
    const tk_tir_op *d = mask->def;
    if (!d) return NULL;
    if (d->code == TIR_BINARY && d->sub == TK_BINOP_AND) {
        if (reg < 0) return NULL;
        const tk_tir_value *x = d->operands.data[0], *y = d->operands.data[1];
        LLVMValueRef lx = cg_operand(c, d, 0, (uint32_t)reg), ly = cg_operand(c, d, 1, (uint32_t)reg);
        if (x->has_axis && x->constancy[dim_or_0(x, dim)] % w == 0) { /* all or nothing: the other's count or none */
            LLVMValueRef n = prefix_count(c, y, ly, reg, w, dim, depth + 1);
            return n ? LLVMBuildSelect(c->b, lx, n, none, "") : NULL;
        }
        LLVMValueRef nx = prefix_count(c, x, lx, reg, w, dim, depth + 1);
        LLVMValueRef ny = nx ? prefix_count(c, y, ly, reg, w, dim, depth + 1) : NULL;
        return ny ? umin(c, nx, ny) : NULL;
    }
    int in_dim = d->code == TIR_BROADCAST || d->code == TIR_RESHAPE || d->code == TIR_PERMUTE ? operand_dim(d, dm) : -1;
    if (in_dim >= 0) {
        const tk_tir_value *src = d->operands.data[0];
        /* a reshape or permute relabels its operand's layout: registers in place */
        int64_t src_reg = d->code == TIR_RESHAPE || d->code == TIR_PERMUTE ? reg : -1;
        if (d->code == TIR_BROADCAST && reg >= 0 && src->layout && mask->layout) {
            uint32_t *map = TK_NEW_ARRAY(c->arena, uint32_t, tk_ll_num_regs(mask->layout));
            if (tk_ll_register_map(src->layout, mask->layout, map)) src_reg = map[reg];
        }
        return prefix_count(c, src, lv, src_reg, w, (uint32_t)in_dim, depth + 1);
    }
    if (d->code != TIR_CMP) return NULL;
    /* x0 + i < b (or <=) for the run's elements i: lv is the first one's
     * test; then b - x0 (no overflow where that test holds) capped at w */
    bool swapped = d->sub == TK_BINOP_GT || d->sub == TK_BINOP_GE, inclusive = d->sub == TK_BINOP_LE || d->sub == TK_BINOP_GE;
    LLVMValueRef x0, b;
    if (reg >= 0) {
        x0 = cg_operand(c, d, swapped ? 1 : 0, (uint32_t)reg), b = cg_operand(c, d, swapped ? 0 : 1, (uint32_t)reg);
    } else {
        if (!is_instruction(lv, LLVMICmp)) return NULL;
        LLVMIntPredicate p = LLVMGetICmpPredicate(lv);
        bool match = d->sub == TK_BINOP_LT ? p == LLVMIntSLT || p == LLVMIntULT
                   : d->sub == TK_BINOP_LE ? p == LLVMIntSLE || p == LLVMIntULE
                   : d->sub == TK_BINOP_GT ? p == LLVMIntSGT || p == LLVMIntUGT
                   : d->sub == TK_BINOP_GE && (p == LLVMIntSGE || p == LLVMIntUGE);
        if (!match) return NULL;
        x0 = LLVMGetOperand(lv, swapped ? 1 : 0), b = LLVMGetOperand(lv, swapped ? 0 : 1);
    }
    LLVMTypeRef t = LLVMTypeOf(x0);
    if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMTypeOf(b) != t) return NULL;
    LLVMValueRef kept = umin(c, LLVMBuildSub(c->b, b, x0, ""), LLVMConstInt(t, inclusive ? w - 1 : w, 0));
    unsigned bits = LLVMGetIntTypeWidth(t);
    if (bits > 32) kept = LLVMBuildTrunc(c->b, kept, c->t_i32, "");
    if (bits < 32) kept = LLVMBuildZExt(c->b, kept, c->t_i32, "");
    if (inclusive) kept = LLVMBuildAdd(c->b, kept, cg_i32(c, 1), "");
    return LLVMBuildSelect(c->b, lv, kept, none, "");
}

static void emit_async_copy(cg *c, const tk_tir_op *op) {
    const tk_tir_value *view = op->operands.data[0], *ptr = op->operands.data[1];
    const tk_tir_value *mask = op->operands.len > 2 ? op->operands.data[2] : NULL;
    const tk_tir_value *other = op->operands.len > 3 ? op->operands.data[3] : NULL;
    unsigned bytes = elem_bytes(view->type);
    LLVMTypeRef et = cg_elem_type(c, view->type);
    const tk_ll *offsets = offsets_in(c, view->layout, ptr->layout);
    uint32_t d = cg_access_dim(ptr), w = cg_access_width(ptr, d, bytes), sv = tk_ll_smem_vector(offsets, bytes);
    if (sv < w) w = sv;
    bool async = w * bytes >= 4 && is_zero(other);
    /* masks alike across each vector: one test a vector */
    bool uniform = !mask || w == 1 || (mask->has_axis && mask->constancy[dim_or_0(mask, d)] % w == 0);
    bool prefix = !uniform && prefix_mask(mask, w, d, 0);
    LLVMValueRef base = cg_get(c, view)->r[0];
    const cgval *pv = cg_get(c, ptr);
    for (uint32_t r = 0; r < pv->n; r += w) {
        if (register_copy(ptr->layout, r)) continue;
        /* of the threads holding the same elements (a row over more
         * threads than it has vectors), one copies: the others would write
         * the same bytes at the same time */
        LLVMValueRef own = cg_owner(c, ptr->layout, r);
        bool everyone = LLVMIsAConstantInt(own) && LLVMConstIntGetZExtValue(own);
        LLVMValueRef dst = smem_at(c, base, LLVMBuildMul(c->b, cg_reg_flat(c, offsets, r), cg_i32(c, bytes), ""));
        if (!async) {
            copy_elements(c, op, own, dst, r, w, bytes, et);
            continue;
        }
        LLVMValueRef full = cg_i32(c, w * bytes), zero = cg_i32(c, 0);
        if (uniform && mask) {
            cp_async_unless(c, everyone ? NULL : own, LLVMBuildNot(c->b, cg_operand(c, op, 2, r), ""), dst, pv->r[r],
                            w * bytes);
            continue;
        }
        if (uniform) {
            if (everyone) cp_async(c, dst, pv->r[r], w * bytes, full);
            else cp_async_if(c, own, dst, pv->r[r], w * bytes, full);
            continue;
        }
        if (prefix) {
            /* the elements the mask keeps, a prefix: copy them, zero the
             * rest. Its length from the comparisons, else one past its last
             * set bit: a chain of selects. (Summing the bits, LLVM built
             * and.pred and selp trees that made ptxas spill the general
             * matmul variants: 128x256x64 on sm_86 16 bytes, 256x128x64 88;
             * sm_90 124.) */
            LLVMValueRef n = prefix_count(c, mask, cg_operand(c, op, 2, r), r, w, d, 0);
            if (n) n = LLVMBuildMul(c->b, n, cg_i32(c, bytes), "");
            else
                for (uint32_t i = 0; i < w; i++)
                    n = LLVMBuildSelect(c->b, cg_operand(c, op, 2, r + i), cg_i32(c, (int64_t)(i + 1) * bytes),
                                        n ? n : cg_i32(c, 0), "");
            if (everyone) cp_async(c, dst, pv->r[r], w * bytes, n);
            else cp_async_if(c, own, dst, pv->r[r], w * bytes, n);
            continue;
        }
        LLVMValueRef all = cg_operand(c, op, 2, r), any = all;
        for (uint32_t i = 1; i < w; i++) {
            all = LLVMBuildAnd(c->b, all, cg_operand(c, op, 2, r + i), "");
            any = LLVMBuildOr(c->b, any, cg_operand(c, op, 2, r + i), "");
        }
        LLVMValueRef mixed = LLVMBuildAnd(c->b, any, LLVMBuildNot(c->b, all, ""), "");
        copy_elements(c, op, LLVMBuildAnd(c->b, mixed, own, ""), dst, r, w, bytes, et);
        cp_async_if(c, LLVMBuildAnd(c->b, LLVMBuildNot(c->b, mixed, ""), own, ""), dst, pv->r[r], w * bytes,
                    LLVMBuildSelect(c->b, all, full, zero, ""));
    }
}

static void emit_wait(cg *c, const tk_tir_op *op) {
    LLVMValueRef pending = cg_i32(c, tk_tir_attr_int(op, "pending", 0));
    cg_call(c, "llvm.nvvm.cp.async.wait.group", c->t_void, &pending, 1);
    if (tk_tir_attr_int(op, "proxy_fence", 0))
        cg_asm_call(c, c->t_void, "fence.proxy.async.shared::cta;", "", NULL, 0, true);
    cg_barrier(c);
}

/* Each group of 8 registers of layout l by one ldmatrix.x4 (.trans) from
 * shared memory at base laid out as `shared` (tk_ll_ldmatrix): lane 8j + r
 * names row r of matrix j; register 2j + i of the group gets half i of
 * the matrix's word j. False, and nothing emitted, where ldmatrix cannot
 * read l from there. */
bool cg_load_by_ldmatrix(cg *c, LLVMValueRef base, const tk_ll *shared, const tk_ll *l, LLVMTypeRef et, cgval *out) {
    bool trans;
    tk_ll addr;
    if (!tk_ll_ldmatrix(shared, l, &trans, &addr)) return false;
    tk_ll *a = TK_NEW(c->arena, tk_ll);
    *a = addr;
    const tk_ll *offsets = offsets_in(c, shared, a);
    LLVMTypeRef words[4] = {c->t_i32, c->t_i32, c->t_i32, c->t_i32};
    LLVMTypeRef rt = LLVMStructTypeInContext(c->ctx, words, 4, 0);
    const char *name = trans ? "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3"
                             : "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3";
    for (uint32_t g = 0; g < out->n / 8; g++) {
        LLVMValueRef at = smem_at(c, base, LLVMBuildMul(c->b, cg_reg_flat(c, offsets, g), cg_i32(c, 2), ""));
        LLVMValueRef m = cg_call(c, name, rt, &at, 1);
        for (uint32_t j = 0; j < 4; j++) {
            LLVMValueRef pair = LLVMBuildBitCast(c->b, LLVMBuildExtractValue(c->b, m, j, ""), LLVMVectorType(et, 2), "");
            for (uint32_t i = 0; i < 2; i++) out->r[8 * g + 2 * j + i] = LLVMBuildExtractElement(c->b, pair, cg_i32(c, i), "");
        }
    }
    return true;
}

/* Registers of tile `regs` against a view: where each one lies and how
 * many consecutive registers one access of both layouts takes. */
typedef struct view_access {
    unsigned bytes;
    LLVMTypeRef elem, vector;   /* vector: NULL where one register a time */
    const tk_ll *offsets;
    uint32_t vec, n;
    LLVMValueRef base;
} view_access;

static view_access view_access_of(cg *c, const tk_tir_value *view, const tk_tir_value *regs) {
    view_access a = {elem_bytes(regs->type), cg_elem_type(c, regs->type), NULL, NULL, 0, cg_nregs(regs), NULL};
    a.offsets = offsets_in(c, view->layout, regs->layout);
    a.vec = tk_ll_smem_vector(a.offsets, a.bytes);
    a.vector = a.vec > 1 ? LLVMVectorType(a.elem, a.vec) : NULL;
    a.base = cg_get(c, view)->r[0];
    return a;
}

/* the address of register r (and the a.vec after it) */
static LLVMValueRef view_address(cg *c, const view_access *a, uint32_t r) {
    return smem_at(c, a->base, LLVMBuildMul(c->b, cg_reg_flat(c, a->offsets, r), cg_i32(c, a->bytes), ""));
}

static void emit_local_load(cg *c, const tk_tir_op *op) {
    const tk_tir_value *view = op->operands.data[0], *res = op->results.data[0];
    view_access a = view_access_of(c, view, res);
    cgval out = cg_newval(c, a.n);
    if (a.bytes == 2 && cg_load_by_ldmatrix(c, a.base, view->layout, res->layout, a.elem, &out)) {
        *cg_get(c, res) = out;
        return;
    }
    for (uint32_t r = 0; r < a.n; r += a.vec) {
        LLVMValueRef v = LLVMBuildLoad2(c->b, a.vector ? a.vector : a.elem, view_address(c, &a, r), "");
        LLVMSetAlignment(v, a.vec * a.bytes);
        for (uint32_t i = 0; i < a.vec; i++) out.r[r + i] = a.vector ? LLVMBuildExtractElement(c->b, v, cg_i32(c, i), "") : v;
    }
    *cg_get(c, res) = out;
}

/* local_store: each register where the view's layout puts it, as wide as
 * both layouts allow (a register a copy of a lower one is stored by that
 * one's thread only); then a fence where lower/proxy_fences.c marked it,
 * as a wgmma or TMA store reading it reads through the async proxy (the
 * barrier after it is an op of its own) */
static void emit_local_store(cg *c, const tk_tir_op *op) {
    const tk_tir_value *val = op->operands.data[1];
    view_access a = view_access_of(c, op->operands.data[0], val);
    for (uint32_t r = 0; r < a.n; r += a.vec) {
        if (register_copy(val->layout, r)) continue;
        LLVMValueRef v = a.vector ? LLVMGetUndef(a.vector) : cg_operand(c, op, 1, r);
        for (uint32_t i = 0; a.vector && i < a.vec; i++)
            v = LLVMBuildInsertElement(c->b, v, cg_operand(c, op, 1, r + i), cg_i32(c, i), "");
        LLVMSetAlignment(LLVMBuildStore(c->b, v, view_address(c, &a, r)), a.vec * a.bytes);
    }
    if (tk_tir_attr_int(op, "proxy_fence", 0))
        cg_asm_call(c, c->t_void, "fence.proxy.async.shared::cta;", "", NULL, 0, true);
}

void cg_emit_async(cg *c, const tk_tir_op *op) {
    switch (op->code) {
    case TIR_LOCAL_VIEW: emit_view(c, op); return;
    case TIR_ASYNC_COPY: emit_async_copy(c, op); return;
    case TIR_ASYNC_COMMIT: cg_call(c, "llvm.nvvm.cp.async.commit.group", c->t_void, NULL, 0); return;
    case TIR_ASYNC_WAIT: emit_wait(c, op); return;
    case TIR_LOCAL_LOAD: emit_local_load(c, op); return;
    case TIR_LOCAL_STORE: emit_local_store(c, op); return;
    default: cg_not_yet(c, op, tk_tir_opcode_name(op->code)); return;
    }
}
