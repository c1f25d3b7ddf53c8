/* Atomics (tl.atomic_add, max, min, and, or, xor, xchg, cas): one atomicrmw
 * or cmpxchg per element, with the op's memory order (sem) and scope, by
 * the one holder that owns the element (cg_owner: the layout's copy bits
 * all 0; a scalar's: the program's first thread), under the mask. Needs
 * the pointers, values, mask and result in one layout (lower/layouts.c),
 * so that register r of each is the same element. LLVM's NVPTX back end writes every atomicrmw as
 * a relaxed gpu-scope atom (it keeps the order and scope of cmpxchg only),
 * so a read-modify-write is relaxed between fences of the op's scope: a
 * release fence before it, an acquire fence after, as the PTX memory
 * model builds release and acquire patterns. A scope="sys" one is inline
 * PTX (atom.relaxed.sys) for the 32- and 64-bit types PTX has; the others
 * are not supported yet there. The old values reach the copies that did not
 * act through the op's scratch, which lower/smem.c gives where the result
 * is used and replicated. Bitwise atomics on floats are reported as not
 * supported yet. */
#include "internal.h"

#include <string.h>

static LLVMAtomicOrdering ordering_of(const tk_tir_op *op) {
    const char *sem = tk_tir_attr_text(op, "sem");
    if (!sem || !strcmp(sem, "acq_rel")) return LLVMAtomicOrderingAcquireRelease;
    if (!strcmp(sem, "acquire")) return LLVMAtomicOrderingAcquire;
    if (!strcmp(sem, "release")) return LLVMAtomicOrderingRelease;
    return LLVMAtomicOrderingMonotonic;
}

static bool is_release(LLVMAtomicOrdering o) {
    return o == LLVMAtomicOrderingRelease || o == LLVMAtomicOrderingAcquireRelease;
}

static bool is_acquire(LLVMAtomicOrdering o) {
    return o == LLVMAtomicOrderingAcquire || o == LLVMAtomicOrderingAcquireRelease;
}

static unsigned scope_of(cg *c, const tk_tir_op *op) {
    const char *scope = tk_tir_attr_text(op, "scope");
    const char *name = !scope || !strcmp(scope, "gpu") ? "device" : !strcmp(scope, "cta") ? "block" : "";
    return LLVMGetSyncScopeID(c->ctx, name, strlen(name));
}

/* The relaxed system-scope PTX of read-modify-write `id` on dtype d, and
 * its constraints (result, address, operand); false where PTX has none. */
static bool system_rmw(int id, tk_dtype d, char *ptx, char *constraints) {
    unsigned bits = tk_dtype_bits(d);
    bool flt = tk_dtype_is_float(d), sgn = tk_dtype_is_signed(d);
    if (bits != 32 && bits != 64) return false;
    const char *op, *type;
    switch (id) {
    case TK_B_ATOMIC_ADD: op = "add"; type = flt ? (bits == 32 ? "f32" : "f64") : (bits == 32 ? "u32" : "u64"); break;
    case TK_B_ATOMIC_MAX: case TK_B_ATOMIC_MIN:
        if (flt) return false;
        op = id == TK_B_ATOMIC_MAX ? "max" : "min";
        type = sgn ? (bits == 32 ? "s32" : "s64") : (bits == 32 ? "u32" : "u64");
        break;
    case TK_B_ATOMIC_AND: op = "and"; type = bits == 32 ? "b32" : "b64"; break;
    case TK_B_ATOMIC_OR: op = "or"; type = bits == 32 ? "b32" : "b64"; break;
    case TK_B_ATOMIC_XOR: op = "xor"; type = bits == 32 ? "b32" : "b64"; break;
    case TK_B_ATOMIC_XCHG: op = "exch"; type = bits == 32 ? "b32" : "b64"; break;
    default: return false;
    }
    const char *reg = flt ? (bits == 32 ? "f" : "d") : (bits == 32 ? "r" : "l");
    snprintf(ptx, 96, "atom.relaxed.sys.global.%s.%s $0, [$1], $2;", op, type);
    snprintf(constraints, 16, "=%s,l,%s", reg, reg);
    return true;
}

/* The 16-bit compare-and-swap PTX has (sm_70 on): atom.SEM.SCOPE.global.cas.b16. */
static LLVMValueRef cas16(cg *c, LLVMValueRef ptr, LLVMValueRef cmp, LLVMValueRef val, LLVMAtomicOrdering order,
                          const char *scope_name) {
    const char *sem = order == LLVMAtomicOrderingAcquireRelease ? "acq_rel" : order == LLVMAtomicOrderingAcquire ? "acquire"
                    : order == LLVMAtomicOrderingRelease ? "release" : "relaxed";
    const char *scope = !scope_name || !strcmp(scope_name, "gpu") ? "gpu" : scope_name;
    char text[80];
    snprintf(text, sizeof text, "atom.%s.%s.global.cas.b16 $0, [$1], $2, $3;", sem, scope);
    LLVMValueRef args[3] = {ptr, LLVMBuildBitCast(c->b, cmp, c->t_i16, ""), LLVMBuildBitCast(c->b, val, c->t_i16, "")};
    return cg_asm_call(c, c->t_i16, text, "=h,l,h,h,~{memory}", args, 3, true);
}

