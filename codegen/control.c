/* The op dispatch and structured control flow: emit_op sends each live
 * tile IR op to its family's file or emits it here (constants, program ids,
 * ranges, splats, register-level unary, binary, compare, select, cast,
 * bitcast and addptr, reshape and permute by reusing the registers), with
 * the op's .tk line as the debug location under line info. for, if and
 * while become LLVM blocks with one phi per register of each value they
 * carry. An op that fails leaves poison in its registers so the kernel
 * stays well-formed until compilation stops.
 * Guarantees: c->scratch_op is the op being emitted while its family's
 * code runs (the scratch helpers in convert.c read it). */
#include "internal.h"

#include <math.h>

#include <string.h>

static LLVMValueRef splat_const(LLVMTypeRef t, bool flt, double f, int64_t i) {
    return flt ? LLVMConstReal(t, f) : LLVMConstInt(t, (unsigned long long)i, 1);
}

/* Gives vs[first..] their registers from consecutive entries of values. */
static void bind_regs(cg *c, const tk_tir_values *vs, uint32_t first, LLVMValueRef *values) {
    uint32_t k = 0;
    for (uint32_t i = first; i < vs->len; i++) {
        const tk_tir_value *a = vs->data[i];
        uint32_t n = cg_nregs(a);
        cgval v = cg_newval(c, n);
        for (uint32_t r = 0; r < n; r++) v.r[r] = values[k++];
        *cg_get(c, a) = v;
    }
}

static void bind_args(cg *c, const tk_tir_block *blk, uint32_t first, LLVMValueRef *values) {
    bind_regs(c, &blk->args, first, values);
}

static uint32_t count_regs(const tk_tir_values *vs, uint32_t first) {
    uint32_t n = 0;
    for (uint32_t i = first; i < vs->len; i++) n += cg_nregs(vs->data[i]);
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
        cgval *v = cg_get(c, y->operands.data[i]);
        for (uint32_t r = 0; r < v->n; r++) out[k++] = v->r[r];
    }
}

static LLVMTypeRef reg_type(cg *c, const tk_tir_value *v) { return cg_elem_type(c, v->type); }

static void phis_for(cg *c, const tk_tir_values *vs, uint32_t first, LLVMValueRef *phis) {
    uint32_t k = 0;
    for (uint32_t i = first; i < vs->len; i++) {
        uint32_t n = cg_nregs(vs->data[i]);
        for (uint32_t r = 0; r < n; r++) phis[k++] = LLVMBuildPhi(c->b, reg_type(c, vs->data[i]), "");
    }
}

static void add_incoming(LLVMValueRef *phis, LLVMValueRef *vals, uint32_t n, LLVMBasicBlockRef from) {
    for (uint32_t i = 0; i < n; i++) LLVMAddIncoming(phis[i], &vals[i], &from, 1);
}

/* A loop's start: the carried values (op's operands from `first` on),
 * header, body and exit blocks, the builder in the header; then
 * loop_phis gives the carried values their phis there. */
typedef struct loop_start {
    uint32_t n;                /* carried registers */
    LLVMValueRef *init;        /* their values on entry */
    LLVMBasicBlockRef pre, header, body, exit;
} loop_start;

static loop_start begin_loop(cg *c, const tk_tir_op *op, uint32_t first, const char *kind) {
    loop_start l = {count_regs(&op->operands, first), NULL, NULL, NULL, NULL, NULL};
    l.init = TK_NEW_ARRAY(c->arena, LLVMValueRef, l.n + 1);
    yielded(c, op, first, l.init);
    char name[32];
    l.pre = LLVMGetInsertBlock(c->b);
    snprintf(name, sizeof name, "%s.header", kind);
    l.header = LLVMAppendBasicBlockInContext(c->ctx, c->fn, name);
    snprintf(name, sizeof name, "%s.body", kind);
    l.body = LLVMAppendBasicBlockInContext(c->ctx, c->fn, name);
    snprintf(name, sizeof name, "%s.exit", kind);
    l.exit = LLVMAppendBasicBlockInContext(c->ctx, c->fn, name);
    LLVMBuildBr(c->b, l.header);
    LLVMPositionBuilderAtEnd(c->b, l.header);
    return l;
}

