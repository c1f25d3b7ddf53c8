/* tl.dot (lower/dot.c chose how). impl "mma_sync": the operands already
 * in mma.sync's operand layouts and the accumulator in its layout
 * (lower/layout_mma.c), one instruction (inline PTX: m16n8k16 for 16-bit
 * operands, m16n8k8 tf32, m16n8k32 s8 and e4m3/e5m2 (PTX ISA 8.4:
 * target.c raises .version for it)) per tile of the result a thread's
 * warp holds and step along K; a register index is its bits, per step
 * 4 k_width of A, 2 k_width of B (k_width = 32 / element bits), then the
 * K steps, then the M (N) tiles; C [n1, m8, N tiles, M tiles]; a batched
 * dot's batch elements after those.
 * impl "fma": both operands, already in the compute type (f32 or f64),
 * go to the op's scratch as their row-major [batch, M, K] and [batch, K,
 * N]; after a barrier each thread runs a loop over K that multiplies and
 * adds into the registers it holds of the result (from the accumulator
 * operand, or zero). Both run on every target.
 * Needs: the scratch of lower/scratch.c (scratch_dot), the result and the
 * accumulator in one layout (lower/layouts.c). */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned log2u(int64_t v) {
    unsigned l = 0;
    while (((int64_t)1 << l) < v) l++;
    return l;
}

/* every register of v to its row-major slot: slot (base + flat index) */
static void write_operand(cg *c, const tk_tir_value *v, int64_t base, unsigned word) {
    const cgval *vv = cg_get(c, v);
    for (uint32_t r = 0; r < vv->n; r++) {
        LLVMValueRef slot = LLVMBuildAdd(c->b, cg_reg_flat(c, v->layout, r), cg_i32(c, base), "");
        LLVMBuildStore(c->b, vv->r[r], cg_smem_addr(c, LLVMBuildMul(c->b, slot, cg_i32(c, word), "")));
    }
}

static LLVMValueRef read_slot(cg *c, LLVMTypeRef t, LLVMValueRef slot, unsigned word) {
    return LLVMBuildLoad2(c->b, t, cg_smem_addr(c, LLVMBuildMul(c->b, slot, cg_i32(c, word), "")), "");
}

