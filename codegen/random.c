/* tl.rand, tl.randn, tl.randint and their 4x forms: Triton's Philox 4x32
 * (10 rounds by default, n_rounds otherwise) keyed by the seed's two
 * words, counting from the offset; floats in [0, 1) as Triton makes them,
 * normals by Box-Muller on pairs of words. Element-wise: no layout or
 * scratch needed. */
#include "internal.h"

static LLVMValueRef cu32(cg *c, uint32_t v) { return LLVMConstInt(c->t_i32, v, 0); }

static LLVMValueRef mulhi32(cg *c, uint32_t a, LLVMValueRef b) {
    LLVMValueRef p = LLVMBuildMul(c->b, LLVMConstInt(c->t_i64, a, 0), LLVMBuildZExt(c->b, b, c->t_i64, ""), "");
    return LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, p, LLVMConstInt(c->t_i64, 32, 0), ""), c->t_i32, "");
}

/* u32 -> f32 in [0, 1), as Triton: the bits as i32, negatives folded */
static LLVMValueRef uniform(cg *c, LLVMValueRef x) {
    LLVMValueRef neg = LLVMBuildICmp(c->b, LLVMIntSLT, x, cg_i32(c, 0), "");
    LLVMValueRef folded = LLVMBuildSub(c->b, LLVMBuildNeg(c->b, x, ""), cg_i32(c, 1), "");
    LLVMValueRef v = LLVMBuildSelect(c->b, neg, folded, x, "");
    return LLVMBuildFMul(c->b, LLVMBuildSIToFP(c->b, v, c->t_f32, ""), LLVMConstReal(c->t_f32, 4.6566127342e-10), "");
}

void cg_emit_random(cg *c, const tk_tir_op *op) {
    int id = op->sub;
    const tk_tir_value *seed_v = op->operands.data[0], *off_v = op->operands.data[1], *res = op->results.data[0];
    int64_t rounds = tk_tir_attr_int(op, "n_rounds", 10);
    LLVMValueRef seed = cg_get(c, seed_v)->r[0];
    /* the seed as u64: its low and high words are the two keys */
    LLVMValueRef seed64 = LLVMGetIntTypeWidth(LLVMTypeOf(seed)) == 64 ? seed
                          : cg_is_signed(seed_v->type) ? LLVMBuildSExt(c->b, seed, c->t_i64, "")
                                                       : LLVMBuildZExt(c->b, seed, c->t_i64, "");
    LLVMValueRef key_lo = LLVMBuildTrunc(c->b, seed64, c->t_i32, "");
    LLVMValueRef key_hi = LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, seed64, LLVMConstInt(c->t_i64, 32, 0), ""), c->t_i32, "");
    cgval *ov = cg_get(c, off_v);
    uint32_t n = cg_nregs(res);
    /* the 4x forms return all four words; the others the first */
    uint32_t words = id == TK_B_RANDINT4X || id == TK_B_RAND4X || id == TK_B_RANDN4X ? 4 : 1;
    cgval outs[4];
    for (uint32_t w = 0; w < words; w++) outs[w] = cg_newval(c, n);
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
                u1 = cg_call(c, "llvm.maxnum.f32", c->t_f32, args2, 2);
                LLVMValueRef th = LLVMBuildFMul(c->b, LLVMConstReal(c->t_f32, 6.283185307179586), u2, "");
                LLVMValueRef lg = cg_call(c, "__nv_logf", c->t_f32, &u1, 1);
                LLVMValueRef rr = LLVMBuildFMul(c->b, LLVMConstReal(c->t_f32, -2.0), lg, "");
                LLVMValueRef rad = cg_call(c, "llvm.sqrt.f32", c->t_f32, &rr, 1);
                outs[w].r[r] = LLVMBuildFMul(c->b, rad, cg_call(c, "__nv_cosf", c->t_f32, &th, 1), "");
                if (w + 1 < words) outs[w + 1].r[r] = LLVMBuildFMul(c->b, rad, cg_call(c, "__nv_sinf", c->t_f32, &th, 1), "");
            }
        } else {
            for (uint32_t w = 0; w < words; w++) outs[w].r[r] = uniform(c, word[w]);
        }
    }
    for (uint32_t w = 0; w < words && w < op->results.len; w++) *cg_get(c, op->results.data[w]) = outs[w];
}
