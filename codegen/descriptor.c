/* Descriptor parameters (tensor_descriptor[...] in a kernel's signature).
 * The launcher passes each as one 64-byte aligned block of parameter
 * memory, runtime_stub's tkrt_tensor_arg: a CUtensorMap for TMA, then the
 * tensor's data, shape and strides (int64 each). The kernel takes it as a
 * grid constant (`.param .align 64 .b8 [256]`), so that reads are ld.param
 * and TMA can name the map where it lies.
 * Needs: desc_field ops on the kernel's own parameters (lower/build.c).
 * Guarantees: the parameter's attributes, and each field read as its type. */
#include "internal.h"

#include <string.h>

/* tkrt_tensor_arg's layout (runtime_stub/tkrt.h; the header checks it) */
enum { TENSOR_ARG_BYTES = 256, TENSOR_ARG_DATA = 128, TENSOR_ARG_SHAPE = 136, TENSOR_ARG_STRIDES = 176 };

void cg_descriptor_param_attributes(cg *c, LLVMValueRef fn, unsigned index) {
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
    unsigned align = LLVMGetEnumAttributeKindForName("align", 5);
    LLVMTypeRef block = LLVMArrayType2(c->t_i8, TENSOR_ARG_BYTES);
    LLVMAddAttributeAtIndex(fn, index + 1, LLVMCreateTypeAttribute(c->ctx, byval, block));
    LLVMAddAttributeAtIndex(fn, index + 1, LLVMCreateEnumAttribute(c->ctx, align, 64));
    LLVMAddAttributeAtIndex(fn, index + 1, LLVMCreateStringAttribute(c->ctx, "nvvm.grid_constant", 18, "", 0));
}

void cg_emit_desc_field(cg *c, const tk_tir_op *op) {
    const tk_tir_value *res = op->results.data[0];
    LLVMValueRef param = cg_get(c, op->operands.data[0])->r[0];
    int64_t dim = tk_tir_attr_int(op, "dim", 0);
    int64_t at = op->sub == TIR_DESC_DATA ? TENSOR_ARG_DATA
                 : (op->sub == TIR_DESC_SHAPE ? TENSOR_ARG_SHAPE : TENSOR_ARG_STRIDES) + 8 * dim;
    LLVMValueRef offset = LLVMConstInt(c->t_i64, (unsigned long long)at, 0);
    LLVMValueRef field = LLVMBuildGEP2(c->b, c->t_i8, param, &offset, 1, "");
    /* a shape is read as its low 32 bits: the launcher checked it fits */
    LLVMTypeRef t = op->sub == TIR_DESC_DATA ? c->t_ptr1 : cg_elem_type(c, res->type);
    LLVMValueRef v = LLVMBuildLoad2(c->b, t, field, "");
    LLVMSetAlignment(v, 8);
    cgval out = cg_newval(c, 1);
    out.r[0] = v;
    *cg_get(c, res) = out;
}