static void emit_fma(cg *c, const tk_tir_op *op) {
    const tk_tir_value *a = op->operands.data[0], *b = op->operands.data[1], *res = op->results.data[0];
    const tk_type *t = res->type;
    uint32_t rank = t->rank;
    int64_t batch = rank == 3 ? t->shape[0] : 1, m = t->shape[rank - 2], n = t->shape[rank - 1];
    int64_t k = a->type->shape[rank - 1];
    unsigned word = cg_scratch_slot(c), log_m = log2u(m), log_n = log2u(n);
    bool flt = cg_is_float(t);
    LLVMTypeRef et = cg_elem_type(c, t);
    int64_t b_base = batch * m * k;
    write_operand(c, a, 0, word);
    write_operand(c, b, b_base, word);
    cg_barrier(c);

    /* Register r's element is the thread's (register 0's) XOR a constant
     * (tk_ll_reg_index), so its batch, row and column are the thread's
     * XOR constants: the registers that share a row of a (a column of b)
     * share its loads. Each distinct row is one slot a_row + kk, each
     * column b_col + kk * n. */
    uint32_t regs = cg_nregs(res);
    LLVMValueRef flat0 = cg_reg_flat(c, res->layout, 0);
    LLVMValueRef b0 = LLVMBuildLShr(c->b, flat0, cg_i32(c, log_m + log_n), "");
    LLVMValueRef m0 = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, flat0, cg_i32(c, log_n), ""), cg_i32(c, m - 1), "");
    LLVMValueRef n0 = LLVMBuildAnd(c->b, flat0, cg_i32(c, n - 1), "");
    uint64_t *row_key = TK_NEW_ARRAY(c->arena, uint64_t, regs), *col_key = TK_NEW_ARRAY(c->arena, uint64_t, regs);
    uint32_t *row_of = TK_NEW_ARRAY(c->arena, uint32_t, regs), *col_of = TK_NEW_ARRAY(c->arena, uint32_t, regs);
    LLVMValueRef *a_row = TK_NEW_ARRAY(c->arena, LLVMValueRef, regs);
    LLVMValueRef *b_col = TK_NEW_ARRAY(c->arena, LLVMValueRef, regs);
    uint32_t rows = 0, cols = 0;
    for (uint32_t r = 0; r < regs; r++) {
        uint64_t R = tk_ll_reg_index(res->layout, r);
        uint64_t bR = R >> (log_m + log_n), mR = (R >> log_n) & (uint64_t)(m - 1), nR = R & (uint64_t)(n - 1);
        uint64_t rk = bR << 32 | mR, ck = bR << 32 | nR;
        uint32_t i = 0, j = 0;
        while (i < rows && row_key[i] != rk) i++;
        while (j < cols && col_key[j] != ck) j++;
        LLVMValueRef bi = LLVMBuildXor(c->b, b0, cg_i32(c, (int64_t)bR), "");
        if (i == rows) {
            row_key[rows++] = rk;
            LLVMValueRef mi = LLVMBuildXor(c->b, m0, cg_i32(c, (int64_t)mR), "");
            a_row[i] = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, bi, cg_i32(c, m * k), ""),
                                    LLVMBuildMul(c->b, mi, cg_i32(c, k), ""), "");
        }
        if (j == cols) {
            col_key[cols++] = ck;
            LLVMValueRef ni = LLVMBuildXor(c->b, n0, cg_i32(c, (int64_t)nR), "");
            b_col[j] = LLVMBuildAdd(c->b, LLVMBuildAdd(c->b, LLVMBuildMul(c->b, bi, cg_i32(c, k * n), ""), ni, ""),
                                    cg_i32(c, b_base), "");
        }
        row_of[r] = i;
        col_of[r] = j;
    }
    LLVMValueRef *acc0 = TK_NEW_ARRAY(c->arena, LLVMValueRef, regs);
    const cgval *accv = op->operands.len > 2 ? cg_get(c, op->operands.data[2]) : NULL;
    for (uint32_t r = 0; r < regs; r++) acc0[r] = accv ? accv->r[accv->n == 1 ? 0 : r] : LLVMConstNull(et);

    /* for kk in [0, K): acc[r] += a[row r, kk] * b[kk, col r] */
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "dot.k");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "dot.done");
    LLVMBuildBr(c->b, body);
    LLVMPositionBuilderAtEnd(c->b, body);
    LLVMValueRef kk = LLVMBuildPhi(c->b, c->t_i32, "");
    LLVMValueRef *acc = TK_NEW_ARRAY(c->arena, LLVMValueRef, regs);
    LLVMValueRef *next = TK_NEW_ARRAY(c->arena, LLVMValueRef, regs);
    for (uint32_t r = 0; r < regs; r++) acc[r] = LLVMBuildPhi(c->b, et, "");
    LLVMValueRef kn = LLVMBuildMul(c->b, kk, cg_i32(c, n), "");
    LLVMValueRef *xa = TK_NEW_ARRAY(c->arena, LLVMValueRef, rows), *xb = TK_NEW_ARRAY(c->arena, LLVMValueRef, cols);
    for (uint32_t i = 0; i < rows; i++) xa[i] = read_slot(c, et, LLVMBuildAdd(c->b, a_row[i], kk, ""), word);
    for (uint32_t j = 0; j < cols; j++) xb[j] = read_slot(c, et, LLVMBuildAdd(c->b, b_col[j], kn, ""), word);
    for (uint32_t r = 0; r < regs; r++) {
        LLVMValueRef x = xa[row_of[r]], y = xb[col_of[r]];
        if (flt) {
            LLVMValueRef args[3] = {x, y, acc[r]};
            next[r] = cg_call(c, et == c->t_f64 ? "llvm.fma.f64" : "llvm.fma.f32", et, args, 3);
        } else {
            next[r] = LLVMBuildAdd(c->b, acc[r], LLVMBuildMul(c->b, x, y, ""), "");
        }
    }
    LLVMValueRef k1 = LLVMBuildAdd(c->b, kk, cg_i32(c, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, k1, cg_i32(c, k), ""), body, done);
    LLVMValueRef zero = cg_i32(c, 0);
    LLVMAddIncoming(kk, &zero, &pre, 1);
    LLVMAddIncoming(kk, &k1, &latch, 1);
    for (uint32_t r = 0; r < regs; r++) {
        LLVMAddIncoming(acc[r], &acc0[r], &pre, 1);
        LLVMAddIncoming(acc[r], &next[r], &latch, 1);
    }
    LLVMPositionBuilderAtEnd(c->b, done);
    cgval out = cg_newval(c, regs);
    memcpy(out.r, next, sizeof(LLVMValueRef) * regs);
    *cg_get(c, res) = out;
}

/* k_width registers of 32 / k_width bits as the b32 mma.sync takes; f32
 * (k_width 1) rounded to tf32 first, as Triton does */
static LLVMValueRef pack(cg *c, const LLVMValueRef *x, uint32_t k_width) {
    if (k_width == 1) {
        LLVMValueRef v = x[0];
        return cg_asm_call(c, c->t_i32, "cvt.rna.tf32.f32 $0, $1;", "=r,f", &v, 1, false);
    }
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(x[0]), k_width);
    LLVMValueRef v = LLVMGetPoison(vt);
    for (uint32_t i = 0; i < k_width; i++) v = LLVMBuildInsertElement(c->b, v, x[i], cg_i32(c, i), "");
    return LLVMBuildBitCast(c->b, v, c->t_i32, "");
}

/* ---- operands read from shared memory where the dot uses them --------- */

static bool is_ldmatrix(LLVMValueRef v) {
    if (!LLVMIsACallInst(v)) return false;
    LLVMValueRef f = LLVMGetCalledValue(v);
    size_t len;
    const char *name = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
    return !strncmp(name, "llvm.nvvm.ldmatrix", 18);
}

/* a read of shared memory: an ldmatrix, or a load (ld.shared) */
static bool is_shared_read(LLVMValueRef v) {
    if (is_ldmatrix(v)) return true;
    return LLVMIsALoadInst(v) && LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(v, 0))) == 3;
}

/* may inst write memory? (stores, atomics, calls other than ldmatrix and
 * inline PTX without side effects) */