static LLVMValueRef *loop_phis(cg *c, const loop_start *l, const tk_tir_values *vs, uint32_t first) {
    LLVMValueRef *phis = TK_NEW_ARRAY(c->arena, LLVMValueRef, l->n + 1);
    phis_for(c, vs, first, phis);
    add_incoming(phis, l->init, l->n, l->pre);
    return phis;
}

static void emit_for(cg *c, const tk_tir_op *op) {
    LLVMValueRef lo = cg_get(c, op->operands.data[0])->r[0], hi = cg_get(c, op->operands.data[1])->r[0];
    LLVMValueRef step = cg_get(c, op->operands.data[2])->r[0];
    const tk_type *ivt = op->operands.data[0]->type;
    loop_start l = begin_loop(c, op, 3, "for");
    LLVMBasicBlockRef body = l.body, exit = l.exit, header = l.header;
    uint32_t n = l.n;
    LLVMValueRef iv = LLVMBuildPhi(c->b, LLVMTypeOf(lo), "iv");
    LLVMValueRef *phis = loop_phis(c, &l, &op->results, 0);
    add_incoming(&iv, &lo, 1, l.pre);
    LLVMValueRef up = cg_compare(c, TK_BINOP_LT, ivt, iv, hi), down = cg_compare(c, TK_BINOP_GT, ivt, iv, hi);
    LLVMValueRef positive = LLVMBuildICmp(c->b, LLVMIntSGT, step, LLVMConstNull(LLVMTypeOf(step)), "");
    LLVMBuildCondBr(c->b, LLVMBuildSelect(c->b, positive, up, down, ""), body, exit);
    LLVMPositionBuilderAtEnd(c->b, body);
    const tk_tir_block *region = op->regions.data[0];
    *cg_get(c, region->args.data[0]) = (cgval){1, TK_NEW_ARRAY(c->arena, LLVMValueRef, 1)};
    cg_get(c, region->args.data[0])->r[0] = iv;
    bind_args(c, region, 1, phis);
    cg_emit_block(c, region);
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
    LLVMValueRef cond = cg_get(c, op->operands.data[0])->r[0];
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
        cg_emit_block(c, op->regions.data[side]);
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

uint32_t cg_entry_registers(const tk_tir_kernel *k, bool *capped) {
    uint32_t share = 65536 / tk_tir_kernel_threads(k) / 8 * 8;
    if (share > 248) share = 248; /* 255, the most a thread may hold, in whole eights */
    *capped = k->sema->maxnreg && k->sema->maxnreg < share;
    return *capped ? ((uint32_t)k->sema->maxnreg + 7) / 8 * 8 : share;
}

/* The registers each side takes with setmaxnreg (0: none): the
 * producer 40 a thread, the consumers what that frees of the block's
 * registers at entry (at most 240), where that is more than the entry's.
 * setmaxnreg only moves registers within the block: an .inc waits until
 * the pool has them. At entry a block holds its threads times the entry's
 * count (cg_entry_registers: one block an SM's share of the 64K, or the
 * kernel's maxnreg, as for two blocks an SM). */
static void partition_registers(const tk_tir_kernel *k, uint32_t *producer, uint32_t *consumer) {
    bool capped;
    uint32_t entry = cg_entry_registers(k, &capped);
    uint32_t pool = tk_tir_kernel_threads(k) * entry, kept = k->producer_warps * 32 * 40;
    uint32_t more = pool > kept ? (pool - kept) / (k->num_warps * 32) / 8 * 8 : 0;
    if (more > 240) more = 240;
    *producer = *consumer = 0;
    if (more > entry) *producer = 40, *consumer = more;
}

/* setmaxnreg.inc or .dec (how) to n registers a thread; nothing for n 0 */
static void set_max_registers(cg *c, const char *how, uint32_t n) {
    if (!n) return;
    LLVMValueRef regs = cg_i32(c, n);
    cg_call(c, tk_arena_printf(c->arena, "llvm.nvvm.setmaxnreg.%s.sync.aligned.u32", how), c->t_void, &regs, 1);
}

/* Warps num_warps.. (the producer warpgroup) run region 1 and leave the
 * kernel; the others run region 0 and go on, their barriers now named
 * barrier 1 of their own threads. The test is on the warp index, the
 * same in every lane, so that ptxas sees each warpgroup take one side. */
static void emit_warp_specialize(cg *c, const tk_tir_op *op) {
    uint32_t producer_regs, consumer_regs;
    partition_registers(c->k, &producer_regs, &consumer_regs);
    LLVMValueRef shfl[4] = {cg_i32(c, -1), LLVMBuildLShr(c->b, c->tid, cg_i32(c, 5), ""), cg_i32(c, 0), cg_i32(c, 31)};
    LLVMValueRef warp = cg_call(c, "llvm.nvvm.shfl.sync.idx.i32", c->t_i32, shfl, 4);
    LLVMValueRef producing = LLVMBuildICmp(c->b, LLVMIntUGE, warp, cg_i32(c, c->k->num_warps), "producer");
    LLVMBasicBlockRef prod = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "producer");
    LLVMBasicBlockRef cons = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "consumer");
    LLVMBuildCondBr(c->b, producing, prod, cons);
    LLVMPositionBuilderAtEnd(c->b, prod);
    set_max_registers(c, "dec", producer_regs);
    c->leader_tid = c->k->num_warps * 32;
    cg_emit_block(c, op->regions.data[1]);
    if (c->failed) return;
    c->leader_tid = 0;
    LLVMBuildRetVoid(c->b);
    LLVMPositionBuilderAtEnd(c->b, cons);
    set_max_registers(c, "inc", consumer_regs);
    /* the rest of the kernel is the consumers' */
    c->barrier_threads = c->k->num_warps * 32;
    cg_emit_block(c, op->regions.data[0]);
}

