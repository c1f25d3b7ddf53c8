/* Element-wise ops, one register at a time: arithmetic (f32 '/' as
 * Triton's div.full.f32), comparisons, math functions (Triton's fast
 * paths through ex2/lg2.approx in f32, libdevice for the rest), minimum and
 * maximum under either NaN rule, and inline_asm_elementwise (the user's
 * PTX, registers packed as Triton packs them).
 * Needs: libdevice linked into the module by target.c for the __nv_
 * functions; sema's checks of inline_asm_elementwise's constraints. */
#include "internal.h"

#include <string.h>

/* A float add, sub or mul of the program, which LLVM may fuse with
 * another such into an fma (rounded once) when the kernel allows it, as
 * Triton's enable_fp_fusion does: the contract flag on both. */
LLVMValueRef cg_contractible(cg *c, LLVMValueRef v) {
    if (c->fp_contract && LLVMIsAInstruction(v)) LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
    return v;
}

LLVMValueRef cg_binary(cg *c, int op, const tk_type *t, LLVMValueRef a, LLVMValueRef b, bool arith_shift) {
    bool f = cg_is_float(t), s = cg_is_signed(t);
    switch (op) {
    case TK_BINOP_ADD: return f ? cg_contractible(c, LLVMBuildFAdd(c->b, a, b, "")) : LLVMBuildAdd(c->b, a, b, "");
    case TK_BINOP_SUB: return f ? cg_contractible(c, LLVMBuildFSub(c->b, a, b, "")) : LLVMBuildSub(c->b, a, b, "");
    case TK_BINOP_MUL: return f ? cg_contractible(c, LLVMBuildFMul(c->b, a, b, "")) : LLVMBuildMul(c->b, a, b, "");
    case TK_BINOP_DIV:
        if (LLVMTypeOf(a) == c->t_f32) {
            /* as Triton: f32 '/' is div.full.f32 (at most 2 ulp); tl.div_rn
             * and tl.fdiv give the IEEE division */
            LLVMValueRef args[2] = {a, b};
            return cg_asm_call(c, c->t_f32, "div.full.f32 $0, $1, $2;", "=f,f,f", args, 2, false);
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

LLVMValueRef cg_compare(cg *c, int op, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    if (cg_is_float(t)) {
        LLVMRealPredicate p = op == TK_BINOP_LT ? LLVMRealOLT : op == TK_BINOP_GT ? LLVMRealOGT
                            : op == TK_BINOP_LE ? LLVMRealOLE : op == TK_BINOP_GE ? LLVMRealOGE
                            : op == TK_BINOP_EQ ? LLVMRealOEQ : LLVMRealUNE;
        return LLVMBuildFCmp(c->b, p, a, b, "");
    }
    bool s = cg_is_signed(t);
    LLVMIntPredicate p = op == TK_BINOP_LT ? (s ? LLVMIntSLT : LLVMIntULT)
                       : op == TK_BINOP_GT ? (s ? LLVMIntSGT : LLVMIntUGT)
                       : op == TK_BINOP_LE ? (s ? LLVMIntSLE : LLVMIntULE)
                       : op == TK_BINOP_GE ? (s ? LLVMIntSGE : LLVMIntUGE)
                       : op == TK_BINOP_EQ ? LLVMIntEQ : LLVMIntNE;
    return LLVMBuildICmp(c->b, p, a, b, "");
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
    /* Triton's tl.exp2 is libdevice's __nv_exp2f under its default
     * enable_reflect_ftz: subnormal results flush to zero, and the
     * instruction needs none of the range fix-ups the IEEE form takes */
    if (id == TK_B_EXP2 && f32) return cg_call(c, "llvm.nvvm.ex2.approx.ftz.f32", lt, &x, 1);
    if (id == TK_B_EXP && f32) {
        LLVMValueRef y = LLVMBuildFMul(c->b, x, LLVMConstReal(lt, 1.4426950408889634), "");
        return cg_call(c, "llvm.nvvm.ex2.approx.f32", lt, &y, 1);
    }
    if (id == TK_B_LOG2 && f32) return cg_call(c, "llvm.nvvm.lg2.approx.f", lt, &x, 1);
    if (id == TK_B_LOG && f32) {
        LLVMValueRef y = cg_call(c, "llvm.nvvm.lg2.approx.f", lt, &x, 1);
        return LLVMBuildFMul(c->b, y, LLVMConstReal(lt, 0.6931471805599453), "");
    }
    if (id == TK_B_SQRT || id == TK_B_SQRT_RN) {
        snprintf(buf, sizeof buf, "llvm.sqrt.%s", fsuffix(c, lt));
        return cg_call(c, buf, lt, &x, 1);
    }
    if (id == TK_B_RSQRT && f32) return cg_call(c, "llvm.nvvm.rsqrt.approx.f", lt, &x, 1);
    if (id == TK_B_SIN && f32) return cg_call(c, "llvm.nvvm.sin.approx.f", lt, &x, 1);
    if (id == TK_B_COS && f32) return cg_call(c, "llvm.nvvm.cos.approx.f", lt, &x, 1);
    if (id == TK_B_FLOOR || id == TK_B_CEIL) {
        snprintf(buf, sizeof buf, "llvm.%s.%s", name, fsuffix(c, lt));
        return cg_call(c, buf, lt, &x, 1);
    }
    if (id == TK_B_ABS) {
        if (cg_is_float(t)) {
            snprintf(buf, sizeof buf, "llvm.fabs.%s", fsuffix(c, lt));
            return cg_call(c, buf, lt, &x, 1);
        }
        if (!cg_is_signed(t)) return x;
        LLVMValueRef neg = LLVMBuildNeg(c->b, x, "");
        return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, x, LLVMConstNull(lt), ""), neg, x, "");
    }
    if (id == TK_B_SIGMOID && f32) {
        LLVMValueRef y = LLVMBuildFMul(c->b, x, LLVMConstReal(lt, -1.4426950408889634), "");
        LLVMValueRef e = cg_call(c, "llvm.nvvm.ex2.approx.f32", lt, &y, 1);
        return LLVMBuildFDiv(c->b, LLVMConstReal(lt, 1.0), LLVMBuildFAdd(c->b, LLVMConstReal(lt, 1.0), e, ""), "");
    }
    if (lt == c->t_f32 || lt == c->t_f64) {
        /* everything else from libdevice (linked by target.c): __nv_erff, __nv_exp, ... */
        static const tk_builtin libdevice[] = {TK_B_EXP, TK_B_EXP2, TK_B_LOG, TK_B_LOG2,
                                               TK_B_RSQRT, TK_B_SIN, TK_B_COS, TK_B_ERF};
        for (size_t i = 0; i < sizeof libdevice / sizeof libdevice[0]; i++) {
            if ((int)libdevice[i] != id) continue;
            snprintf(buf, sizeof buf, "__nv_%s%s", name, f32 ? "f" : "");
            return cg_call(c, buf, lt, &x, 1);
        }
        if (id == TK_B_SIGMOID) {
            LLVMValueRef neg = LLVMBuildFNeg(c->b, x, "");
            LLVMValueRef e = cg_call(c, "__nv_exp", lt, &neg, 1);
            return LLVMBuildFDiv(c->b, LLVMConstReal(lt, 1.0), LLVMBuildFAdd(c->b, LLVMConstReal(lt, 1.0), e, ""), "");
        }
    }
    cg_not_yet(c, op, tk_arena_printf(c->arena, "tl.%s on %s", name, tk_type_str(c->arena, t)));
    return LLVMGetPoison(lt);
}

/* On floats: the number when one operand is NaN (maxnum, Triton's
 * default), or NaN when either is (propagate_nan=ALL: llvm.maximum). */
static LLVMValueRef minmax_nan(cg *c, bool is_max, bool nan, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef lt = LLVMTypeOf(a);
    if (cg_is_float(t)) {
        char buf[48];
        snprintf(buf, sizeof buf, "llvm.%s.%s", is_max ? (nan ? "maximum" : "maxnum") : (nan ? "minimum" : "minnum"),
                 fsuffix(c, lt));
        LLVMValueRef args[2] = {a, b};
        return cg_call(c, buf, lt, args, 2);
    }
    bool s = cg_is_signed(t);
    if (LLVMGetTypeKind(lt) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(lt) <= 32) {
        /* Integers of up to 32 bits: a 32-bit compare and select as inline PTX on the widened
           values. ptxas (CUDA 13.0, sm_90a) fuses a tree of max.s32 (or max.s16, to which LLVM
           narrows a max of 8- or 16-bit values) over negated operands into a VIMNMX3 (.S16x2)
           that drops one operand's negation: tl.max(-x) was the max of a different set
           (difftest seed 13, program 1221; test/gpu/ptxas/negmax.cu shows it without tkc).
           setp + selp are left alone. */
        LLVMValueRef wide[2] = {a, b};
        for (int i = 0; i < 2; i++)
            if (LLVMGetIntTypeWidth(lt) < 32)
                wide[i] = s ? LLVMBuildSExt(c->b, wide[i], c->t_i32, "") : LLVMBuildZExt(c->b, wide[i], c->t_i32, "");
        char text[96];
        snprintf(text, sizeof text, "{ .reg .pred p; setp.%s.%s32 p, $1, $2; selp.b32 $0, $1, $2, p; }",
                 is_max ? "gt" : "lt", s ? "s" : "u");
        LLVMValueRef r = cg_asm_call(c, c->t_i32, text, "=r,r,r", wide, 2, false);
        return LLVMGetIntTypeWidth(lt) < 32 ? LLVMBuildTrunc(c->b, r, lt, "") : r;
    }
    LLVMIntPredicate p = is_max ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT);
    return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, p, a, b, ""), a, b, "");
}