/* A read-modify-write of a 16-bit element (f16/bf16 xchg, and bf16 add
 * before sm_90) as a loop of 32-bit compare-and-swaps on the word holding
 * it, as LLVM's expansion does, but with the word's address the pointer
 * minus its low two bits: ptxas (CUDA 13.0, sm_90a) loses the high half
 * of the 64-bit `and` of LLVM's expansion when the pointer sits in uniform
 * registers, and the loop reads a truncated address. Returns the old value. */
static LLVMValueRef subword_rmw(cg *c, LLVMAtomicRMWBinOp rmw, LLVMValueRef ptr, LLVMValueRef val, unsigned scope) {
    LLVMTypeRef et = LLVMTypeOf(val);
    /* inline PTX, so that LLVM does not fold the subtraction back into an `and` */
    LLVMValueRef addr = LLVMBuildPtrToInt(c->b, ptr, c->t_i64, "");
    LLVMValueRef low = cg_asm_call(c, c->t_i64, "and.b64 $0, $1, 3;", "=l,l", &addr, 1, false);
    LLVMValueRef back = LLVMBuildNeg(c->b, low, "");
    LLVMValueRef word = LLVMBuildGEP2(c->b, c->t_i8, ptr, &back, 1, "");
    LLVMValueRef shift = LLVMBuildShl(c->b, LLVMBuildTrunc(c->b, low, c->t_i32, ""), cg_i32(c, 3), "");
    LLVMValueRef keep = LLVMBuildNot(c->b, LLVMBuildShl(c->b, cg_i32(c, 0xffff), shift, ""), "");
    LLVMValueRef first = LLVMBuildLoad2(c->b, c->t_i32, word, "");
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "atomic.word");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "atomic.word.end");
    LLVMBuildBr(c->b, loop);
    LLVMPositionBuilderAtEnd(c->b, loop);
    LLVMValueRef cur = LLVMBuildPhi(c->b, c->t_i32, "");
    LLVMValueRef old = LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, cur, shift, ""), c->t_i16, ""), et, "");
    LLVMValueRef new = rmw == LLVMAtomicRMWBinOpFAdd ? LLVMBuildFAdd(c->b, old, val, "") : val;
    LLVMValueRef place = LLVMBuildShl(c->b, LLVMBuildZExt(c->b, LLVMBuildBitCast(c->b, new, c->t_i16, ""), c->t_i32, ""), shift, "");
    LLVMValueRef desired = LLVMBuildOr(c->b, LLVMBuildAnd(c->b, cur, keep, ""), place, "");
    LLVMValueRef pair = LLVMBuildAtomicCmpXchgSyncScope(c->b, word, cur, desired, LLVMAtomicOrderingMonotonic,
                                                        LLVMAtomicOrderingMonotonic, scope);
    LLVMValueRef got = LLVMBuildExtractValue(c->b, pair, 0, "");
    LLVMAddIncoming(cur, &first, &entry, 1);
    LLVMAddIncoming(cur, &got, &loop, 1);
    LLVMBuildCondBr(c->b, LLVMBuildExtractValue(c->b, pair, 1, ""), done, loop);
    LLVMPositionBuilderAtEnd(c->b, done);
    return old;
}

