/* Types and small helpers every op family uses: the register type of a
 * tile IR element (i1 a bit, fp8 its byte, a pointer a global pointer), a
 * value's registers (cgval: a tile's in the order of its layout's register
 * bits, a scalar's one), i32 constants, and the report of an op the back
 * end does not handle yet ("not supported by code generation yet", at the
 * op's source position, once a kernel: nothing is built for that kernel). */
#include "internal.h"

LLVMTypeRef cg_dtype_type(cg *c, tk_dtype d) {
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

const tk_type *cg_elem_of(const tk_type *t) { return t->kind == TK_TYPE_TILE ? t->elem : t; }

LLVMTypeRef cg_elem_type(cg *c, const tk_type *t) {
    const tk_type *e = cg_elem_of(t);
    return e->kind == TK_TYPE_POINTER ? c->t_ptr1 : cg_dtype_type(c, e->dtype);
}

bool cg_is_float(const tk_type *t) {
    const tk_type *e = cg_elem_of(t);
    return e->kind == TK_TYPE_SCALAR && tk_dtype_is_float(e->dtype);
}

bool cg_is_signed(const tk_type *t) {
    const tk_type *e = cg_elem_of(t);
    return e->kind == TK_TYPE_SCALAR && tk_dtype_is_signed(e->dtype) && e->dtype != TK_I1;
}

uint32_t cg_nregs(const tk_tir_value *v) {
    return v->type->kind == TK_TYPE_TILE && v->layout ? (uint32_t)tk_ll_num_regs(v->layout) : 1;
}

void cg_not_yet(cg *c, const tk_tir_op *op, const char *what) {
    if (!c->failed)
        tk_error(c->diag, op->loc, "%s is not supported by code generation yet", what);
    c->failed = true;
}

cgval cg_newval(cg *c, uint32_t n) {
    cgval v = {n, TK_NEW_ARRAY(c->arena, LLVMValueRef, n ? n : 1)};
    return v;
}

cgval *cg_get(cg *c, const tk_tir_value *v) { return &c->vals[v->id]; }

/* operand i of an element-wise op, register r */
LLVMValueRef cg_operand(cg *c, const tk_tir_op *op, uint32_t i, uint32_t r) {
    cgval *v = cg_get(c, op->operands.data[i]);
    return v->r[v->n == 1 ? 0 : r];
}

LLVMValueRef cg_i32(cg *c, int64_t v) { return LLVMConstInt(c->t_i32, (unsigned long long)v, 1); }