static bool may_write(LLVMValueRef inst) {
    switch (LLVMGetInstructionOpcode(inst)) {
    case LLVMStore: case LLVMAtomicRMW: case LLVMAtomicCmpXchg: case LLVMFence: return true;
    case LLVMCall: {
        LLVMValueRef f = LLVMGetCalledValue(inst);
        if (LLVMIsAInlineAsm(f)) return LLVMGetInlineAsmHasSideEffects(f);
        return !is_ldmatrix(inst);
    }
    default: return false;
    }
}

enum { SINK_MAX = 32 };

static bool in_set(LLVMValueRef *set, uint32_t n, LLVMValueRef v) {
    for (uint32_t i = 0; i < n; i++)
        if (set[i] == v) return true;
    return false;
}

/* the shared-memory reads a dot has moved; `before`: the last
 * instruction before the dot's own (NULL: the block's end), up to which
 * nothing may write memory; `loads`: plain ld.shared reads move too, not
 * only ldmatrix (wgmma's steps) */
typedef struct sink_set {
    LLVMValueRef *moved;
    uint32_t n, cap;
    LLVMValueRef before;
    bool loads;
} sink_set;

/* the shared-memory read in this block that register value reg is
 * taken from (through extracts and bitcasts), or NULL */
static LLVMValueRef shared_read_root(cg *c, const sink_set *sunk, LLVMValueRef reg) {
    LLVMValueRef v = reg;
    while (LLVMIsAInstruction(v) && !(sunk->loads ? is_shared_read(v) : is_ldmatrix(v))) {
        LLVMOpcode code = LLVMGetInstructionOpcode(v);
        if (code != LLVMExtractElement && code != LLVMBitCast && code != LLVMExtractValue) return NULL;
        v = LLVMGetOperand(v, 0);
    }
    if (!LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != LLVMGetInsertBlock(c->b)) return NULL;
    return v;
}

/* Moves the shared-memory read that register value reg comes from (with
 * the extracts that split its result) to the builder's position, once
 * per dot: at the K step that reads it, so that what is live is a step's
 * fragments rather than the whole tile's, or (wgmma) the step's wgmma
 * starts before the next step's words are read. Only within one block,
 * when nothing has used the fragments yet and nothing between the read
 * and the dot may write memory; otherwise the read stays where
 * local_load put it. False where it stays. */
static bool sink_shared_read(cg *c, sink_set *sunk, LLVMValueRef reg) {
    LLVMValueRef v = shared_read_root(c, sunk, reg);
    if (!v) return false;
    if (in_set(sunk->moved, sunk->n, v)) return true;
    if (sunk->n == sunk->cap) return false;
    sunk->moved[sunk->n++] = v;
    LLVMValueRef set[SINK_MAX];
    uint32_t n = 0;
    set[n++] = v;
    for (uint32_t i = 0; i < n; i++)
        for (LLVMUseRef u = LLVMGetFirstUse(set[i]); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            LLVMOpcode code = LLVMIsAInstruction(user) ? LLVMGetInstructionOpcode(user) : LLVMRet;
            if (code != LLVMExtractElement && code != LLVMBitCast && code != LLVMExtractValue) return false;
            if (LLVMGetInstructionParent(user) != LLVMGetInsertBlock(c->b)) return false;
            if (!in_set(set, n, user)) {
                if (n == SINK_MAX) return false;
                set[n++] = user;
            }
        }
    for (LLVMValueRef i = LLVMGetNextInstruction(v); i; i = LLVMGetNextInstruction(i)) {
        if (!in_set(set, n, i) && may_write(i)) return false;
        if (i == sunk->before) break;
    }
    LLVMValueRef order[SINK_MAX];
    uint32_t m = 0;
    for (LLVMValueRef i = v; i && m < n; i = LLVMGetNextInstruction(i))
        if (in_set(set, n, i)) order[m++] = i;
    if (m != n) return false;
    for (uint32_t i = 0; i < m; i++) {
        LLVMInstructionRemoveFromParent(order[i]);
        LLVMInsertIntoBuilder(c->b, order[i]);
    }
    return true;
}

/* wgmma's A word w of register value av, k_width registers packed as
 * mma.sync takes them (their shared-memory reads moved here first where
 * sunk is given), through a volatile mov so that nothing computing it
 * lands between the fence and the wgmma reading it */
static LLVMValueRef a_word(cg *c, const cgval *av, uint32_t w, uint32_t k_width, sink_set *sunk) {
    for (uint32_t i = 0; sunk && i < k_width; i++) sink_shared_read(c, sunk, av->r[w * k_width + i]);
    LLVMValueRef word = pack(c, &av->r[w * k_width], k_width);
    return cg_asm_call(c, c->t_i32, "mov.b32 $0, $1;", "=r,r", &word, 1, true);
}