static void emit_while(cg *c, const tk_tir_op *op) {
    loop_start l = begin_loop(c, op, 0, "while");
    LLVMBasicBlockRef body = l.body, exit = l.exit, header = l.header;
    uint32_t n = l.n;
    LLVMValueRef *phis = loop_phis(c, &l, &op->operands, 0);
    const tk_tir_block *before = op->regions.data[0], *after = op->regions.data[1];
    bind_args(c, before, 0, phis);
    cg_emit_block(c, before);
    if (c->failed) return;
    const tk_tir_op *cond_op = terminator(before);
    LLVMValueRef *passed = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    yielded(c, cond_op, 1, passed);
    LLVMBuildCondBr(c->b, cg_get(c, cond_op->operands.data[0])->r[0], body, exit);
    LLVMPositionBuilderAtEnd(c->b, body);
    bind_args(c, after, 0, passed);
    cg_emit_block(c, after);
    if (c->failed) return;
    LLVMValueRef *next = TK_NEW_ARRAY(c->arena, LLVMValueRef, n + 1);
    yielded(c, terminator(after), 0, next);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
    LLVMBuildBr(c->b, header);
    add_incoming(phis, next, n, latch);
    LLVMPositionBuilderAtEnd(c->b, exit);
    bind_regs(c, &op->results, 0, passed);
}

