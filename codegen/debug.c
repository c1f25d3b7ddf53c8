/* device_print and device_assert. A print goes through vprintf, each
 * element once (its owner thread): "PREFIX pid (x, y, z) idx (i, j) VALUE".
 * An assert is emitted under -g/--debug only: a false element calls
 * __assertfail with the message and the .tk position, which stops the
 * kernel (the launch then reports the CUDA error). */
#include "internal.h"

#include <string.h>

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
void cg_emit_print(cg *c, const tk_tir_op *op) {
    const char *prefix = tk_tir_attr_text(op, "prefix");
    bool hex = tk_tir_attr_int(op, "hex", 0) != 0;
    LLVMTypeRef ptr0 = LLVMPointerTypeInContext(c->ctx, 0);
    LLVMTypeRef params[2] = {ptr0, ptr0};
    LLVMValueRef vprintf = cg_declare(c, "vprintf", c->t_i32, params, 2);
    LLVMTypeRef vty = LLVMFunctionType(c->t_i32, params, 2, 0);
    LLVMValueRef pid[3] = {cg_sreg(c, "ctaid.x"), cg_sreg(c, "ctaid.y"), cg_sreg(c, "ctaid.z")};
    for (uint32_t a = 0; a < op->operands.len; a++) {
        const tk_tir_value *v = op->operands.data[a];
        cgval *vv = cg_get(c, v);
        const tk_type *e = cg_elem_of(v->type);
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
            LLVMValueRef own = cg_owner(c, rank ? v->layout : NULL, r);
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
                vals[nf++] = LLVMBuildAnd(c->b, LLVMBuildUDiv(c->b, cg_reg_flat(c, v->layout, r), cg_i32(c, (int64_t)stride), ""),
                                          cg_i32(c, v->type->shape[d] - 1), "");
            }
            LLVMValueRef x = vv->r[r];
            if (flt) x = LLVMBuildFPExt(c->b, x, c->t_f64, "");
            else if (LLVMTypeOf(x) == c->t_ptr1) x = LLVMBuildPtrToInt(c->b, x, c->t_i64, "");
            else if (!wide) x = cg_is_signed(v->type) ? LLVMBuildSExt(c->b, x, c->t_i32, "") : LLVMBuildZExt(c->b, x, c->t_i32, "");
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
void cg_emit_assert(cg *c, const tk_tir_op *op) {
    if (!c->debug) return;
    const tk_tir_value *cond = op->operands.data[0];
    const tk_tir_value *mask = op->operands.len > 1 ? op->operands.data[1] : NULL;
    const char *msg = tk_tir_attr_text(op, "message");
    LLVMTypeRef ptr0 = LLVMPointerTypeInContext(c->ctx, 0);
    LLVMTypeRef params[5] = {ptr0, ptr0, c->t_i32, ptr0, c->t_i64};
    LLVMValueRef fail = cg_declare(c, "__assertfail", c->t_void, params, 5);
    LLVMTypeRef fty = LLVMFunctionType(c->t_void, params, 5, 0);
    const char *file = op->loc.src ? tk_path_remap(c->arena, op->loc.src->name, c->path_maps) : "?";
    LLVMValueRef text = cstring(c, msg && *msg ? msg : "device_assert failed");
    LLVMValueRef file_ptr = cstring(c, file);
    LLVMValueRef fn_name = cstring(c, c->k->sema->name);
    cgval *cv = cg_get(c, cond);
    for (uint32_t r = 0; r < cv->n; r++) {
        LLVMValueRef bad = LLVMBuildNot(c->b, cv->r[r], "");
        if (mask) bad = LLVMBuildAnd(c->b, bad, cg_operand(c, op, 1, r), "");
        LLVMBasicBlockRef act = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "assert.fail");
        LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(c->ctx, c->fn, "assert.end");
        LLVMBuildCondBr(c->b, bad, act, join);
        LLVMPositionBuilderAtEnd(c->b, act);
        LLVMValueRef args[5] = {text, file_ptr, cg_i32(c, op->loc.line), fn_name, LLVMConstInt(c->t_i64, 1, 0)};
        LLVMBuildCall2(c->b, fty, fail, args, 5, "");
        LLVMBuildBr(c->b, join);
        LLVMPositionBuilderAtEnd(c->b, join);
    }
}