static void emit_mma_sync(cg *c, const tk_tir_op *op) {
    const tk_tir_value *a = op->operands.data[0], *b = op->operands.data[1], *res = op->results.data[0];
    const cgval *av = cg_get(c, a), *bv = cg_get(c, b);
    const cgval *accv = op->operands.len > 2 ? cg_get(c, op->operands.data[2]) : NULL;
    tk_dtype in = cg_elem_of(a->type)->dtype;
    uint32_t k_width = 32 / tk_dtype_bits(in), k_step = 8 * k_width;
    uint32_t rank = res->type->rank;
    int64_t m = res->type->shape[rank - 2], n = res->type->shape[rank - 1], k = a->type->shape[rank - 1];
    int64_t wm = tk_tir_attr_int(op, "warps_m", 1), wn = tk_tir_attr_int(op, "warps_n", 1);
    uint32_t mt = (uint32_t)(m / (16 * wm) > 1 ? m / (16 * wm) : 1), nt = (uint32_t)(n / (8 * wn) > 1 ? n / (8 * wn) : 1);
    uint32_t kt = (uint32_t)(k / k_step), a_per = 4 * k_width, b_per = 2 * k_width;
    /* batched: the batch elements a thread holds come last among its
     * registers (tk_ll_mma_batched), each a whole [M, N] product */
    uint32_t a_slice = a_per * kt * mt, b_slice = b_per * kt * nt, c_slice = 4 * nt * mt;
    uint32_t batch = av->n / a_slice;
    if (!batch || av->n != a_slice * batch || bv->n != b_slice * batch || cg_nregs(res) != c_slice * batch) {
        cg_not_yet(c, op, "tl.dot with these mma.sync operand layouts");
        return;
    }
    tk_dtype in_b = cg_elem_of(b->type)->dtype;
    const char *shape = in == TK_I8 ? "m16n8k32.row.col.s32.s8.s8.s32"
                        : in == TK_F32 ? "m16n8k8.row.col.f32.tf32.tf32.f32"
                        : in == TK_BF16 ? "m16n8k16.row.col.f32.bf16.bf16.f32"
                        : in == TK_F16 ? "m16n8k16.row.col.f32.f16.f16.f32"
                                       : tk_arena_printf(c->arena, "m16n8k32.row.col.f32.%s.%s.f32",
                                                         in == TK_F8E4M3 ? "e4m3" : "e5m2",
                                                         in_b == TK_F8E4M3 ? "e4m3" : "e5m2");
    char text[160];
    snprintf(text, sizeof text, "mma.sync.aligned.%s {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, "
             "{$10, $11, $12, $13};", shape);
    bool integer = in == TK_I8;
    LLVMTypeRef et = integer ? c->t_i32 : c->t_f32;
    LLVMTypeRef e4[4] = {et, et, et, et};
    LLVMTypeRef rt = LLVMStructTypeInContext(c->ctx, e4, 4, 0);
    const char *constraints = integer ? "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3" : "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3";
    cgval out = cg_newval(c, c_slice * batch);
    for (uint32_t i = 0; i < out.n; i++) out.r[i] = accv ? accv->r[accv->n == 1 ? 0 : i] : LLVMConstNull(et);
    /* K steps outermost, as Triton's mma.sync loop (each accumulator still
     * adds its steps in order). Where the whole tile's fragments and the
     * accumulators would hold more than 192 of a thread's 255 registers,
     * each step's ldmatrix moves to the step's start (sink_shared_read):
     * loaded at the local_load, a 64 x 64 warp tile's operands at BK=64
     * took 128 registers beside its 128 accumulators, and ptxas spilled
     * the sm_80 matmul 128x128x64 (4 bytes) and, a step ahead, sm_90's
     * 256x128x64. Smaller tiles keep their loads where they are: moved,
     * the H200 ran matmul 64x128x32 on mma.sync 4% slower. */
    uint32_t words = batch * (c_slice + (a_slice + b_slice) / k_width);
    sink_set sunk = {TK_NEW_ARRAY(c->arena, LLVMValueRef, (av->n + bv->n) / 2), 0, (av->n + bv->n) / 2, NULL, false};
    for (uint32_t bi = 0; bi < batch; bi++)
        for (uint32_t ki = 0; ki < kt; ki++) {
            for (uint32_t mi = 0; mi < mt && words > 192; mi++)
                for (uint32_t ni = 0; ni < nt; ni++) {
                    const LLVMValueRef *ar = &av->r[a_slice * bi + a_per * (ki + kt * mi)];
                    const LLVMValueRef *br = &bv->r[b_slice * bi + b_per * (ki + kt * ni)];
                    for (uint32_t j = 0; j < a_per; j++) {
                        sink_shared_read(c, &sunk, ar[j]);
                        if (j < b_per) sink_shared_read(c, &sunk, br[j]);
                    }
                }
            for (uint32_t mi = 0; mi < mt; mi++)
                for (uint32_t ni = 0; ni < nt; ni++) {
                    LLVMValueRef *d = &out.r[c_slice * bi + 4 * (ni + nt * mi)];
                    const LLVMValueRef *ar = &av->r[a_slice * bi + a_per * (ki + kt * mi)];
                    const LLVMValueRef *br = &bv->r[b_slice * bi + b_per * (ki + kt * ni)];
                    LLVMValueRef args[10];
                    for (uint32_t j = 0; j < 4; j++) args[j] = pack(c, &ar[j * k_width], k_width);
                    for (uint32_t j = 0; j < 2; j++) args[4 + j] = pack(c, &br[j * k_width], k_width);
                    for (uint32_t j = 0; j < 4; j++) args[6 + j] = d[j];
                    LLVMValueRef r = cg_asm_call(c, rt, text, constraints, args, 10, false);
                    for (uint32_t j = 0; j < 4; j++) d[j] = LLVMBuildExtractValue(c->b, r, j, "");
                }
        }
    *cg_get(c, res) = out;
}