static void emit_op(cg *c, const tk_tir_op *op) {
    if (c->di_sp && op->loc.src)
        LLVMSetCurrentDebugLocation2(c->b, LLVMDIBuilderCreateDebugLocation(c->ctx, op->loc.line, op->loc.col,
                                                                            c->di_sp, NULL));
    const tk_tir_value *res = op->results.len ? op->results.data[0] : NULL;
    uint32_t n = res ? cg_nregs(res) : 0;
    cgval out = cg_newval(c, n);
    c->scratch_op = op;
    switch (op->code) {
    case TIR_BARRIER:
        cg_barrier(c);
        return;
    case TIR_CONST: {
        LLVMTypeRef t = reg_type(c, res);
        out.r[0] = splat_const(t, cg_is_float(res->type), op->value.f, op->value.i);
        break;
    }
    case TIR_UNDEF:
        for (uint32_t r = 0; r < n; r++) out.r[r] = LLVMGetPoison(reg_type(c, res));
        break;
    case TIR_PROGRAM_ID:
    case TIR_NUM_PROGRAMS: {
        static const char *const axes[3] = {"x", "y", "z"};
        int64_t axis = tk_tir_attr_int(op, "axis", 0);
        out.r[0] = cg_sreg(c, tk_arena_printf(c->arena, "%s.%s", op->code == TIR_PROGRAM_ID ? "ctaid" : "nctaid",
                                            axes[axis < 0 || axis > 2 ? 0 : axis]));
        break;
    }
    case TIR_DESC_FIELD:
        cg_emit_desc_field(c, op);
        return;
    case TIR_TMA_COPY:
    case TIR_TMA_STORE:
    case TIR_MBAR_INIT:
    case TIR_MBAR_EXPECT:
    case TIR_MBAR_WAIT:
    case TIR_MBAR_ARRIVE:
    case TIR_MBAR_INVAL:
        cg_emit_tma(c, op);
        return;
    case TIR_MAKE_RANGE: {
        int64_t start = tk_tir_attr_int(op, "start", 0);
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = LLVMBuildAdd(c->b, cg_reg_flat(c, res->layout, r), cg_i32(c, start), "");
        break;
    }
    case TIR_SPLAT:
        for (uint32_t r = 0; r < n; r++) out.r[r] = cg_get(c, op->operands.data[0])->r[0];
        break;
    case TIR_BROADCAST:
    case TIR_CONVERT_LAYOUT:
        out = cg_relayout(c, op->operands.data[0], res->layout);
        break;
    case TIR_RESHAPE:
    case TIR_PERMUTE:
    case TIR_HINT:
        out = *cg_get(c, op->operands.data[0]);
        break;
    case TIR_UNARY:
        for (uint32_t r = 0; r < n; r++) {
            LLVMValueRef a = cg_operand(c, op, 0, r);
            /* -x is 0 - x, as Triton's (its minus subtracts from zero): for a float -(+0.0) is
               +0.0, which a bitcast shows, and a NaN's sign is what the subtraction gives */
            if (op->sub == TIR_NOT) out.r[r] = LLVMBuildNot(c->b, a, "");
            else out.r[r] = cg_binary(c, TK_BINOP_SUB, res->type, LLVMConstNull(LLVMTypeOf(a)), a, false);
        }
        break;
    case TIR_BINARY: {
        bool arith_shift = tk_tir_attr_int(op, "arithmetic", 0) != 0;
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = cg_binary(c, op->sub, res->type, cg_operand(c, op, 0, r), cg_operand(c, op, 1, r), arith_shift);
        if (n && !out.r[0]) cg_not_yet(c, op, "this operator");
        break;
    }
    case TIR_CMP:
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = cg_compare(c, op->sub, op->operands.data[0]->type, cg_operand(c, op, 0, r), cg_operand(c, op, 1, r));
        break;
    case TIR_SELECT:
        for (uint32_t r = 0; r < n; r++)
            out.r[r] = LLVMBuildSelect(c->b, cg_operand(c, op, 0, r), cg_operand(c, op, 1, r), cg_operand(c, op, 2, r), "");
        break;
    case TIR_CAST: {
        const tk_type *from = op->operands.data[0]->type;
        const tk_type *fe = cg_elem_of(from), *te = cg_elem_of(res->type);
        bool f8_from = fe->kind == TK_TYPE_SCALAR && (fe->dtype == TK_F8E4M3 || fe->dtype == TK_F8E5M2);
        bool f8_to = te->kind == TK_TYPE_SCALAR && (te->dtype == TK_F8E4M3 || te->dtype == TK_F8E5M2);
        const char *rounding = tk_tir_attr_text(op, "rounding");
        bool rtz = rounding && strcmp(rounding, "rtne") != 0;
        const tk_tir_op *src = op->operands.data[0]->def;
        if (f8_to && !f8_from && src && src->code == TIR_CONST && cg_elem_of(src->results.data[0]->type) == fe &&
            (tk_dtype_is_float(fe->dtype) ? src->value.f == 0.0 && !signbit(src->value.f) : src->value.i == 0)) {
            /* +0 is the byte 0 in both fp8 formats: no conversion, on any
             * target (an fp8 descriptor load's padding) */
            for (uint32_t r = 0; r < n; r++) out.r[r] = LLVMConstInt(c->t_i8, 0, 0);
            break;
        }
        if ((f8_to || (f8_from && tk_tir_attr_int(op, "fp8_dot_operand", 0))) && !c->target->has_fp8) {
            /* not a gap to fill later: the target has no fp8 instructions
             * (from fp8 is bit arithmetic there, cg_cast_f8, except into
             * a dot: lower/dot.c) */
            if (!c->failed)
                tk_error(c->diag, op->loc, "fp8 needs sm_89 or newer (its conversions and tl.dot); this compilation "
                         "is for %s (--arch)", c->target->name);
            c->failed = true;
            break;
        }
        if (f8_to && rtz) {
            /* PTX converts to fp8 only to nearest; this was silently that */
            cg_not_yet(c, op, tk_arena_printf(c->arena, "fp_downcast_rounding=\"rtz\" to %s", tk_dtype_name(te->dtype)));
            break;
        }
        for (uint32_t r = 0; r < n && !c->failed; r++) {
            LLVMValueRef x = cg_operand(c, op, 0, r);
            if (f8_from || f8_to) out.r[r] = cg_cast_f8(c, fe->dtype, f8_from, te->dtype, f8_to, from, res->type, x);
            else if (rtz) out.r[r] = cg_cast_rtz(c, op, fe->dtype, te->dtype, x);
            else out.r[r] = cg_cast(c, from, res->type, x);
        }
        break;
    }
    case TIR_BITCAST:
        for (uint32_t r = 0; r < n; r++) {
            LLVMValueRef a = cg_operand(c, op, 0, r);
            LLVMTypeRef t = reg_type(c, res);
            out.r[r] = LLVMTypeOf(a) == c->t_ptr1 ? LLVMBuildPtrToInt(c->b, a, t, "") : LLVMBuildBitCast(c->b, a, t, "");
        }
        break;
    case TIR_ADDPTR: {
        const tk_type *pointee = cg_elem_of(res->type)->elem;
        LLVMTypeRef et = cg_mem_type(c, pointee);
        bool sgn = cg_is_signed(op->operands.data[1]->type);
        for (uint32_t r = 0; r < n; r++) {
            LLVMValueRef off = cg_operand(c, op, 1, r);
            if (LLVMGetIntTypeWidth(LLVMTypeOf(off)) < 64 && !sgn) off = LLVMBuildZExt(c->b, off, c->t_i64, "");
            out.r[r] = LLVMBuildGEP2(c->b, et, cg_operand(c, op, 0, r), &off, 1, "");
        }
        break;
    }
    case TIR_LOAD:
    case TIR_STORE:
        cg_emit_memory(c, op);
        return;
    case TIR_MATH:
        for (uint32_t r = 0; r < n && !c->failed; r++) {
            LLVMValueRef xs[3];
            for (uint32_t i = 0; i < op->operands.len && i < 3; i++) xs[i] = cg_operand(c, op, i, r);
            out.r[r] = cg_math(c, op, res->type, xs);
        }
        break;
    case TIR_REDUCE:
        cg_emit_reduce(c, op);
        return;
    case TIR_DOT:
        cg_emit_dot(c, op);
        return;
    case TIR_LOCAL_VIEW: case TIR_ASYNC_COPY: case TIR_ASYNC_COMMIT: case TIR_ASYNC_WAIT: case TIR_LOCAL_LOAD:
    case TIR_LOCAL_STORE:
        cg_emit_async(c, op);
        return;
    case TIR_DOT_WAIT:
        cg_emit_dot_wait(c, op);
        return;
    case TIR_BUILTIN: {
        switch (op->sub) {
        case TK_B_DEBUG_BARRIER: cg_barrier(c); return;
        case TK_B_GDC_WAIT: case TK_B_GDC_LAUNCH_DEPENDENTS:
            /* programmatic dependent launch (sm_90 on); where the GPU has none, no launch depends on
               another, so waiting and signalling are nothing */
            if (c->target->has_griddepcontrol)
                cg_asm_call(c, c->t_void, op->sub == TK_B_GDC_WAIT ? "griddepcontrol.wait;" : "griddepcontrol.launch_dependents;",
                            "~{memory}", NULL, 0, true);
            return;
        case TK_B_ATOMIC_ADD: case TK_B_ATOMIC_MAX: case TK_B_ATOMIC_MIN: case TK_B_ATOMIC_AND:
        case TK_B_ATOMIC_OR: case TK_B_ATOMIC_XOR: case TK_B_ATOMIC_XCHG: case TK_B_ATOMIC_CAS:
            cg_emit_atomic(c, op);
            return;
        case TK_B_CUMSUM: case TK_B_CUMPROD: case TK_B_ASSOCIATIVE_SCAN: cg_emit_scan(c, op); return;
        case TK_B_HISTOGRAM: cg_emit_histogram(c, op); return;
        case TK_B_GATHER: cg_emit_gather(c, op); return;
        case TK_B_SORT: case TK_B_TOPK: cg_emit_sort(c, op); return;
        case TK_B_RAND: case TK_B_RANDN: case TK_B_RANDINT: case TK_B_RAND4X: case TK_B_RANDN4X:
        case TK_B_RANDINT4X:
            cg_emit_random(c, op);
            return;
        case TK_B_JOIN: case TK_B_SPLIT: case TK_B_CAT: cg_emit_join_split_cat(c, op); return;
        case TK_B_INLINE_ASM_ELEMENTWISE: cg_emit_inline_asm(c, op); return;
        case TK_B_DEVICE_PRINT: cg_emit_print(c, op); return;
        case TK_B_DEVICE_ASSERT: cg_emit_assert(c, op); return;
        default:
            cg_not_yet(c, op, tk_arena_printf(c->arena, "tl.%s", tk_sema_builtin_name(op->sub)));
            return;
        }
    }
    case TIR_FOR: emit_for(c, op); return;
    case TIR_IF: emit_if(c, op); return;
    case TIR_WARP_SPECIALIZE: emit_warp_specialize(c, op); return;
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
        cg_not_yet(c, op, tk_tir_opcode_name(op->code));
        return;
    }
    /* an op reported as not supported leaves registers unset: poison keeps
     * the ops after it well-formed until compilation stops */
    for (uint32_t r = 0; res && r < out.n; r++)
        if (!out.r[r]) out.r[r] = LLVMGetPoison(reg_type(c, res));
    if (res) *cg_get(c, res) = out;
}

void cg_emit_block(cg *c, const tk_tir_block *blk) {
    /* a combine region runs in the middle of its reduce or scan, which goes
     * on using its own scratch afterwards */
    const tk_tir_op *outer = c->scratch_op;
    for (uint32_t i = 0; i < blk->ops.len && !c->failed; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        uint32_t before = c->barriers;
        emit_op(c, op);
        /* barriers.c takes every op with scratch to pass a barrier between
         * writing it and reading it, and counts on it for what follows */
        if (op->scratch_bytes && c->barriers == before && !c->failed) {
            tk_internal_error(c->diag, op->loc, "an op with shared-memory scratch emitted no barrier");
            c->failed = true;
        }
    }
    c->scratch_op = outer;
}