void cg_emit_atomic(cg *c, const tk_tir_op *op) {
    int id = op->sub;
    bool cas = id == TK_B_ATOMIC_CAS;
    const tk_tir_value *ptr = op->operands.data[0], *res = op->results.data[0];
    const tk_type *t = res->type;
    bool f = cg_is_float(t), s = cg_is_signed(t);
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
        cg_not_yet(c, op, "a bitwise atomic on floating-point values");
        return;
    }
    LLVMAtomicOrdering order = ordering_of(op);
    unsigned scope = scope_of(c, op);
    const char *scope_name = tk_tir_attr_text(op, "scope");
    bool system = !cas && scope_name && !strcmp(scope_name, "sys");
    char sys_ptx[96], sys_constraints[16];
    if (system && !system_rmw(id, cg_elem_of(t)->dtype, sys_ptx, sys_constraints)) {
        cg_not_yet(c, op, tk_arena_printf(c->arena, "tl.%s on %s with scope=\"sys\"", tk_sema_builtin_name(id),
                                          tk_dtype_name(cg_elem_of(t)->dtype)));
        return;
    }
    /* 16-bit read-modify-writes (sema allows f16/bf16 add and xchg) are loops of 32-bit
       compare-and-swaps, but for the f16 (and on sm_90, bf16) additions PTX has */
    unsigned elem_bits = tk_dtype_bits(cg_elem_of(t)->dtype);
    bool native_add = rmw == LLVMAtomicRMWBinOpFAdd && (cg_elem_of(t)->dtype == TK_F16 || c->target->has_bf16_atomic_add);
    bool subword = !cas && elem_bits < 32 && !native_add;
    uint32_t n = cg_nregs(res);
    cgval out = cg_newval(c, n);
    const tk_tir_value *mask = !cas && op->operands.len > 2 ? op->operands.data[2] : NULL;
    /* a scalar atomic happens once per program, by its first thread */
    bool scalar = ptr->type->kind != TK_TYPE_TILE;
    LLVMValueRef first_thread =
        scalar ? cg_is_first_thread(c) : NULL;
    /* the old values go to the copies that did not act through scratch
     * (smem.c gives it where the result is used and replicated) */
    LLVMTypeRef rt = cg_elem_type(c, res->type);
    unsigned slot = cg_scratch_slot(c);
    /* one fence each side of the tile's atomics (cmpxchg orders itself) */
    bool fenced = !cas && order != LLVMAtomicOrderingMonotonic;
    if (fenced && is_release(order)) LLVMBuildFenceSyncScope(c->b, LLVMAtomicOrderingRelease, scope, "");
    for (uint32_t r = 0; r < n; r++) {
        LLVMValueRef pred = scalar ? first_thread : cg_owner(c, ptr->layout, r);
        if (mask) pred = LLVMBuildAnd(c->b, pred, cg_operand(c, op, 2, r), "");
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
            LLVMValueRef cmp = cg_operand(c, op, 1, r), val = cg_operand(c, op, 2, r);
            LLVMTypeRef bits = f ? LLVMIntTypeInContext(c->ctx, tk_dtype_bits(cg_elem_of(t)->dtype)) : rt;
            if (f) {
                cmp = LLVMBuildBitCast(c->b, cmp, bits, "");
                val = LLVMBuildBitCast(c->b, val, bits, "");
            }
            if (LLVMGetIntTypeWidth(bits) == 16) {
                old = cas16(c, cg_operand(c, op, 0, r), cmp, val, order, scope_name);
            } else {
                LLVMValueRef pair = LLVMBuildAtomicCmpXchgSyncScope(c->b, cg_operand(c, op, 0, r), cmp, val, order, fail, scope);
                old = LLVMBuildExtractValue(c->b, pair, 0, "");
            }
            if (f) old = LLVMBuildBitCast(c->b, old, rt, "");
        } else {
            if (subword) {
                old = subword_rmw(c, rmw, cg_operand(c, op, 0, r), cg_operand(c, op, 1, r), scope);
            } else if (system) {
                LLVMValueRef args[2] = {cg_operand(c, op, 0, r), cg_operand(c, op, 1, r)};
                old = cg_asm_call(c, rt, sys_ptx, sys_constraints, args, 2, true);
            } else {
                old = LLVMBuildAtomicRMWSyncScope(c->b, rmw, cg_operand(c, op, 0, r), cg_operand(c, op, 1, r),
                                                  LLVMAtomicOrderingMonotonic, scope);
            }
        }
        if (op->scratch_bytes) {
            LLVMValueRef flat = scalar ? cg_i32(c, 0) : cg_reg_flat(c, res->layout, r);
            LLVMBuildStore(c->b, cg_to_scratch(c, old), cg_smem_addr(c, LLVMBuildMul(c->b, flat, cg_i32(c, slot), "")));
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
    if (fenced && is_acquire(order)) LLVMBuildFenceSyncScope(c->b, LLVMAtomicOrderingAcquire, scope, "");
    /* The owners' atomics diverge from the rest of the warp, and a 16-bit
     * xchg is a loop of 32-bit compare-and-swaps whose lanes leave at
     * different trips (subword_rmw; a 16-bit cas was one before it used atom.cas.b16). Warp shuffles after such a
     * loop read wrong partners' values on the H100 and H200 (a reverse
     * cumsum after an f16 atomic_cas, test/gpu/ops/atomic_cases.py) unless
     * the warp is made whole again here. */
    cg_warp_sync(c);
    if (op->scratch_bytes) {
        cg_barrier(c);
        out = cg_scratch_read(c, res->type, scalar ? NULL : res->layout, 1, 0, slot);
    }
    *cg_get(c, res) = out;
}