/* The buffer a view operand of a wgmma dot reads. */
static const tk_tir_buffer *view_buffer(cg *c, const tk_tir_value *v) {
    return &c->k->buffers.data[tk_tir_attr_int(v->def, "buffer", 0)];
}

/* A shared-memory matrix descriptor (PTX ISA, wgmma: address, leading and
 * stride byte offsets >> 4, swizzle mode in bits 62-63: 1 = 128B, 2 = 64B,
 * 3 = 32B) of the stage at `addr` plus byte_offset (which may depend on
 * the warp; a multiple of 16). The low 32 bits (address field and
 * leading byte offset) are built once a stage and each k step's offset
 * added to them, then paired with the constant high half: one 32-bit add
 * a step, and no 64-bit value live across the trip (64-bit adds made
 * attention_bwd's 128x32 dK/dV configs spill). Exact: the stage starts on
 * a 1024-byte boundary and the operand ends inside shared memory, below
 * 2^18 bytes, so the 14-bit address field never carries into the leading
 * byte offset. */
static LLVMValueRef descriptor(cg *c, LLVMValueRef addr, LLVMValueRef byte_offset, int64_t lbo, int64_t sbo,
                               uint32_t swizzle) {
    uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    LLVMValueRef a = LLVMBuildTrunc(c->b, LLVMBuildPtrToInt(c->b, addr, c->t_i64, ""), c->t_i32, "");
    a = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, a, cg_i32(c, 4), ""), cg_i32(c, 0x3FFF), "");
    LLVMValueRef low = LLVMBuildOr(c->b, a, cg_i32(c, (uint32_t)((lbo >> 4) & 0x3FFF) << 16), "");
    low = LLVMBuildAdd(c->b, low, LLVMBuildLShr(c->b, byte_offset, cg_i32(c, 4), ""), "");
    uint64_t high = ((uint64_t)(sbo >> 4) & 0x3FFF) << 32 | mode << 62;
    return LLVMBuildOr(c->b, LLVMBuildZExt(c->b, low, c->t_i64, ""), LLVMConstInt(c->t_i64, high, 0), "");
}

/* One operand of a wgmma as its buffer holds it: K-major when K is the
 * buffer's contiguous dimension, else MN-major (the instruction's
 * transpose flag, 16-bit types only; pipeline_dot.c chose). */
typedef struct wgmma_operand {
    const tk_tir_buffer *buf;
    LLVMValueRef stage; /* the view: the stage's address */
    bool k_major;
    unsigned bytes;
} wgmma_operand;

static wgmma_operand wgmma_operand_of(cg *c, const tk_tir_value *v, uint32_t k_dim) {
    wgmma_operand o;
    o.buf = view_buffer(c, v);
    o.stage = cg_get(c, v)->r[0];
    /* the buffer's contiguous dimension, in the view's terms (a view with
     * trans=1 reads the buffer transposed) */
    bool transposed = o.buf->transposed != (tk_tir_attr_int(v->def, "trans", 0) != 0);
    o.k_major = (transposed ? 0u : 1u) == k_dim;
    o.bytes = tk_dtype_bits(cg_elem_of(v->type)->dtype) / 8;
    return o;
}

/* The descriptor of the operand from element (mn, k) on, mn a multiple
 * of 8 (it may depend on the warp) and k of the instruction's K. The
 * buffer (tk_ll_nvmma_shared) holds rows of swizzle_bytes along its
 * contiguous dimension, 8 rows an atom (the stride byte offset), atoms
 * down the other dimension, then a column of atoms after another (the
 * leading byte offset, for an MN-major operand wider than one row; a
 * K-major operand's instruction reads 32 bytes of K, within one row). */
static LLVMValueRef operand_descriptor(cg *c, const wgmma_operand *o, LLVMValueRef mn, int64_t k) {
    const tk_tir_buffer *b = o->buf;
    int64_t swizzle = b->swizzle_bytes, per_row = swizzle / o->bytes, rows = b->tile->shape[b->transposed ? 1 : 0];
    LLVMValueRef along = o->k_major ? cg_i32(c, k) : mn, down = o->k_major ? mn : cg_i32(c, k);
    LLVMValueRef atom_col = LLVMBuildUDiv(c->b, along, cg_i32(c, per_row), "");
    LLVMValueRef in_row = LLVMBuildURem(c->b, along, cg_i32(c, per_row), "");
    LLVMValueRef off = LLVMBuildMul(c->b, atom_col, cg_i32(c, rows * swizzle), "");
    off = LLVMBuildAdd(c->b, off, LLVMBuildMul(c->b, down, cg_i32(c, swizzle), ""), "");
    off = LLVMBuildAdd(c->b, off, LLVMBuildMul(c->b, in_row, cg_i32(c, o->bytes), ""), "");
    return descriptor(c, o->stage, off, o->k_major ? 16 : rows * swizzle, 8 * swizzle, b->swizzle_bytes);
}

/* wgmma.wait_group `pending`, the registers r[0, n) (f32 or i32) passing
 * through it (tied operands, 128 an asm statement: the first one waits),
 * so that LLVM reads none of them before it. */
