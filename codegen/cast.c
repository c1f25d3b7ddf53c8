/* Conversions between element types: LLVM's casts (a narrowing float
 * conversion rounds to nearest even), and for fp8 and
 * fp_downcast_rounding="rtz" the PTX cvt instructions Triton uses.
 * Needs: an fp8-capable target (sm_89 or newer) for fp8, which the caller
 * (control.c) checks. */
#include "internal.h"

/* LLVM 22's SLP vectorizer narrows an unsigned integer-to-float
 * conversion's operand by its sign bits: uitofp (sext i16 x to i64) to
 * bfloat became uitofp i16 x, so an i16 of -5 taken as u64 converted to
 * 65536 where 1.8e19 is right (difftest seed 11, program 1755). It
 * vectorizes only conversions to 16-bit floats on NVPTX; their integer
 * goes through a move it cannot see into. That costs nothing: ptxas drops
 * the move, and no packed integer-to-f16 conversion exists to lose. */
static LLVMValueRef opaque_to_vectorizer(cg *c, LLVMValueRef v) {
    if (LLVMIsConstant(v)) return v;
    unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(v));
    if (bits < 16) v = LLVMBuildZExt(c->b, v, c->t_i16, ""), bits = 16;
    const char *text = bits == 16 ? "mov.b16 $0, $1;" : bits == 32 ? "mov.b32 $0, $1;" : "mov.b64 $0, $1;";
    const char *constraints = bits == 16 ? "=h,h" : bits == 32 ? "=r,r" : "=l,l";
    return cg_asm_call(c, LLVMTypeOf(v), text, constraints, &v, 1, false);
}

/* A float to an 8- or 16-bit integer: cvt.rzi.s32 (opaque to LLVM; signed
 * for unsigned targets too, whose range it holds: cvt.rzi.u32.f64 made a
 * NaN 0xffffffff), clamped to the narrow type's range, then truncated; the
 * same value as cvt.rzi.s16.f32's saturation (NaN 0). ptxas (CUDA 13.0,
 * sm_90a) kept a value of cvt.rzi.s16.f32 live across a loop in the low
 * half of a register whose high half was stale, and a later setp.s16 on it
 * compared 32 bits (difftest seed 12, program 19: 50 of 256 compares
 * wrong). */
static LLVMValueRef narrow_float_to_int(cg *c, tk_dtype fd, tk_dtype td, LLVMValueRef v, LLVMTypeRef tt) {
    bool is_signed = tk_dtype_is_signed(td);
    if (fd == TK_BF16) v = LLVMBuildFPExt(c->b, v, c->t_f32, ""), fd = TK_F32;
    const char *src = fd == TK_F16 ? "f16" : fd == TK_F64 ? "f64" : "f32";
    const char *reg = fd == TK_F16 ? "h" : fd == TK_F64 ? "d" : "f";
    char text[48], constraints[16];
    snprintf(text, sizeof text, "cvt.rzi.s32.%s $0, $1;", src);
    snprintf(constraints, sizeof constraints, "=r,%s", reg);
    if (fd == TK_F16) v = LLVMBuildBitCast(c->b, v, c->t_i16, ""), constraints[3] = 'h';
    LLVMValueRef w = cg_asm_call(c, c->t_i32, text, constraints, &v, 1, false);
    unsigned bits = tk_dtype_bits(td);
    int64_t hi = is_signed ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1, lo = is_signed ? -(1ll << (bits - 1)) : 0;
    LLVMValueRef top = cg_i32(c, hi), bottom = cg_i32(c, lo);
    w = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, w, top, ""), top, w, "");
    w = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, w, bottom, ""), bottom, w, "");
    return LLVMBuildTrunc(c->b, w, tt, "");
}

LLVMValueRef cg_cast(cg *c, const tk_type *from, const tk_type *to, LLVMValueRef v) {
    const tk_type *fe = cg_elem_of(from), *te = cg_elem_of(to);
    LLVMTypeRef tt = cg_elem_type(c, to);
    /* pointers are opaque: to another pointee they are the same value */
    if (te->kind == TK_TYPE_POINTER) return fe->kind == TK_TYPE_POINTER ? v : LLVMBuildIntToPtr(c->b, v, tt, "");
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
    if (!ff && tf) {
        if (tk_dtype_is_signed(fd) && fd != TK_I1) return LLVMBuildSIToFP(c->b, v, tt, "");
        if (tk_dtype_bits(td) == 16 && fd != TK_I1) v = opaque_to_vectorizer(c, v);
        return LLVMBuildUIToFP(c->b, v, tt, "");
    }
    if (ff && !tf) {
        if (tk_dtype_bits(td) < 32) return narrow_float_to_int(c, fd, td, v, tt);
        return tk_dtype_is_signed(td) ? LLVMBuildFPToSI(c->b, v, tt, "") : LLVMBuildFPToUI(c->b, v, tt, "");
    }
    unsigned fb = tk_dtype_bits(fd), tb = tk_dtype_bits(td);
    if (fd == TK_F16 && td == TK_BF16) return LLVMBuildFPTrunc(c->b, LLVMBuildFPExt(c->b, v, c->t_f32, ""), tt, "");
    if (fd == TK_BF16 && td == TK_F16) return LLVMBuildFPTrunc(c->b, LLVMBuildFPExt(c->b, v, c->t_f32, ""), tt, "");
    return fb < tb ? LLVMBuildFPExt(c->b, v, tt, "") : fb > tb ? LLVMBuildFPTrunc(c->b, v, tt, "") : v;
}

/* ---- fp8 and round-toward-zero conversions (PTX cvt, as Triton) --------- */