LLVMValueRef cg_minmax(cg *c, bool is_max, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    return minmax_nan(c, is_max, false, t, a, b);
}

LLVMValueRef cg_math(cg *c, const tk_tir_op *op, const tk_type *t, LLVMValueRef *x) {
    int id = op->sub;
    if (id == TK_B_LIBDEVICE_CALL) {
        /* sema chose the __nv_ function and converted the arguments to its
         * types; target.c links libdevice */
        uint32_t n = op->operands.len < 3 ? op->operands.len : 3;
        return cg_call(c, tk_tir_attr_text(op, "symbol"), cg_elem_type(c, t), x, n);
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
        return cg_call(c, buf, LLVMTypeOf(x[0]), x, 3);
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

/* ---- inline_asm_elementwise --------------------------------------------- */

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

void cg_emit_inline_asm(cg *c, const tk_tir_op *op) {
    const char *text = tk_tir_attr_text(op, "asm"), *cons = tk_tir_attr_text(op, "constraints");
    bool effects = tk_tir_attr_int(op, "side_effects", 0) != 0;
    uint32_t pack = (uint32_t)tk_tir_attr_int(op, "pack", 1);
    if (!c->user_asm.src) c->user_asm = op->loc;
    uint32_t nout = op->results.len, nin = op->operands.len, n = cg_nregs(op->results.data[0]);
    enum { MAX_VALUES = 8, MAX_REGS = 16 * 8 };
    LLVMTypeRef out_elem[MAX_VALUES], reg_types[MAX_REGS];
    uint32_t nret = 0;
    for (uint32_t i = 0; i < nout && i < MAX_VALUES; i++) {
        out_elem[i] = cg_elem_type(c, op->results.data[i]->type);
        uint32_t per = asm_elems_per_reg(out_elem[i], pack);
        LLVMTypeRef reg = per == 1 ? out_elem[i] : LLVMIntTypeInContext(c->ctx, per * scalar_bits(out_elem[i]));
        for (uint32_t k = 0; k < pack / per && nret < MAX_REGS; k++) reg_types[nret++] = reg;
    }
    LLVMTypeRef ret = nret == 1 ? reg_types[0] : LLVMStructTypeInContext(c->ctx, reg_types, nret, 0);
    cgval outs[MAX_VALUES];
    for (uint32_t i = 0; i < nout && i < MAX_VALUES; i++) outs[i] = cg_newval(c, n);
    for (uint32_t r = 0; r < n; r += pack) {
        LLVMValueRef args[MAX_REGS];
        uint32_t nargs = 0;
        for (uint32_t i = 0; i < nin && i < MAX_VALUES; i++) {
            LLVMTypeRef et = cg_elem_type(c, op->operands.data[i]->type);
            uint32_t per = asm_elems_per_reg(et, pack);
            for (uint32_t j = 0; j < pack && nargs < MAX_REGS; j += per) {
                if (per == 1) {
                    args[nargs++] = r + j < n ? cg_operand(c, op, i, r + j) : LLVMGetUndef(et);
                    continue;
                }
                LLVMValueRef vec = LLVMGetUndef(LLVMVectorType(et, per));
                for (uint32_t e = 0; e < per; e++)
                    if (r + j + e < n)
                        vec = LLVMBuildInsertElement(c->b, vec, cg_operand(c, op, i, r + j + e),
                                                     LLVMConstInt(c->t_i32, e, 0), "");
                args[nargs++] = LLVMBuildBitCast(c->b, vec, LLVMIntTypeInContext(c->ctx, per * scalar_bits(et)), "");
            }
        }
        LLVMValueRef v = cg_asm_call(c, ret, text, cons, args, nargs, effects);
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
    for (uint32_t i = 0; i < nout && i < MAX_VALUES; i++) *cg_get(c, op->results.data[i]) = outs[i];
}