static void wgmma_wait(cg *c, LLVMValueRef *r, uint32_t n, unsigned pending) {
    char wait[64];
    snprintf(wait, sizeof wait, "wgmma.wait_group.sync.aligned %u;", pending);
    LLVMTypeRef et = LLVMTypeOf(r[0]);
    const char *out = et == c->t_i32 ? "=r," : "=f,";
    for (uint32_t base = 0; base < n; base += 128) {
        uint32_t cnt = n - base < 128 ? n - base : 128;
        char *cons = TK_NEW_ARRAY(c->arena, char, (size_t)cnt * 8 + 8);
        size_t z = 0;
        for (uint32_t i = 0; i < cnt; i++) z += (size_t)sprintf(cons + z, "%s", out);
        for (uint32_t i = 0; i < cnt; i++) z += (size_t)sprintf(cons + z, "%s%u", i ? "," : "", i);
        LLVMTypeRef *fields = TK_NEW_ARRAY(c->arena, LLVMTypeRef, cnt);
        for (uint32_t i = 0; i < cnt; i++) fields[i] = et;
        LLVMTypeRef t = LLVMStructTypeInContext(c->ctx, fields, cnt, 0);
        LLVMValueRef v = cg_asm_call(c, t, base == 0 ? wait : "", cons, &r[base], cnt, true);
        for (uint32_t i = 0; i < cnt; i++) r[base + i] = LLVMBuildExtractValue(c->b, v, i, "");
    }
}

/* dot_wait: the accumulator once every wgmma writing it is done */
void cg_emit_dot_wait(cg *c, const tk_tir_op *op) {
    const cgval *in = cg_get(c, op->operands.data[0]);
    cgval out = cg_newval(c, in->n);
    memcpy(out.r, in->r, sizeof(LLVMValueRef) * in->n);
    wgmma_wait(c, out.r, out.n, 0);
    *cg_get(c, op->results.data[0]) = out;
}

static const char *wgmma_type(tk_dtype d) {
    switch (d) {
    case TK_F16: return "f16";
    case TK_BF16: return "bf16";
    case TK_F32: return "tf32";
    case TK_F8E4M3: return "e4m3";
    case TK_F8E5M2: return "e5m2";
    default: return "s8";
    }
}

/* The inline PTX of one m64n{instr_n}k{256 / bits} wgmma: outputs $0 ..
 * per-1 the accumulator, then as inputs the same tied, A (its descriptor,
 * or with a_regs its 4 registers), B's descriptor and the scale-d flag.
 * 16-bit operands pass their transpose flags (B's only for A in
 * registers); integer ones take no scale immediates. */
static const char *wgmma_text(cg *c, tk_dtype in, tk_dtype in_b, int64_t instr_n, int64_t per, bool a_regs,
                              bool trans_a, bool trans_b) {
    bool integer = in == TK_I8, sixteen = in == TK_F16 || in == TK_BF16;
    unsigned at = (unsigned)(2 * per), bt = at + (a_regs ? 4 : 1);
    char *text = TK_NEW_ARRAY(c->arena, char, (size_t)per * 8 + 256);
    size_t t = (size_t)sprintf(text, "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, $%u, 0;\n\twgmma.mma_async.sync.aligned.m64n%"
                               PRId64 "k%u.%s.%s.%s {", bt + 1, instr_n, 256 / tk_dtype_bits(in),
                               integer ? "s32" : "f32", wgmma_type(in), wgmma_type(in_b));
    for (int64_t i = 0; i < per; i++) t += (size_t)sprintf(text + t, "%s$%u", i ? ", " : "", (unsigned)i);
    if (a_regs) t += (size_t)sprintf(text + t, "}, {$%u, $%u, $%u, $%u}", at, at + 1, at + 2, at + 3);
    else t += (size_t)sprintf(text + t, "}, $%u", at);
    t += (size_t)sprintf(text + t, ", $%u, p", bt);
    if (sixteen && a_regs) t += (size_t)sprintf(text + t, ", 1, 1, %d", trans_b);
    else if (sixteen) t += (size_t)sprintf(text + t, ", 1, 1, %d, %d", trans_a, trans_b);
    else if (!integer) t += (size_t)sprintf(text + t, ", 1, 1");
    sprintf(text + t, ";\n\t}");
    return text;
}

/* impl "wgmma" (sm_90a): B [K, N] is a view of a swizzled buffer, and A
 * [M, K] another or registers (P in attention: mma.sync's A fragments,
 * warps down the rows, layouts.c), each buffer K-major or (16-bit types)
 * MN-major. Each warpgroup (4
 * warps down the rows) issues m64nNk(256 / element bits) for each 64-row
 * tile it holds and each step along K, N = the columns its warps span; the
 * accumulator registers (f32, i32 for i8) run in the instruction's order
 * (tk_ll_mma_acc with warps down the rows). Then a commit and a wait
 * until at most `pending` groups run (1: this one may go on into the next
 * trip, whose wgmma chains on the same accumulator; a dot_wait after the
 * loop ends it), the accumulator threaded through the wait so that
 * nothing reads it before.
 * fp8 with max_num_imprecise_acc <= K (as Triton's wgmma path): each run
 * of that many K elements goes into a zeroed partial sum instead, waited
 * for and added to the accumulator in full f32 precision. */