static const char *f8_name(tk_dtype d) { return d == TK_F8E4M3 ? "e4m3x2" : "e5m2x2"; }

/* An fp8 byte's f16 value (exact: every e4m3 and e5m2 value is an f16)
 * where the target has no fp8 cvt (before sm_89): e5m2 is f16's top byte;
 * e4m3's bits shifted into f16's are its value times 2^-8 (subnormals
 * too), scaled back exactly, its NaN (magnitude 0x7F) made NaN. */
static LLVMValueRef f8_to_f16_bits(cg *c, tk_dtype from, LLVMValueRef byte) {
    LLVMValueRef x = LLVMBuildZExt(c->b, byte, c->t_i16, "");
    if (from == TK_F8E5M2) return LLVMBuildBitCast(c->b, LLVMBuildShl(c->b, x, LLVMConstInt(c->t_i16, 8, 0), ""), c->t_f16, "");
    LLVMValueRef mag = LLVMBuildAnd(c->b, x, LLVMConstInt(c->t_i16, 0x7F, 0), "");
    LLVMValueRef sign = LLVMBuildShl(c->b, LLVMBuildAnd(c->b, x, LLVMConstInt(c->t_i16, 0x80, 0), ""),
                                     LLVMConstInt(c->t_i16, 8, 0), "");
    LLVMValueRef bits = LLVMBuildOr(c->b, LLVMBuildShl(c->b, mag, LLVMConstInt(c->t_i16, 7, 0), ""), sign, "");
    LLVMValueRef scaled = LLVMBuildFMul(c->b, LLVMBuildBitCast(c->b, bits, c->t_f16, ""), LLVMConstReal(c->t_f16, 256.0), "");
    LLVMValueRef nan = LLVMBuildBitCast(c->b, LLVMBuildOr(c->b, sign, LLVMConstInt(c->t_i16, 0x7E00, 0), ""), c->t_f16, "");
    LLVMValueRef is_nan = LLVMBuildICmp(c->b, LLVMIntEQ, mag, LLVMConstInt(c->t_i16, 0x7F, 0), "");
    return LLVMBuildSelect(c->b, is_nan, nan, scaled, "");
}

/* fp8 values live in registers as their byte. To fp8: through f32 and
 * cvt.rn.satfinite (finite values saturate, as Triton; sm_89 and newer
 * only); from fp8: cvt to f16 (bit arithmetic before sm_89), then the
 * ordinary conversion. */
LLVMValueRef cg_cast_f8(cg *c, tk_dtype from, bool f8_from, tk_dtype to, bool f8_to, const tk_type *ft,
                        const tk_type *tt, LLVMValueRef x) {
    char text[96];
    if (f8_from) {
        LLVMValueRef half;
        if (c->target->has_fp8) {
            snprintf(text, sizeof text, "cvt.rn.f16x2.%s $0, $1;", f8_name(from));
            LLVMValueRef pair = cg_asm_call(c, c->t_i32, text, "=r,h",
                                            (LLVMValueRef[]){LLVMBuildZExt(c->b, x, c->t_i16, "")}, 1, false);
            half = LLVMBuildBitCast(c->b, LLVMBuildTrunc(c->b, pair, c->t_i16, ""), c->t_f16, "");
        } else {
            half = f8_to_f16_bits(c, from, x);
        }
        tk_type h = {0};
        h.kind = TK_TYPE_SCALAR;
        h.dtype = TK_F16;
        if (f8_to) {
            x = half;
            from = TK_F16;
            ft = &h;
        } else {
            return cg_cast(c, &h, tt, half);
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
    LLVMValueRef pair = cg_asm_call(c, c->t_i16, text, "=h,f,f", args, 2, false);
    (void)to;
    return LLVMBuildTrunc(c->b, pair, c->t_i8, "");
}

LLVMValueRef cg_cast_rtz(cg *c, const tk_tir_op *op, tk_dtype from, tk_dtype to, LLVMValueRef x) {
    /* f64 to a 16-bit float in two truncations, with the same result as
     * one: every f16 and bf16 value is an f32, so the f32 truncation
     * stays between x and x's 16-bit truncation */
    if (from == TK_F64 && (to == TK_F16 || to == TK_BF16))
        return cg_cast_rtz(c, op, TK_F32, to, cg_cast_rtz(c, op, TK_F64, TK_F32, x));
    const char *text = NULL, *cons = NULL;
    LLVMTypeRef rt = NULL;
    if (from == TK_F32 && to == TK_F16) { text = "cvt.rz.f16.f32 $0, $1;"; cons = "=h,f"; rt = c->t_i16; }
    else if (from == TK_F32 && to == TK_BF16) { text = "cvt.rz.bf16.f32 $0, $1;"; cons = "=h,f"; rt = c->t_i16; }
    else if (from == TK_F64 && to == TK_F32) { text = "cvt.rz.f32.f64 $0, $1;"; cons = "=f,d"; rt = c->t_f32; }
    if (!text) {
        cg_not_yet(c, op, tk_arena_printf(c->arena, "fp_downcast_rounding=\"rtz\" from %s to %s",
                                          tk_dtype_name(from), tk_dtype_name(to)));
        return LLVMGetPoison(c->t_f32);
    }
    LLVMValueRef r = cg_asm_call(c, rt, text, cons, &x, 1, false);
    if (to == TK_F16) return LLVMBuildBitCast(c->b, r, c->t_f16, "");
    if (to == TK_BF16) return LLVMBuildBitCast(c->b, r, c->t_bf16, "");
    return r;
}