static void emit_wgmma(cg *c, const tk_tir_op *op) {
    LLVMValueRef dot_start = LLVMGetLastInstruction(LLVMGetInsertBlock(c->b));
    const tk_tir_value *a = op->operands.data[0], *b = op->operands.data[1], *res = op->results.data[0];
    bool a_regs = !a->def || a->def->code != TIR_LOCAL_VIEW;
    wgmma_operand oa = a_regs ? (wgmma_operand){0} : wgmma_operand_of(c, a, 1), ob = wgmma_operand_of(c, b, 0);
    tk_dtype in = cg_elem_of(a->type)->dtype, in_b = cg_elem_of(b->type)->dtype;
    int64_t m = res->type->shape[0], n = res->type->shape[1], k = a->type->shape[1];
    int64_t wm = tk_tir_attr_int(op, "warps_m", 4), wn = tk_tir_attr_int(op, "warps_n", 1);
    int64_t instr_n = n / wn, reps = m / (16 * wm), per = instr_n / 2, instr_k = 256 / tk_dtype_bits(in);
    uint32_t k_width = 32 / tk_dtype_bits(in), a_per = 4 * k_width; /* A's elements a thread holds a step */
    if (cg_nregs(res) != (uint32_t)(reps * per) || per > 128 || (!a_regs && !oa.buf->swizzle_bytes) ||
        !ob.buf->swizzle_bytes || (a_regs && cg_nregs(a) != (uint32_t)(reps * (k / instr_k) * a_per))) {
        cg_not_yet(c, op, "tl.dot with these wgmma shapes");
        return;
    }
    bool integer = in == TK_I8, fp8 = in == TK_F8E4M3 || in == TK_F8E5M2;
    int64_t imprecise = tk_tir_attr_int(op, "max_num_imprecise_acc", -1);
    /* K steps a partial sum takes (Triton adds it once `imprecise` K
     * elements are in, or at the last step); 0: no partial sums */
    int64_t chunk = fp8 && imprecise >= 0 && imprecise <= k ? (imprecise + instr_k - 1) / instr_k : 0;
    if (fp8 && imprecise >= 0 && imprecise <= k && chunk < 1) chunk = 1;
    LLVMTypeRef et = integer ? c->t_i32 : c->t_f32;
    const cgval *accv = op->operands.len > 2 ? cg_get(c, op->operands.data[2]) : NULL;
    cgval out = cg_newval(c, (uint32_t)(reps * per));
    for (uint32_t i = 0; i < out.n; i++) out.r[i] = accv ? accv->r[accv->n == 1 ? 0 : i] : LLVMConstNull(et);

    /* this warp's warpgroup: rows 64 * g of each repetition, columns
     * instr_n * col_warp */
    LLVMValueRef row_warp = LLVMBuildURem(c->b, c->warp, cg_i32(c, wm), "");
    LLVMValueRef col_warp = LLVMBuildUDiv(c->b, c->warp, cg_i32(c, wm), "");
    LLVMValueRef group_rows = LLVMBuildMul(c->b, LLVMBuildUDiv(c->b, row_warp, cg_i32(c, 4), ""), cg_i32(c, 64), "");
    LLVMValueRef first_col = LLVMBuildMul(c->b, col_warp, cg_i32(c, instr_n), "");

    const char *text = wgmma_text(c, in, in_b, instr_n, per, a_regs, !oa.k_major, !ob.k_major);
    char *constraints = TK_NEW_ARRAY(c->arena, char, (size_t)per * 8 + 32);
    size_t q = 0;
    for (int64_t i = 0; i < per; i++) q += (size_t)sprintf(constraints + q, integer ? "=r," : "=f,");
    for (int64_t i = 0; i < per; i++) q += (size_t)sprintf(constraints + q, "%u,", (unsigned)i);
    sprintf(constraints + q, a_regs ? "r,r,r,r,l,r" : "l,l,r");
    unsigned nargs = (unsigned)per + (a_regs ? 6 : 3);
    LLVMTypeRef *fields = TK_NEW_ARRAY(c->arena, LLVMTypeRef, (size_t)per);
    for (int64_t i = 0; i < per; i++) fields[i] = et;
    LLVMTypeRef rt = LLVMStructTypeInContext(c->ctx, fields, (unsigned)per, 0);
    LLVMValueRef *args = TK_NEW_ARRAY(c->arena, LLVMValueRef, (size_t)per + 6);
    LLVMValueRef *partial = TK_NEW_ARRAY(c->arena, LLVMValueRef, (size_t)per);

    /* A in registers: each step's 4 words (mma.sync's A fragment, packed
     * as for it), passed through a volatile mov before the fence, as
     * Triton does, so that nothing computing them lands between the
     * fence and the wgmma reading them; every word ready before one fence.
     * With step_groups (lower/pipeline_dot.c: a staged A read back into
     * registers, the transposed tf32 product's B^T, in a loop of one
     * wgmma) K steps go outermost, each step's wgmmas (of every 64-row
     * tile) a group of their own that stays in flight into the next trip.
     * Before a step's words are written, a wait leaves at most ksteps - 1
     * groups running: the previous trip's same step, which read those
     * registers, is done. Each step's words are then built (their shared-
     * memory reads moved there where nothing in between writes memory,
     * sink_shared_read) and fenced at the step, as CUTLASS's register-A
     * mainloop does a K block at a time. */
    int64_t ksteps = k / instr_k;
    const cgval *av = a_regs ? cg_get(c, a) : NULL;
    LLVMValueRef *a_words = a_regs ? TK_NEW_ARRAY(c->arena, LLVMValueRef, (size_t)(av->n / k_width)) : NULL;
    bool step_groups = a_regs && !chunk && tk_tir_attr_int(op, "step_groups", 0);
    sink_set sunk = {NULL, 0, 0, NULL, true};
    if (step_groups) sunk = (sink_set){TK_NEW_ARRAY(c->arena, LLVMValueRef, av->n), 0, av->n, dot_start, true};
    for (uint32_t w = 0; a_regs && !step_groups && w < av->n / k_width; w++) a_words[w] = a_word(c, av, w, k_width, NULL);
    if (!step_groups) cg_call(c, "llvm.nvvm.wgmma.fence.sync.aligned", c->t_void, NULL, 0);
    bool issued = false;
    for (int64_t outer = 0; outer < (step_groups ? ksteps : reps); outer++) {
        if (step_groups) {
            wgmma_wait(c, out.r, out.n, (unsigned)(ksteps - 1));
            for (int64_t rep = 0; rep < reps; rep++)
                for (uint32_t j = 0; j < 4; j++) {
                    uint32_t w = (uint32_t)(a_per * (outer + ksteps * rep) / k_width) + j;
                    a_words[w] = a_word(c, av, w, k_width, &sunk);
                }
            cg_call(c, "llvm.nvvm.wgmma.fence.sync.aligned", c->t_void, NULL, 0);
        }
        for (int64_t inner = 0; inner < (step_groups ? reps : ksteps); inner++) {
            int64_t rep = step_groups ? inner : outer, kk = step_groups ? outer : inner;
            LLVMValueRef *d = &out.r[rep * per];
            LLVMValueRef rows = LLVMBuildAdd(c->b, group_rows, cg_i32(c, rep * 16 * wm), "");
            /* a step that starts a sum (scale-d 0) reads no accumulator:
             * undefined registers, as Triton passes, rather than a zeroed
             * copy (64 movs a trip at 64 x 128) */
            bool starts = chunk ? kk % chunk == 0 : !accv && kk == 0;
            bool ends = chunk && (kk % chunk == chunk - 1 || kk == k / instr_k - 1);
            /* the partial sums' registers were read since (PTX ISA: a fence
             * between register accesses and the wgmma using them) */
            if (chunk && starts && issued) cg_call(c, "llvm.nvvm.wgmma.fence.sync.aligned", c->t_void, NULL, 0);
            issued = true;
            LLVMValueRef *target = chunk ? partial : d;
            for (int64_t i = 0; i < per; i++) args[i] = starts ? LLVMGetUndef(et) : target[i];
            unsigned at = (unsigned)per;
            /* A's words for this step: mma.sync's A register order, K steps
             * within each 16-row tile */
            int64_t first_word = a_per * (kk + ksteps * rep) / k_width;
            if (a_regs)
                for (uint32_t j = 0; j < 4; j++) args[at++] = a_words[first_word + j];
            else args[at++] = operand_descriptor(c, &oa, rows, kk * instr_k);
            args[at++] = operand_descriptor(c, &ob, first_col, kk * instr_k);
            args[at] = cg_i32(c, starts ? 0 : 1);
            LLVMValueRef r = cg_asm_call(c, rt, text, constraints, args, nargs, true);
            for (int64_t i = 0; i < per; i++) target[i] = LLVMBuildExtractValue(c->b, r, (unsigned)i, "");
            if (!ends) continue;
            cg_call(c, "llvm.nvvm.wgmma.commit_group.sync.aligned", c->t_void, NULL, 0);
            wgmma_wait(c, partial, (uint32_t)per, 0);
            for (int64_t i = 0; i < per; i++) d[i] = LLVMBuildFAdd(c->b, d[i], partial[i], "");
        }
        if (step_groups) cg_call(c, "llvm.nvvm.wgmma.commit_group.sync.aligned", c->t_void, NULL, 0);
    }
    if (chunk || step_groups) {
        *cg_get(c, res) = out;
        return;
    }
    cg_call(c, "llvm.nvvm.wgmma.commit_group.sync.aligned", c->t_void, NULL, 0);
    wgmma_wait(c, out.r, out.n, (unsigned)tk_tir_attr_int(op, "pending", 0));
    *cg_get(c, res) = out;
}

void cg_emit_dot(cg *c, const tk_tir_op *op) {
    switch (tk_tir_dot_impl(op)) {
    case TK_DOT_WGMMA: emit_wgmma(c, op); break;
    case TK_DOT_MMA_SYNC: emit_mma_sync(c, op); break;
    case TK_DOT_FMA: emit_fma(c, op); break;
    case TK_DOT_UNCHOSEN: {
        const char *impl = tk_tir_attr_text(op, "impl");
        cg_not_yet(c, op, tk_arena_printf(c->arena, "tl.dot as \"%s\"", impl ? impl : "?"));
        break;
    }
    }
}
